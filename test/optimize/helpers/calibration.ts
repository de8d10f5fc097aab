/**
 * The labelled calibration set of the score, shared by
 * test/optimize/calibration.test.ts and `npm run bench -- scoring`.
 *
 * Each topic of test/fixtures/scoring/<slug>/ holds `topic.json` (the keyword, the scored page's URL and the URL of
 * every competitor page), `pages/*.html` (the competitors, written for these tests), `expert.md` (a coherent expert
 * article) and `stub.md` (a thin page). The offline web is a WARC written at run time from those files (the scored
 * page is the stub, rendered as the client's page), so the fixtures stay readable. Per topic, five texts are scored
 * with the real score_content path against a real Optimize run of that archive:
 *  - `expert`: the expert article;
 *  - `salad`: a keyword salad built from the run's own recommendations (terms and names stuffed into fragments and
 *    headings, every FAQ answered "Yes.");
 *  - `collage`: sentences of the competitor pages stitched together, round robin, under their own headings;
 *  - `stub`: the thin page;
 *  - `offtopic`: the expert article of the next topic.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contentAsHtml } from '../../../src/engine/optimize/score-content.ts';
import { serializeExchange, uuidV5RecordId } from '../../../src/providers/web/archive/writer.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/scoring/', import.meta.url));

export const LABELS = ['expert', 'salad', 'collage', 'stub', 'offtopic'] as const;
export type Label = (typeof LABELS)[number];

export interface CalibrationTopic {
  slug: string;
  keyword: string;
  /** The scored page's URL (the stub, served as the client's page). */
  target: string;
  /** Competitor pages: file name (in pages/) and URL. */
  pages: { file: string; url: string; html: string }[];
  expert: string;
  stub: string;
}

interface TopicJson {
  keyword: string;
  target: string;
  pages: Record<string, string>;
}

/** Every topic under test/fixtures/scoring, by folder name. */
export function loadTopics(root = FIXTURES): CalibrationTopic[] {
  return readdirSync(root, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
    .map((slug) => {
      const dir = join(root, slug);
      const spec = JSON.parse(readFileSync(join(dir, 'topic.json'), 'utf8')) as TopicJson;
      return {
        slug,
        keyword: spec.keyword,
        target: spec.target,
        pages: Object.entries(spec.pages).map(([file, url]) => ({
          file,
          url,
          html: readFileSync(join(dir, 'pages', file), 'utf8'),
        })),
        expert: readFileSync(join(dir, 'expert.md'), 'utf8'),
        stub: readFileSync(join(dir, 'stub.md'), 'utf8'),
      };
    });
}

/** The first markdown H1 of a text (its title), or its first line. */
export function titleOf(markdown: string): string {
  const h1 = /^#\s+(.+)$/m.exec(markdown);
  return (h1?.[1] ?? markdown.split('\n')[0] ?? '').trim();
}

/** The first paragraph that is not a heading or a list, cut at a word before 155 characters (the description). */
export function descriptionOf(markdown: string): string {
  const para =
    markdown
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .find((p) => p && !/^(#|-|\*|\d+\.|\|)/.test(p)) ?? '';
  const flat = para.replace(/\*\*|__|`/g, '').replace(/\s+/g, ' ');
  if (flat.length <= 155) return flat;
  return `${flat.slice(0, 155).replace(/\s+\S*$/, '')}...`;
}

/** The stub as the client's own page: what the Optimize run scores. */
export function targetHtml(topic: CalibrationTopic): string {
  return contentAsHtml(
    {
      content: topic.stub,
      format: 'markdown',
      title: titleOf(topic.stub),
      meta_description: descriptionOf(topic.stub),
    },
    'en',
  );
}

/** Writes the offline web of every topic (competitors and scored pages) as one gzipped WARC, byte-identical per input. */
export async function writeCalibrationArchive(file: string, topics: readonly CalibrationTopic[]): Promise<void> {
  const recordId = uuidV5RecordId('agent-api-calibration');
  const parts: Uint8Array[] = [];
  for (const topic of topics) {
    const pages = [
      ...topic.pages.map((p) => ({ url: p.url, html: p.html })),
      { url: topic.target, html: targetHtml(topic) },
    ];
    for (const page of pages)
      parts.push(
        await serializeExchange(
          {
            url: page.url,
            date: '2025-04-01T09:00:00Z',
            status: 200,
            statusText: 'OK',
            headers: [['Content-Type', 'text/html; charset=utf-8']],
            payload: Buffer.from(page.html, 'utf8'),
          },
          { gzip: true, recordId },
        ),
      );
  }
  writeFileSync(file, Buffer.concat(parts));
}

// ---------------------------------------------------------------------------------------------------------------
// The programmatic texts

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };

/** Text of an HTML fragment: tags dropped, the common entities decoded, white space collapsed. */
function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(#?\w+);/g, (m, name: string) => ENTITIES[name] ?? m)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The inner text of every `tag` element of a page, in order. */
function elements(html: string, tag: string): string[] {
  const re = new RegExp(`<${tag}\\b[^>]*>([\\s\\S]*?)</${tag}>`, 'gi');
  return [...html.matchAll(re)].map((m) => textOf(m[1]!)).filter(Boolean);
}

/** The sentences of a page's main text (paragraphs and list items), at least six words each. */
export function pageSentences(html: string): string[] {
  const main = /<main\b[\s\S]*<\/main>/i.exec(html)?.[0] ?? html;
  return [...elements(main, 'p'), ...elements(main, 'li')]
    .flatMap((block) => block.split(/(?<=[.!?])\s+(?=[A-Z0-9"'])/))
    .map((s) => s.trim())
    .filter((s) => s.split(/\s+/).length >= 6 && /[.!?]$/.test(s));
}

const words = (text: string) => text.split(/\s+/).filter(Boolean).length;

/**
 * A collage: the competitors' sentences taken round robin (each page in turn), no sentence twice, under the
 * competitors' own H2 headings (one every five sentences), up to the expert article's length; the H1 of the first page.
 */
export function collage(topic: CalibrationTopic, targetWords = words(topic.expert)): string {
  const queues = topic.pages.map((p) => pageSentences(p.html));
  const headings = topic.pages.flatMap((p) => elements(p.html, 'h2'));
  const h1 = elements(topic.pages[0]!.html, 'h1')[0] ?? topic.keyword;
  const out = [`# ${h1}`, ''];
  const seen = new Set<string>();
  let count = 0;
  let paragraph: string[] = [];
  let taken = 0;
  for (let round = 0; count < targetWords && queues.some((q) => round < q.length); round++)
    for (const q of queues) {
      const s = q[round];
      if (!s || seen.has(s) || count >= targetWords) continue;
      seen.add(s);
      if (taken > 0 && taken % 5 === 0) {
        out.push(paragraph.join(' '), '');
        paragraph = [];
        const heading = headings[(taken / 5 - 1) % Math.max(1, headings.length)];
        if (heading) out.push(`## ${heading}`, '');
      }
      paragraph.push(s);
      taken++;
      count += words(s);
    }
  if (paragraph.length) out.push(paragraph.join(' '), '');
  return out.join('\n');
}

/** What the salad reads from a finished run: its terms and names, its recommendations, its heading terms. */
export interface RunForSalad {
  entities: { term: string; kind: string; importance: number }[];
  recommendations: { kind: string; term: string | null; recommendation: string }[];
}

/**
 * A keyword salad: every term and name the run recommends (most important first), stuffed into short fragments and
 * headings around the keyword, bulleted lists of the terms, and an FAQ of questions made from them, each answered
 * "Yes.". The way a writer who optimises for the checklist alone would fill every box.
 */
export function keywordSalad(keyword: string, run: RunForSalad): string {
  const recommended = run.recommendations.map((r) => r.term).filter((t): t is string => !!t);
  const byImportance = [...run.entities].sort((a, b) => b.importance - a.importance).map((e) => e.term);
  const terms = [...new Set([...recommended, ...byImportance])];
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  const out = [`# ${cap(keyword)}: ${terms.slice(0, 3).join(', ')}`, ''];
  out.push(`${cap(keyword)}. ${cap(keyword)} guide. ${terms.slice(0, 6).map(cap).join('. ')}.`, '');
  for (let i = 0; i < terms.length; i += 4) {
    const group = terms.slice(i, i + 4);
    out.push(`## ${cap(group[0]!)} and ${keyword}`, '');
    out.push(`${cap(keyword)} ${group.join(' ')}. ${group.map((t) => `${cap(t)} ${keyword}`).join('. ')}.`, '');
    out.push(...group.map((t) => `- ${cap(t)}`), '');
  }
  out.push(`## ${cap(keyword)} FAQ`, '');
  for (const t of terms.slice(0, 8)) out.push(`### Is ${t} important for ${keyword}?`, '', 'Yes.', '');
  return out.join('\n');
}

/** The five labelled texts of a topic; `next` is the topic whose expert article is the off-topic text. */
export function labelledTexts(
  topic: CalibrationTopic,
  next: CalibrationTopic,
  run: RunForSalad,
): Record<Label, string> {
  return {
    expert: topic.expert,
    salad: keywordSalad(topic.keyword, run),
    collage: collage(topic),
    stub: topic.stub,
    offtopic: next.expert,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// The runs and the scores

export interface ScoreAnswer {
  rankabilityScore: number;
  categoryScores: Record<string, number>;
  scoringVersion: string;
  recommendations: { kind: string; term: string | null; recommendation: string }[];
  [k: string]: unknown;
}

interface OptimizationAnswer {
  optimization_id: string;
  status: string;
  error: string | null;
  result?: (RunForSalad & { rankabilityScore: number; competitorCount: number; scoringVersion: string }) | null;
}

export interface CalibrationWorld {
  t: TestApp;
  key: string;
  topics: CalibrationTopic[];
  /** Per topic slug: the finished run's id and full result. */
  runs: Map<string, { id: string; result: NonNullable<OptimizationAnswer['result']> }>;
  /** Scores markdown against a topic's run (score_content over REST, the whole answer). */
  score(slug: string, markdown: string): Promise<ScoreAnswer>;
  close(): Promise<void>;
}

/** Scores markdown against a finished run through score_content over REST (its title and description as a page's). */
export async function scoreMarkdown(t: TestApp, key: string, id: string, markdown: string): Promise<ScoreAnswer> {
  const r = await t.request<ScoreAnswer>('POST', `/optimizations/${id}/score`, {
    key,
    body: {
      content: markdown,
      format: 'markdown',
      title: titleOf(markdown),
      meta_description: descriptionOf(markdown),
      view: 'full',
    },
  });
  if (r.status !== 200) throw new Error(`score against ${id}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

/**
 * A real app whose only web and search is `archive` (offline), its index in `dir`, the runner driven by the test
 * (`runUntilIdle`), not by polling.
 */
export function startArchiveApp(archive: string, dir: string): Promise<TestApp> {
  return startTestApp({
    env: {
      AGENT_API_OFFLINE: '1',
      SERP_PROVIDER: 'archive',
      AGENT_API_WEB_ARCHIVE: archive,
      AGENT_API_ARCHIVE_INDEX_DIR: join(dir, 'index'),
      AGENT_API_POLL_MS: '60000',
    },
  });
}

/**
 * A real app whose only web is the calibration archive (offline, archive search), with one finished Optimize run
 * per topic. `dir` holds the archive and its index.
 */
export async function startCalibration(dir: string, topics = loadTopics()): Promise<CalibrationWorld> {
  const warc = join(dir, 'calibration.warc.gz');
  await writeCalibrationArchive(warc, topics);
  const t = await startArchiveApp(warc, dir);
  try {
    const { key } = await t.tenant('agency');
    const started = new Map<string, string>();
    for (const topic of topics) {
      const r = await t.request<OptimizationAnswer>('POST', '/optimize', {
        key,
        body: { url: topic.target, keyword: topic.keyword },
        headers: { 'idempotency-key': `calibration-${topic.slug}` },
      });
      if (r.status !== 202) throw new Error(`POST /optimize ${topic.slug}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      started.set(topic.slug, r.body.optimization_id);
    }
    await t.engine.runner.runUntilIdle();
    const runs: CalibrationWorld['runs'] = new Map();
    for (const [slug, id] of started) {
      const r = await t.request<OptimizationAnswer>('GET', `/optimizations/${id}`, { key, query: { view: 'full' } });
      if (r.body.status !== 'complete' || !r.body.result)
        throw new Error(`optimization of ${slug}: ${r.body.status} ${r.body.error ?? ''}`);
      runs.set(slug, { id, result: r.body.result });
    }
    return {
      t,
      key,
      topics,
      runs,
      score: (slug, markdown) => scoreMarkdown(t, key, runs.get(slug)!.id, markdown),
      close: () => t.close(),
    };
  } catch (err) {
    await t.close();
    throw err;
  }
}

/** Every topic's five texts scored: scores[slug][label]. */
export async function scoreAll(w: CalibrationWorld): Promise<Map<string, Record<Label, ScoreAnswer>>> {
  const out = new Map<string, Record<Label, ScoreAnswer>>();
  for (const [i, topic] of w.topics.entries()) {
    const next = w.topics[(i + 1) % w.topics.length]!;
    const texts = labelledTexts(topic, next, w.runs.get(topic.slug)!.result);
    const scored = {} as Record<Label, ScoreAnswer>;
    for (const label of LABELS) scored[label] = await w.score(topic.slug, texts[label]);
    out.set(topic.slug, scored);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// The expected order

/** One expected ordering: `higher` scores above `lower` by at least `margin` points. */
export interface Expectation {
  higher: Label;
  lower: Label;
  margin: number;
}

/** The pairwise orderings the issue expects: the expert first (salad 15 points below), the off-topic article last. */
export const EXPECTED: readonly Expectation[] = [
  { higher: 'expert', lower: 'collage', margin: 0 },
  { higher: 'expert', lower: 'salad', margin: 15 },
  { higher: 'expert', lower: 'stub', margin: 0 },
  { higher: 'expert', lower: 'offtopic', margin: 0 },
  { higher: 'collage', lower: 'offtopic', margin: 0 },
  { higher: 'salad', lower: 'offtopic', margin: 0 },
  { higher: 'stub', lower: 'offtopic', margin: 0 },
];

export const pairName = (e: Expectation) => `${e.higher} > ${e.lower}${e.margin ? ` by >= ${e.margin}` : ''}`;

/** Whether one expected ordering holds for one topic's scores (a tie never holds). */
export function holds(e: Expectation, scores: Record<Label, number>): boolean {
  return scores[e.higher] - scores[e.lower] >= e.margin && scores[e.higher] > scores[e.lower];
}

/** The issue's goals, each true when it holds on every topic. */
export function goals(all: readonly Record<Label, number>[]): { goal: string; pass: boolean }[] {
  const every = (f: (s: Record<Label, number>) => boolean) => all.every(f);
  const others = (s: Record<Label, number>, label: Label) => LABELS.filter((l) => l !== label).map((l) => s[l]);
  return [
    { goal: 'expert highest on every topic', pass: every((s) => others(s, 'expert').every((x) => s.expert > x)) },
    { goal: 'salad at least 15 points below expert', pass: every((s) => s.expert - s.salad >= 15) },
    { goal: 'collage below expert', pass: every((s) => s.collage < s.expert) },
    { goal: 'off-topic lowest', pass: every((s) => others(s, 'offtopic').every((x) => s.offtopic < x)) },
  ];
}
