/**
 * Runs Optimize on the sample archive (offline) for one or more `url keyword` pairs and prints what a user reads:
 * the `view=summary` body and the top of `result.recommendations` (or, for results without that list, the checks
 * that have a recommendation). For docs/scoring.md's worked example and for comparing the advice before and after a
 * change to the formula.
 *
 *     node --import tsx scripts/optimize-sample.ts [--json] [--top N] URL KEYWORD [URL KEYWORD ...]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { issueApiKey } from '../src/engine/accounts/admin.ts';
import { SCOPES } from '../src/engine/accounts/scopes.ts';
import { createLogger } from '../src/logger.ts';
import { createOrganisation } from '../src/store/repos/organisations.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 8;
const rest = args.filter((a, i) => a !== '--json' && (topAt < 0 || (i !== topAt && i !== topAt + 1)));
if (rest.length === 0 || rest.length % 2 !== 0) {
  process.stderr.write('usage: scripts/optimize-sample.ts [--json] [--top N] URL KEYWORD [URL KEYWORD ...]\n');
  process.exit(2);
}

/** The fields this script reads from the API's JSON bodies. */
interface Body {
  optimization_id?: string;
  status?: string;
  result?: {
    recommendations?: unknown[];
    scoreDetails?: { id: string; earned: number; possible: number; recommendation: string | null }[];
    competitors?: { url: string }[];
    excluded_competitors?: unknown[];
    confidence?: string;
    entities?: { term: string; status: string }[];
  } | null;
}

const dir = mkdtempSync(join(tmpdir(), 'agent-api-sample-'));
const app = await createApp({
  config: loadConfig({ AGENT_API_DB: join(dir, 'db.sqlite'), AGENT_API_LOG_LEVEL: 'silent' }),
  logger: createLogger('silent'),
});
try {
  const db = app.database.db;
  const org = await createOrganisation(db, { name: 'sample', plan: 'agency', subscription: 'active' }, Date.now());
  const { apiKey } = await issueApiKey(db, { orgId: org.id, scopes: SCOPES }, Date.now());
  const { url } = await app.listen('127.0.0.1', 0);
  await app.startBackground();
  const call = async (method: string, path: string, body?: unknown, idempotencyKey?: string) => {
    const res = await fetch(new URL(`/api/agent/v1${path}`, url), {
      method,
      headers: {
        authorization: `Bearer ${apiKey}`,
        'content-type': 'application/json',
        ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return (await res.json()) as Body;
  };
  for (let i = 0; i < rest.length; i += 2) {
    const [pageUrl, keyword] = [rest[i]!, rest[i + 1]!];
    const started = await call('POST', '/optimize', { url: pageUrl, keyword }, `sample-${i}`);
    const id = started.optimization_id;
    if (!id) throw new Error(`POST /optimize answered ${JSON.stringify(started)}`);
    let status = started.status ?? '';
    while (status !== 'complete' && status !== 'failed') {
      const polled = await call('GET', `/optimizations/${id}?wait_seconds=20`);
      status = polled.status ?? '';
      if (!status) throw new Error(JSON.stringify(polled));
    }
    const summary = await call('GET', `/optimizations/${id}?view=summary`);
    const full = await call('GET', `/optimizations/${id}?view=full`);
    const result = full.result ?? {};
    // Results from before the recommendation list: the checks that have a recommendation, by missing points.
    const recommendations =
      result.recommendations ??
      (result.scoreDetails ?? [])
        .filter((d) => d.recommendation)
        .map((d) => ({
          check: d.id,
          points: Math.round((d.possible - d.earned) * 100) / 100,
          recommendation: d.recommendation,
        }))
        .sort((a, b) => b.points - a.points);
    const out = {
      url: pageUrl,
      keyword,
      summary,
      competitors: (result.competitors ?? []).map((c) => c.url),
      excluded_competitors: result.excluded_competitors,
      confidence: result.confidence,
      recommendations: recommendations.slice(0, top),
      terms: (result.entities ?? []).slice(0, 25).map((e) => `${e.term} (${e.status})`),
    };
    process.stdout.write(json ? `${JSON.stringify(out)}\n` : `${JSON.stringify(out, null, 2)}\n`);
  }
} finally {
  await app.close(1_000);
  rmSync(dir, { recursive: true, force: true });
}
