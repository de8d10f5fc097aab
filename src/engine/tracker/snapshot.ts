import {
  latestSummaries,
  newestFinishedScan,
  resultsOf,
  summariesOf,
  type LatestSummaryRow,
} from '../../store/repos/tracker.ts';
import type { EngineServices } from '../engine.ts';
import type { ReadDb } from '../../store/db.ts';
import { coverage } from './coverage.ts';
import { requireProject } from './service.ts';
import type { TrackerPlatform } from './types.ts';
import { overallView, platformView, resultView } from './views.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

export const SNAPSHOT_METHODS = ['latest_per_platform', 'latest_run'] as const;
export type SnapshotMethod = (typeof SNAPSHOT_METHODS)[number];

const DESCRIPTIONS: Record<SnapshotMethod, string> = {
  latest_per_platform:
    'The newest successful (complete or partial) result of each platform; platforms may come from different runs (see each source_run_id), so a newer run that finished only partially does not hide an older complete result.',
  latest_run:
    'Only the results of the most recently finished run; a platform that failed or was not scanned in it is missing.',
};

/**
 * The current platform results of a project. `latest_per_platform` (the default) takes each platform's newest
 * successful result; `latest_run` takes only the newest finished run. A platform without data is absent from
 * `platforms` and listed in `coverage.missing` with its reason, never reported as zero.
 */
export async function readResults(
  engine: EngineServices,
  db: ReadDb,
  orgId: string,
  projectId: string,
  method: SnapshotMethod,
  only?: TrackerPlatform,
) {
  const project = await requireProject(db, orgId, projectId);
  const expected = JSON_COLUMNS.tracker_projects.platforms.read(project.platforms).filter((p) => !only || p === only);
  const latestRun = await newestFinishedScan(db, project.id);

  let chosen: LatestSummaryRow[];
  if (method === 'latest_per_platform') {
    chosen = (await latestSummaries(db, [project.id])).filter((s) => expected.includes(s.platform));
  } else if (latestRun && latestRun.status !== 'failed') {
    const runStatus = latestRun.status;
    chosen = (await summariesOf(db, latestRun.id))
      .filter((s) => s.status !== 'failed' && expected.includes(s.platform))
      .map((s) => ({ ...s, run_status: runStatus }));
  } else {
    chosen = [];
  }

  const platforms = [];
  for (const s of chosen) {
    const rows = await resultsOf(db, s.run_id, s.platform);
    platforms.push({ ...platformView(s, s.run_status), results: rows.map(resultView) });
  }
  const runCoverage =
    method === 'latest_per_platform'
      ? ('per_platform' as const)
      : latestRun
        ? { platforms: JSON_COLUMNS.tracker_scans.platforms.read(latestRun.platforms) }
        : null;
  return {
    project_id: project.id,
    snapshot: { method, description: DESCRIPTIONS[method] },
    latest_run_id: latestRun?.id ?? null,
    run_status: latestRun?.status ?? null,
    spi: overallView(chosen),
    coverage: coverage(
      engine,
      expected,
      chosen.map((s) => s.platform),
      runCoverage,
    ),
    platforms,
  };
}
