import { iso } from '../../clock.ts';
import { ANSWER_PLATFORMS } from '../../providers/types.ts';
import {
  clientProjects,
  latestSummaries,
  listProjects,
  newestFinishedScan,
  pooledLatestTotals,
  type LatestSummaryRow,
} from '../../store/repos/tracker.ts';
import type { EngineServices } from '../engine.ts';
import type { ReadDb } from '../../store/db.ts';
import { coverage } from './coverage.ts';
import { isOnDomain } from './match.ts';
import { requireClient } from './service.ts';
import { isAnswerPlatform, type TrackerPlatform } from './types.ts';
import { overallView } from './views.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

const TOP_URLS = 10;
const rate = (n: number, d: number) => (d > 0 ? Math.round((n / d) * 1000) / 1000 : null);

/**
 * Scorecards of the organisation's (or one client's) projects, newest first and paginated: each project's SPI from
 * its latest_per_platform snapshot, with denominators and coverage, plus the pooled SPI of every project in scope.
 */
export async function readSummary(
  engine: EngineServices,
  db: ReadDb,
  orgId: string,
  clientId: string | undefined,
  page: { limit: number; offset: number },
) {
  if (clientId) await requireClient(db, orgId, clientId);
  const { rows, total } = await listProjects(db, orgId, { clientId }, page);
  const [latest, finished, pooled] = await Promise.all([
    latestSummaries(
      db,
      rows.map((r) => r.id),
    ),
    Promise.all(rows.map((r) => newestFinishedScan(db, r.id))),
    pooledTotals(db, orgId, clientId),
  ]);
  const byProject = new Map<string, LatestSummaryRow[]>();
  for (const s of latest) byProject.set(s.project_id, [...(byProject.get(s.project_id) ?? []), s]);
  const scorecards = rows.map((p, i) => {
    const expected = JSON_COLUMNS.tracker_projects.platforms.read(p.platforms);
    const present = (byProject.get(p.id) ?? []).filter((s) => expected.includes(s.platform));
    const run = finished[i];
    return {
      project_id: p.id,
      client_id: p.client_id,
      name: p.name,
      domain: p.domain,
      ...overallView(present),
      platforms: Object.fromEntries(
        present.map((s) => [
          s.platform,
          {
            spi: s.spi,
            status: s.status,
            source_run_id: s.run_id,
            run_status: s.run_status,
            measured_at: iso(s.measured_at),
          },
        ]),
      ),
      coverage: coverage(
        engine,
        expected,
        present.map((s) => s.platform),
        'per_platform',
      ),
      latest_run_id: run?.id ?? null,
      run_status: run?.status ?? null,
      last_measured_at: present.length ? iso(Math.max(...present.map((s) => s.measured_at))) : null,
    };
  });
  return {
    scope: clientId ? ('client' as const) : ('organisation' as const),
    client_id: clientId ?? null,
    snapshot: { method: 'latest_per_platform' as const },
    overall: pooled,
    data: scorecards,
    pagination: { limit: page.limit, offset: page.offset, total, has_more: page.offset + rows.length < total },
  };
}

/** The pooled SPI over every project in scope (one aggregate read over the latest pointers). */
async function pooledTotals(db: ReadDb, orgId: string, clientId: string | undefined) {
  const r = await pooledLatestTotals(db, orgId, clientId);
  const measured = Number(r.measured);
  return {
    spi: measured > 0 ? Math.round((1000 * Number(r.weight)) / measured) / 10 : null,
    denominators: { pairs_measured: measured, pairs_present: Number(r.present), projects_measured: Number(r.projects) },
  };
}

/**
 * A client's AI visibility: per AI platform, how many measured answers mention and cite the brand (with the
 * denominators), and the URLs those answers cite most, from each project's latest_per_platform snapshot.
 */
export async function readBrandSummary(engine: EngineServices, db: ReadDb, orgId: string, clientId: string) {
  await requireClient(db, orgId, clientId);
  const projects = await clientProjects(db, orgId, clientId);
  const expectedOf = new Map(
    projects.map((p) => [p.id, JSON_COLUMNS.tracker_projects.platforms.read(p.platforms).filter(isAnswerPlatform)]),
  );
  const latest = (
    await latestSummaries(
      db,
      projects.map((p) => p.id),
    )
  ).filter((s) => isAnswerPlatform(s.platform) && expectedOf.get(s.project_id)!.includes(s.platform));
  const domains = [...new Set(projects.map((p) => p.domain))];

  const perPlatform = ANSWER_PLATFORMS.map((platform) => {
    const rows = latest.filter((s) => s.platform === platform);
    if (rows.length === 0) return null;
    const sum = (k: 'measured' | 'failed' | 'mentioned' | 'cited' | 'present') => rows.reduce((a, s) => a + s[k], 0);
    const measured = sum('measured');
    return {
      platform,
      projects: rows.length,
      answers_measured: measured,
      answers_failed: sum('failed'),
      mentioned: sum('mentioned'),
      cited: sum('cited'),
      present: sum('present'),
      mention_rate: rate(sum('mentioned'), measured),
      citation_rate: rate(sum('cited'), measured),
      ...overallView(rows),
      measured_at: iso(Math.max(...rows.map((s) => s.measured_at))),
    };
  }).filter((p) => p !== null);

  const expected = ANSWER_PLATFORMS.filter((p) => [...expectedOf.values()].some((list) => list.includes(p)));
  const measured = perPlatform.reduce((a, p) => a + p.answers_measured, 0);
  const mentioned = perPlatform.reduce((a, p) => a + p.mentioned, 0);
  const cited = perPlatform.reduce((a, p) => a + p.cited, 0);
  return {
    client_id: clientId,
    snapshot: { method: 'latest_per_platform' as const },
    projects: projects.length,
    totals: {
      answers_measured: measured,
      mentioned,
      cited,
      mention_rate: rate(mentioned, measured),
      citation_rate: rate(cited, measured),
    },
    platforms: perPlatform,
    top_cited_urls: topUrls(latest, domains),
    coverage: coverage(
      engine,
      expected,
      perPlatform.map((p) => p.platform),
      'per_platform',
    ),
  };
}

/** Cited URLs merged over the summaries (each keeps its 100 most cited), most cited first. */
function topUrls(latest: readonly LatestSummaryRow[], domains: readonly string[]) {
  const merged = new Map<string, { citations: number; platforms: Set<TrackerPlatform> }>();
  for (const s of latest) {
    for (const [url, n] of JSON_COLUMNS.tracker_platform_summaries.top_cited.read(s.top_cited)) {
      const e = merged.get(url) ?? { citations: 0, platforms: new Set<TrackerPlatform>() };
      e.citations += n;
      e.platforms.add(s.platform);
      merged.set(url, e);
    }
  }
  return [...merged.entries()]
    .sort((a, b) => b[1].citations - a[1].citations || (a[0] < b[0] ? -1 : 1))
    .slice(0, TOP_URLS)
    .map(([url, e]) => ({
      url,
      citations: e.citations,
      platforms: [...e.platforms].sort(),
      brand_domain: domains.some((d) => isOnDomain(url, d)),
    }));
}
