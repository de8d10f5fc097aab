/**
 * `npm run bench -- terms [--all]`: are the terms Optimize recommends what a practitioner would write into a brief?
 * For several topics it prints the top 25 recommended terms and names before (the term
 * analyser of BASELINE, checked out beside this tree with `git worktree`, sharing node_modules) and after (this
 * tree), each with the flag a rule-based judge gives it, the share flagged per topic, and the analyser's cost per
 * 3,000-word document in both trees.
 *
 * Topics:
 * - the sample archive (web-archive/sample.warc.gz): one demo keyword per cluster of its pages (all of
 *   bench/lib/optimize-archive.ts's keywords with `--all`). The competitors are the archive's other HTML pages that
 *   use all but at most one of the keyword's content words in their title, H1 or text, at most 10, most words
 *   matched first (a stand-in for the search step; the keyword's own page is left out).
 * - real pages of the WCXB dev split (`../shared/datasets/wcxb-dev`): a topic is a pattern over each page's URL and
 *   ground-truth title (WCXB_TOPICS below, picked from the words most frequent in those URLs and titles); its pages
 *   are the matching ones, at most 10 in id order, and topics with fewer than 3 pages are skipped.
 *
 * Both trees read the same extraction (BASELINE's extractor, so work in progress on extraction does not move the
 * figures); each tree analyses the terms and builds the competitor model (`buildCompetitorModel`, which applies
 * the recommendation filter). "Recommended" is the model's terms and names together, by importance, the top 25.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { WARCParser } from 'warcio';
import type * as AnalysisNs from '../src/engine/analysis/analysis.ts';
import type * as ModelNs from '../src/engine/analysis/score/model.ts';
import type { AnalyzedPage } from '../src/engine/analysis/score/types.ts';
import type * as TermsNs from '../src/engine/analysis/terms/index.ts';
import type { Extraction } from '../src/engine/analysis/extract/types.ts';
import { createWink } from '../src/engine/analysis/wink.ts';
import { WCXB_DEV_DIR, loadWcxbPages } from './lib/archive-real.ts';
import { median, table } from './lib/harness.ts';
import { ARCHIVE_PAIRS } from './lib/optimize-archive.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The analyser before the noun-phrase term work (a006d25: the last commit with the verb/adverb terms and the typed list). */
export const BASELINE = 'a006d25';
const TOP = 25;
const MAX_PAGES = 10;
const GOAL = 0.1;

/** One keyword per cluster of the sample archive's pages. */
const SAMPLE_KEYWORDS = [
  'emergency plumber austin',
  'best espresso machine under 500',
  'sourdough bread recipe',
  'how much do solar panels cost',
  'heat pump vs furnace',
  'python asyncio tutorial',
  'asyncio queue worker',
];

/** WCXB dev topics: a pattern over URL and title, and the keyword the model is built for. */
const WCXB_TOPICS: ReadonlyArray<{ name: string; pattern: RegExp; keyword: string }> = [
  { name: 'headphones', pattern: /headphone|earbud|earphone/i, keyword: 'best headphones' },
  { name: 'coffee', pattern: /coffee|espresso/i, keyword: 'coffee' },
  { name: 'python', pattern: /python/i, keyword: 'python tutorial' },
  { name: 'javascript / mdn', pattern: /javascript|mozilla/i, keyword: 'javascript' },
  { name: 'rust / linux', pattern: /\brust\b|linux/i, keyword: 'linux' },
  { name: 'fitness', pattern: /fitness|nutrition|workout|exercise/i, keyword: 'fitness nutrition' },
  { name: 'shoes', pattern: /shoe|sneaker|socks|boots/i, keyword: 'shoes' },
  { name: 'furniture', pattern: /desk|sofa|furniture|ikea|chair/i, keyword: 'furniture' },
  { name: 'cloud / consulting', pattern: /cloud|consulting/i, keyword: 'cloud consulting' },
];

type AnalysisModule = typeof AnalysisNs;
type ModelModule = typeof ModelNs;
type TermsModule = typeof TermsNs;

interface Tree {
  label: string;
  analysis: ReturnType<AnalysisModule['createAnalysis']>;
  model: ModelModule;
  terms: TermsModule;
}

interface Page {
  url: string;
  html: string;
}

interface Topic {
  source: string;
  name: string;
  keyword: string;
  pages: Page[];
}

interface Recommended {
  display: string;
  key: string;
  kind: 'term' | 'entity';
  importance: number;
}

async function loadTree(label: string, srcDir: string): Promise<Tree> {
  const url = (p: string) => pathToFileURL(join(srcDir, p)).href;
  const analysis = (await import(url('engine/analysis/analysis.ts'))) as AnalysisModule;
  const model = (await import(url('engine/analysis/score/model.ts'))) as ModelModule;
  const terms = (await import(url('engine/analysis/terms/index.ts'))) as TermsModule;
  return { label, analysis: analysis.createAnalysis(), model, terms };
}

function checkoutBaseline(dir: string): { srcDir: string; remove(): void } | null {
  const git = (...args: string[]) => execFileSync('git', ['-C', ROOT, ...args], { stdio: 'ignore' });
  try {
    git('worktree', 'add', '--detach', dir, BASELINE);
  } catch {
    return null;
  }
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { srcDir: join(dir, 'src'), remove: () => git('worktree', 'remove', '--force', dir) };
}

async function samplePages(): Promise<Page[]> {
  const pages: Page[] = [];
  const file = join(ROOT, 'web-archive', 'sample.warc.gz');
  for await (const r of WARCParser.iterRecords(createReadStream(file))) {
    if (r.warcType !== 'response') continue;
    const type = r.httpHeaders?.headers.get('content-type') ?? '';
    if (r.httpHeaders?.statusCode !== 200 || !type.includes('html')) continue;
    pages.push({ url: r.warcTargetURI ?? '', html: await r.contentText() });
  }
  return pages;
}

const KEYWORD_FILLER = new Set(
  'how to do does is my the a an vs for in of best under much why worth it what'.split(' '),
);
const contentWords = (keyword: string) =>
  keyword
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w.length > 1 && !KEYWORD_FILLER.has(w) && !/^\d+$/.test(w));

function sampleTopics(pages: Page[], extractOf: (p: Page) => Extraction, all: boolean): Topic[] {
  const keywords = all ? ARCHIVE_PAIRS.map((p) => p.keyword) : SAMPLE_KEYWORDS;
  return keywords.map((keyword) => {
    const own = ARCHIVE_PAIRS.find((p) => p.keyword === keyword)?.url;
    const words = contentWords(keyword);
    const scored = pages
      .filter((p) => p.url !== own)
      .map((p) => {
        const e = extractOf(p);
        const text = `${e.title}\n${e.h1}\n${e.mainText}`.toLowerCase();
        const matched = words.filter((w) => new RegExp(`\\b${w}`, 'u').test(text)).length;
        return { p, matched, words: e.wordCount };
      })
      .filter((x) => x.words >= 100 && x.matched >= Math.max(1, words.length - 1))
      .sort((a, b) => b.matched - a.matched || (a.p.url < b.p.url ? -1 : 1));
    return { source: 'sample', name: keyword, keyword, pages: scored.slice(0, MAX_PAGES).map((x) => x.p) };
  });
}

function wcxbTopics(): { topics: Topic[]; all: Page[] } | null {
  const source = loadWcxbPages();
  if (!source) return null;
  const all: Page[] = [];
  const described: Array<{ page: Page; about: string }> = [];
  for (const s of source) {
    let url = `https://${s.domain}/`;
    let title = '';
    try {
      const truth = JSON.parse(readFileSync(join(WCXB_DEV_DIR, 'ground-truth', `${s.id}.json`), 'utf8')) as {
        url?: string;
        ground_truth?: { title?: string };
      };
      url = truth.url ?? url;
      title = truth.ground_truth?.title ?? '';
    } catch {
      // No ground truth: the page is matched by its domain only.
    }
    const page = { url, html: s.html.toString('utf8') };
    all.push(page);
    described.push({ page, about: `${url} ${title}` });
  }
  const topics = WCXB_TOPICS.map((t) => ({
    source: 'wcxb',
    name: t.name,
    keyword: t.keyword,
    pages: described
      .filter((d) => t.pattern.test(d.about))
      .slice(0, MAX_PAGES)
      .map((d) => d.page),
  })).filter((t) => t.pages.length >= 3);
  return { topics, all };
}

function recommended(tree: Tree, topic: Topic, extractOf: (p: Page) => Extraction): Recommended[] {
  const analysed: AnalyzedPage[] = topic.pages.map((p) => {
    const e = extractOf(p);
    return tree.analysis.analyze(p.url, e, 'en');
  });
  const model = tree.model.buildCompetitorModel(tree.analysis.analyzer, analysed, topic.keyword, 'en');
  return [...model.terms, ...model.entities]
    .map((m) => ({ display: m.display, key: m.key, kind: m.kind, importance: m.importance }))
    .sort((a, b) => b.importance - a.importance || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .slice(0, TOP);
}

// ---------------------------------------------------------------------------------------------------------------
// The judge.

export type Flag = 'filler' | 'fragment' | 'code' | 'duplicate' | '';

/**
 * A rule-based stand-in for a practitioner reading a term list. For each recommended item, in list order:
 * - `code`: an identifier's shape (`getLogger`, `max_size`, `asyncio.gather()`) on a term, or a language literal
 *   or keyword written as one (`None`, `True`, `False`, `null`, `self`, `await`, `def`, ...; not `async`, which
 *   prose uses as an adjective). An identifier-shaped *name* is the API name the issue allows, so it is not flagged.
 * - `duplicate`: the same as an item earlier in the list once case, punctuation and a plural `s` are ignored
 *   (`Python` the name and `python` the term; `asyncio.Queue` and `asyncio queue`).
 * - `fragment`: a piece of a longer name in the list (`Round` with `Round Rock`, `bambino plus` with `Breville
 *   Bambino Plus`; the keyword's own words are never pieces), or a phrase whose last word is not a noun (`best
 *   under`), or one or two lower-case letters (`js`; not `AI`).
 * - `filler`: a single word that wink tags as a verb, adjective or adverb when read as `the WORD.` (`ensure`,
 *   `highly`, `combined`), or a term whose every word is generic: used on at least 15% of the 350 WCXB dev pages,
 *   whatever their topic (`time`, `office`, `unique needs`), unless the word is in the keyword.
 *
 * Limits, honestly: the POS test reads a word without its context, so a noun that is also a verb (`repair`,
 * `cost`) is judged by wink's default reading; "generic" is document frequency in one mixed corpus of 350 pages,
 * so a word that is generic in general but central to a topic can be flagged, and a filler word the corpus happens
 * to rarely use (`picks`, `combined picks`) passes; near-synonyms (`coffee maker`, `coffee machine`) are not
 * duplicates to it; and it knows nothing of whether a term is what the searcher needs, only whether it is
 * well-formed, specific and said once.
 */
export function createJudge(corpus: readonly string[]) {
  const nlp = createWink(['pos']);
  const posCache = new Map<string, string>();
  const posOf = (word: string): string => {
    let pos = posCache.get(word);
    if (pos === undefined) {
      const tags = nlp.readDoc(`the ${word}.`).tokens().out(nlp.its.pos) as string[];
      pos = tags.length === 3 ? (tags[1] ?? 'X') : 'X';
      posCache.set(word, pos);
    }
    return pos;
  };
  const df = new Map<string, number>();
  for (const text of corpus) {
    for (const w of new Set(text.toLowerCase().match(/\p{L}[\p{L}'-]*/gu) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
  }
  const genericAt = Math.max(2, Math.ceil(corpus.length * 0.15));
  const generic = (w: string) => (df.get(w) ?? 0) >= genericAt || (df.get(`${w}s`) ?? 0) >= genericAt;
  const LITERALS = new Set(
    'None True False null undefined NaN nil self def await import lambda kwargs args elif println'.split(' '),
  );
  const IDENT = /[_.()]|^\p{Ll}{2,}\p{Lu}\p{Ll}/u;
  const norm = (s: string) =>
    s
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((w) => w.length > 0)
      .map((w) => (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w) ? w.slice(0, -1) : w));

  return function judge(items: readonly Recommended[], keyword: string): Flag[] {
    const kw = new Set(norm(keyword));
    const seen = new Set<string>();
    // Names as their words; an identifier (`asyncio.Queue`) is one word, so `queue` is not a piece of it.
    const names = items
      .filter((i) => i.kind === 'entity')
      .map((i) =>
        i.display
          .toLowerCase()
          .split(/\s+/)
          .map((w) => (IDENT.test(w) ? w : norm(w).join(''))),
      );
    return items.map((item): Flag => {
      const words = norm(item.display);
      const squashed = words.join('');
      const display = item.display.trim();
      if (LITERALS.has(display) || (item.kind === 'term' && IDENT.test(display))) return 'code';
      if (seen.has(squashed)) return 'duplicate';
      seen.add(squashed);
      if (squashed.length <= 2 && display === display.toLowerCase()) return 'fragment';
      const inName =
        !words.every((w) => kw.has(w)) &&
        names.some((n) => n.length > words.length && ` ${n.join(' ')} `.includes(` ${words.join(' ')} `));
      if (inName) return 'fragment';
      const plain = display.toLowerCase().split(/\s+/);
      const last = plain[plain.length - 1] ?? '';
      if (item.kind === 'term' && plain.length === 1 && ['VERB', 'ADJ', 'ADV'].includes(posOf(last))) return 'filler';
      if (item.kind === 'term' && plain.length > 1 && ['VERB', 'ADV', 'ADP', 'DET', 'AUX'].includes(posOf(last))) {
        return 'fragment';
      }
      if (words.every((w) => generic(w) && !kw.has(w))) return 'filler';
      return '';
    });
  };
}

// ---------------------------------------------------------------------------------------------------------------

function costPerDocument(tree: Tree, docs: readonly string[]): number {
  const analyzer = tree.terms.createTermAnalyzer();
  for (const text of docs.slice(0, 2)) analyzer.analyzeDocument({ text, language: 'en' });
  const times = docs.map((text) => {
    const started = performance.now();
    analyzer.analyzeDocument({ text, language: 'en' });
    return performance.now() - started;
  });
  return median(times);
}

/** Texts of exactly 3,000 words cut from `texts` joined (real prose, headings and lists as extracted). */
function threeThousandWordDocs(texts: readonly string[], count: number): string[] {
  const lines = texts.join('\n').split('\n');
  const out: string[] = [];
  let current: string[] = [];
  let words = 0;
  for (const line of lines) {
    const n = line.split(/\s+/).filter((w) => w.length > 0).length;
    if (n === 0) continue;
    current.push(line);
    words += n;
    if (words >= 3000) {
      out.push(
        current
          .join('\n')
          .split(/(?<=\S)(?=\s)/)
          .slice(0, 3000)
          .join(''),
      );
      if (out.length >= count) break;
      current = [];
      words = 0;
    }
  }
  return out;
}

const pct = (x: number) => `${Math.round(x * 1000) / 10}%`;

export async function run(args: string[]): Promise<void> {
  const all = args.includes('--all');
  const dir = mkdtempSync(join(tmpdir(), 'agent-api-bench-terms-'));
  const baseline = checkoutBaseline(join(dir, 'baseline'));
  if (!baseline) {
    process.stdout.write(`no git worktree of ${BASELINE}: nothing to compare with\n`);
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  try {
    const before = await loadTree(`before (${BASELINE})`, baseline.srcDir);
    const after = await loadTree('after (this tree)', join(ROOT, 'src'));
    const extractions = new Map<string, Extraction>();
    const extractOf = (p: Page): Extraction => {
      let e = extractions.get(p.url);
      if (!e) {
        e = before.analysis.extract(p.html, p.url);
        extractions.set(p.url, e);
      }
      return e;
    };

    const topics: Topic[] = sampleTopics(await samplePages(), extractOf, all);
    const wcxb = existsSync(WCXB_DEV_DIR) ? wcxbTopics() : null;
    if (wcxb) topics.push(...wcxb.topics);
    else process.stdout.write(`(no WCXB dev pages at ${WCXB_DEV_DIR}: sample archive topics only)\n`);
    const corpus = (wcxb?.all ?? []).map((p) => extractOf(p).mainText);
    const judge = createJudge(
      corpus.length > 0 ? corpus : topics.flatMap((t) => t.pages.map((p) => extractOf(p).mainText)),
    );

    const summary: string[][] = [];
    for (const topic of topics) {
      const lists = [before, after].map((tree) => {
        const items = recommended(tree, topic, extractOf);
        return { items, flags: judge(items, topic.keyword) };
      });
      const share = (l: { items: Recommended[]; flags: Flag[] }) =>
        l.items.length ? l.flags.filter((f) => f !== '').length / l.items.length : 0;
      process.stdout.write(
        `\n${topic.source}: "${topic.name}" (keyword "${topic.keyword}", ${topic.pages.length} pages)\n`,
      );
      const rows: string[][] = [];
      for (let i = 0; i < TOP; i += 1) {
        const cell = (l: (typeof lists)[number]) => {
          const item = l.items[i];
          if (!item) return ['', ''];
          return [`${item.display}${item.kind === 'entity' ? ' [name]' : ''}`, l.flags[i] ?? ''];
        };
        const [b, a] = lists;
        if (!b?.items[i] && !a?.items[i]) break;
        rows.push([String(i + 1), ...cell(b!), ...cell(a!)]);
      }
      process.stdout.write(`${table(['#', 'before', 'flag', 'after', 'flag'], rows)}\n`);
      const [b, a] = lists;
      process.stdout.write(`flagged: before ${pct(share(b!))}, after ${pct(share(a!))}\n`);
      summary.push([
        `${topic.source}: ${topic.name}`,
        String(topic.pages.length),
        pct(share(b!)),
        pct(share(a!)),
        share(a!) <= GOAL ? 'yes' : 'no',
      ]);
    }
    const mean = (k: number) =>
      summary.reduce((s, r) => s + Number((r[k] ?? '0').replace('%', '')), 0) / Math.max(1, summary.length);
    summary.push([
      'mean',
      '',
      `${mean(2).toFixed(1)}%`,
      `${mean(3).toFixed(1)}%`,
      mean(3) <= GOAL * 100 ? 'yes' : 'no',
    ]);
    process.stdout.write(`\nShare of the top ${TOP} flagged (goal: at most ${pct(GOAL)} per topic)\n`);
    process.stdout.write(`${table(['topic', 'pages', 'before', 'after', 'goal met'], summary)}\n`);

    const docs = threeThousandWordDocs(
      corpus.length > 0 ? corpus : topics.flatMap((t) => t.pages.map((p) => extractOf(p).mainText)),
      12,
    );
    const costBefore = costPerDocument(before, docs);
    const costAfter = costPerDocument(after, docs);
    process.stdout.write(
      `\nanalyzeDocument per 3,000-word document (median of ${docs.length}): before ${costBefore.toFixed(1)} ms, ` +
        `after ${costAfter.toFixed(1)} ms (${(costAfter / costBefore).toFixed(2)}x)\n`,
    );
  } finally {
    baseline.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}
