import type { DocumentTerms, TermAnalyzer, UsageStatus } from '../terms/types.ts';
import { textStats } from './readability.ts';
import { headShare, OPENING_WORDS, stemSet } from './relevance.ts';
import { hasFaq, matchKey, subheadingCount, type CompetitorModel, type ModelTerm } from './model.ts';
import type { AnalyzedPage, Category, ScoreCheck, TermAdvice } from './types.ts';

/**
 * The checks of the published formula (docs/scoring.md). Every check is a pure function of the source page and the
 * competitor model; points are rounded to two decimals so the same input always gives the same score.
 */
export interface CheckInput {
  source: AnalyzedPage;
  model: CompetitorModel;
  analyzer: TermAnalyzer;
}

/** Credit per usage status in the coverage checks. */
export const STATUS_CREDIT: Record<UsageStatus, number> = { ok: 1, over: 0.75, under: 0.5, missing: 0 };
/** A head term is only "overused" above the competitors' highest rate and above this many uses per 1,000 words. */
export const STUFFING_PER_1000 = 30;
/** A term is overused when its uses exceed 1.5 x the competitors' p75 at the target length by at least 2. */
const OVER_FACTOR = 1.5;
const OVER_MARGIN = 2;

const round1 = (x: number) => Math.round(x * 10) / 10;
const round2 = (x: number) => Math.round(x * 100) / 100;
/** 0 at `x0`, 1 at `x1`, linear between, clamped. */
export const ramp = (x: number, x0: number, x1: number) => Math.min(1, Math.max(0, (x - x0) / (x1 - x0)));
export const list = (xs: readonly string[], n = 6) =>
  xs
    .slice(0, n)
    .map((x) => `"${x}"`)
    .join(', ');

export function check(
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

/** The coverage checks' evidence: how many terms or names have each status, with examples. */
export function statusEvidence(by: (s: UsageStatus) => string[]) {
  return {
    ok: by('ok').length,
    under: by('under').length,
    over: by('over').length,
    missing: by('missing').length,
    missing_examples: by('missing').slice(0, 10),
    under_examples: by('under').slice(0, 10),
    over_examples: by('over').slice(0, 10),
  };
}

/** The coverage checks' summary: what is missing, underused (`how` to use them more) and overused. */
export function statusAdvice(what: string, by: (s: UsageStatus) => string[], how: string): string {
  return [
    by('missing').length ? `Cover ${what} the ranking pages use that this page lacks: ${list(by('missing'))}.` : '',
    by('under').length ? `Use these more, ${how}: ${list(by('under'))}.` : '',
    by('over').length ? `Use these less often: ${list(by('over'))}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** A page's uses of a model term: in the text, and in headings and the title. */
export interface TermUse {
  count: number;
  heading: number;
}

/** The source page's uses, looked up by stem key (terms) and by name (entities). */
export function sourceUses(terms: DocumentTerms, language: string) {
  const byMatch = new Map<string, TermUse>();
  for (const t of terms.terms) {
    const k = matchKey(t.key, language);
    const u = byMatch.get(k) ?? { count: 0, heading: 0 };
    u.count += t.count;
    u.heading += t.headingCount + t.titleCount;
    byMatch.set(k, u);
  }
  const byName = new Map(
    terms.entities.map((e) => [e.key, { count: e.count, heading: e.headingCount + e.titleCount }]),
  );
  return (m: ModelTerm): TermUse =>
    (m.kind === 'entity' ? byName.get(m.key) : undefined) ?? byMatch.get(m.match) ?? { count: 0, heading: 0 };
}

/**
 * The length the page should have: the competitors' p25 when it is shorter, their p75 when it is far longer
 * (more than max(1.5 x p75, p75 + 300)), else its own. Term targets are measured at this length, so "trim the page"
 * and "use this term more" never pull against each other.
 */
export function targetWords(words: number, model: CompetitorModel): number {
  const r = model.wordCount;
  if (r.p25 === 0) return Math.max(1, words);
  if (words < r.p25) return Math.round(r.p25);
  if (words > lengthCeiling(model)) return Math.round(r.p75);
  return Math.max(1, words);
}

function lengthCeiling(model: CompetitorModel): number {
  return Math.max(model.wordCount.p75 * 1.5, model.wordCount.p75 + 300);
}

/** Uses the competitors' rate range means for a page of `words` words: low (p25), mid (median), high (p75). */
export function usesAt(m: ModelTerm, words: number) {
  const at = (rate: number) => (rate * words) / 1000;
  const low = Math.max(1, Math.round(at(m.per1000.p25)));
  return {
    low,
    mid: Math.max(low, Math.round(at(m.per1000.median))),
    high: Math.max(low, Math.round(at(m.per1000.p75))),
  };
}

/**
 * The page's uses of a term once it has the target length: as they are when the page is to grow (new text adds
 * uses), in proportion when it is to be trimmed (cutting evenly cuts uses too).
 */
export function projectedUses(count: number, current: number, words: number): number {
  return current > words && current > 0 ? (count * words) / current : count;
}

/**
 * The page's status for one term at the target length. One measure throughout: the competitors' rate per 1,000
 * words, applied to the target length, against the page's projected uses.
 */
export function termStatus(m: ModelTerm, use: TermUse, words: number, current: number): UsageStatus {
  if (use.count + use.heading === 0) return 'missing';
  const { low, high } = usesAt(m, words);
  const uses = projectedUses(use.count, current, words);
  if (Math.round(uses) < low) return 'under';
  if (m.head) {
    const rate = (uses * 1000) / words;
    return rate > Math.max(m.per1000.max, STUFFING_PER_1000) ? 'over' : 'ok';
  }
  return uses > OVER_FACTOR * high && uses - OVER_FACTOR * high >= OVER_MARGIN ? 'over' : 'ok';
}

/** One row per model term and entity: the page's use, its status and its target range at the target length. */
export interface TermRow {
  model: ModelTerm;
  use: TermUse;
  status: UsageStatus;
  target: { low: number; mid: number; high: number };
}

export function termRows(i: CheckInput, words: number): { terms: TermRow[]; entities: TermRow[] } {
  const lookup = sourceUses(i.source.terms, i.model.language);
  const row = (m: ModelTerm): TermRow => {
    const use = lookup(m);
    const current = i.source.extraction.wordCount;
    return { model: m, use, status: termStatus(m, use, words, current), target: usesAt(m, words) };
  };
  return { terms: i.model.terms.map(row), entities: i.model.entities.map(row) };
}

const lengthPhrase = (words: number, current: number) =>
  words === current
    ? `for a page of this length (${words} words)`
    : `at the recommended length of about ${words} words`;

/** The most uses that are not "over": the stuffing bound for head terms, else the competitors' p75 uses. */
function overLimit(m: ModelTerm, high: number, words: number): number {
  return m.head ? Math.floor((Math.max(m.per1000.max, STUFFING_PER_1000) * words) / 1000) : high;
}

/** The advice for one term, with the points it would add. */
function termAdvice(r: TermRow, check: string, points: number, words: number, current: number, pageCount: number) {
  const name = r.model.display;
  const times = (n: number | string) => `${n} ${n === 1 || n === '1' ? 'time' : 'times'}`;
  const range = times(r.target.low === r.target.high ? `${r.target.low}` : `${r.target.low}-${r.target.high}`);
  const where = lengthPhrase(words, current);
  const projected = Math.round(projectedUses(r.use.count, current, words));
  const now =
    words < current
      ? `${times(r.use.count)} in ${current} words now, about ${projected} once trimmed to ${words}`
      : `${times(r.use.count)} now`;
  const less = r.model.head
    ? `above every ranking page and the keyword-stuffing limit of ${STUFFING_PER_1000} per 1,000 words; keep it to about ${times(overLimit(r.model, r.target.high, words))} or fewer ${where}`
    : `the ranking pages use it at most about ${times(r.target.high)} ${where}`;
  const text =
    r.status === 'missing'
      ? `Add "${name}": ${r.model.pages} of ${pageCount} ranking pages use it, about ${range} ${where}.`
      : r.status === 'under'
        ? `Use "${name}" more: ${now}; the ranking pages use it about ${range} ${where}.`
        : `Use "${name}" less: ${now}; ${less}.`;
  const kind = r.status === 'missing' ? 'add_term' : r.status === 'under' ? 'use_more' : 'use_less';
  return { check, term: name, kind, points, recommendation: text } satisfies TermAdvice;
}

function coverageChecks(i: CheckInput, rows: { terms: TermRow[]; entities: TermRow[] }, words: number) {
  const details: ScoreCheck[] = [];
  const advice: TermAdvice[] = [];
  const current = i.source.extraction.wordCount;
  const groups = [
    {
      id: 'coverage.terms',
      label: 'Coverage of the terms the ranking pages use',
      possible: 25,
      rows: rows.terms,
      what: 'terms',
    },
    {
      id: 'coverage.entities',
      label: 'Coverage of the names the ranking pages mention',
      possible: 10,
      rows: rows.entities,
      what: 'names',
    },
  ];
  for (const g of groups) {
    const total = g.rows.reduce((a, r) => a + r.model.importance, 0);
    if (total === 0) {
      details.push(
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
    const earnedWeight = g.rows.reduce((a, r) => a + r.model.importance * STATUS_CREDIT[r.status], 0);
    const by = (s: UsageStatus) => g.rows.filter((r) => r.status === s).map((r) => r.model.display);
    for (const r of g.rows) {
      if (r.status === 'ok') continue;
      const points = round2((g.possible * r.model.importance * (1 - STATUS_CREDIT[r.status])) / total);
      advice.push(termAdvice(r, g.id, points, words, current, i.model.pageCount));
    }
    details.push(
      check(
        'coverage',
        g.id,
        g.label,
        g.possible,
        earnedWeight / total,
        { considered: g.rows.length, target_words: words, ...statusEvidence(by) },
        statusAdvice(g.what, by, 'as the ranking pages do'),
      ),
    );
  }
  return { details, advice };
}

function lengthCheck(i: CheckInput): ScoreCheck {
  const wc = i.source.extraction.wordCount;
  const r = i.model.wordCount;
  const upper = lengthCeiling(i.model);
  const share = r.p25 === 0 ? 1 : wc < r.p25 ? wc / r.p25 : wc > upper ? 0.7 : 1;
  const rec =
    wc < r.p25
      ? `Expand the page from ${wc} to at least ${Math.round(r.p25)} words (ranking pages: ${Math.round(r.p25)}-${Math.round(r.p75)}).`
      : `Trim the page from ${wc} towards ${Math.round(r.p75)} words; it is far longer than the ranking pages (${Math.round(r.p25)}-${Math.round(r.p75)}).`;
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

/**
 * Credit for the keyword in a text: every head term (by stem, any order) earns full points, most of them (more than
 * half) their share, fewer nothing.
 */
function keywordCredit(i: CheckInput, text: string): number {
  const share = headShare(i.model.head, stemSet(text, i.model.language));
  return share >= 1 ? 1 : share > 0.5 ? share : 0;
}

export function headingChecks(i: CheckInput, rows: TermRow[]): ScoreCheck[] {
  const { extraction } = i.source;
  const h1 = extraction.h1.trim();
  const mine = subheadingCount(i.source);
  const median = i.model.subheadings;
  // A term the page already overuses is not asked for in headings as well.
  const byKey = new Map(rows.map((r) => [r.model.key, r]));
  const headingTerms = i.model.headingTerms.flatMap((k) => {
    const r = byKey.get(k);
    return r && r.status !== 'over' ? [r] : [];
  });
  const inHeadings = headingTerms.filter((r) => r.use.heading > 0);
  const lacking = headingTerms.filter((r) => r.use.heading === 0).map((r) => r.model.display);
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
      keywordCredit(i, h1),
      { h1, keyword: i.model.keyword, head_terms: i.model.head.words },
      `Put "${i.model.keyword}" (its words in any order: ${list(i.model.head.words)}) in the H1.`,
    ),
    check(
      'headings',
      'headings.sections',
      'Sections (H2/H3) against the ranking pages',
      4,
      median === 0 ? 1 : mine / median,
      { subheadings: mine, competitor_median: median },
      `Add sections: the ranking pages have about ${Math.round(median)} H2/H3 headings, this page ${mine}.`,
    ),
    check(
      'headings',
      'headings.terms',
      'Terms the ranking pages put in headings',
      3,
      headingTerms.length === 0 ? 1 : inHeadings.length / headingTerms.length,
      { considered: headingTerms.length, used: inHeadings.length, missing_examples: lacking.slice(0, 10) },
      `Use these in headings, as at least half the ranking pages do: ${list(lacking)}.`,
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

export function metadataChecks(i: CheckInput): ScoreCheck[] {
  const { title, metaDescription, canonical, lang } = i.source.extraction;
  const t = title.trim();
  const d = metaDescription.trim();
  const kw = i.model.keyword;
  return [
    check('metadata', 'metadata.title', 'The page has a title', 2, t ? 1 : 0, { title: t }, 'Add a <title>.'),
    check(
      'metadata',
      'metadata.title_keyword',
      'The title contains the keyword',
      4,
      keywordCredit(i, t),
      { title: t, keyword: kw, head_terms: i.model.head.words },
      `Put "${kw}" (its words in any order) in the title.`,
    ),
    check(
      'metadata',
      'metadata.title_length',
      'Title length 15-65 characters',
      2,
      t.length >= 15 && t.length <= 65 ? 1 : 0,
      { length: t.length },
      `Keep the title between 15 and 65 characters (now ${t.length}) so it is not cut in results.`,
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
      `Keep the meta description between 50 and 160 characters (now ${d.length}).`,
    ),
    check(
      'metadata',
      'metadata.description_keyword',
      'The meta description contains the keyword',
      2,
      keywordCredit(i, d),
      { keyword: kw, head_terms: i.model.head.words },
      `Mention "${kw}" in the meta description.`,
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
  const s = textStats(mainText, i.model.language);
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
      `Shorten long sentences: ${round1(s.avgSentenceWords)} words on average now, aim for 20 or fewer.`,
    ),
    check(
      'readability',
      'readability.paragraph_length',
      'Average paragraph length at most 100 words',
      3,
      s.words === 0 ? 0 : 1 - ramp(avgPara, 100, 250),
      { average_words: round2(avgPara), paragraphs: paraWords.length },
      `Break long paragraphs up: ${Math.round(avgPara)} words on average now, aim for 100 or fewer.`,
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
        `Use shorter words and sentences: reading ease is ${round1(s.fleschReadingEase)}, aim for 50 or more.`,
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

function structureChecks(i: CheckInput): ScoreCheck[] {
  const { extraction } = i.source;
  const intro = extraction.mainText.split(/\s+/).slice(0, OPENING_WORDS).join(' ');
  const { lists: listShare, tables: tableShare, images: imageShare, faq: faqShare } = i.model.shares;
  const internal = extraction.links.filter((l) => l.internal).length;
  const images = extraction.images;
  const withAlt = images.filter((im) => im.alt.trim()).length;
  return [
    check(
      'structure',
      'structure.intro_keyword',
      'The keyword appears in the first 100 words',
      3,
      keywordCredit(i, intro),
      { keyword: i.model.keyword, head_terms: i.model.head.words },
      `Mention "${i.model.keyword}" in the opening paragraph.`,
    ),
    check(
      'structure',
      'structure.lists',
      'Lists where the ranking pages use them',
      3,
      listShare < 0.5 || extraction.lists.length > 0 ? 1 : 0,
      { lists: extraction.lists.length, competitor_share: listShare },
      'Add a bulleted or numbered list: most ranking pages use one.',
    ),
    check(
      'structure',
      'structure.tables',
      'Tables where the ranking pages use them',
      2,
      tableShare < 0.5 || extraction.tables.length > 0 ? 1 : 0,
      { tables: extraction.tables.length, competitor_share: tableShare },
      'Add a comparison or data table: most ranking pages have one.',
    ),
    check(
      'structure',
      'structure.images',
      'Images with alt text',
      2,
      images.length ? withAlt / images.length : imageShare >= 0.5 ? 0 : 1,
      { images: images.length, with_alt: withAlt, competitor_share: imageShare },
      images.length
        ? `Give every image a descriptive alt text (${images.length - withAlt} of ${images.length} lack one).`
        : 'Add relevant images with alt text: most ranking pages have them.',
    ),
    check(
      'structure',
      'structure.internal_links',
      'At least 3 internal links in the content',
      2,
      internal >= 3 ? 1 : internal / 3,
      { internal_links: internal },
      `Link to at least 3 related pages of the same site from the content (now ${internal}).`,
    ),
    check(
      'structure',
      'structure.faq',
      'An FAQ section where the ranking pages have one',
      3,
      faqShare < 1 / 3 || hasFaq(i.source) ? 1 : 0,
      { has_faq: hasFaq(i.source), competitor_share: faqShare },
      'Add an FAQ section (with FAQPage structured data) answering the questions ranking pages answer.',
    ),
  ];
}

/** Every check of the formula, in a fixed order, with the term rows and per-term advice the coverage checks made. */
export function runChecks(i: CheckInput) {
  const words = targetWords(i.source.extraction.wordCount, i.model);
  const rows = termRows(i, words);
  const coverage = coverageChecks(i, rows, words);
  const details = [
    ...coverage.details,
    lengthCheck(i),
    ...headingChecks(i, rows.terms),
    ...metadataChecks(i),
    ...readabilityChecks(i),
    ...structureChecks(i),
  ];
  return { details, rows, words, termAdvice: coverage.advice };
}
