/**
 * `npm run bench -- tracker [--iterations N]`: are tracker reads indexed and bounded? A project with 200 keywords on
 * 3 platforms and 90 days of history (54,000 per-query rows) against the same project with 1 day of history: p99 of
 * the `results` and `trends` (days=90) reads, over the REST route and straight through the engine, as a ratio
 * (goal: at most 3x). History is inserted through the tracker repository in large transactions.
 */
import { randomUUID } from 'node:crypto';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { issueApiKey } from '../src/engine/accounts/admin.ts';
import { createOrganisation } from '../src/store/repos/organisations.ts';
import { createClient } from '../src/store/repos/clients.ts';
import { immediate, type Db } from '../src/store/db.ts';
import { advanceLatest, insertScan, putResults, putSummary, updateScan } from '../src/store/repos/tracker.ts';
import { createProject } from '../src/engine/tracker/service.ts';
import { summarize } from '../src/engine/tracker/pipeline.ts';
import { denominators, overallSpi } from '../src/engine/tracker/spi.ts';
import { readResults } from '../src/engine/tracker/snapshot.ts';
import { readTrends } from '../src/engine/tracker/trends.ts';
import type { PlatformOutput, QueryMeasurement, TrackerPlatform } from '../src/engine/tracker/types.ts';
import { tempDir } from '../test/helpers/temp.ts';
import { table } from './lib/harness.ts';

const KEYWORDS = 200;
const PLATFORMS: TrackerPlatform[] = ['organic', 'chatgpt', 'perplexity'];
const DAY = 86_400_000;

/** A small deterministic PRNG, so every run seeds the same history. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1_664_525 + 1_013_904_223) >>> 0) / 2 ** 32;
}

/** One finished scan per day for `days` days ending now, written as the pipeline writes it. */
async function seedHistory(
  db: Db,
  p: { projectId: string; orgId: string; clientId: string; queries: string[] },
  days: number,
  now: number,
) {
  const rand = prng(days);
  const DAYS_PER_TX = 10;
  for (let start = days - 1; start >= 0; start -= DAYS_PER_TX) {
    await immediate(db, async (trx) => {
      for (let d = start; d > start - DAYS_PER_TX && d >= 0; d--) {
        const at = now - d * DAY - 60_000;
        const id = randomUUID();
        await insertScan(
          trx,
          {
            id,
            project_id: p.projectId,
            org_id: p.orgId,
            client_id: p.clientId,
            platforms: JSON.stringify(PLATFORMS),
            missing_platforms: '[]',
            query_count: p.queries.length,
            units: p.queries.length * PLATFORMS.length,
          },
          at - 30_000,
        );
        const summaries = [];
        for (const platform of PLATFORMS) {
          const results: QueryMeasurement[] = p.queries.map((query, i) => {
            const position = rand() < 0.6 ? 1 + Math.floor(rand() * 10) : null;
            return {
              query_index: i,
              query,
              status: rand() < 0.01 ? 'failed' : 'complete',
              position,
              brand_mentioned: rand() < 0.4,
              brand_cited: position !== null,
              cited_urls: Array.from(
                { length: 8 },
                (_, k) => `https://site${Math.floor(rand() * 50)}.example/page-${k}`,
              ),
              measured_at: at,
              error: null,
            };
          });
          const out: PlatformOutput = { platform, provider: 'bench', results };
          await putResults(
            trx,
            results.map((r) => ({
              ...r,
              run_id: id,
              platform,
              project_id: p.projectId,
              brand_mentioned: r.brand_mentioned ? 1 : 0,
              brand_cited: r.brand_cited ? 1 : 0,
              cited_urls: JSON.stringify(r.cited_urls),
            })),
          );
          const summary = summarize(id, p.projectId, out, at);
          await putSummary(trx, summary);
          summaries.push(summary);
        }
        const scores = Object.fromEntries(
          summaries.map((s) => [
            s.platform,
            { status: s.status, spi: s.spi, measured_at: s.measured_at, denominators: denominators(s) },
          ]),
        );
        await updateScan(
          trx,
          id,
          {
            status: 'partial',
            spi: overallSpi(summaries).spi,
            platform_scores: JSON.stringify(scores),
            started_at: at - 30_000,
            completed_at: at,
          },
          at,
        );
        for (const s of summaries) await advanceLatest(trx, p.projectId, s.platform, id, s.measured_at);
      }
    });
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Runs each read `iterations` times, the two projects interleaved so drift hits both alike; answers ms samples. */
async function measure(iterations: number, reads: Record<string, () => Promise<unknown>>) {
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(reads).map((k) => [k, []]));
  const names = Object.keys(reads);
  for (let i = 0; i < iterations + 20; i++) {
    for (const name of i % 2 ? names : [...names].reverse()) {
      const t0 = performance.now();
      await reads[name]!();
      if (i >= 20) samples[name]!.push(performance.now() - t0);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.sort((a, b) => a - b)]));
}

export async function run(args: string[]): Promise<void> {
  const i = args.indexOf('--iterations');
  const iterations = i >= 0 ? Number(args[i + 1]) : Number(process.env.BENCH_ITERATIONS ?? 200);
  const tmp = tempDir('agent-api-bench-tracker-');
  const began = Date.now();
  const app = await createApp({
    config: loadConfig({ AGENT_API_DB: tmp.dbPath, AGENT_API_LOG_LEVEL: 'silent' }),
    logger: createLogger('silent'),
  });
  try {
    const db = app.database.db;
    const now = Date.now();
    const org = await createOrganisation(db, { name: 'bench', plan: 'agency', subscription: 'active' }, now);
    const client = await createClient(db, { orgId: org.id, name: 'bench client' }, now);
    // Rotating keys keeps the per-key rate limit (120/min) out of the measurement.
    const keys = await Promise.all(
      Array.from({ length: 40 }, () => issueApiKey(db, { orgId: org.id, scopes: ['reporter:read'] }, now)),
    );
    const queries = Array.from({ length: KEYWORDS }, (_, k) => `keyword number ${k}`);
    const make = async (name: string) =>
      (
        await createProject(
          db,
          { clientId: client.id, name, domain: 'bench.example', queries, platforms: PLATFORMS },
          now,
        )
      ).project_id;
    const big = await make('90 days');
    const small = await make('1 day');
    const t0 = Date.now();
    await seedHistory(db, { projectId: big, orgId: org.id, clientId: client.id, queries }, 90, now);
    await seedHistory(db, { projectId: small, orgId: org.id, clientId: client.id, queries }, 1, now);
    const rows = await db
      .selectFrom('tracker_results')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    process.stdout.write(
      `seeded ${Number(rows.n)} per-query rows (${KEYWORDS} keywords x ${PLATFORMS.length} platforms x 91 days) in ${Date.now() - t0} ms\n`,
    );

    const { url } = await app.listen('127.0.0.1', 0);
    let k = 0;
    const get = async (path: string) => {
      const res = await fetch(`${url}/api/agent/v1${path}`, {
        headers: { authorization: `Bearer ${keys[k++ % keys.length]!.apiKey}` },
      });
      if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
      return res.arrayBuffer();
    };
    const engine = app.engine;
    const restSamples = await measure(iterations, {
      'results 90d': () => get(`/reporter/projects/${big}/results`),
      'results 1d': () => get(`/reporter/projects/${small}/results`),
      'trends 90d': () => get(`/reporter/projects/${big}/trends?days=90`),
      'trends 1d': () => get(`/reporter/projects/${small}/trends?days=90`),
    });
    const engineSamples = await measure(iterations, {
      'results 90d': () => readResults(engine.services, engine.db, org.id, big, 'latest_per_platform'),
      'results 1d': () => readResults(engine.services, engine.db, org.id, small, 'latest_per_platform'),
      'trends 90d': () => readTrends(engine.services, engine.db, org.id, big, 90),
      'trends 1d': () => readTrends(engine.services, engine.db, org.id, small, 90),
    });

    const out: string[][] = [];
    for (const [via, s] of [
      ['REST', restSamples],
      ['engine', engineSamples],
    ] as const) {
      for (const read of ['results', 'trends']) {
        const a = s[`${read} 90d`]!;
        const b = s[`${read} 1d`]!;
        const ratio = quantile(a, 0.99) / quantile(b, 0.99);
        out.push([
          via,
          read,
          quantile(a, 0.5).toFixed(2),
          quantile(a, 0.99).toFixed(2),
          quantile(b, 0.5).toFixed(2),
          quantile(b, 0.99).toFixed(2),
          `${ratio.toFixed(2)}x`,
          ratio <= 3 ? 'ok' : 'OVER',
        ]);
      }
    }
    process.stdout.write(`${iterations} reads of each, interleaved; times in ms\n`);
    process.stdout.write(
      table(['via', 'read', 'p50 90d', 'p99 90d', 'p50 1d', 'p99 1d', 'p99 ratio', 'goal <= 3x'], out),
    );
    process.stdout.write(`total ${((Date.now() - began) / 1000).toFixed(1)} s\n`);
  } finally {
    await app.close(1_000);
    tmp.cleanup();
  }
}
