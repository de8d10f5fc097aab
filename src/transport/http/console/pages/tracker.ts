/**
 * The tracker pages: the organisation's projects with their latest SPI, and a project's SPI, per-platform results
 * and its 90-day trend drawn server-side as an SVG line chart (one line per platform; a day without data breaks the
 * line, it is never drawn as a zero), with the points as a table below it.
 *
 * The actions: the list page's "New project" form (create_tracker_project) and the project page's "Scan now" button
 * (start_tracker_scan), each run as the signed-in key. Every form carries the CSRF token and an idempotency key made
 * when the page is rendered, so a double submit acts once.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { html, raw } from 'hono/html';
import { svgMarkup, trendChart as trendSvg } from '../../../../charts/trend.ts';
import { isTerminalScan, TRACKER_PLATFORMS, type TrackerPlatform } from '../../../../engine/tracker/contract.ts';
import { PROJECT_LIMITS } from '../../../../engine/tracker/projects.ts';
import { createTrackerProject } from '../../../../tools/tracker/create-tracker-project.ts';
import { getTrackerProject } from '../../../../tools/tracker/get-tracker-project.ts';
import { getTrackerResults } from '../../../../tools/tracker/get-tracker-results.ts';
import { getTrackerSummary } from '../../../../tools/tracker/get-tracker-summary.ts';
import { getTrackerTrends } from '../../../../tools/tracker/get-tracker-trends.ts';
import { listTrackerProjects } from '../../../../tools/tracker/list-tracker-projects.ts';
import { startTrackerScan } from '../../../../tools/tracker/start-tracker-scan.ts';
import type { HttpEnv } from '../../guards.ts';
import type { ConsoleKit, ConsoleSession, OperationResult } from '../kit.ts';
import { columns, type Html } from '../layout.ts';
import {
  clientFilter,
  clientName,
  clientOptions,
  copyField,
  type ClientDirectory,
  type ClientOption,
} from '../names.ts';

const PLATFORMS = TRACKER_PLATFORMS;
type PlatformName = TrackerPlatform;

const PROJECTS_PER_PAGE = 50;
const TREND_DAYS = 90;

type Trends = OperationResult<typeof getTrackerTrends>;
type PlatformResults = OperationResult<typeof getTrackerResults>['platforms'][number];

const noData = html`<span class="muted">no data</span>`;
const value = (v: number | null | undefined) => (v === null || v === undefined ? noData : html`${v}`);

const offsetOf = (raw: string | undefined) => {
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/** GET /console/tracker: the projects with their latest SPI, filtered by client and paged, and the create form. */
function projectListRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console/tracker', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const offset = offsetOf(c.req.query('offset'));
    const clientId = c.req.query('client_id')?.trim() || undefined;
    let projects: OperationResult<typeof listTrackerProjects>;
    let summary: OperationResult<typeof getTrackerSummary>;
    let dir: ClientDirectory;
    try {
      const page = { limit: PROJECTS_PER_PAGE, offset, ...(clientId ? { client_id: clientId } : {}) };
      projects = await kit.run(s, listTrackerProjects, page);
      // The scorecards come in the same order and pages; joined by id all the same.
      summary = await kit.run(s, getTrackerSummary, page);
      dir = await kit.clients(s);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    const cards = new Map(summary.data.map((card) => [card.project_id, card]));
    const rows = projects.data.map((p) => {
      const card = cards.get(p.project_id);
      return html`<tr>
        <th scope="row"><a href="/console/tracker/${p.project_id}">${p.name}</a></th>
        <td>${clientName(dir, p.client_id)}</td>
        <td>${p.domain}</td>
        <td>${p.query_count}</td>
        <td>${p.platforms.join(', ')}</td>
        <td>${value(card?.spi)}</td>
        <td>${card?.last_measured_at ?? '–'}</td>
      </tr>`;
    });
    const { total, has_more } = projects.pagination;
    const pageHref = (at: number) =>
      `/console/tracker?${new URLSearchParams({ ...(clientId ? { client_id: clientId } : {}), offset: String(at) }).toString()}`;
    return kit.render(
      c,
      'Tracker projects',
      html`<h1>Tracker projects</h1>
        <form method="get" action="/console/tracker">
          ${clientFilter(dir, clientId)}
          <button type="submit">Filter</button>
        </form>
        ${
          total === 0
            ? html`<p class="muted">
                ${clientId ? 'No tracker projects for this client.' : 'No tracker projects yet.'}
              </p>`
            : html`<table>
                <caption class="muted">
                  Projects ${offset + 1}–${offset + projects.data.length} of ${total}; SPI (Search Presence Index,
                  0-100) of each platform's latest measurement
                </caption>
                ${columns('project', 'client', 'domain', 'queries', 'platforms', 'SPI', 'last measured')}
                <tbody>
                  ${rows}
                </tbody>
              </table>`
        }
        <p>
          ${offset > 0 ? html`<a href="${pageHref(Math.max(0, offset - PROJECTS_PER_PAGE))}">Previous</a>` : ''}
          ${has_more ? html`<a href="${pageHref(offset + PROJECTS_PER_PAGE)}">Next</a>` : ''}
        </p>
        ${newProjectForm(s, dir.clients, dir.more, clientId)}`,
      s,
    );
  });
}

/** POST /console/tracker: a new project (create_tracker_project), then its page. */
function createProjectRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.post('/console/tracker', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    let created: OperationResult<typeof createTrackerProject>;
    try {
      created = await kit.run(s, createTrackerProject, projectInput(form), form.idempotency_key || undefined);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    return c.redirect(projectHref(created.project_id), 303);
  });
}

/** POST /console/tracker/:project_id/scans: "Scan now" (start_tracker_scan), then the project's page. */
function scanRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.post('/console/tracker/:project_id/scans', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    const id = c.req.param('project_id');
    try {
      await kit.run(s, startTrackerScan, { project_id: id }, form.idempotency_key || undefined);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    // The id was validated by the operation; encoded all the same.
    return c.redirect(projectHref(id), 303);
  });
}

/** GET /console/tracker/:project_id: the project's SPI, per-platform results and trend, and "Scan now". */
function projectRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console/tracker/:project_id', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const id = c.req.param('project_id');
    let project: OperationResult<typeof getTrackerProject>;
    let results: OperationResult<typeof getTrackerResults>;
    let trends: Trends;
    let dir: ClientDirectory;
    try {
      project = await kit.run(s, getTrackerProject, { project_id: id });
      dir = await kit.clients(s);
      results = await kit.run(s, getTrackerResults, { project_id: id });
      trends = await kit.run(s, getTrackerTrends, { project_id: id, days: TREND_DAYS });
    } catch (err) {
      return kit.failure(c, err, s);
    }
    const overall = project.spi.overall;
    const run = project.latest_run;
    const missing = results.coverage.missing.map(
      (p) => html`<li>${p}: ${results.coverage.reasons[p] ?? 'no data'}</li>`,
    );
    const series = seriesOf(trends);
    // A scan still working (not terminal in the scan state table): the page refreshes itself.
    return kit.render(
      c,
      project.name,
      html`${run && !isTerminalScan(run.status) ? html`<meta http-equiv="refresh" content="5" />` : ''}
        <p><a href="/console/tracker">All tracker projects</a></p>
        <h1>${project.name}</h1>
        <p>for ${clientName(dir, project.client_id)} ${copyField('Project id', project.project_id)}</p>
        <p class="muted">
          ${project.domain} · ${project.query_count} ${project.query_kind} · ${project.platforms.join(', ')} ·
          ${project.language}${project.location ? html` · ${project.location}` : ''}
        </p>
        <h2>SPI</h2>
        <p>
          Overall SPI <strong>${value(overall.spi)}</strong> (Search Presence Index, 0-100:
          ${overall.denominators.pairs_present} of ${overall.denominators.pairs_measured} query-platform pairs present).
        </p>
        ${
          run
            ? html`<p class="muted">
                Latest run ${run.status}, started
                ${run.created_at}${
                  run.completed_at ? html`, finished ${run.completed_at}` : ''
                }${run.error ? html`: ${run.error}` : ''}.
              </p>`
            : html`<p class="muted">Never scanned.</p>`
        }
        <form method="post" action="${projectHref(project.project_id)}/scans">
          <input type="hidden" name="csrf" value="${s.csrf}" />
          <input type="hidden" name="idempotency_key" value="${randomUUID()}" />
          <button type="submit">Scan now</button>
          <span class="muted">
            (1 usage unit per query and platform measured: up to ${project.query_count * project.platforms.length})
          </span>
        </form>
        ${
          missing.length
            ? html`<p>Platforms without data (missing, not zero):</p>
                <ul>
                  ${missing}
                </ul>`
            : ''
        }
        ${results.platforms.map(platformSection)}
        <h2>Trend</h2>
        ${trendChart(project.name, trends, series)} ${trendTable(trends, series)}`,
      s,
    );
  });
}

export function trackerPages(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  projectListRoute(app, kit);
  createProjectRoute(app, kit);
  scanRoute(app, kit);
  projectRoute(app, kit);
}

const projectHref = (id: string) => `/console/tracker/${encodeURIComponent(id)}`;

/** The non-blank lines of a textarea, trimmed (browsers send CRLF). */
const lines = (text: string | undefined) =>
  (text ?? '')
    .split(/\r\n?|\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');

/**
 * create_tracker_project's input from the form: the client, name, domain and queries always (the operation says
 * when one is missing or wrong), the optional fields only when filled in, so the operation's defaults apply
 * (keywords, organic, no location, en). Platforms come as one checkbox each (`platform_<name>`); none checked sends
 * none, which is the default (organic).
 */
function projectInput(form: Record<string, string>): Record<string, unknown> {
  const input: Record<string, unknown> = {
    client_id: form.client_id ?? '',
    name: form.name ?? '',
    domain: form.domain ?? '',
    queries: lines(form.queries),
  };
  const brands = lines(form.brand_names);
  if (brands.length) input.brand_names = brands;
  const kind = form.query_kind?.trim();
  if (kind) input.query_kind = kind;
  const platforms = PLATFORMS.filter((p) => form[`platform_${p}`] !== undefined);
  if (platforms.length) input.platforms = platforms;
  const location = form.location?.trim();
  if (location) input.location = location;
  const language = form.language?.trim();
  if (language) input.language = language;
  return input;
}

/** The "New project" form, with the CSRF token and its own idempotency key (a double submit creates one project). */
function newProjectForm(
  s: ConsoleSession,
  clients: readonly ClientOption[],
  moreClients: boolean,
  clientId: string | undefined,
): Html {
  if (clients.length === 0)
    return html`<section aria-labelledby="new-project">
      <h2 id="new-project">New project</h2>
      <p class="muted">No clients yet: create one to track its visibility.</p>
    </section>`;
  return html`<section aria-labelledby="new-project">
    <h2 id="new-project">New project</h2>
    ${moreClients ? html`<p class="muted">The form offers the ${clients.length} newest clients.</p>` : ''}
    <p class="muted">Nothing is measured or charged until the project's "Scan now".</p>
    <form method="post" action="/console/tracker" autocomplete="off">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="idempotency_key" value="${randomUUID()}" />
      <label for="new-project-name">Name</label>
      <input id="new-project-name" name="name" type="text" maxlength="${PROJECT_LIMITS.name}" required />
      <label for="new-project-client">Client</label>
      <select id="new-project-client" name="client_id" required>
        ${clientOptions(clients, clientId)}
      </select>
      <label for="new-project-domain">Domain <span class="muted">(e.g. example.com; subdomains count too)</span></label>
      <input id="new-project-domain" name="domain" type="text" maxlength="253" required />
      <label for="new-project-brand-names">
        Brand names, one a line <span class="muted">(optional; the domain always counts as a mention)</span>
      </label>
      <textarea id="new-project-brand-names" name="brand_names" rows="3" cols="60"></textarea>
      <label for="new-project-query-kind">Queries are</label>
      <select id="new-project-query-kind" name="query_kind">
        <option value="keywords" selected>keywords (search terms)</option>
        <option value="prompts">prompts (questions for AI platforms)</option>
      </select>
      <label for="new-project-queries">
        Queries, one a line
        <span class="muted">
          (1 to ${PROJECT_LIMITS.queries}, ≤ ${PROJECT_LIMITS.queryLength} characters each; a scan costs 1 unit per
          query and platform)
        </span>
      </label>
      <textarea id="new-project-queries" name="queries" rows="6" cols="60" required></textarea>
      <fieldset>
        <legend>Platforms <span class="muted">(none checked: organic)</span></legend>
        ${PLATFORMS.map(
          (p) =>
            html`<label for="new-project-platform-${p}">
              <input
                id="new-project-platform-${p}"
                name="platform_${p}"
                type="checkbox"
                value="${p}"
                ${p === 'organic' ? 'checked' : ''}
              />
              ${p}
            </label>`,
        )}
      </fieldset>
      <label for="new-project-location">Location <span class="muted">(optional, e.g. Austin, TX)</span></label>
      <input id="new-project-location" name="location" type="text" maxlength="200" />
      <label for="new-project-language">Language <span class="muted">(optional, default en)</span></label>
      <input id="new-project-language" name="language" type="text" maxlength="12" placeholder="en" />
      <button type="submit">Create the project</button>
    </form>
  </section>`;
}

function platformSection(p: PlatformResults): Html {
  const d = p.denominators;
  const rows = p.results.map(
    (r) =>
      html`<tr>
        <th scope="row">${r.query}</th>
        <td>${r.status}</td>
        <td>${r.position ?? '–'}</td>
        <td>${r.brand_mentioned ? 'yes' : 'no'}</td>
        <td>${r.brand_cited ? 'yes' : 'no'}</td>
        <td>${r.cited_urls.length}</td>
        <td>${r.error ?? ''}</td>
      </tr>`,
  );
  return html`<section>
    <h3>${p.platform}: SPI ${value(p.spi)}</h3>
    <p class="muted">
      ${p.status} (run ${p.run_status}), measured ${p.measured_at}${p.provider ? html` by ${p.provider}` : ''};
      ${d.queries_measured} of ${d.queries_tracked} queries
      measured${d.queries_failed ? html`, ${d.queries_failed} failed (not counted)` : ''}; present ${d.present},
      mentioned ${d.mentioned}, cited ${d.cited}, ranked ${d.ranked}, average position
      ${d.average_position ?? '–'}${p.error ? html`; ${p.error}` : ''}
    </p>
    <table>
      ${columns('query', 'status', 'position', 'mentioned', 'cited', 'cited URLs', 'error')}
      <tbody>
        ${rows}
      </tbody>
    </table>
  </section>`;
}

/** The platforms to draw: the expected ones and any that has a point, in the schema's order. */
function seriesOf(trends: Trends): PlatformName[] {
  const seen = new Set<PlatformName>(trends.platforms_expected);
  for (const point of trends.points) for (const p of PLATFORMS) if (point.platforms[p] !== undefined) seen.add(p);
  return PLATFORMS.filter((p) => seen.has(p));
}

/**
 * The trend chart (src/charts/trend.ts, which the MCP Apps trend view draws too): one line per platform, written
 * into the page as SVG markup the chart module escaped, in a figure whose caption says what a break in a line is.
 */
function trendChart(name: string, trends: Trends, series: PlatformName[]): Html {
  const chart = trendSvg({
    titleId: 'trend-title',
    title: `SPI of ${name} per platform over the last ${trends.days} days (${trends.from} to ${trends.to}, UTC); days without data are gaps in the lines`,
    dates: trends.points.map((p) => p.date),
    series: series.map((platform) => ({ name: platform, values: trends.points.map((p) => p.platforms[platform]) })),
  });
  const empty = trends.points.every((p) => Object.keys(p.platforms).length === 0);
  return html`<figure>
    ${raw(svgMarkup(chart))}
    <figcaption class="muted">
      ${
        empty
          ? html`No measurements in the last ${trends.days} days: no data to draw.`
          : html`Daily SPI (UTC) from ${trends.from} to ${trends.to}; a break in a line is a day without data, not a
            zero. The points are in the table below.`
      }
    </figcaption>
  </figure>`;
}

function trendTable(trends: Trends, series: PlatformName[]): Html {
  const rows = trends.points.map(
    (p) =>
      html`<tr>
        <th scope="row">${p.date}</th>
        <td>${value(p.spi)}</td>
        ${series.map((platform) => html`<td>${value(p.platforms[platform])}</td>`)}
        <td>${p.run_status ?? '–'}</td>
        <td>${p.runs}</td>
      </tr>`,
  );
  const measured = trends.points.filter((p) => p.spi !== null).length;
  return html`<details>
    <summary>The ${trends.points.length} daily points as a table (${measured} with data)</summary>
    <table id="trend-points">
      <caption class="muted">
        Daily SPI, ${trends.from} to ${trends.to} (UTC)
      </caption>
      <thead>
        <tr>
          <th scope="col">date</th>
          <th scope="col">overall</th>
          ${series.map((platform) => html`<th scope="col">${platform}</th>`)}
          <th scope="col">run</th>
          <th scope="col">runs</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </details>`;
}
