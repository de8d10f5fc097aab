/**
 * The Optimize pages: the organisation's optimizations (filters and paging from the query string), one report at
 * the full view (score, category bars, recommendations by points, terms, competitors and the excluded ones; a queued
 * or running one refreshes itself every 5 s, with no script) and the score_content editor, whose answer page reuses
 * the report's rendering. The list also carries an "Optimize a page" form (start_optimization as the signed-in key,
 * then 303 to the new report) with the CSRF token and an idempotency key made when the page is rendered, so a double
 * submit starts one optimization. Titles, keywords, urls, client names and drafts are hostile: every value goes
 * through `hono/html`.
 */
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { html } from 'hono/html';
import { isTerminalOptimization, OPTIMIZATION_STATUS_VALUES } from '../../../../engine/optimize/states.ts';
import type { OptimizationResultData, RecommendationData } from '../../../../engine/optimize/contract.ts';
import { getOptimization } from '../../../../tools/optimize/get-optimization.ts';
import { listOptimizations } from '../../../../tools/optimize/list-optimizations.ts';
import { scoreContent } from '../../../../tools/optimize/score-content.ts';
import { startOptimization } from '../../../../tools/optimize/start-optimization.ts';
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

/** A term row as a report has it, or as score_content answers it (view=full gives every field; summary fewer). */
type Term = OperationResult<typeof scoreContent>['entities'][number];
type Competitor = OptimizationResultData['competitors'][number];
type Excluded = NonNullable<OptimizationResultData['excluded_competitors']>[number];
type Report = OperationResult<typeof getOptimization>;
type Listing = OperationResult<typeof listOptimizations>;

const FORMATS = ['markdown', 'html', 'text'] as const;

/** One decimal, as the score is reported. */
const score1 = (n: number) => Math.round(n * 10) / 10;
const points2 = (n: number) => Math.round(n * 100) / 100;
/** Always a string: a value from the data is never taken for already-escaped markup. */
const str = (v: unknown) => (v === null || v === undefined ? '' : String(v));

/** A link for an http(s) url; anything else (a `javascript:` url from a hostile page) is shown as text only. */
function link(url: string, label: string = url): Html {
  return /^https?:\/\//i.test(url)
    ? html`<a href="${str(url)}" rel="noopener noreferrer">${str(label)}</a>`
    : html`<span>${str(label)}</span>`;
}

const reportPath = (id: string) => `/console/optimizations/${encodeURIComponent(id)}`;

function scoreLine(score: number, words: number, competitors: number): Html {
  return html`<p>Score <strong>${score1(score)}</strong> / 100 · ${words} words · ${competitors} competitors</p>`;
}

function categoryBars(categories: Record<string, number>): Html {
  const rows = Object.entries(categories).map(([name, percent]) => {
    const p = Math.max(0, Math.min(100, Math.round(percent)));
    return html`<tr>
      <th scope="row">${str(name)}</th>
      <td><meter min="0" max="100" value="${p}">${p}%</meter> ${p}%</td>
    </tr>`;
  });
  return html`<h2>Categories</h2>
    <table>
      ${columns('category', 'earned')}
      <tbody>
        ${rows}
      </tbody>
    </table>`;
}

function recommendationTable(recommendations: readonly RecommendationData[]): Html {
  if (recommendations.length === 0)
    return html`<h2>Recommendations</h2>
      <p class="muted">Nothing to change.</p>`;
  const sorted = [...recommendations].sort((a, b) => b.points - a.points);
  return html`<h2>Recommendations</h2>
    <table>
      ${columns('priority', 'points', 'recommendation')}
      <tbody>
        ${sorted.map(
          (r) =>
            html`<tr>
              <td>${str(r.priority)}</td>
              <td>${points2(r.points)}</td>
              <td>${str(r.recommendation)}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function termTable(terms: readonly Term[]): Html {
  if (terms.length === 0)
    return html`<h2>Terms</h2>
      <p class="muted">No terms.</p>`;
  return html`<h2>Terms</h2>
    <table>
      ${columns('term', 'status', 'on the page', 'competitors p25–p75', 'competitor pages')}
      <tbody>
        ${terms.map(
          (e) =>
            html`<tr>
              <td>${str(e.term)}</td>
              <td>${str(e.status)}</td>
              <td>${e.sourceUses}</td>
              <td>${e.competitorRange?.p25}–${e.competitorRange?.p75}</td>
              <td>${e.sourceCount}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function competitorTables(competitors: readonly Competitor[], excluded: readonly Excluded[]): Html {
  const pos = (p: number | null) => (p === null ? '–' : p);
  return html`<h2>Competitors</h2>
    <table>
      ${columns('position', 'title', 'url', 'words', 'score')}
      <tbody>
        ${competitors.map(
          (x) =>
            html`<tr>
              <td>${pos(x.position)}</td>
              <td>${str(x.title)}</td>
              <td>${link(x.url)}</td>
              <td>${x.wordCount}</td>
              <td>${score1(x.score)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      excluded.length === 0
        ? ''
        : html`<h2>Not counted</h2>
            <table>
              ${columns('position', 'url', 'reason', 'detail')}
              <tbody>
                ${excluded.map(
                  (x) =>
                    html`<tr>
                      <td>${pos(x.position)}</td>
                      <td>${link(x.url)}</td>
                      <td>${str(x.reason)}</td>
                      <td>${str(x.detail)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
    }`;
}

interface Draft {
  content: string;
  format: string;
  title: string;
  meta_description: string;
}

/**
 * The score_content editor: a CSRF-checked form posting a draft to score against the run's competitors. The newline
 * after `<textarea>` is the one the HTML parser drops, so a draft's own leading newline survives.
 */
function scoreForm(
  id: string,
  s: ConsoleSession,
  draft: Draft = { content: '', format: 'markdown', title: '', meta_description: '' },
): Html {
  return html`<h2>Score a draft</h2>
    <form method="post" action="${reportPath(id)}/score">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <label for="content">Draft (markdown, HTML or text)</label>
      <textarea id="content" name="content" rows="16" cols="80" required>${'\n'}${draft.content}</textarea>
      <label for="format">Format</label>
      <select id="format" name="format">
        ${FORMATS.map((f) => html`<option value="${f}" ${f === draft.format ? 'selected' : ''}>${f}</option>`)}
      </select>
      <label for="title">Title tag (optional)</label>
      <input id="title" name="title" type="text" maxlength="300" value="${draft.title}" />
      <label for="meta_description">Meta description (optional)</label>
      <input
        id="meta_description"
        name="meta_description"
        type="text"
        maxlength="1000"
        value="${draft.meta_description}"
      />
      <button type="submit">Score</button>
    </form>`;
}

function warningList(confidence: string | undefined, warnings: readonly string[] | undefined): Html {
  return html`${
    confidence === 'low'
      ? html`<p class="error">Low confidence: fewer than 3 ranking pages are real competitors.</p>`
      : ''
  }
  ${
    warnings && warnings.length > 0
      ? html`<ul>
          ${warnings.map((w) => html`<li>${str(w)}</li>`)}
        </ul>`
      : ''
  }`;
}

function reportBody(r: Report, s: ConsoleSession, dir: ClientDirectory): Html {
  const facts = html`<p>${link(r.url)}</p>
    <dl>
      <dt>status</dt>
      <dd>${str(r.status)}${r.stage ? html` (${str(r.stage)})` : ''}</dd>
      <dt>language</dt>
      <dd>${str(r.language)}</dd>
      <dt>created</dt>
      <dd>${str(r.created_at)}</dd>
      ${
        r.completed_at
          ? html`<dt>completed</dt>
              <dd>${str(r.completed_at)}</dd>`
          : ''
      }
      ${
        r.client_id
          ? html`<dt>client</dt>
              <dd>${clientName(dir, r.client_id)} ${copyField('Client id', str(r.client_id))}</dd>`
          : ''
      }
      <dt>id</dt>
      <dd>${copyField('Optimization id', str(r.optimization_id))}</dd>
      <dt>billing</dt>
      <dd>${str(r.billing_status)}</dd>
    </dl>`;
  if (!isTerminalOptimization(r.status))
    return html`<meta http-equiv="refresh" content="5" />
      ${facts}
      <p role="status">This optimization is ${str(r.status)}; the page updates every 5 seconds.</p>`;
  if (r.status === 'failed' || !r.result)
    return html`${facts}
      <p class="error" role="alert">${r.error ? str(r.error) : 'No result.'}</p>`;
  const res = r.result;
  return html`${facts} ${scoreLine(res.rankabilityScore, res.sourceWordCount, res.competitorCount)}
  ${warningList(res.confidence, res.warnings)} ${categoryBars(res.categoryScores)}
  ${recommendationTable(res.recommendations ?? [])} ${termTable(res.entities)}
  ${competitorTables(res.competitors, res.excluded_competitors ?? [])} ${scoreForm(r.optimization_id, s)}`;
}

/** The query string's non-empty values of the given names. */
function queryOf(c: Context<HttpEnv>, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = c.req.query(name);
    if (v !== undefined && v.trim() !== '') out[name] = v.trim();
  }
  return out;
}

/**
 * "Optimize a page": start_optimization's url, keyword, client and language, with the CSRF token and an idempotency
 * key of its own made now (a double submit of this form starts one optimization).
 */
function startForm(
  s: ConsoleSession,
  clients: readonly ClientOption[],
  moreClients: boolean,
  clientId: string | undefined,
): Html {
  return html`<section aria-labelledby="start-title">
    <h2 id="start-title">Optimize a page</h2>
    <form method="post" action="/console/optimizations" autocomplete="off">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="idempotency_key" value="${randomUUID()}" />
      <label for="start-url">Page url</label>
      <input id="start-url" name="url" type="url" maxlength="2048" required />
      <label for="start-keyword">Keyword</label>
      <input id="start-keyword" name="keyword" type="text" maxlength="200" required />
      <label for="start-client">Client <span class="muted">(optional)</span></label>
      <select id="start-client" name="client_id">
        <option value="">none</option>
        ${clientOptions(clients, clientId)}
      </select>
      ${moreClients ? html`<p class="muted">The form offers the ${clients.length} newest clients.</p>` : ''}
      <label for="start-language">Language <span class="muted">(optional, default en-US)</span></label>
      <input id="start-language" name="language" type="text" maxlength="10" placeholder="en-US" />
      <button type="submit">Start the optimization</button>
    </form>
  </section>`;
}

/** start_optimization's input from the form: the optional fields only when filled in (defaults apply). */
function startInput(form: Record<string, string>): Record<string, unknown> {
  const input: Record<string, unknown> = { url: form.url ?? '', keyword: form.keyword ?? '' };
  const clientId = form.client_id?.trim();
  if (clientId) input.client_id = clientId;
  const language = form.language?.trim();
  if (language) input.language = language;
  return input;
}

function listBody(list: Listing, filters: Record<string, string>, dir: ClientDirectory): Html {
  const { limit, offset, total, has_more } = list.pagination;
  const pageHref = (o: number) =>
    `/console/optimizations?${new URLSearchParams({ ...filters, offset: String(o), limit: String(limit) }).toString()}`;
  const rows = list.data.map(
    (o) =>
      html`<tr>
        <td><a href="${reportPath(o.optimization_id)}">${str(o.keyword)}</a></td>
        <td>${clientName(dir, o.client_id)}</td>
        <td>${str(o.url)}</td>
        <td>${str(o.status)}</td>
        <td>${o.summary ? score1(o.summary.rankabilityScore) : '–'}</td>
        <td>${str(o.created_at)}</td>
      </tr>`,
  );
  return html`<h1>Optimizations</h1>
    <form method="get" action="/console/optimizations">
      <label for="status">Status</label>
      <select id="status" name="status">
        <option value="">any</option>
        ${OPTIMIZATION_STATUS_VALUES.map((st) => html`<option value="${st}" ${filters.status === st ? 'selected' : ''}>${st}</option>`)}
      </select>
      <label for="keyword">Keyword contains</label>
      <input id="keyword" name="keyword" type="text" value="${filters.keyword ?? ''}" />
      ${clientFilter(dir, filters.client_id)}
      <input type="hidden" name="limit" value="${limit}" />
      <button type="submit">Filter</button>
    </form>
    ${
      list.data.length === 0
        ? html`<p class="muted">No optimizations match.</p>`
        : html`<table>
            <caption class="muted">
              ${offset + 1}–${offset + list.data.length} of ${total}, newest first
            </caption>
            ${columns('keyword', 'client', 'url', 'status', 'score', 'created')}
            <tbody>
              ${rows}
            </tbody>
          </table>`
    }
    <nav aria-label="Pages">
      ${offset > 0 ? html`<a href="${pageHref(Math.max(0, offset - limit))}">Newer</a>` : ''}
      ${has_more ? html`<a href="${pageHref(offset + limit)}">Older</a>` : ''}
    </nav>`;
}

export function optimizationPages(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console/optimizations', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const filters = queryOf(c, ['status', 'client_id', 'keyword']);
    const paging = queryOf(c, ['limit', 'offset']);
    let list: Listing;
    let clients: ClientDirectory;
    try {
      list = await kit.run(s, listOptimizations, { ...filters, ...paging });
      clients = await kit.clients(s);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    return kit.render(
      c,
      'Optimizations',
      html`${listBody(list, filters, clients)} ${startForm(s, clients.clients, clients.more, filters.client_id)}`,
      s,
    );
  });

  app.post('/console/optimizations', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    try {
      const started = await kit.run(s, startOptimization, startInput(form), form.idempotency_key || undefined);
      return c.redirect(reportPath(started.optimization_id), 303);
    } catch (err) {
      return kit.failure(c, err, s);
    }
  });

  app.get('/console/optimizations/:id', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    let report: Report;
    let dir: ClientDirectory;
    try {
      report = await kit.run(s, getOptimization, { optimization_id: c.req.param('id'), view: 'full' });
      dir = await kit.clients(s);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    return kit.render(
      c,
      `Optimization: ${report.keyword}`,
      html`<p><a href="/console/optimizations">All optimizations</a></p>
        <h1>${str(report.keyword)}</h1>
        ${reportBody(report, s, dir)}`,
      s,
    );
  });

  app.post('/console/optimizations/:id/score', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    const id = c.req.param('id');
    const draft: Draft = {
      content: form.content ?? '',
      format: form.format ?? 'markdown',
      title: form.title ?? '',
      meta_description: form.meta_description ?? '',
    };
    let scored: OperationResult<typeof scoreContent>;
    try {
      scored = await kit.run(s, scoreContent, {
        optimization_id: id,
        content: draft.content,
        format: draft.format,
        // The page shows every recommendation and the whole term table, as the report does.
        view: 'full',
        ...(draft.title.trim() ? { title: draft.title } : {}),
        ...(draft.meta_description.trim() ? { meta_description: draft.meta_description } : {}),
      });
    } catch (err) {
      return kit.failure(c, err, s);
    }
    return kit.render(
      c,
      'Draft score',
      html`<p><a href="${reportPath(id)}">Back to the report</a></p>
        <h1>Draft score</h1>
        ${scoreLine(scored.rankabilityScore, scored.sourceWordCount, scored.competitorCount)}
        ${categoryBars(scored.categoryScores)} ${recommendationTable(scored.recommendations)}
        ${termTable(scored.entities)} ${scoreForm(id, s, draft)}`,
      s,
    );
  });
}
