import { scansFinishedBetween } from '../../store/repos/tracker.ts';
import type { TrackerScanStatus } from '../../store/schema.ts';
import type { EngineServices } from '../engine.ts';
import type { ReadDb } from '../../store/db.ts';
import { requireProject } from './service.ts';
import type { TrackerPlatform } from './types.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

export const DAY_MS = 86_400_000;
export const MAX_TREND_DAYS = 90;

const METHOD =
  'One point per UTC day: the newest complete run finished that day, else the newest partial run. Days without a successful run have spi null (a gap, not a zero); run_status says whether a run failed that day.';

const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The SPI time series of the last `days` UTC days, today (by the injected clock) included. */
export async function readTrends(engine: EngineServices, db: ReadDb, orgId: string, projectId: string, days: number) {
  const project = await requireProject(db, orgId, projectId);
  const now = engine.clock.now();
  const today = Math.floor(now / DAY_MS);
  const first = today - days + 1;
  const scans = await scansFinishedBetween(db, project.id, first * DAY_MS, now);

  const byDay = new Map<number, typeof scans>();
  for (const s of scans) {
    const day = Math.floor(s.completed_at! / DAY_MS);
    const list = byDay.get(day);
    if (list) list.push(s);
    else byDay.set(day, [s]);
  }

  const points = [];
  for (let day = first; day <= today; day++) {
    const list = byDay.get(day) ?? [];
    // Oldest first within the day, so the last match is the newest.
    const pick =
      list.filter((s) => s.status === 'complete').at(-1) ?? list.filter((s) => s.status === 'partial').at(-1);
    const status: TrackerScanStatus | null = pick?.status ?? (list.length ? 'failed' : null);
    const platforms: Partial<Record<TrackerPlatform, number>> = {};
    if (pick?.platform_scores) {
      for (const [p, v] of Object.entries(JSON_COLUMNS.tracker_scans.platform_scores.read(pick.platform_scores))) {
        if (v && v.status !== 'failed' && v.spi !== null) platforms[p as TrackerPlatform] = v.spi;
      }
    }
    points.push({
      date: dateOf(day),
      run_status: status,
      run_id: pick?.id ?? null,
      spi: pick ? pick.spi : null,
      platforms,
      runs: list.length,
    });
  }
  return {
    project_id: project.id,
    days,
    from: dateOf(first),
    to: dateOf(today),
    timezone: 'UTC' as const,
    method: METHOD,
    platforms_expected: JSON_COLUMNS.tracker_projects.platforms.read(project.platforms),
    points,
  };
}
