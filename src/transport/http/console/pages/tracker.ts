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
import { PROJECT_LIMITS } from '../../../../engine/tracker/projects.ts';
import { Platform } from '../../../../tools/tracker/schemas.ts';
import type { HttpEnv } from '../../guards.ts';
import type { ConsoleKit, ConsoleSession } from '../kit.ts';
import { columns, type Html } from '../layout.ts';
import {
  clientFilter,
  clientName,
  clientOptions,
  copyField,
  type ClientDirectory,
  type ClientOption,
} from '../names.ts';

const PLATFORMS = Platform.options;
type PlatformName = (typeof PLATFORMS)[number];

const PROJECTS_PER_PAGE = 50;
const TREND_DAYS = 90;
/** The run statuses in which a scan is still working (the project page refreshes itself). */
const WORKING = new Set(['queued', 'running']);

interface Pagination {
  limit: number;
  offset: number;
  total: number;
  has_more: boolean;
}
interface ProjectRow {
  project_id: string;
  client_id: string;
  name: string;
  domain: string;
  query_count: number;
  platforms: PlatformName[];
}
interface Scorecard {
  project_id: string;
  spi: number | null;
  last_measured_at: string | null;
  run_status: string | null;
}
interface Coverage {
  expected: PlatformName[];
  missing: PlatformName[];
  reasons: Partial<Record<PlatformName, string>>;
}
interface Denominators {
  queries_tracked: number;
  queries_measured: number;
  queries_failed: number;
  present: number;
  mentioned: number;
  cited: number;
  ranked: number;
  average_position: number | null;
}
interface QueryResult {
  query: string;
  status: string;
  position: number | null;
  brand_mentioned: boolean;
  brand_cited: boolean;
  cited_urls: string[];
  error: string | null;
}
interface PlatformResults {
  platform: PlatformName;
  status: string;
  run_status: string;
  provider: string | null;
  measured_at: string;
  spi: number | null;
  denominators: Denominators;
  error: string | null;
  results: QueryResult[];
}
interface Project extends ProjectRow {
  brand_names: string[];
  query_kind: string;
  location: string | null;
  language: string;
  spi: { overall: { spi: number | null; denominators: { pairs_measured: number; pairs_present: number } } };
  latest_run: {
    run_id: string;
    status: string;
    created_at: string;
    completed_at: string | null;
    error: string | null;
  } | null;
}
interface Results {
  platforms: PlatformResults[];
  coverage: Coverage;
}
interface TrendPoint {
  date: string;
  run_status: string | null;
  spi: number | null;
  platforms: Partial<Record<PlatformName, number>>;
  runs: number;
}
interface Trends {
  days: number;
  from: string;
  to: string;
  platforms_expected: PlatformName[];
  points: TrendPoint[];
}

const noData = html`<span class="muted">no data</span>`;
const value = (v: number | null | undefined) => (v === null || v === undefined ? noData : html`${v}`);

const offsetOf = (raw: string | undefined) => {
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

export function trackerPages(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console/tracker', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const offset = offsetOf(c.req.query('offset'));
    const clientId = c.req.query('client_id')?.trim() || undefined;
    let projects: { data: ProjectRow[]; pagination: Pagination };
    let summary: { data: Scorecard[] };
    let dir: ClientDirectory;
    try {
      const page = { limit: PROJECTS_PER_PAGE, offset, ...(clientId ? { client_id: clientId } : {}) };
      projects = (await kit.run(s, 'list_tracker_projects', page)) as typeof projects;
      // The scorecards come in the same order and pages; joined by id all the same.
      summary = (await kit.run(s, 'get_tracker_summary', page)) as typeof summary;
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

  app.post('/console/tracker', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    let created: { project_id: string };
    try {
      created = (await kit.run(s, 'create_tracker_project', projectInput(form), form.idempotency_key || undefined)) as {
        project_id: string;
      };
    } catch (err) {
      return kit.failure(c, err, s);
    }
    return c.redirect(projectHref(created.project_id), 303);
  });

  app.post('/console/tracker/:project_id/scans', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    const id = c.req.param('project_id');
    try {
      await kit.run(s, 'start_tracker_scan', { project_id: id }, form.idempotency_key || undefined);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    // The id was validated by the operation; encoded all the same.
    return c.redirect(projectHref(id), 303);
  });

  app.get('/console/tracker/:project_id', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const id = c.req.param('project_id');
    let project: Project;
    let results: Results;
    let trends: Trends;
    let dir: ClientDirectory;
    try {
      project = (await kit.run(s, 'get_tracker_project', { project_id: id })) as unknown as Project;
      dir = await kit.clients(s);
      results = (await kit.run(s, 'get_tracker_results', { project_id: id })) as unknown as Results;
      trends = (await kit.run(s, 'get_tracker_trends', { project_id: id, days: TREND_DAYS })) as unknown as Trends;
    } catch (err) {
      return kit.failure(c, err, s);
    }
    const overall = project.spi.overall;
    const run = project.latest_run;
    const missing = results.coverage.missing.map(
      (p) => html`<li>${p}: ${results.coverage.reasons[p] ?? 'no data'}</li>`,
    );
    const series = seriesOf(trends);
    return kit.render(
      c,
      project.name,
      html`${run && WORKING.has(run.status) ? html`<meta http-equiv="refresh" content="5" />` : ''}
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
  for (const point of trends.points) for (const p of Object.keys(point.platforms)) seen.add(p as PlatformName);
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
