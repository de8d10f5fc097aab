import { ulid } from 'ulid';
import { ApiError } from '../../errors.ts';
import type { Principal } from '../accounts/auth.ts';
import type { EngineServices } from '../engine.ts';
import type { ReadDb, TxDb } from '../../store/db.ts';
import { requireOwnedClient } from '../accounts/clients.ts';
import {
  getOptimization,
  insertOptimization,
  listOptimizations,
  OPTIMIZATION_KIND,
  type OptimizationFilter,
} from '../../store/repos/optimizations.ts';
import { insertRun } from '../../store/repos/runs.ts';
import { BASE_UNITS } from '../platform/usage.ts';
import type { OptimizationInput } from './pipeline.ts';
import { optimizationProgress, optimizationSummaryView, optimizationView, type OptimizationView } from './views.ts';
import { isTerminalOptimization } from './states.ts';

export interface StartOptimization {
  url: string;
  keyword: string;
  language: string;
  client_id?: string;
  exclude_domains?: string[];
  competitor_urls?: string[];
  force_competitors?: boolean;
}

/** Accepts an optimization inside the caller's transaction: the row, its reservation and its queued run together. */
export async function startOptimization(
  engine: EngineServices,
  trx: TxDb,
  principal: Principal,
  input: StartOptimization,
) {
  if (input.client_id) await requireOwnedClient(trx, principal.orgId, input.client_id, { field: 'client_id' });
  const now = engine.clock.now();
  const id = `opt_${ulid(now)}`;
  const runInput: OptimizationInput = {
    url: input.url,
    keyword: input.keyword,
    language: input.language,
    ...(input.exclude_domains?.length ? { excludeDomains: input.exclude_domains } : {}),
    ...(input.competitor_urls ? { competitorUrls: input.competitor_urls } : {}),
    ...(input.force_competitors ? { forceCompetitors: true } : {}),
  };
  const row = { url: input.url, keyword: input.keyword, language: input.language };
  await insertOptimization(trx, { id, org_id: principal.orgId, client_id: input.client_id ?? null, ...row }, now);
  await engine.usage.reserve(trx, {
    orgId: principal.orgId,
    plan: principal.plan,
    operation: 'optimize_page',
    units: BASE_UNITS.optimize_page,
    resourceKind: OPTIMIZATION_KIND,
    resourceId: id,
  });
  await insertRun(
    trx,
    {
      kind: OPTIMIZATION_KIND,
      resourceId: id,
      orgId: principal.orgId,
      maxAttempts: engine.settings.maxAttempts,
      input: runInput,
    },
    now,
  );
  return readOptimization(trx, principal.orgId, id, 'status');
}

export async function readOptimization(db: ReadDb, orgId: string, id: string, view: OptimizationView) {
  const row = await getOptimization(db, orgId, id);
  if (!row) throw new ApiError('not_found', 'No such optimization.');
  return optimizationView(row, view);
}

/** Waits up to `seconds` for the run's status to move (or end), then answers the current view. */
export async function waitForOptimization(
  engine: EngineServices,
  db: ReadDb,
  orgId: string,
  id: string,
  view: OptimizationView,
  seconds: number,
  signal?: AbortSignal,
) {
  const first = await getOptimization(db, orgId, id);
  if (!first) throw new ApiError('not_found', 'No such optimization.');
  if (seconds > 0 && !isTerminalOptimization(first.status)) {
    await engine.changes.waitFor(
      OPTIMIZATION_KIND,
      id,
      async () => (await getOptimization(db, orgId, id))?.status !== first.status,
      seconds * 1000,
      signal,
    );
  }
  return readOptimization(db, orgId, id, view);
}

/**
 * Follows a run until it ends (or `maxMs` of the engine's clock), reporting each stage it reaches; answers the record
 * as it then is. For MCP callers that sent a progress token.
 */
export async function followOptimization(
  engine: EngineServices,
  db: ReadDb,
  orgId: string,
  id: string,
  report: (p: number, total: number, message: string) => Promise<void>,
  maxMs: number,
  signal?: AbortSignal,
) {
  const deadline = engine.clock.now() + maxMs;
  let last = '';
  for (;;) {
    const row = await getOptimization(db, orgId, id);
    if (!row) throw new ApiError('not_found', 'No such optimization.');
    const p = optimizationProgress(row);
    if (p.message !== last) {
      last = p.message;
      await report(p.progress, p.total, p.message);
    }
    const remaining = deadline - engine.clock.now();
    // A shutting-down server answers the record as it is now (the change hub is closed).
    if (isTerminalOptimization(row.status) || remaining <= 0 || signal?.aborted || engine.changes.closed)
      return optimizationView(row, 'status');
    await engine.changes.waitFor(
      OPTIMIZATION_KIND,
      id,
      async () => {
        const now = await getOptimization(db, orgId, id);
        return !!now && optimizationProgress(now).message !== last;
      },
      remaining,
      signal,
    );
  }
}

/** The organisation's optimizations, newest first; a `clientId` filter must name one of its clients. */
export async function listOptimizationViews(
  db: ReadDb,
  orgId: string,
  filter: OptimizationFilter,
  page: { limit: number; offset: number },
) {
  if (filter.clientId) await requireOwnedClient(db, orgId, filter.clientId);
  const { rows, total } = await listOptimizations(db, orgId, filter, page);
  return { rows: rows.map(optimizationSummaryView), total };
}
