import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { OpenedDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createClient } from '../../src/store/repos/clients.ts';
import { createProject } from '../../src/engine/tracker/service.ts';
import { advanceLatest, insertScan, latestSummaries, putSummary } from '../../src/store/repos/tracker.ts';
import { onPostgres, openTestStore, type TestStore } from '../helpers/store.ts';

/** The tracker's store: the latest pointer only moves forward, and every read path is an index lookup. */

let opened: TestStore;
let store: OpenedDatabase;
let projectId: string;
let orgId: string;
let clientId: string;

beforeAll(async () => {
  opened = await openTestStore();
  store = opened.opened;
  await migrateToLatest(store.db);
  orgId = (await createOrganisation(store.db, { name: 'o', plan: 'agency', subscription: 'active' }, 0)).id;
  clientId = (await createClient(store.db, { orgId, name: 'c' }, 0)).id;
  ({ project_id: projectId } = await createProject(
    store.db,
    { clientId, name: 'p', domain: 'example.com', queries: ['a'] },
    0,
  ));
});
afterAll(async () => {
  await opened.close();
});

async function scanWithSummary(id: string, measuredAt: number) {
  await insertScan(
    store.db,
    {
      id,
      project_id: projectId,
      org_id: orgId,
      client_id: clientId,
      platforms: '["organic"]',
      missing_platforms: '[]',
      query_count: 1,
      units: 1,
    },
    measuredAt,
  );
  await putSummary(store.db, {
    run_id: id,
    platform: 'organic',
    project_id: projectId,
    status: 'complete',
    provider: 'archive',
    queries_total: 1,
    measured: 1,
    failed: 0,
    present: 1,
    mentioned: 0,
    cited: 1,
    ranked: 1,
    position_sum: 1,
    weight_sum: 1,
    spi: 100,
    top_cited: '[]',
    measured_at: measuredAt,
    error: null,
  });
}

describe('tracker store', () => {
  it('the latest pointer moves to newer measurements only (scans finishing out of order cannot move it back)', async () => {
    await scanWithSummary('scan-new', 2_000);
    await scanWithSummary('scan-old', 1_000);
    await advanceLatest(store.db, projectId, 'organic', 'scan-new', 2_000);
    await advanceLatest(store.db, projectId, 'organic', 'scan-old', 1_000);
    expect((await latestSummaries(store.db, [projectId])).map((s) => s.run_id)).toEqual(['scan-new']);
    await scanWithSummary('scan-newer', 3_000);
    await advanceLatest(store.db, projectId, 'organic', 'scan-newer', 3_000);
    expect((await latestSummaries(store.db, [projectId])).map((s) => [s.run_id, s.run_status])).toEqual([
      ['scan-newer', 'queued'],
    ]);
  });

  // SQLite's query planner (EXPLAIN QUERY PLAN); PostgreSQL's plans depend on its statistics, not on the schema alone.
  it.skipIf(onPostgres)('every read path is an index search, never a table scan', async () => {
    const plans: Record<string, string> = {
      results: `select * from tracker_results where run_id = 'x' and platform = 'organic' order by query_index`,
      latest: `select s.* from tracker_latest l join tracker_platform_summaries s on s.run_id = l.run_id and s.platform = l.platform join tracker_scans r on r.id = l.run_id where l.project_id in ('x')`,
      trends: `select id from tracker_scans where project_id = 'x' and completed_at >= 0 and completed_at <= 1 order by completed_at, id`,
      newestFinished: `select * from tracker_scans where project_id = 'x' and completed_at is not null order by completed_at desc, id desc limit 1`,
      newest: `select * from tracker_scans where project_id = 'x' order by created_at desc, id desc limit 1`,
      projects: `select * from tracker_projects where org_id = 'x' and client_id = 'y' order by created_at desc, id desc limit 20`,
      summaries: `select * from tracker_platform_summaries where run_id = 'x' order by platform`,
    };
    for (const [name, query] of Object.entries(plans)) {
      const rows = (await sql.raw<{ detail: string }>(`explain query plan ${query}`).execute(store.db)).rows;
      const detail = rows.map((r) => r.detail).join(' | ');
      expect(detail, name).not.toMatch(/\bSCAN (tracker_|l\b|s\b|r\b)/);
      expect(detail, name).not.toMatch(/USE TEMP B-TREE/);
    }
  });
});
