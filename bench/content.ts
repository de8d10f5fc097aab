/**
 * `npm run bench -- content [extractive] [llm] [quality] [--jobs N] [--writer-concurrency C] [--latency MS]`
 * (issue 5): jobs/s of auto content jobs, N (default 50) started at once on the sample archive (offline research),
 * first accept to last complete, with
 *  1. the offline extractive writer (no writer limit: the app's CPU is the ceiling, shown as CPU per job and CPU
 *     utilisation next to the share of a core a busy thread gets on this machine right now), and
 *  2. an OpenAI-compatible loopback writer (bench/lib/content-fake-llm.ts) answering after 200 ms: throughput as a
 *     ratio to the writer's own limit, (C / latency) calls/s divided by the writer calls per job counted at the fake
 *     (goal: at least 0.8), plus the fake's average calls in flight over C.
 * The app runs as a child process (bench/lib/app-server.ts, default runner concurrency) so the fake writer and the
 * HTTP clients in this process do not share its event loop, and its CPU time is read from /proc.
 *
 * `quality` (after the throughput phases, on its own app, so it changes none of their figures): one auto job per demo
 * topic of the sample archive with the offline writer (bench/lib/content-quality.ts), and a table of draft words,
 * the share of the draft's sentence words from its largest single source page, planted-boilerplate sentences
 * (bench/lib/boilerplate-detector.ts, goal 0), repeated sentences (goal 0) and the size of the default
 * GET artifacts answer.
 */
import { cpus } from 'node:os';
import { splitSentences } from '../src/engine/analysis/sentences.ts';
import { tempDir } from '../test/helpers/temp.ts';
import { table } from './lib/harness.ts';
import { startFakeLlm, type FakeLlm } from './lib/content-fake-llm.ts';
import { QUALITY_TOPICS, runQuality, type QualityRow } from './lib/content-quality.ts';
import { ARCHIVE_PAIRS } from './lib/optimize-archive.ts';
import {
  cpuShare,
  followUntil,
  loadLine,
  median,
  restClient,
  seedTenant,
  spawnApp,
  type RestClient,
  type Tenant,
} from './lib/optimize-app.ts';

/** A phase stops following jobs after this; unfinished ones are reported, not waited for. */
const PHASE_MS = 32_000;
const terminal = (s: string) => s === 'completed' || s === 'failed';

interface JobBody {
  job_id: string;
  status: string;
  error: string | null;
  created_at: string;
  completed_at: string | null;
}

async function createJob(rest: RestClient, tenant: Tenant, key: string, idem: string, topic: string): Promise<JobBody> {
  const r = await rest.call<JobBody>('POST', '/copywriter/jobs', key, {
    body: { client_id: tenant.clientId, topic, mode: 'auto', page_contract: 'article' },
    headers: { 'idempotency-key': idem },
  });
  if (r.status !== 201) throw new Error(`POST /copywriter/jobs: HTTP ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}

interface PhaseResult {
  jobs: number;
  done: number;
  failed: number;
  errors: string[];
  wallMs: number;
  jobsPerSecond: number;
  cpuPerJob: number | null;
  utilisation: number | null;
  fake: {
    calls: Record<string, number>;
    total: number;
    avgInFlight: number;
    max: number;
    meanLatencyMs: number;
  } | null;
}

/** `fn` run at most once; later calls share its promise. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let p: Promise<void> | null = null;
  return () => (p ??= fn());
}

/** Seeds, starts and warms one app (language model, archive index, JIT) with one job that is not counted. */
async function prepare(label: string, jobs: number, env: Record<string, string>, fake: FakeLlm | null) {
  const tmp = tempDir('agent-api-bench-content-');
  const tenant = await seedTenant(tmp.dbPath, jobs + 1);
  const app = await spawnApp({ AGENT_API_DB: tmp.dbPath, SERP_PROVIDER: 'archive', AGENT_API_OFFLINE: '1', ...env });
  const rest = restClient(app.port);
  const close = once(async () => {
    await rest.close();
    await app.stop();
    tmp.cleanup();
  });
  const follow = (key: string, id: string, deadline: number) =>
    followUntil<JobBody>(rest, `/copywriter/jobs/${id}`, key, terminal, deadline);
  try {
    const warmKey = tenant.keys[jobs]!;
    const warm = await createJob(rest, tenant, warmKey, `bench-${label}-warm`, ARCHIVE_PAIRS[0]!.keyword);
    const w = await follow(warmKey, warm.job_id, performance.now() + 60_000);
    if (w.body.status !== 'completed') throw new Error(`${label} warm-up job failed: ${w.body.error}`);
  } catch (err) {
    await close();
    throw err;
  }

  /** `jobs` auto jobs created at once, followed until done or PHASE_MS; unfinished ones are counted. */
  async function measure(): Promise<PhaseResult> {
    fake?.reset();
    const deadline = performance.now() + PHASE_MS;
    const c0 = app.cpuMs();
    const results = await Promise.all(
      Array.from({ length: jobs }, async (_, i) => {
        const key = tenant.keys[i]!;
        const created = await createJob(
          rest,
          tenant,
          key,
          `bench-${label}-${i}`,
          ARCHIVE_PAIRS[i % ARCHIVE_PAIRS.length]!.keyword,
        );
        const accepted = performance.now();
        try {
          const { body, at } = await follow(key, created.job_id, deadline);
          return { accepted, at, body };
        } catch {
          return { accepted, at: performance.now(), body: null };
        }
      }),
    );
    const c1 = app.cpuMs();
    const done = results.filter((r) => r.body !== null);
    const wallMs = Math.max(...results.map((r) => r.at)) - Math.min(...results.map((r) => r.accepted));
    const cpu = c0 !== null && c1 !== null ? c1 - c0 : null;
    const busy = fake?.inFlight();
    return {
      jobs,
      done: done.length,
      failed: done.filter((r) => r.body!.status !== 'completed').length,
      errors: [...new Set(done.filter((r) => r.body!.status !== 'completed').map((r) => r.body!.error ?? 'unknown'))],
      wallMs,
      jobsPerSecond: done.length / (wallMs / 1000),
      cpuPerJob: cpu === null || done.length === 0 ? null : cpu / done.length,
      utilisation: cpu === null ? null : cpu / wallMs,
      fake:
        fake && busy
          ? {
              calls: fake.calls(),
              total: fake.total(),
              avgInFlight: busy.busyMs / wallMs,
              max: busy.max,
              meanLatencyMs: busy.meanLatencyMs,
            }
          : null,
    };
  }
  return { measure, close };
}

const f0 = (n: number) => n.toFixed(0);
const f2 = (n: number) => n.toFixed(2);

/** A quality job gets this long; one still running is reported as unfinished. */
const QUALITY_MS = 240_000;

/** The quality phase: its own seeded app with the offline writer, one job per demo topic, and its table. */
async function quality(): Promise<{ text: string; notes: string[] }> {
  const t0 = performance.now();
  const tmp = tempDir('agent-api-bench-quality-');
  const tenant = await seedTenant(tmp.dbPath, QUALITY_TOPICS.length);
  const app = await spawnApp({
    AGENT_API_DB: tmp.dbPath,
    SERP_PROVIDER: 'archive',
    AGENT_API_OFFLINE: '1',
    LLM_PROVIDER: 'extractive',
  });
  const rest = restClient(app.port);
  let rows: QualityRow[];
  try {
    rows = await runQuality({
      rest,
      port: app.port,
      tenant,
      topics: QUALITY_TOPICS,
      deadlineMs: QUALITY_MS,
      split: (text) => splitSentences(text, 'en'),
    });
  } finally {
    await rest.close();
    await app.stop();
    tmp.cleanup();
  }
  const pct = (x: number | null) => (x === null ? '-' : `${(x * 100).toFixed(0)}%`);
  const body = rows.map((r) => [
    r.topic,
    r.contract === 'commercial_service' ? 'service' : 'article',
    r.error ? `${r.status}: ${r.error}` : r.status,
    r.words === null ? '-' : String(r.words),
    r.sentences ? String(r.sentences) : '-',
    r.topShare === null ? '-' : `${pct(r.topShare)} ${r.topSource}`,
    pct(r.topQuotedShare),
    r.status === 'completed' ? String(r.boilerplate) : '-',
    r.status === 'completed' ? String(r.duplicates) : '-',
    r.defaultBytes === null ? '-' : String(r.defaultBytes),
  ]);
  const done = rows.filter((r) => r.status === 'completed');
  const shares = done.map((r) => r.topShare).filter((x): x is number => x !== null);
  const quoted = done.map((r) => r.topQuotedShare).filter((x): x is number => x !== null);
  const bytes = rows.map((r) => r.defaultBytes).filter((x): x is number => x !== null);
  const hits = done.reduce((n, r) => n + r.boilerplate, 0);
  const dups = done.reduce((n, r) => n + r.duplicates, 0);
  body.push([
    `summary (${done.length}/${rows.length} completed)`,
    '',
    rows.length - done.length ? `${rows.length - done.length} not completed` : 'all completed',
    done.length ? `median ${median(done.map((r) => r.words ?? 0))}` : '-',
    '',
    shares.length ? `max ${pct(Math.max(...shares))}` : '-',
    quoted.length ? `max ${pct(Math.max(...quoted))}` : '-',
    `${hits} (goal 0)`,
    `${dups} (goal 0)`,
    bytes.length ? `max ${Math.max(...bytes)}` : '-',
  ]);
  const kinds: Record<string, number> = {};
  for (const r of done) for (const [k, n] of Object.entries(r.boilerplateKinds)) kinds[k] = (kinds[k] ?? 0) + n;
  const from = [...new Set(done.map((r) => r.sentenceSource))].join(', ');
  const notes = [
    `quality: sentences read from ${from || 'nothing'}; top page share = words of the draft's sentences citing its largest source page / the draft's words (the writer's 30% cap); of quoted = the same words / words of its quoted sentences`,
    `quality: boilerplate sentences by kind: ${
      Object.entries(kinds)
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') || 'none'
    }`,
    ...done.flatMap((r) => r.boilerplateExamples.map((e) => `  ${r.topic}: ${e}`)),
    `quality phase ${f2((performance.now() - t0) / 1000)} s`,
  ];
  const text = table(
    [
      'topic',
      'contract',
      'status',
      'words',
      'sentences',
      'top page share',
      'of quoted',
      'boilerplate',
      'duplicates',
      'default bytes',
    ],
    body,
  );
  return { text, notes };
}

export async function run(args: string[]): Promise<void> {
  const opt = (name: string, def: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : def;
  };
  const jobs = opt('--jobs', 50);
  const c = opt('--writer-concurrency', 4);
  const latencyMs = opt('--latency', 200);
  const only = args.filter((a, i) => !a.startsWith('-') && !args[i - 1]?.startsWith('--'));
  const want = (name: string) => only.length === 0 || only.includes(name);
  const began = performance.now();
  const share = cpuShare();
  const rows: string[][] = [];
  const notes = [`before: ${loadLine(cpus().length)}; a busy thread got ${f2(share)} of a core`];
  const status = (p: PhaseResult) =>
    [
      p.done < p.jobs ? `${p.jobs - p.done} unfinished at ${PHASE_MS / 1000} s` : '',
      p.failed ? `${p.failed} failed` : '',
    ]
      .filter(Boolean)
      .join(', ') || 'all completed';

  const fake = want('llm') ? await startFakeLlm({ latencyMs }) : null;
  const llmEnv: Record<string, string> = fake
    ? {
        LLM_PROVIDER: 'openai',
        OPENAI_API_KEY: fake.apiKey,
        OPENAI_BASE_URL: fake.baseUrl,
        OPENAI_MODEL: 'bench-model',
        AGENT_API_WRITER_CONCURRENCY: String(c),
      }
    : {};
  // Both apps start and warm up before anything is measured, in parallel: the warm-ups' CPU never overlaps a
  // measurement, and an idle warm app costs nothing but a poll every AGENT_API_POLL_MS.
  const t0 = performance.now();
  const settled = await Promise.allSettled([
    want('extractive') ? prepare('extractive', jobs, { LLM_PROVIDER: 'extractive' }, null) : null,
    fake ? prepare('llm', jobs, llmEnv, fake) : null,
  ] as const);
  const [extractive, llm] = settled.map((r) => (r.status === 'fulfilled' ? r.value : null));
  if (extractive || llm) notes.push(`setup ${f2((performance.now() - t0) / 1000)} s`);
  try {
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    if (extractive) {
      const t1 = performance.now();
      const p = await extractive.measure();
      await extractive.close();
      rows.push([
        `extractive: ${jobs} auto jobs at once, jobs/s`,
        f2(p.jobsPerSecond),
        `${f0(p.wallMs)} ms first accept→last complete`,
        '',
        '',
        status(p),
      ]);
      if (p.cpuPerJob !== null) {
        rows.push(['extractive: app CPU per job', `${f0(p.cpuPerJob)} ms`, '', '', '', '']);
        rows.push([
          'extractive: app CPU utilisation (CPU s / wall s)',
          f2(p.utilisation!),
          `${f2(share)} busy-thread share`,
          f2(p.utilisation! / share),
          '',
          '~1 = CPU-bound',
        ]);
        rows.push(['extractive: CPU-only bound, one idle core, jobs/s', f2(1000 / p.cpuPerJob), '', '', '', '']);
      }
      if (p.errors.length) notes.push(`extractive errors: ${p.errors.join(' | ')}`);
      notes.push(`extractive phase ${f2((performance.now() - t1) / 1000)} s`);
    }
    if (llm && fake) {
      const t1 = performance.now();
      const p = await llm.measure();
      await llm.close();
      const f = p.fake!;
      const perJob = p.done ? f.total / p.done : 0;
      const callLimit = c / (latencyMs / 1000);
      const jobLimit = callLimit / Math.max(1, perJob);
      const ratio = p.jobsPerSecond / jobLimit;
      rows.push([
        `llm (${latencyMs} ms, C=${c}): ${jobs} auto jobs at once, jobs/s`,
        f2(p.jobsPerSecond),
        `${f2(jobLimit)} jobs/s writer limit`,
        f2(ratio),
        '>= 0.8',
        ratio >= 0.8 ? `ok; ${status(p)}` : `LOW; ${status(p)}`,
      ]);
      rows.push([
        'llm: writer calls per job (counted at the fake)',
        f2(perJob),
        `${f0(callLimit)} calls/s limit`,
        '',
        '',
        Object.entries(f.calls)
          .filter(([, n]) => n)
          .map(([k, n]) => `${k} ${n}`)
          .join(', '),
      ]);
      rows.push([
        'llm: calls in flight at the fake, average / max',
        `${f2(f.avgInFlight)} / ${f.max}`,
        `C = ${c}`,
        f2(f.avgInFlight / c),
        '',
        '',
      ]);
      rows.push([
        'llm: fake latency, arrival→answer (mean)',
        `${f0(f.meanLatencyMs)} ms`,
        `${latencyMs} ms`,
        '',
        '',
        '',
      ]);
      if (p.cpuPerJob !== null) {
        rows.push(['llm: app CPU per job', `${f0(p.cpuPerJob)} ms`, '', '', '', '']);
        rows.push([
          'llm: app CPU utilisation (CPU s / wall s)',
          f2(p.utilisation!),
          `${f2(share)} busy-thread share`,
          f2(p.utilisation! / share),
          '',
          '~1 = CPU-bound',
        ]);
        rows.push([
          'llm: CPU-only bound, one idle core, jobs/s',
          f2(1000 / p.cpuPerJob),
          `${f2(jobLimit)} writer limit`,
          f2(1000 / p.cpuPerJob / jobLimit),
          '',
          '',
        ]);
      }
      if (p.errors.length) notes.push(`llm errors: ${p.errors.join(' | ')}`);
      notes.push(`llm phase ${f2((performance.now() - t1) / 1000)} s`);
    }
  } finally {
    await extractive?.close();
    await llm?.close();
    await fake?.close();
  }
  // After the throughput phases and on its own app: it changes none of their figures.
  const q = want('quality')
    ? await quality().catch((err: unknown) => ({ text: '', notes: [`quality phase failed: ${String(err)}`] }))
    : null;
  if (q) notes.push(...q.notes);
  notes.push(`after: ${loadLine(cpus().length)}; total ${f2((performance.now() - began) / 1000)} s`);
  if (rows.length) process.stdout.write(table(['measure', 'value', 'baseline', 'ratio', 'goal', 'verdict'], rows));
  if (q) process.stdout.write(`${rows.length ? '\n' : ''}${q.text}`);
  process.stdout.write(`${notes.join('\n')}\n`);
}
