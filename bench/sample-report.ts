/**
 * `npm run bench -- sample-report [--json]`: what Optimize says on the sample web archive (web-archive/sample.warc.gz)
 * for two demo keywords, as a report to run before and after a change to the score or the pipeline.
 *
 * For each keyword, one real Optimize run of the in-process app (offline, archive search over the sample archive, a
 * fresh archive index in a temporary folder) scores the client's page for that keyword:
 *  - `emergency plumber austin`: RapidFlow Plumbing's emergency page, the archive's thorough client page for it;
 *  - `best espresso machine under 500`: BrewGeek's under-$500 guide, the page the archive's README names for that
 *    query (the thorough end of the espresso topic) and the one the other Optimize tests and benches score (Crema
 *    Supply has product pages only).
 * The report prints the scoring version, the page type of the scored page and of every candidate (position, type and
 * confidence, included or excluded with the reason), the score and the top 10 recommendations. Page types come from
 * the run's answer when it carries them (`page_type`); otherwise the report classifies the archived page itself
 * (classifyPage over extract, on the HTML composed from web-archive/pages/ via its manifest) and says so.
 *
 * Then five labelled texts are scored with the real score_content path against the run, as the calibration set does
 * (test/optimize/helpers/calibration.ts): `expert` and `stub` from test/fixtures/scoring-sample/<slug>/, `salad` (the
 * keyword salad of the run's own answer), `collage` (the included competitors' sentences, from their archived HTML) and
 * `offtopic` (the other keyword's expert article), with the calibration goals: expert above every other text, salad at
 * least 15 points below expert, collage below expert, off-topic lowest.
 *
 * `--json` prints the whole report as one JSON document instead (the lines before it are npm's and bench/index.ts's
 * banners; `node --import tsx bench/sample-report.ts --json` prints the JSON alone).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { extract } from '../src/engine/analysis/extract/index.ts';
import { classifyPage } from '../src/engine/analysis/page-type/index.ts';
import {
  collage,
  EXPECTED,
  goals,
  holds,
  keywordSalad,
  LABELS,
  pairName,
  type CalibrationTopic,
  type Label,
  type RunForSalad,
  scoreMarkdown,
  startArchiveApp,
} from '../test/optimize/helpers/calibration.ts';
import { composePage } from '../scripts/build-sample-archive.ts';
import { table } from './lib/harness.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ARCHIVE = join(ROOT, 'web-archive', 'sample.warc.gz');
const PAGES = join(ROOT, 'web-archive', 'pages');
const FIXTURES = join(ROOT, 'test', 'fixtures', 'scoring-sample');
/** Said of a page type the report worked out itself because the run's answer had none. */
const BY_REPORT = 'classified by the report';

/** The two keywords and the client page each scores (see the header). */
export const SAMPLE_KEYWORDS = [
  {
    slug: 'emergency-plumber-austin',
    keyword: 'emergency plumber austin',
    url: 'https://www.rapidflowplumbing.com/emergency-plumbing/',
  },
  {
    slug: 'best-espresso-machine-under-500',
    keyword: 'best espresso machine under 500',
    url: 'https://brewgeek.net/guides/best-espresso-machines-under-500/',
  },
] as const;

// ---------------------------------------------------------------------------------------------------------------
// The archived pages

interface ManifestRecord {
  url: string;
  status?: number;
  file?: string;
  title?: string;
  description?: string;
}

let manifest: ManifestRecord[] | null = null;

/** The HTML the sample archive holds for a URL (the last 200 capture in the manifest), or null. */
function archivedHtml(url: string): string | null {
  manifest ??= (JSON.parse(readFileSync(join(PAGES, 'manifest.json'), 'utf8')) as { records: ManifestRecord[] })
    .records;
  const want = url.replace(/#.*$/, '');
  const record = manifest.findLast(
    (r) => r.url === want && (r.status ?? 200) === 200 && !!r.file && /\.html?$/i.test(r.file),
  );
  return record ? composePage(join(PAGES, 'sites'), record) : null;
}

// ---------------------------------------------------------------------------------------------------------------
// Page types

interface PageTypeCell {
  type: string | null;
  confidence: number | null;
  /** `answer` when the run's answer gave it, BY_REPORT when the report classified the archived page. */
  from: 'answer' | typeof BY_REPORT | null;
}

const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The page type an answer object carries, under whichever spelling it uses; null when it has none. */
function answerPageType(o: unknown): PageTypeCell | null {
  if (!o || typeof o !== 'object') return null;
  const rec = o as Record<string, unknown>;
  for (const key of ['page_type', 'pageType']) {
    const v = rec[key];
    if (typeof v === 'string' && v)
      return {
        type: v,
        confidence: num(rec[`${key}_confidence`] ?? rec[`${key}Confidence`] ?? rec.page_type_confidence),
        from: 'answer',
      };
    if (v && typeof v === 'object') {
      const t = (v as Record<string, unknown>).type ?? (v as Record<string, unknown>).page_type;
      if (typeof t === 'string' && t)
        return { type: t, confidence: num((v as { confidence?: unknown }).confidence), from: 'answer' };
    }
  }
  return null;
}

/** The page type of an archived page, classified here. */
function classifiedPageType(url: string): PageTypeCell {
  const html = archivedHtml(url);
  if (html === null) return { type: null, confidence: null, from: null };
  const r = classifyPage(extract(html, { url }));
  return { type: r.type, confidence: r.confidence, from: BY_REPORT };
}

/** Whether two URLs name the same document (scheme, host case, a trailing slash and the fragment aside). */
function sameDocument(a: string, b: string): boolean {
  const key = (u: string) => {
    try {
      const x = new URL(u);
      return `${x.hostname.toLowerCase()}${x.pathname.replace(/\/+$/, '')}${x.search}`;
    } catch {
      return u;
    }
  };
  return key(a) === key(b);
}

const pageTypeOf = (answer: unknown[], url: string): PageTypeCell => {
  for (const o of answer) {
    const found = answerPageType(o);
    if (found) return found;
  }
  return classifiedPageType(url);
};

// ---------------------------------------------------------------------------------------------------------------
// The run

interface RecommendationAnswer {
  id?: string;
  check?: string;
  kind: string;
  term: string | null;
  points?: number;
  priority?: string;
  recommendation: string;
}

interface RunResult extends RunForSalad {
  rankabilityScore: number;
  categoryScores?: Record<string, number>;
  competitorCount: number;
  scoringVersion: string;
  confidence?: string;
  warnings?: string[];
  recommendations: RecommendationAnswer[];
  competitors: ({ url: string; position: number | null; wordCount?: number; relevance?: number } & Record<
    string,
    unknown
  >)[];
  excluded_competitors?: ({ url: string; position: number | null; reason: string; detail: string } & Record<
    string,
    unknown
  >)[];
  [k: string]: unknown;
}

interface OptimizationAnswer {
  optimization_id: string;
  status: string;
  error: string | null;
  result?: RunResult | null;
  [k: string]: unknown;
}

interface CandidateRow {
  position: number | null;
  url: string;
  pageType: PageTypeCell;
  included: boolean;
  reason: string | null;
  detail: string | null;
  wordCount: number | null;
  relevance: number | null;
}

interface TextScore {
  words: number;
  score: number;
  scoringVersion: string;
}

export interface KeywordReport {
  keyword: string;
  url: string;
  scoringVersion: string;
  page: PageTypeCell;
  score: number;
  categoryScores: Record<string, number>;
  competitorCount: number;
  confidence: string | null;
  warnings: string[];
  candidates: CandidateRow[];
  recommendationCount: number;
  recommendations: {
    points: number | null;
    priority: string | null;
    kind: string;
    check: string | null;
    term: string | null;
    text: string;
  }[];
  texts: Record<Label, TextScore>;
  expertMinusSalad: number;
  goals: { goal: string; pass: boolean }[];
  orderings: { ordering: string; holds: boolean }[];
}

export interface SampleReport {
  archive: string;
  commit: string | null;
  /** Files under src/ changed and not committed when the report ran. */
  uncommittedSrcFiles: number | null;
  scoringVersions: string[];
  keywords: KeywordReport[];
}

const words = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

function git(args: string[]): string | null {
  try {
    return execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

const score = scoreMarkdown;

/** Runs both Optimize runs on the sample archive and scores the labelled texts against each. */
export async function sampleReport(): Promise<SampleReport> {
  const dir = mkdtempSync(join(tmpdir(), 'agent-api-bench-sample-report-'));
  const t = await startArchiveApp(ARCHIVE, dir);
  try {
    const { key } = await t.tenant('agency');
    const ids = new Map<string, string>();
    for (const k of SAMPLE_KEYWORDS) {
      const r = await t.request<OptimizationAnswer>('POST', '/optimize', {
        key,
        body: { url: k.url, keyword: k.keyword },
        headers: { 'idempotency-key': `sample-report-${k.slug}` },
      });
      if (r.status !== 202) throw new Error(`POST /optimize ${k.keyword}: HTTP ${r.status} ${JSON.stringify(r.body)}`);
      ids.set(k.slug, r.body.optimization_id);
    }
    await t.engine.runner.runUntilIdle();
    const runs = new Map<string, { id: string; answer: OptimizationAnswer; result: RunResult }>();
    for (const k of SAMPLE_KEYWORDS) {
      const id = ids.get(k.slug)!;
      const r = await t.request<OptimizationAnswer>('GET', `/optimizations/${id}`, { key, query: { view: 'full' } });
      if (r.body.status !== 'complete' || !r.body.result)
        throw new Error(`optimization of "${k.keyword}": ${r.body.status} ${r.body.error ?? ''}`);
      runs.set(k.slug, { id, answer: r.body, result: r.body.result });
    }

    const fixture = (slug: string, name: string) => readFileSync(join(FIXTURES, slug, name), 'utf8');
    const keywords: KeywordReport[] = [];
    for (const [i, k] of SAMPLE_KEYWORDS.entries()) {
      const other = SAMPLE_KEYWORDS[(i + 1) % SAMPLE_KEYWORDS.length]!;
      const { id, answer, result } = runs.get(k.slug)!;
      const res = result as Record<string, unknown>;

      const candidates: CandidateRow[] = [
        ...result.competitors.map((c) => ({
          position: c.position,
          url: c.url,
          pageType: pageTypeOf([c], c.url),
          included: true,
          reason: null,
          detail: null,
          wordCount: num(c.wordCount),
          relevance: num(c.relevance),
        })),
        ...(result.excluded_competitors ?? []).map((e) => ({
          position: e.position,
          url: e.url,
          pageType: pageTypeOf([e], e.url),
          included: false,
          reason: e.reason,
          detail: e.detail,
          wordCount: null,
          relevance: null,
        })),
      ];
      // The ranking pages the answer lists nowhere: the scored page itself, and repeats of a URL (the evidence's search).
      const evidence = (answer.evidence ?? {}) as {
        search?: { results?: { position: number | null; url: string }[] };
        page?: unknown;
        competitors?: ({ url: string } & Record<string, unknown>)[];
      };
      const evidenceOf = (url: string) => evidence.competitors?.find((c) => c.url === url);
      for (const c of candidates) if (c.pageType.from !== 'answer') c.pageType = pageTypeOf([evidenceOf(c.url)], c.url);
      for (const s of evidence.search?.results ?? []) {
        if (candidates.some((c) => c.url === s.url)) continue;
        const self = sameDocument(s.url, k.url);
        candidates.push({
          position: s.position,
          url: s.url,
          pageType: pageTypeOf([], s.url),
          included: false,
          reason: self ? 'scored_page' : 'not_listed',
          detail: self ? 'the scored page itself' : 'not in the answer (a repeat of a listed URL)',
          wordCount: null,
          relevance: null,
        });
      }
      candidates.sort((a, b) => (a.position ?? 999) - (b.position ?? 999) || (a.url < b.url ? -1 : 1));

      const expert = fixture(k.slug, 'expert.md');
      const pages = result.competitors
        .map((c) => ({ file: '', url: c.url, html: archivedHtml(c.url) }))
        .filter((p): p is { file: string; url: string; html: string } => p.html !== null);
      const topic: CalibrationTopic = {
        slug: k.slug,
        keyword: k.keyword,
        target: k.url,
        pages,
        expert,
        stub: fixture(k.slug, 'stub.md'),
      };
      const texts: Record<Label, string> = {
        expert,
        salad: keywordSalad(k.keyword, result),
        collage: pages.length ? collage(topic) : `# ${k.keyword}\n`,
        stub: topic.stub,
        offtopic: fixture(other.slug, 'expert.md'),
      };
      const scored = {} as Record<Label, TextScore>;
      for (const label of LABELS) {
        const s = await score(t, key, id, texts[label]);
        scored[label] = { words: words(texts[label]), score: s.rankabilityScore, scoringVersion: s.scoringVersion };
      }
      const scores = Object.fromEntries(LABELS.map((l) => [l, scored[l].score])) as Record<Label, number>;

      const recs = [...(result.recommendations ?? [])].sort((a, b) => (b.points ?? 0) - (a.points ?? 0));
      keywords.push({
        keyword: k.keyword,
        url: k.url,
        scoringVersion: result.scoringVersion,
        page: pageTypeOf([res, res.page, res.source, answer, evidence.page], k.url),
        score: result.rankabilityScore,
        categoryScores: result.categoryScores ?? {},
        competitorCount: result.competitorCount,
        confidence: typeof result.confidence === 'string' ? result.confidence : null,
        warnings: result.warnings ?? [],
        candidates,
        recommendationCount: recs.length,
        recommendations: recs.slice(0, 10).map((r) => ({
          points: num(r.points),
          priority: r.priority ?? null,
          kind: r.kind,
          check: r.check ?? null,
          term: r.term,
          text: r.recommendation,
        })),
        texts: scored,
        expertMinusSalad: Math.round((scores.expert - scores.salad) * 10) / 10,
        goals: goals([scores]),
        orderings: EXPECTED.map((e) => ({ ordering: pairName(e), holds: holds(e, scores) })),
      });
    }

    const changed = git(['status', '--porcelain', '--', 'src']);
    return {
      archive: 'web-archive/sample.warc.gz',
      commit: git(['rev-parse', 'HEAD']),
      uncommittedSrcFiles: changed === null ? null : changed.split('\n').filter(Boolean).length,
      scoringVersions: [
        ...new Set(keywords.flatMap((k) => [k.scoringVersion, ...LABELS.map((l) => k.texts[l].scoringVersion)])),
      ],
      keywords,
    };
  } finally {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The human report

const fixed = (n: number | null, digits = 1) => (n === null ? '-' : n.toFixed(digits));
const typeCell = (p: PageTypeCell) => p.type ?? '(not in the archive)';
const fromCell = (p: PageTypeCell) => (p.from === 'answer' ? "run's answer" : (p.from ?? '-'));

export function formatReport(r: SampleReport): string {
  const out: string[] = [];
  out.push(
    `sample archive ${r.archive}; commit ${r.commit?.slice(0, 12) ?? '?'}` +
      (r.uncommittedSrcFiles ? ` + ${r.uncommittedSrcFiles} uncommitted file(s) under src/` : '') +
      `; scoring version ${r.scoringVersions.join(', ')}\n`,
  );
  for (const k of r.keywords) {
    out.push(`\n### "${k.keyword}"\n\n`);
    out.push(`scored page   ${k.url}\n`);
    out.push(`page type     ${typeCell(k.page)} (confidence ${fixed(k.page.confidence, 2)}; ${fromCell(k.page)})\n`);
    out.push(`scoring       version ${k.scoringVersion}\n`);
    out.push(
      `score         ${k.score.toFixed(1)} with ${k.competitorCount} competitor(s), confidence ${k.confidence ?? '-'}\n`,
    );
    out.push(
      `categories    ${
        Object.entries(k.categoryScores)
          .map(([c, v]) => `${c} ${Math.round(v)}`)
          .join(', ') || '-'
      }\n`,
    );
    for (const w of k.warnings) out.push(`warning       ${w}\n`);

    out.push(`\ncandidates (the ranking pages; page types: see the "from" column)\n\n`);
    out.push(
      table(
        ['pos', 'url', 'page type', 'conf', 'from', 'included', 'reason'],
        k.candidates.map((c) => [
          c.position === null ? '-' : String(c.position),
          c.url,
          typeCell(c.pageType),
          fixed(c.pageType.confidence, 2),
          fromCell(c.pageType),
          c.included ? 'yes' : 'no',
          c.included
            ? `relevance ${fixed(c.relevance, 2)}, ${c.wordCount ?? '?'} words`
            : `${c.reason}: ${c.detail ?? ''}`,
        ]),
      ),
    );

    out.push(`\ntop ${k.recommendations.length} of ${k.recommendationCount} recommendations\n\n`);
    out.push(
      table(
        ['#', 'points', 'priority', 'kind', 'recommendation'],
        k.recommendations.map((rec, i) => [
          String(i + 1),
          fixed(rec.points, 2),
          rec.priority ?? '-',
          rec.kind,
          rec.text.replace(/\s+/g, ' '),
        ]),
      ),
    );

    out.push(`\nlabelled texts scored against the run (score_content, markdown, view full)\n\n`);
    out.push(
      table(
        ['text', 'words', 'score'],
        LABELS.map((l) => [l, String(k.texts[l].words), k.texts[l].score.toFixed(1)]),
      ),
    );
    out.push(`expert - salad = ${k.expertMinusSalad.toFixed(1)}\n\n`);
    out.push(
      table(
        ['goal', 'pass'],
        k.goals.map((g) => [g.goal.replace(/ on every topic$/, ''), g.pass ? 'PASS' : 'fail']),
      ),
    );
    const held = k.orderings.filter((o) => o.holds).length;
    out.push(
      `orderings held ${held}/${k.orderings.length}` +
        (held < k.orderings.length
          ? `; not held: ${k.orderings
              .filter((o) => !o.holds)
              .map((o) => o.ordering)
              .join('; ')}`
          : '') +
        '\n',
    );
  }
  return out.join('');
}

export async function run(args: string[]): Promise<void> {
  const t0 = performance.now();
  const report = await sampleReport();
  if (args.includes('--json')) {
    process.stdout.write(JSON.stringify(report, null, 2) + '\n');
    return;
  }
  process.stdout.write(formatReport(report));
  process.stdout.write(`\n(${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) await run(process.argv.slice(2));
