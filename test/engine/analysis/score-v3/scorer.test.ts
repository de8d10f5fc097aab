import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAnalysis, type Analysis } from '../../../../src/engine/analysis/analysis.ts';
import {
  buildCompetitorModel,
  scoreAgainstModel,
  type AnalyzedPage,
  type CompetitorModel,
  type ScoreCheck,
  type ScoreResult,
} from '../../../../src/engine/analysis/score/index.ts';
import { CATEGORIES_V3 } from '../../../../src/engine/analysis/score/types.ts';
import { contentAsHtml } from '../../../../src/engine/optimize/score-content.ts';

/**
 * What score version 3 promises (src/engine/analysis/score/v3), held through the whole scorer: pages analysed the way
 * a run analyses them (extract, then term analysis), a model built from the ranking pages of the calibration topic
 * "how to descale a kettle" (test/fixtures/scoring), and pages written here in markdown, rendered as score_content
 * renders a markdown draft.
 */

const SCORING = fileURLToPath(new URL('../../../fixtures/scoring/', import.meta.url));
const TOPIC = `${SCORING}how-to-descale-a-kettle/`;
const read = (path: string) => readFileSync(path, 'utf8');
const topic = JSON.parse(read(`${TOPIC}topic.json`)) as {
  keyword: string;
  target: string;
  pages: Record<string, string>;
};
const KEYWORD = topic.keyword;
/** The ranking pages: URL and HTML, by the file's name. */
const RANKING = Object.entries(topic.pages).map(([file, url]) => ({
  name: file.replace(/\.html$/, ''),
  url,
  html: read(`${TOPIC}pages/${file}`),
}));
const EXPERT = read(`${TOPIC}expert.md`);
const STUB = read(`${TOPIC}stub.md`);
/** A well-written article on another topic. */
const OFF_TOPIC = read(`${SCORING}python-logging-best-practices/expert.md`);

let analysis: Analysis;
let competitors: AnalyzedPage[];
let model: CompetitorModel;

beforeAll(() => {
  analysis = createAnalysis();
  competitors = RANKING.map((p) => analyse(p.url, p.html));
  model = buildCompetitorModel(analysis.analyzer, competitors, KEYWORD, 'en');
});

function analyse(url: string, html: string): AnalyzedPage {
  return analysis.analyze(url, analysis.extract(html, url), 'en');
}

/** The ranking pages with `edit` applied to some (by name): a model of other ranking pages. */
function modelOf(names: readonly string[], edit: Record<string, (html: string) => string> = {}): CompetitorModel {
  const pages = names.map((name) => {
    const p = RANKING.find((r) => r.name === name)!;
    return analyse(p.url, (edit[name] ?? ((h: string) => h))(p.html));
  });
  return buildCompetitorModel(analysis.analyzer, pages, KEYWORD, 'en');
}

/** HTML added at the end of a ranking page's article. */
const appended = (extra: string) => (html: string) => {
  expect(html).toContain('</article>');
  return html.replace('</article>', `${extra}\n</article>`);
};

/** A markdown page as score_content reads a markdown draft: its H1 the title, its first paragraph the description. */
function page(markdown: string): AnalyzedPage {
  const title = (/^#\s+(.+)$/m.exec(markdown)?.[1] ?? '').trim();
  const description = (
    markdown
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .find((p) => p && !/^(#|-|\*|\d+\.|\|)/.test(p)) ?? ''
  )
    .replace(/\s+/g, ' ')
    .slice(0, 150);
  const html = contentAsHtml({ content: markdown, format: 'markdown', title, meta_description: description }, 'en');
  return analyse(topic.target, html);
}

const score = (markdown: string, m: CompetitorModel = model): ScoreResult =>
  scoreAgainstModel(analysis.analyzer, page(markdown), m);
const detail = (r: ScoreResult, id: string): ScoreCheck => {
  const d = r.scoreDetails.find((x) => x.id === id);
  expect(d, id).toBeDefined();
  return d!;
};
const row = (r: ScoreResult, term: string) => r.entities.find((e) => e.term === term);
const adviceFor = (r: ScoreResult, term: string) => r.recommendations.filter((x) => x.term === term);
/** A check's share before topicality scaled it. */
const share = (d: ScoreCheck) => d.earned / (d.possible * (Number(d.evidence.on_topic) || 1));

/** An on-topic article in its own words that never says "limescale" (about 200 words). */
const BASE = `# How to descale a kettle

To descale a kettle, fill it halfway with water, stir in a tablespoon of citric acid, boil it and leave it to soak for twenty minutes. Pour the solution away, rinse the kettle twice and boil fresh water once before you make tea.

## Why kettles fur up

Hard water carries dissolved calcium carbonate. When the water is heated, the mineral settles on the element as a white crust. The crust slows the kettle down and makes it noisy, and flakes end up in your cup.

## Vinegar or citric acid

White vinegar works too. Mix it one to one with water, boil it and let it stand for an hour, then rinse several times because the smell lingers. Citric acid is faster and leaves no smell, so it is the better choice for most homes.

## Aftercare

Take the mesh filter out of the spout and soak it in a mug of the same solution. Wipe the outside with a soft cloth, and never put the base in water. In a hard water area, repeat the job every month so the crust never gets thick.
`;

const FORMS = [
  'The %s came back within a week of the last clean.',
  'A thin layer of %s is easy to shift with a short soak.',
  'Our tester found %s on the element after ten days.',
  'Thick %s takes a second cycle to clear completely.',
  'You can see %s forming as a pale ring at the waterline.',
  'Tea drinkers notice %s first as a film on their drink.',
];

/** BASE and 14 more sentences, `n` of them saying "limescale" and the rest "residue": the same length whatever `n`. */
const withLimescale = (n: number) =>
  `${BASE}\n## Notes\n\n${Array.from({ length: 14 }, (_, i) => FORMS[i % FORMS.length]!.replace('%s', i < n ? 'limescale' : 'residue')).join(' ')}\n`;

describe('terms are credited by saturation', () => {
  it("earns full credit at the competitors' rate in sentences, less past their highest rate, nothing at twice it", () => {
    const rates = model.v3!.rates['term:limescale']!;
    expect(rates.max).toBeGreaterThan(rates.median);
    const r = Object.fromEntries([0, 5, 10, 14].map((n) => [n, score(withLimescale(n))])) as Record<
      number,
      ScoreResult
    >;
    const words = r[5]!.sourceWordCount;
    for (const n of [0, 10, 14]) expect(r[n]!.sourceWordCount).toBe(words);
    const rate = (n: number) => (n * 1000) / words;
    // 5 uses: between the competitors' median and highest rate. 10: past the highest. 14: past twice the highest.
    expect(rate(5)).toBeGreaterThanOrEqual(rates.median);
    expect(rate(5)).toBeLessThanOrEqual(rates.max);
    expect(rate(10)).toBeGreaterThan(rates.max);
    expect(rate(10)).toBeLessThan(2 * rates.max);
    expect(rate(14)).toBeGreaterThanOrEqual(2 * rates.max);

    expect(row(r[5]!, 'limescale')).toMatchObject({ sourceUses: 5, status: 'ok' });
    expect(adviceFor(r[5]!, 'limescale')).toEqual([]);

    expect(row(r[10]!, 'limescale')).toMatchObject({ sourceUses: 10, status: 'over' });
    const less = adviceFor(r[10]!, 'limescale');
    expect(less.map((x) => x.kind)).toEqual(['use_less']);
    expect(less[0]!.recommendation).toMatch(/^Use "limescale" less: 10 times now/);
    const terms = (n: number) => detail(r[n]!, 'coverage.terms').earned;
    expect(terms(10)).toBeLessThan(terms(5));
    expect(r[10]!.categoryScores.coverage!).toBeLessThan(r[5]!.categoryScores.coverage!);
    // At twice the highest rate the term earns what a page without it earns.
    expect(row(r[14]!, 'limescale')).toMatchObject({ sourceUses: 14, status: 'over' });
    expect(terms(14)).toBeLessThan(terms(10));
    expect(terms(14)).toBeCloseTo(terms(0), 2);
    expect(row(r[0]!, 'limescale')!.status).toBe('missing');
  });

  it('earns less for the same uses in headings or a list of bare terms than in sentences', () => {
    const notes = 'The residue came back within a week of the last clean.';
    const soak = 'A thin layer of residue is easy to shift with a short soak.';
    const variants = {
      sentences: `${BASE}\n## Notes\n\n${notes.replace('residue', 'limescale')} ${soak.replace('residue', 'limescale')}\n`,
      headings: `${BASE}\n## Limescale\n\n${notes}\n\n## Limescale spots\n\n${soak}\n`,
      list: `${BASE}\n## Notes\n\n- Limescale\n- Limescale spots\n\n${notes} ${soak}\n`,
    };
    const r = Object.fromEntries(Object.entries(variants).map(([k, md]) => [k, score(md)])) as Record<
      keyof typeof variants,
      ScoreResult
    >;
    for (const v of Object.values(r)) expect(row(v, 'limescale')!.sourceUses).toBe(2);
    expect(row(r.sentences, 'limescale')!.status).toBe('ok');
    // The points the term's advice says it would add: what its credit lacks.
    const lacking = (v: ScoreResult) => adviceFor(v, 'limescale').reduce((a, x) => a + x.points, 0);
    for (const v of [r.headings, r.list]) {
      expect(row(v, 'limescale')!.status).toBe('under');
      expect(lacking(v)).toBeGreaterThan(lacking(r.sentences));
      expect(detail(v, 'coverage.terms').earned).toBeLessThan(detail(r.sentences, 'coverage.terms').earned);
      expect(adviceFor(v, 'limescale')[0]!.recommendation).toMatch(/0 in sentences/);
    }
  });

  // A term's credit saturates only at the whole target (2.47 uses here: the median rate at the page's length), so the
  // advice states the target rounded up: a page is never told to use a term more while already meeting what it says.
  it('never tells a page to use a term more, in sentences, while stating a target its sentences already meet', () => {
    const sentences = `${BASE}\n## Notes\n\nThe limescale came back within a week of the last clean. A thin layer of limescale is easy to shift with a short soak.\n`;
    const r = score(sentences);
    expect(row(r, 'limescale')).toMatchObject({ sourceUses: 2, status: 'ok' });
    const stated = (x: { recommendation: string }) => {
      // Only advice on uses that are all in sentences: "N times now; ... about M times".
      const m = /: (\d+) times? now; .* about (\d+) times?/.exec(x.recommendation);
      return m && { now: Number(m[1]), target: Number(m[2]) };
    };
    for (const x of [...r.recommendations, ...score(EXPERT).recommendations].filter((y) => y.kind === 'use_more')) {
      const s = stated(x);
      if (s) expect(s.target, x.recommendation).toBeGreaterThan(s.now);
    }
  });
});

/** A page far longer than the ranking pages that covers little of them: the stub and a long family story. */
const LONG_THIN = `${STUB}\n\n## A family story\n\n${Array.from({ length: 6 }, () =>
  [
    'My aunt kept her kitchen spotless and she was proud of it.',
    'Every Sunday she baked bread and invited the neighbours round for lunch.',
    'The garden behind her cottage was full of roses and old apple trees.',
    'She listened to the radio in the afternoons while she knitted scarves for the whole family.',
    'Her dog slept by the back door and barked at every passing bicycle.',
    'We walked to the village shop for the paper and a bag of sweets.',
    'In the evenings she told stories about the years she spent working at the post office.',
    'Nobody in the family ever left her house hungry or bored.',
  ].join(' '),
).join('\n\n')}\n`;

const trims = (r: ScoreResult) =>
  [
    detail(r, 'length.words').recommendation ?? '',
    ...r.recommendations.filter((x) => x.check === 'length.words').map((x) => x.recommendation),
  ].filter((t) => t.startsWith('Trim'));
/** Far longer than the ranking pages: above max(1.5 x p75, p75 + 300) words. */
const farLonger = (r: ScoreResult, m: CompetitorModel) =>
  r.sourceWordCount > Math.max(1.5 * m.wordCount.p75, m.wordCount.p75 + 300);

describe('length', () => {
  it('never tells a thorough page to trim, however much longer than the ranking pages it is', () => {
    const twice = `${EXPERT}\n\n${EXPERT.replace(/^# .*$/m, '## Once more, in full')}`;
    for (const md of [EXPERT, twice]) {
      const r = score(md);
      const d = detail(r, 'length.words');
      expect(farLonger(r, model)).toBe(true);
      const used = d.evidence.median_competitor as { terms: number; facts: number };
      expect(d.evidence.terms_used as number).toBeGreaterThanOrEqual(used.terms);
      expect(d.evidence.facts_stated as number).toBeGreaterThanOrEqual(used.facts);
      expect(d.evidence.thorough).toBe(true);
      expect(trims(r)).toEqual([]);
      expect(share(d)).toBe(1);
    }
  });

  it("tells a long page that is not thorough to trim towards the ranking pages' p75, never below it", () => {
    for (const m of [model, modelOf(['kitchenwise', 'teatimeblog', 'applianceaid'])]) {
      const r = score(LONG_THIN, m);
      expect(farLonger(r, m)).toBe(true);
      expect(detail(r, 'length.words').evidence.thorough).toBe(false);
      const said = trims(r);
      expect(said.length).toBeGreaterThan(0);
      for (const t of said) {
        const towards = Number(/towards (\d+) words/.exec(t)?.[1]);
        expect(towards, t).toBeGreaterThanOrEqual(m.wordCount.p75);
        expect(towards, t).toBeLessThan(m.wordCount.p75 + 1);
      }
      expect(share(detail(r, 'length.words'))).toBeLessThan(1);
    }
  });

  it('never tells a page to trim on fewer than 3 ranking pages', () => {
    for (const names of [['kitchenwise'], ['kitchenwise', 'teatimeblog']]) {
      const m = modelOf(names);
      const r = score(LONG_THIN, m);
      expect(farLonger(r, m)).toBe(true);
      expect(detail(r, 'length.words').evidence.note).toMatch(/fewer than 3/);
      expect(trims(r)).toEqual([]);
    }
  });
});

const TABLE =
  '<h2>Quick guide</h2><table><thead><tr><th>Descaler</th><th>Soak</th></tr></thead><tbody><tr><td>Citric acid</td><td>20 minutes</td></tr><tr><td>Vinegar</td><td>1 hour</td></tr></tbody></table>';
const IMAGE = '<p><img src="/img/kettle.jpg" alt="A scaled kettle element"></p>';
const FAQ =
  '<h2>Frequently asked questions</h2><h3>Is vinegar safe for a kettle?</h3><p>Vinegar is safe if you rinse the kettle and boil fresh water twice.</p>';
/** Four ranking pages: every one with a list, and kitchenwise the only one with a table or an FAQ as they are. */
const FOUR = ['kitchenwise', 'cleanhomehub', 'hardwaterfacts', 'teatimeblog'];

describe('structure advice', () => {
  it('states the ranking pages it rests on as counts ("N of M ranking pages"), never "most"', () => {
    const m = modelOf(FOUR, {
      cleanhomehub: appended(TABLE + IMAGE),
      hardwaterfacts: appended(TABLE + IMAGE + FAQ),
      teatimeblog: appended(IMAGE),
    });
    const truth = {
      lists: competitorsWith(m, FOUR, 'lists'),
      tables: competitorsWith(m, FOUR, 'tables'),
      images: competitorsWith(m, FOUR, 'images'),
    };
    expect(truth).toEqual({ lists: 4, tables: 3, images: 3 });
    // No list, table, image, FAQ or internal link: every structure check asks.
    const bare = `# How to descale a kettle\n\nTo descale a kettle, boil a tablespoon of citric acid in half a kettle of water, leave it for twenty minutes, then rinse it twice.\n`;
    const r = score(bare, m);
    const texts = [
      ...r.scoreDetails.filter((d) => d.category === 'structure').map((d) => d.recommendation),
      ...r.recommendations.filter((x) => x.check.startsWith('structure.')).map((x) => x.recommendation),
    ].filter((t): t is string => !!t);
    const asked = new Set(r.recommendations.filter((x) => x.check.startsWith('structure.')).map((x) => x.check));
    expect([...asked].sort()).toEqual([
      'structure.faq',
      'structure.images',
      'structure.internal_links',
      'structure.lists',
      'structure.tables',
    ]);
    const expected: Record<string, number> = {
      list: truth.lists,
      table: truth.tables,
      images: truth.images,
      FAQ: 2,
    };
    let counted = 0;
    for (const text of texts)
      for (const sentence of text.split(/(?<=[.!?])\s+/)) {
        expect(sentence, sentence).not.toMatch(/\b(most|majority|many|several|some)\b/i);
        if (!/ranking page/.test(sentence)) continue;
        const c = /\b(\d+) of (\d+) ranking pages?\b/.exec(sentence);
        expect(c, sentence).not.toBeNull();
        expect(Number(c![2]), sentence).toBe(4);
        const what = Object.keys(expected).find((k) => sentence.includes(k));
        expect(what, sentence).toBeDefined();
        expect(Number(c![1]), sentence).toBe(expected[what!]);
        counted += 1;
      }
    expect(counted).toBeGreaterThanOrEqual(4);
  });

  it('does not ask for a table when exactly half the ranking pages have one', () => {
    const m = modelOf(FOUR, { cleanhomehub: appended(TABLE) });
    expect(competitorsWith(m, FOUR, 'tables')).toBe(2);
    const r = score(BASE, m);
    const d = detail(r, 'structure.tables');
    expect(d.evidence).toMatchObject({ tables: 0, competitors_with_tables: 2, competitors: 4 });
    expect(share(d)).toBe(1);
    expect(d.recommendation ?? '').not.toMatch(/table/);
    expect(r.recommendations.filter((x) => x.check === 'structure.tables')).toEqual([]);
    // One more ranking page with a table, and it is asked for.
    const more = modelOf(FOUR, { cleanhomehub: appended(TABLE), teatimeblog: appended(TABLE) });
    expect(detail(score(BASE, more), 'structure.tables').recommendation).toBe(
      'Add a comparison or data table: 3 of 4 ranking pages have one.',
    );
  });
});

/** Ranking pages of the model with lists, tables or images, counted on their extractions. */
function competitorsWith(m: CompetitorModel, names: readonly string[], what: 'lists' | 'tables' | 'images'): number {
  expect(m.pageCount).toBe(names.length);
  return Math.round(m.shares[what] * m.pageCount);
}

/** Sentences of the ranking pages, as they wrote them, and the same said in other words. */
const COPIED = [
  ['cleanhomehub', 'Limescale is a chalky deposit of calcium carbonate left behind when hard water is heated.'],
  [
    'hardwaterfacts',
    'A 1 mm layer of limescale on a heating element can raise the energy needed to boil by around 10%, because scale insulates the element from the water.',
  ],
  ['teatimeblog', 'A paste of baking soda and water lifts grubby marks from a stainless steel kettle.'],
  ['applianceaid', 'Sachet descalers such as Oust work in about 30 minutes and are designed for kettles.'],
  [
    'cleanhomehub',
    'It coats the element and the base of the kettle, which makes the kettle slower to boil and leaves white flakes in your tea.',
  ],
  ['hardwaterfacts', 'A water filter jug such as a Brita reduces the calcium in the water and slows the build-up.'],
  ['teatimeblog', 'Rinse the limescale filter in the spout at the same time.'],
  ['applianceaid', 'Citric acid is safe for stainless steel and plastic kettles and leaves no smell.'],
  ['cleanhomehub', 'Citric acid has no smell and works faster than vinegar.'],
  ['kitchenwise', 'Use a 1:1 mix of white vinegar and water, boil it and leave it to stand for an hour.'],
] as const;
const REWRITTEN = [
  'Hard water leaves limescale behind when you heat it: a chalky layer of calcium carbonate.',
  'Even a millimetre of limescale over a heating element insulates it, so each boil needs roughly a tenth more energy.',
  'To clean a stainless steel kettle on the outside, rub on a paste of baking soda mixed with water.',
  'Oust and other sachet products are made for kettles and finish the job in roughly half an hour.',
  'The crust builds up over the element and the kettle base, so boiling slows down and white flakes float in your cup.',
  'Filtering your water through a Brita jug first removes some calcium, so the build-up forms more slowly.',
  'Each time you descale, give the limescale filter in the spout a rinse as well.',
  'Stainless steel and plastic kettles both tolerate citric acid, and it leaves nothing to smell.',
  'Unlike vinegar, citric acid works quickly and has no odour.',
  'Most kettles come clean with white vinegar diluted one to one with water, boiled and left for an hour.',
];
const article = (sentences: readonly string[]) =>
  `# How to descale a kettle\n\nTo descale a kettle, boil a weak acid solution in it, let it stand, then rinse it well.\n\n## Limescale\n\n${sentences.slice(0, 5).join(' ')}\n\n## Descalers\n\n${sentences.slice(5).join(' ')}\n`;
/** Lower-case words, punctuation dropped: how copied text is matched. */
const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

describe('originality', () => {
  it('lists the passages copied from the ranking pages with their sources, in rewrite_copied and in the evidence', () => {
    for (const [name, s] of COPIED) expect(norm(RANKING.find((p) => p.name === name)!.html)).toContain(norm(s));
    const r = score(article(COPIED.map(([, s]) => s)));
    const d = detail(r, 'originality.copied');
    const passages = d.evidence.passages as { text: string; words: number; url: string }[];
    expect(passages.length).toBeGreaterThanOrEqual(5);
    // Every passage is its source's words, and every page copied from is named.
    for (const p of passages) {
      const source = RANKING.find((x) => x.url === p.url);
      expect(source, p.url).toBeDefined();
      expect(norm(source!.html), p.text).toContain(norm(p.text));
    }
    expect(new Set(passages.map((p) => p.url))).toEqual(
      new Set(COPIED.map(([name]) => RANKING.find((p) => p.name === name)!.url)),
    );
    const copiedWords = COPIED.reduce((a, [, s]) => a + norm(s).split(' ').length, 0);
    expect(d.evidence.copied_words as number).toBeGreaterThanOrEqual(0.9 * copiedWords);
    expect(d.earned).toBeLessThan(d.possible);

    const advice = r.recommendations.filter((x) => x.kind === 'rewrite_copied');
    expect(advice).toHaveLength(1);
    expect(advice[0]!.points).toBeGreaterThan(0);
    // The advice names the largest passages with their sources, as the evidence lists them.
    for (const p of passages.slice(0, 3)) {
      expect(advice[0]!.recommendation).toContain(`(${p.words} words, from ${p.url})`);
      expect(advice[0]!.recommendation).toContain(p.text.slice(0, 60));
    }
  });

  it('gives copied passages no term credit: the same page in its own words covers more', () => {
    const copied = score(article(COPIED.map(([, s]) => s)));
    const own = score(article(REWRITTEN));
    expect(detail(own, 'originality.copied').evidence.copied_words).toBe(0);
    expect(own.recommendations.filter((x) => x.kind === 'rewrite_copied')).toEqual([]);
    expect(detail(own, 'coverage.terms').earned).toBeGreaterThan(detail(copied, 'coverage.terms').earned);
    expect(detail(own, 'coverage.entities').earned).toBeGreaterThan(detail(copied, 'coverage.entities').earned);
    expect(own.categoryScores.coverage!).toBeGreaterThan(copied.categoryScores.coverage!);
    // Terms both versions say only inside the copied sentences: used on the rewritten page, missing on the copy.
    for (const term of ['calcium carbonate', 'baking soda', 'stainless steel', 'white flakes', 'Oust']) {
      expect(row(own, term), term).toMatchObject({ status: expect.not.stringMatching(/missing/) });
      expect(row(copied, term), term).toMatchObject({ status: 'missing', sourceUses: 0 });
    }
  });
});

describe('facts', () => {
  it('asks for a fact two or more ranking pages state, with the count; stating it raises facts.covered', () => {
    const fact = model.v3!.facts.facts.find((f) => f.id === 'number:500 ml');
    expect(fact).toBeDefined();
    // Four ranking pages give 500 ml (of water).
    expect(fact!.urls).toHaveLength(4);
    expect(RANKING.filter((p) => /\b500 ml\b/.test(p.html))).toHaveLength(4);
    const before = score(BASE);
    const ask = before.recommendations.filter((x) => x.kind === 'add_fact' && x.term === '500 ml');
    expect(ask).toHaveLength(1);
    expect(ask[0]!.recommendation).toContain('"500 ml"');
    expect(ask[0]!.recommendation).toContain('4 of 5 ranking pages state it');
    for (const x of before.recommendations.filter((y) => y.kind === 'add_fact')) {
      const f = model.v3!.facts.facts.find((y) => y.text === x.term)!;
      expect(x.recommendation).toContain(`${f.urls.length} of 5 ranking pages state it`);
      expect(f.urls.length).toBeGreaterThanOrEqual(2);
    }

    const after = score(`${BASE}\nUse 500 ml of water for each tablespoon of citric acid.\n`);
    expect(detail(after, 'facts.covered').earned).toBeGreaterThan(detail(before, 'facts.covered').earned);
    expect(detail(after, 'facts.covered').evidence.covered).toBe(
      (detail(before, 'facts.covered').evidence.covered as number) + 1,
    );
    expect(after.recommendations.filter((x) => x.kind === 'add_fact' && x.term === '500 ml')).toEqual([]);
  });

  it("never asks for a ranking page's own site name as a fact", () => {
    // Two ranking pages name a brand: a fact. Two name a ranking site (its host, or its og:site_name): not one.
    const naming = (brand: string) => ({
      hardwaterfacts: appended(`<p>The testers at ${brand} recommend descaling every month in hard water areas.</p>`),
      applianceaid: appended(`<p>The testers at ${brand} recommend descaling every month in hard water areas.</p>`),
    });
    const names = RANKING.map((p) => p.name);
    const factNames = (m: CompetitorModel) =>
      m.v3!.facts.facts.filter((f) => f.kind === 'entity').map((f) => f.text.toLowerCase());
    expect(factNames(modelOf(names, naming('Dualit')))).toContain('dualit');
    for (const site of ['Kitchenwise', 'Clean Home Hub']) {
      const m = modelOf(names, naming(site));
      expect(factNames(m), site).not.toContain(site.toLowerCase());
      const r = score(BASE, m);
      const asked = r.recommendations.filter((x) => x.kind === 'add_fact').map((x) => x.term!.toLowerCase());
      expect(asked.length).toBeGreaterThan(0);
      expect(asked, site).not.toContain(site.toLowerCase());
    }
    // Nor, on the ranking pages as they are, any site's name.
    const sites = ['kitchenwise', 'clean home hub', 'hard water facts', 'teatime at home', 'appliance aid'];
    for (const f of factNames(model)) expect(sites).not.toContain(f);
  });
});

describe('answer first', () => {
  it('earns more when the opening answers the keyword than with the same answer at the end, which is told to move it', () => {
    const paragraphs = EXPERT.split('\n\n');
    expect(paragraphs[1]).toMatch(/^To descale a kettle,/);
    const atEnd = [paragraphs[0], ...paragraphs.slice(2), paragraphs[1]].join('\n\n');
    const first = score(EXPERT);
    const last = score(atEnd);
    expect(detail(first, 'answer.first').earned).toBeGreaterThan(detail(last, 'answer.first').earned);
    expect(first.recommendations.filter((x) => x.kind === 'answer_first')).toEqual([]);
    const advice = last.recommendations.filter((x) => x.kind === 'answer_first');
    expect(advice).toHaveLength(1);
    expect(advice[0]!.recommendation).toMatch(/^Open with the answer: "how to descale a kettle"/);
    expect(advice[0]!.points).toBeCloseTo(
      detail(last, 'answer.first').possible - detail(last, 'answer.first').earned,
      2,
    );
  });
});

describe('off topic', () => {
  it('scores a well-written page on another topic lowest, its writing checks counted at its topicality', () => {
    const off = score(OFF_TOPIC);
    const others = {
      expert: score(EXPERT),
      stub: score(STUB),
      collage: score(article(COPIED.map(([, s]) => s))),
      thin: score(LONG_THIN),
    };
    for (const [label, r] of Object.entries(others))
      expect(off.rankabilityScore, label).toBeLessThan(r.rankabilityScore);
    const writing = off.scoreDetails.filter((d) =>
      ['prose', 'readability', 'originality', 'length', 'structure'].includes(d.category),
    );
    expect(writing.length).toBeGreaterThan(10);
    for (const d of writing) {
      expect(d.evidence.on_topic, d.id).toBeLessThan(1);
      expect(d.evidence.on_topic, d.id).toBeGreaterThanOrEqual(0);
    }
    // The writing itself is good: before topicality, nearly all of it is in well-formed sentences.
    expect(share(detail(off, 'prose.sentences'))).toBeGreaterThan(0.9);
    const topicality = off.recommendations.filter((x) => x.id === 'topicality');
    expect(topicality).toHaveLength(1);
    expect(topicality[0]!.recommendation).toMatch(/^Write about "how to descale a kettle": the text is \d+% on topic/);
    expect(topicality[0]!.points).toBeGreaterThan(0);
    expect(others.expert.recommendations.filter((x) => x.id === 'topicality')).toEqual([]);
  });
});

describe('determinism', () => {
  it("gives byte-identical results for the same inputs, whatever the competitors' order, from the saved model too", () => {
    const pages = [EXPERT, STUB, article(COPIED.map(([, s]) => s)), withLimescale(10)];
    const first = pages.map((md) => JSON.stringify(score(md)));
    const orders = [
      [4, 3, 2, 1, 0],
      [2, 0, 4, 1, 3],
      [1, 3, 0, 4, 2],
    ];
    for (const order of orders) {
      const m = buildCompetitorModel(
        analysis.analyzer,
        order.map((i) => competitors[i]!),
        KEYWORD,
        'en',
      );
      expect(JSON.stringify(m), order.join()).toBe(JSON.stringify(model));
      // The model as a run saves it (JSON) scores as the model built in memory.
      const saved = JSON.parse(JSON.stringify(m)) as CompetitorModel;
      pages.forEach((md, i) => {
        expect(JSON.stringify(scoreAgainstModel(analysis.analyzer, page(md), m)), order.join()).toBe(first[i]);
        expect(JSON.stringify(scoreAgainstModel(analysis.analyzer, page(md), saved)), order.join()).toBe(first[i]);
      });
    }
    // A fresh analysis of the same HTML gives the same bytes.
    const fresh = createAnalysis();
    const freshModel = buildCompetitorModel(
      fresh.analyzer,
      RANKING.map((p) => fresh.analyze(p.url, fresh.extract(p.html, p.url), 'en')),
      KEYWORD,
      'en',
    );
    const html = contentAsHtml({ content: STUB, format: 'markdown', title: 'Kettle descaling' }, 'en');
    const again = (a: Analysis, m: CompetitorModel) =>
      JSON.stringify(scoreAgainstModel(a.analyzer, a.analyze(topic.target, a.extract(html, topic.target), 'en'), m));
    expect(again(fresh, freshModel)).toBe(again(analysis, model));
  });

  it('keeps every check within its points, the points summing to the score and the categories to their checks', () => {
    const pages = [
      EXPERT,
      STUB,
      BASE,
      OFF_TOPIC,
      LONG_THIN,
      article(COPIED.map(([, s]) => s)),
      article(REWRITTEN),
      withLimescale(14),
    ];
    for (const md of pages) {
      const r = score(md);
      const name = md.split('\n')[0]!;
      expect(r.scoringVersion, name).toBe('3');
      expect(
        r.scoreDetails.reduce((a, d) => a + d.possible, 0),
        name,
      ).toBeCloseTo(100, 1);
      const earned = r.scoreDetails.reduce((a, d) => a + d.earned, 0);
      // The score is the sum rounded to one decimal.
      expect(Math.abs(earned - r.rankabilityScore), name).toBeLessThanOrEqual(0.05 + 1e-9);
      for (const d of r.scoreDetails) {
        expect(d.earned, `${name}: ${d.id}`).toBeGreaterThanOrEqual(0);
        expect(d.earned, `${name}: ${d.id}`).toBeLessThanOrEqual(d.possible);
      }
      expect(Object.keys(r.categoryScores).sort(), name).toEqual([...CATEGORIES_V3].sort());
      for (const cat of CATEGORIES_V3) {
        const inCat = r.scoreDetails.filter((d) => d.category === cat);
        const pct = (inCat.reduce((a, d) => a + d.earned, 0) / inCat.reduce((a, d) => a + d.possible, 0)) * 100;
        expect(Math.abs(r.categoryScores[cat]! - pct), `${name}: ${cat}`).toBeLessThanOrEqual(0.05);
      }
      for (const x of r.recommendations) expect(x.points, `${name}: ${x.id}`).toBeGreaterThan(0);
    }
  });
});
