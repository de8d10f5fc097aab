import { dialectSql, type Db } from '../db.ts';
import type { LedgerState, OptimizationsTable } from '../schema.ts';

/** An optimization as the views read it: every column but the competitor model, with its ledger state. */
export type OptimizationRow = Omit<OptimizationsTable, 'scoring_model'> & { ledger_state: LedgerState | null };

const VIEW_COLUMNS = [
  'o.id',
  'o.org_id',
  'o.client_id',
  'o.url',
  'o.keyword',
  'o.language',
  'o.status',
  'o.stage',
  'o.error',
  'o.score',
  'o.source_word_count',
  'o.competitor_count',
  'o.duration_ms',
  'o.result',
  'o.evidence',
  'o.summary_extras',
  'o.created_at',
  'o.started_at',
  'o.completed_at',
  'o.updated_at',
] as const;

export const OPTIMIZATION_KIND = 'optimization';

export async function insertOptimization(
  db: Db,
  row: Pick<OptimizationsTable, 'id' | 'org_id' | 'client_id' | 'url' | 'keyword' | 'language'>,
  now: number,
): Promise<void> {
  await db
    .insertInto('optimizations')
    .values({
      ...row,
      status: 'queued',
      stage: null,
      error: null,
      score: null,
      source_word_count: null,
      competitor_count: null,
      duration_ms: null,
      result: null,
      evidence: null,
      scoring_model: null,
      summary_extras: null,
      created_at: now,
      started_at: null,
      completed_at: null,
      updated_at: now,
    })
    .execute();
}

function withLedger(db: Db) {
  return db
    .selectFrom('optimizations as o')
    .leftJoin('usage_ledger as l', (j) =>
      j.on('l.resource_kind', '=', OPTIMIZATION_KIND).onRef('l.resource_id', '=', 'o.id'),
    )
    .select(VIEW_COLUMNS)
    .select('l.state as ledger_state');
}

/** The optimization when it belongs to the organisation. */
export async function getOptimization(db: Db, orgId: string, id: string): Promise<OptimizationRow | undefined> {
  return withLedger(db).where('o.id', '=', id).where('o.org_id', '=', orgId).executeTakeFirst();
}

export interface OptimizationFilter {
  clientId?: string;
  status?: OptimizationsTable['status'];
  keyword?: string;
  url?: string;
}

/** Newest first; rows without the large result and evidence columns. */
export async function listOptimizations(
  db: Db,
  orgId: string,
  f: OptimizationFilter,
  page: { limit: number; offset: number },
) {
  let q = withLedger(db).where('o.org_id', '=', orgId);
  let c = db
    .selectFrom('optimizations as o')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('o.org_id', '=', orgId);
  if (f.clientId) {
    q = q.where('o.client_id', '=', f.clientId);
    c = c.where('o.client_id', '=', f.clientId);
  }
  if (f.status) {
    q = q.where('o.status', '=', f.status);
    c = c.where('o.status', '=', f.status);
  }
  if (f.url) {
    q = q.where('o.url', '=', f.url);
    c = c.where('o.url', '=', f.url);
  }
  if (f.keyword) {
    // Case-insensitive substring match, spelled by the dialect.
    const contains = dialectSql(db).containsInsensitive('o.keyword', f.keyword);
    q = q.where(contains);
    c = c.where(contains);
  }
  const rows = await q
    .orderBy('o.created_at', 'desc')
    .orderBy('o.id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  const { n } = await c.executeTakeFirstOrThrow();
  return { rows: rows.map((r) => ({ ...r, result: null, evidence: null })), total: Number(n) };
}

export async function updateOptimization(
  db: Db,
  id: string,
  patch: Partial<OptimizationsTable>,
  now: number,
): Promise<void> {
  await db
    .updateTable('optimizations')
    .set({ ...patch, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** The optimization's status, keyword, language, URL and saved competitor model, when it belongs to the organisation. */
export async function getScoringModel(db: Db, orgId: string, id: string) {
  return db
    .selectFrom('optimizations')
    .select(['id', 'status', 'url', 'keyword', 'language', 'scoring_model'])
    .where('id', '=', id)
    .where('org_id', '=', orgId)
    .executeTakeFirst();
}

/** When the optimization's run first started; null while queued. */
export async function optimizationStartedAt(db: Db, id: string): Promise<number | null> {
  const row = await db.selectFrom('optimizations').select('started_at').where('id', '=', id).executeTakeFirstOrThrow();
  return row.started_at;
}
