import type { CompetitorTermStats, TermAnalyzer, UsageRange, UsageStatus } from '../terms/types.ts';
import { usageRange } from '../terms/competitor-stats.ts';
import { textStats } from './readability.ts';
import type { AnalyzedPage, Category, ScoreCheck } from './types.ts';

/**
 * The checks of the published formula (docs/scoring.md). Every check is a pure function of the source page, the
 * competitor pages and their term statistics; points are rounded to two decimals so the same input always gives the
 * same score.
 */
export interface CheckInput {
  source: AnalyzedPage;
  competitors: readonly AnalyzedPage[];
  stats: CompetitorTermStats;
  keyword: string;
  language: string;
  analyzer: TermAnalyzer;
}

/** Credit per usage status in the coverage checks. */
export const STATUS_CREDIT: Record<UsageStatus, number> = { ok: 1, over: 0.75, under: 0.5, missing: 0 };
export const TOP_TERMS = 40;
export const TOP_ENTITIES = 20;

const round2 = (x: number) => Math.round(x * 100) / 100;
/** 0 at `x0`, 1 at `x1`, linear between, clamped. */
const ramp = (x: number, x0: number, x1: number) => Math.min(1, Math.max(0, (x - x0) / (x1 - x0)));
const list = (xs: readonly string[], n = 6) =>
  xs
    .slice(0, n)
    .map((x) => `"${x}"`)
    .join(', ');

function check(
  category: Category,
  id: string,
  label: string,
  possible: number,
  share: number,
  evidence: Record<string, unknown>,
  recommendation: string,
): ScoreCheck {
  const earned = round2(possible * Math.min(1, Math.max(0, share)));
  return { id, category, label, earned, possible, evidence, recommendation: earned < possible ? recommendation : null };
}

/** Content lemmas of a short text (keyword, title, heading). */
export function lemmas(analyzer: TermAnalyzer, text: string, language: string): Set<string> {
  return new Set(
    analyzer
      .analyzeDocument({ text, language })
      .terms.filter((t) => t.n === 1)
      .map((t) => t.key),
  );
}

/** True when every content lemma of the keyword occurs in the text (in any order). */
function hasKeyword(keywordLemmas: ReadonlySet<string>, textLemmas: ReadonlySet<string>): boolean {
  if (keywordLemmas.size === 0) return false;
  for (const k of keywordLemmas) if (!textLemmas.has(k)) return false;
  return true;
}

function competitorShare(competitors: readonly AnalyzedPage[], has: (p: AnalyzedPage) => boolean): number {
  return competitors.length ? competitors.filter(has).length / competitors.length : 0;
}

function rangeOf(values: number[]): UsageRange {
  return values.length ? usageRange(values) : { p25: 0, median: 0, p75: 0 };
}

function coverageChecks(i: CheckInput): ScoreCheck[] {
  const out: ScoreCheck[] = [];
  const groups = [
    {
      id: 'coverage.terms',
      label: 'Coverage of the terms the ranking pages use',
      possible: 25,
      rows: i.stats.terms.slice(0, TOP_TERMS),
      what: 'terms',
    },
    {
      id: 'coverage.entities',
      label: 'Coverage of the entities the ranking pages mention',
      possible: 10,
      rows: i.stats.entities.slice(0, TOP_ENTITIES),
      what: 'entities',
    },
  ];
  for (const g of groups) {
    const total = g.rows.reduce((a, r) => a + r.importance, 0);
    if (total === 0) {
      out.push(
        check(
          'coverage',
          g.id,
          g.label,
          g.possible,
          1,
          { considered: 0, note: `the competitor pages share no ${g.what}` },
          '',
        ),
      );
      continue;
    }
    const earnedWeight = g.rows.reduce((a, r) => a + r.importance * STATUS_CREDIT[r.status ?? 'missing'], 0);
    const by = (s: UsageStatus) => g.rows.filter((r) => r.status === s).map((r) => r.display);
    const missing = by('missing');
    const under = by('under');
    const parts = [
      missing.length ? `Cover ${g.what} the ranking pages use that this page lacks: ${list(missing)}.` : '',
      under.length ? `Use these more, as the ranking pages do: ${list(under)}.` : '',
      by('over').length ? `Use these less often: ${list(by('over'))}.` : '',
    ].filter(Boolean);
    out.push(
      check(
        'coverage',
        g.id,
        g.label,
        g.possible,
        earnedWeight / total,
        {
          considered: g.rows.length,
          ok: by('ok').length,
          under: under.length,
          over: by('over').length,
          missing: missing.length,
          missing_examples: missing.slice(0, 10),
          under_examples: under.slice(0, 10),
        },
        parts.join(' '),
      ),
    );
  }
  return out;
}

function lengthCheck(i: CheckInput): ScoreCheck {
  const wc = i.source.extraction.wordCount;
  const r = rangeOf(i.competitors.map((c) => c.extraction.wordCount));
  const upper = Math.max(r.p75 * 1.5, r.p75 + 300);
  const share = r.p25 === 0 ? 1 : wc < r.p25 ? wc / r.p25 : wc > upper ? 0.7 : 1;
  const rec =
    wc < r.p25
      ? `Expand the page from ${wc} to at least ${Math.round(r.p25)} words (ranking pages: ${Math.round(r.p25)}-${Math.round(r.p75)}).`
      : `Trim the page towards ${Math.round(r.p75)} words; it is far longer than the ranking pages.`;
  return check(
    'length',
    'length.words',
    'Main-content length against the ranking pages',
    10,
    share,
    { word_count: wc, competitor_p25: r.p25, competitor_median: r.median, competitor_p75: r.p75 },
    rec,
  );
}

function headingChecks(i: CheckInput, keywordLemmas: ReadonlySet<string>): ScoreCheck[] {
  const { extraction } = i.source;
  const h1 = extraction.h1.trim();
  const subCount = (p: AnalyzedPage) => p.extraction.headings.filter((h) => h.level === 2 || h.level === 3).length;
  const compSubs = rangeOf(i.competitors.map(subCount));
  const mine = subCount(i.source);
  const headingTerms = i.stats.terms.filter((t) => t.headingPages >= Math.ceil(i.stats.pageCount / 2)).slice(0, 15);
  const inHeadings = headingTerms.filter((t) => (t.sourceHeadingCount ?? 0) > 0);
  const levels = extraction.headings.map((h) => h.level);
  let issues = 0;
  const problems: string[] = [];
  const h1s = levels.filter((l) => l === 1).length + (h1 && !levels.includes(1) ? 1 : 0);
  if (h1s !== 1) {
    issues++;
    problems.push(`${h1s} H1 headings`);
  }
  for (let k = 1; k < levels.length; k++) {
    if (levels[k]! > levels[k - 1]! + 1) {
      issues++;
      problems.push(`H${levels[k - 1]} followed by H${levels[k]}`);
      break;
    }
  }
  return [
    check(
      'headings',
      'headings.h1',
      'The page has an H1',
      2,
      h1 ? 1 : 0,
      { h1 },
      'Give the page one H1 that names its topic.',
    ),
    check(
      'headings',
      'headings.h1_keyword',
      'The H1 contains the keyword',
      3,
      hasKeyword(keywordLemmas, lemmas(i.analyzer, h1, i.language)) ? 1 : 0,
      { h1, keyword: i.keyword },
      `Put "${i.keyword}" in the H1.`,
    ),
    check(
      'headings',
      'headings.sections',
      'Sections (H2/H3) against the ranking pages',
      4,
      compSubs.median === 0 ? 1 : mine / compSubs.median,
      { subheadings: mine, competitor_median: compSubs.median },
      `Add sections: the ranking pages have about ${Math.round(compSubs.median)} H2/H3 headings, this page ${mine}.`,
    ),
    check(
      'headings',
      'headings.terms',
      'Terms the ranking pages put in headings',
      3,
      headingTerms.length === 0 ? 1 : inHeadings.length / headingTerms.length,
      {
        considered: headingTerms.length,
        used: inHeadings.length,
        missing_examples: headingTerms
          .filter((t) => !inHeadings.includes(t))
          .map((t) => t.display)
          .slice(0, 10),
      },
      `Use these in headings, as most ranking pages do: ${list(headingTerms.filter((t) => !inHeadings.includes(t)).map((t) => t.display))}.`,
    ),
    check(
      'headings',
      'headings.hierarchy',
      'One H1 and no skipped heading levels',
      3,
      issues === 0 ? 1 : issues === 1 ? 0.5 : 0,
      { problems },
      `Fix the heading outline: ${problems.join('; ')}.`,
    ),
  ];
}

function metadataChecks(i: CheckInput, keywordLemmas: ReadonlySet<string>): ScoreCheck[] {
  const { title, metaDescription, canonical, lang } = i.source.extraction;
  const t = title.trim();
  const d = metaDescription.trim();
  return [
    check('metadata', 'metadata.title', 'The page has a title', 2, t ? 1 : 0, { title: t }, 'Add a <title>.'),
    check(
      'metadata',
      'metadata.title_keyword',
      'The title contains the keyword',
      4,
      hasKeyword(keywordLemmas, lemmas(i.analyzer, t, i.language)) ? 1 : 0,
      { title: t, keyword: i.keyword },
      `Put "${i.keyword}" in the title.`,
    ),
    check(
      'metadata',
      'metadata.title_length',
      'Title length 15-65 characters',
      2,
      t.length >= 15 && t.length <= 65 ? 1 : 0,
      { length: t.length },
      'Keep the title between 15 and 65 characters so it is not cut in results.',
    ),
    check(
      'metadata',
      'metadata.description',
      'The page has a meta description',
      2,
      d ? 1 : 0,
      { description: d },
      'Add a meta description that summarises the page.',
    ),
    check(
      'metadata',
      'metadata.description_length',
      'Meta description length 50-160 characters',
      1,
      d.length >= 50 && d.length <= 160 ? 1 : 0,
      { length: d.length },
      'Keep the meta description between 50 and 160 characters.',
    ),
    check(
      'metadata',
      'metadata.description_keyword',
      'The meta description contains the keyword',
      2,
      hasKeyword(keywordLemmas, lemmas(i.analyzer, d, i.language)) ? 1 : 0,
      { keyword: i.keyword },
      `Mention "${i.keyword}" in the meta description.`,
    ),
    check(
      'metadata',
      'metadata.canonical',
      'The page declares a canonical URL',
      1,
      canonical ? 1 : 0,
      { canonical },
      'Add <link rel="canonical">.',
    ),
    check(
      'metadata',
      'metadata.lang',
      'The page declares its language',
      1,
      lang ? 1 : 0,
      { lang },
      'Set the lang attribute on <html>.',
    ),
  ];
}

function readabilityChecks(i: CheckInput): ScoreCheck[] {
  const { mainText, paragraphs } = i.source.extraction;
  const s = textStats(mainText, i.language);
  // Without paragraph markup, the main text's lines are the paragraphs.
  const blocks = paragraphs.length ? paragraphs : mainText.split('\n').filter((l) => l.trim());
  const paraWords = blocks.length ? blocks.map((p) => p.split(/\s+/).filter(Boolean).length) : [s.words];
  const avgPara = paraWords.reduce((a, b) => a + b, 0) / Math.max(1, paraWords.length);
  const out = [
    check(
      'readability',
      'readability.sentence_length',
      'Average sentence length at most 20 words',
      4,
      s.words === 0 ? 0 : 1 - ramp(s.avgSentenceWords, 20, 35),
      { average_words: round2(s.avgSentenceWords), sentences: s.sentences },
      'Shorten long sentences (aim for 20 words or fewer on average).',
    ),
    check(
      'readability',
      'readability.paragraph_length',
      'Average paragraph length at most 100 words',
      3,
      s.words === 0 ? 0 : 1 - ramp(avgPara, 100, 250),
      { average_words: round2(avgPara), paragraphs: paraWords.length },
      'Break long paragraphs up (100 words or fewer on average).',
    ),
  ];
  if (s.fleschReadingEase !== null) {
    out.push(
      check(
        'readability',
        'readability.reading_ease',
        'Flesch reading ease of at least 50',
        3,
        ramp(s.fleschReadingEase, 20, 50),
        { flesch_reading_ease: round2(s.fleschReadingEase) },
        'Use shorter words and sentences to make the text easier to read.',
      ),
    );
  } else {
    const avgWord = s.words ? mainText.replace(/\s+/g, '').length / s.words : 0;
    out.push(
      check(
        'readability',
        'readability.word_length',
        'Average word length at most 7 characters',
        3,
        s.words === 0 ? 0 : 1 - ramp(avgWord, 7, 10),
        { average_characters: round2(avgWord) },
        'Prefer shorter, plainer words.',
      ),
    );
  }
  return out;
}

const hasFaq = (p: AnalyzedPage) =>
  p.extraction.structuredData.faq.length > 0 ||
  p.extraction.headings.some((h) => /\b(faq|frequently asked)/i.test(h.text)) ||
  p.extraction.headings.filter((h) => h.text.trim().endsWith('?')).length >= 3;

function structureChecks(i: CheckInput, keywordLemmas: ReadonlySet<string>): ScoreCheck[] {
  const { extraction } = i.source;
  const intro = extraction.mainText.split(/\s+/).slice(0, 100).join(' ');
  const listShare = competitorShare(i.competitors, (p) => p.extraction.lists.length > 0);
  const tableShare = competitorShare(i.competitors, (p) => p.extraction.tables.length > 0);
  const imageShare = competitorShare(i.competitors, (p) => p.extraction.images.length > 0);
  const faqShare = competitorShare(i.competitors, hasFaq);
  const internal = extraction.links.filter((l) => l.internal).length;
  const images = extraction.images;
  const withAlt = images.filter((im) => im.alt.trim()).length;
  return [
    check(
      'structure',
      'structure.intro_keyword',
      'The keyword appears in the first 100 words',
      3,
      hasKeyword(keywordLemmas, lemmas(i.analyzer, intro, i.language)) ? 1 : 0,
      { keyword: i.keyword },
      `Mention "${i.keyword}" in the opening paragraph.`,
    ),
    check(
      'structure',
      'structure.lists',
      'Lists where the ranking pages use them',
      3,
      listShare < 0.5 || extraction.lists.length > 0 ? 1 : 0,
      { lists: extraction.lists.length, competitor_share: round2(listShare) },
      'Add a bulleted or numbered list: most ranking pages use one.',
    ),
    check(
      'structure',
      'structure.tables',
      'Tables where the ranking pages use them',
      2,
      tableShare < 0.5 || extraction.tables.length > 0 ? 1 : 0,
      { tables: extraction.tables.length, competitor_share: round2(tableShare) },
      'Add a comparison or data table: most ranking pages have one.',
    ),
    check(
      'structure',
      'structure.images',
      'Images with alt text',
      2,
      images.length ? withAlt / images.length : imageShare >= 0.5 ? 0 : 1,
      { images: images.length, with_alt: withAlt, competitor_share: round2(imageShare) },
      images.length
        ? 'Give every image a descriptive alt text.'
        : 'Add relevant images with alt text: most ranking pages have them.',
    ),
    check(
      'structure',
      'structure.internal_links',
      'At least 3 internal links in the content',
      2,
      internal >= 3 ? 1 : internal / 3,
      { internal_links: internal },
      'Link to at least 3 related pages of the same site from the content.',
    ),
    check(
      'structure',
      'structure.faq',
      'An FAQ section where the ranking pages have one',
      3,
      faqShare < 1 / 3 || hasFaq(i.source) ? 1 : 0,
      { has_faq: hasFaq(i.source), competitor_share: round2(faqShare) },
      'Add an FAQ section (with FAQPage structured data) answering the questions ranking pages answer.',
    ),
  ];
}

/** Every check of the formula, in a fixed order. */
export function runChecks(i: CheckInput): ScoreCheck[] {
  const keywordLemmas = lemmas(i.analyzer, i.keyword, i.language);
  return [
    ...coverageChecks(i),
    lengthCheck(i),
    ...headingChecks(i, keywordLemmas),
    ...metadataChecks(i, keywordLemmas),
    ...readabilityChecks(i),
    ...structureChecks(i, keywordLemmas),
  ];
}
