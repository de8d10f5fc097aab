/**
 * Version 3's page checks: length (never "trim" a page that covers as much as the median competitor, never below
 * their p75, never on low confidence), structure with truthful counts ("3 of 5 ranking pages have a table"), and
 * version 2's heading and metadata checks at version 3's weights.
 */
import { check, headingChecks, metadataChecks, targetWords, termRows, type CheckInput } from '../checks.ts';
import { hasFaq } from '../model.ts';
import type { ScoreCheck } from '../types.ts';

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Below this many competitors a model's advice is low-confidence (as the run's `confidence`). */
export const CONFIDENT_PAGES = 3;

/** The checks with every `possible` (and `earned`) scaled so their total is `total`. */
export function rescale(checks: readonly ScoreCheck[], total: number): ScoreCheck[] {
  const sum = checks.reduce((a, c) => a + c.possible, 0);
  const f = sum ? total / sum : 0;
  return checks.map((c) => ({ ...c, possible: round2(c.possible * f), earned: round2(c.earned * f) }));
}

export interface Thoroughness {
  /** Model terms and names the page uses, facts of the list it states. */
  terms: number;
  facts: number;
  /** The median competitor's. */
  median: { terms: number; facts: number };
  thorough: boolean;
}

/**
 * Length against the relevant competitors: shorter than their p25 earns its share; far longer than their p75
 * (more than max(1.5 x p75, p75 + 300) words) loses points and is told to trim towards p75, unless the page is
 * thorough (it covers at least as many of the model's terms and facts as the median competitor) or the model rests
 * on fewer than 3 pages.
 */
export function lengthCheck(i: CheckInput, thorough: Thoroughness, possible: number): ScoreCheck {
  const wc = i.source.extraction.wordCount;
  const r = i.model.wordCount;
  const ceiling = Math.max(r.p75 * 1.5, r.p75 + 300);
  const confident = i.model.pageCount >= CONFIDENT_PAGES;
  const long = r.p25 > 0 && wc > ceiling;
  const trim = long && confident && !thorough.thorough;
  const share = r.p25 === 0 ? 1 : wc < r.p25 ? wc / r.p25 : trim ? 0.7 : 1;
  const range = `${Math.round(r.p25)}-${Math.round(r.p75)}`;
  const note = !long
    ? null
    : thorough.thorough
      ? `longer than the ranking pages (${range}) and as thorough as the median one: no need to trim`
      : !confident
        ? `longer than the ranking pages (${range}), but fewer than ${CONFIDENT_PAGES} of them to judge by`
        : null;
  return check(
    'length',
    'length.words',
    'Main-content length against the ranking pages',
    possible,
    share,
    {
      word_count: wc,
      competitor_p25: r.p25,
      competitor_median: r.median,
      competitor_p75: r.p75,
      terms_used: thorough.terms,
      facts_stated: thorough.facts,
      median_competitor: thorough.median,
      thorough: thorough.thorough,
      ...(note ? { note } : {}),
    },
    wc < r.p25
      ? `Expand the page from ${wc} to at least ${Math.round(r.p25)} words (ranking pages: ${range}).`
      : `Trim the page from ${wc} towards ${Math.round(r.p75)} words: it is far longer than the ranking pages (${range}) but covers fewer of their terms and facts (${thorough.terms} and ${thorough.facts}) than the median one (${thorough.median.terms} and ${thorough.median.facts}).`,
  );
}

/** "3 of 5 ranking pages": a share of the model's pages as a count. */
function pagesWith(share: number, pageCount: number): number {
  return Math.round(share * pageCount);
}

/**
 * Lists, tables and images are asked for when most ranking pages (more than half) have them, an FAQ when at least a
 * third do; every request says how many do. Internal links: at least 3 from the content.
 */
export function structureChecks(i: CheckInput, possible: number): ScoreCheck[] {
  const e = i.source.extraction;
  const n = i.model.pageCount;
  const { lists, tables, images: imageShare, faq } = i.model.shares;
  const count = { lists: pagesWith(lists, n), tables: pagesWith(tables, n), images: pagesWith(imageShare, n) };
  const most = (k: number) => k * 2 > n;
  const internal = e.links.filter((l) => l.internal).length;
  const withAlt = e.images.filter((im) => im.alt.trim()).length;
  const each = round2(possible / 5);
  // "2 of 4 ranking pages have one", "1 of 1 ranking page has one".
  const of = (k: number, what: string) =>
    `${k} of ${n} ranking ${n === 1 ? `page ${what.replace(/^have/, 'has').replace(/^use /, 'uses ')}` : `pages ${what}`}`;
  return [
    check(
      'structure',
      'structure.lists',
      'Lists where most ranking pages use them',
      each,
      !most(count.lists) || e.lists.length > 0 ? 1 : 0,
      { lists: e.lists.length, competitors_with_lists: count.lists, competitors: n },
      `Add a bulleted or numbered list: ${of(count.lists, 'use one')}.`,
    ),
    check(
      'structure',
      'structure.tables',
      'Tables where most ranking pages have them',
      each,
      !most(count.tables) || e.tables.length > 0 ? 1 : 0,
      { tables: e.tables.length, competitors_with_tables: count.tables, competitors: n },
      `Add a comparison or data table: ${of(count.tables, 'have one')}.`,
    ),
    check(
      'structure',
      'structure.images',
      'Images with alt text',
      each,
      e.images.length ? withAlt / e.images.length : most(count.images) ? 0 : 1,
      { images: e.images.length, with_alt: withAlt, competitors_with_images: count.images, competitors: n },
      e.images.length
        ? `Give every image a descriptive alt text (${e.images.length - withAlt} of ${e.images.length} lack one).`
        : `Add relevant images with alt text: ${of(count.images, 'have them')}.`,
    ),
    check(
      'structure',
      'structure.internal_links',
      'At least 3 internal links in the content',
      each,
      internal >= 3 ? 1 : internal / 3,
      { internal_links: internal },
      `Link to at least 3 related pages of the same site from the content (now ${internal}).`,
    ),
    check(
      'structure',
      'structure.faq',
      'An FAQ section where at least a third of the ranking pages have one',
      each,
      faq < 1 / 3 || hasFaq(i.source) ? 1 : 0,
      { has_faq: hasFaq(i.source), competitors_with_faq: pagesWith(faq, n), competitors: n },
      `Add an FAQ section (with FAQPage structured data) answering the questions the ranking pages answer: ${of(pagesWith(faq, n), 'have one')}.`,
    ),
  ];
}

/** Version 2's heading and metadata checks, weighed `headings` and `metadata` points in all. */
export function headingAndMetadataChecks(i: CheckInput, points: { headings: number; metadata: number }): ScoreCheck[] {
  const rows = termRows(i, targetWords(i.source.extraction.wordCount, i.model));
  return [...rescale(headingChecks(i, rows.terms), points.headings), ...rescale(metadataChecks(i), points.metadata)];
}
