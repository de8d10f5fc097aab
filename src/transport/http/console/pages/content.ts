/**
 * The content pages: content jobs and Autopilot runs (filters and paging from the query string); one job with its
 * status and stage (a working one refreshes itself every 5 s, with no script); at brief_ready its brief and two
 * approve forms (edit the brief, or approve with your own draft); once completed its draft with its citations, the
 * review figures, the score and the export links. Topics, briefs, drafts and sources are hostile: every value goes
 * through `hono/html`, and the draft itself is embedded only as the body of the HTML document get_content_artifacts
 * renders with the escaping draft renderer (raw HTML as text, safe links only, no images).
 *
 * The list page also carries the forms that create a content job and start an Autopilot run (create_content_job,
 * create_content_autopilot as the signed-in key). Each form has an idempotency key made when the page is rendered,
 * so submitting it twice creates one job; only the optional fields filled in are sent, and the operation's own
 * validation decides what is wrong (the error page names the field).
 */
import { randomUUID } from 'node:crypto';
import type { Context, Hono } from 'hono';
import { html, raw } from 'hono/html';
import { CONTENT_STATUS_VALUES, CONTENT_STATUSES } from '../../../../engine/content/states.ts';
import { PAGE_CONTRACTS, TONES, type OutlineSection } from '../../../../engine/content/types.ts';
import { approveContentBrief } from '../../../../tools/content/approve-content-brief.ts';
import { createContentAutopilot } from '../../../../tools/content/create-content-autopilot.ts';
import { createContentJob } from '../../../../tools/content/create-content-job.ts';
import { getAutopilotStatus } from '../../../../tools/content/get-autopilot-status.ts';
import { getContentArtifacts } from '../../../../tools/content/get-content-artifacts.ts';
import { getContentJob } from '../../../../tools/content/get-content-job.ts';
import { JOB_STATUSES, listContentJobs } from '../../../../tools/content/list-content-jobs.ts';
import { LIST_KINDS } from '../../../../tools/content/schemas.ts';
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

type JobRow = OperationResult<typeof listContentJobs>['data'][number];
type JobDetail = OperationResult<typeof getContentJob>;
type AutopilotStatus = OperationResult<typeof getAutopilotStatus>;
type ArtifactsAnswer = OperationResult<typeof getContentArtifacts>;
/** get_content_artifacts' JSON answer (format json): the parts asked for. */
type Artifacts = Exclude<ArtifactsAnswer, { content: string }>;
/** get_content_artifacts' answer for format markdown or html: the draft as one document. */
type ArtifactsDocument = Extract<ArtifactsAnswer, { content: string }>;

/** The JSON answer of a call made without `format` (or format json). */
function partsOf(answer: ArtifactsAnswer): Artifacts {
  if ('content' in answer) throw new Error('get_content_artifacts answered a document where JSON was asked for');
  return answer;
}

/** The document answer of a call made with format markdown or html. */
function documentOf(answer: ArtifactsAnswer): ArtifactsDocument {
  if (!('content' in answer)) throw new Error('get_content_artifacts answered JSON where a document was asked for');
  return answer;
}

/*
 * The brief's parts, the review and the score are stored JSON the artifacts schema leaves open (unknown values); the
 * page reads the fields it shows with these checks.
 */
type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const jsonList = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isJson) : []);
const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
const texts = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** A brief's section as the page reads it: its heading, and its level and points when stored. */
type Section = Pick<OutlineSection, 'heading'> & { level: number | undefined; points: string[] | undefined };

function outlineOf(brief: Artifacts): Section[] {
  return jsonList(brief.outline).flatMap((o) =>
    typeof o.heading === 'string'
      ? [{ heading: o.heading, level: num(o.level), points: Array.isArray(o.points) ? texts(o.points) : undefined }]
      : [],
  );
}

/** The brief's SEO fields the page shows and edits. */
function seoOf(brief: Artifacts) {
  const seo = brief.seo_metadata ?? {};
  return { title: text(seo.title), metaDescription: text(seo.metaDescription), slug: text(seo.slug) };
}

/** The statuses in which the pipeline is still moving the job (not resting in the state table; it refreshes). */
const WORKING = new Set<string>(CONTENT_STATUS_VALUES.filter((st) => !CONTENT_STATUSES[st].resting));

const EXPORTS = {
  md: { format: 'markdown', type: 'text/markdown; charset=utf-8' },
  html: { format: 'html', type: 'text/html; charset=utf-8' },
} as const;

/** The lines of a textarea: browsers send CRLF, which nobody typed. */
const lf = (text: string) => text.replace(/\r\n?/g, '\n');

/** The list's query parameters the operation takes, when given. */
function listInput(query: Record<string, string>): Record<string, string> {
  const input: Record<string, string> = {};
  for (const name of ['kind', 'status', 'client_id', 'limit', 'offset']) {
    const value = query[name]?.trim();
    if (value) input[name] = value;
  }
  return input;
}

const jobHref = (id: string) => `/console/jobs/${id}`;

const KIND_LABELS: Record<string, string> = { content_job: 'content job', autopilot: 'Autopilot run' };

/** One decimal, as the optimization pages show a score. */
const score1 = (n: number) => Math.round(n * 10) / 10;

/**
 * The draft score of each completed row shown, by job id: a content job's scored draft, an Autopilot run's score
 * after its optimize passes (its review's; it has no separate score step). The list's rows do not carry it, so it is
 * read from each one's artifacts, together as one request of the key's limit.
 */
async function scoresOf(kit: ConsoleKit, s: ConsoleSession, rows: readonly JobRow[]): Promise<Map<string, number>> {
  const done = rows.filter((j) => j.status === 'completed');
  const answers = await kit.readEach(
    s,
    getContentArtifacts,
    done.map((j) => ({ job_id: j.job_id, include: ['score', 'review'] })),
  );
  const scores = new Map<string, number>();
  done.forEach((j, i) => {
    const answer = answers[i];
    const value = answer && !('content' in answer) ? draftScoreOf(answer) : null;
    if (value !== null) scores.set(j.job_id, value);
  });
  return scores;
}

/** The score of a job's final draft, from its artifacts (the score step's, else the review's last), or null. */
function draftScoreOf(parts: Pick<Artifacts, 'score' | 'review'>): number | null {
  const candidates = [parts.score?.rankabilityScore, parts.review?.score_after, parts.review?.score_before];
  return candidates.find((v): v is number => typeof v === 'number') ?? null;
}

const options = (values: readonly string[], selected: string | undefined) =>
  values.map((v) => html`<option value="${v}" ${v === selected ? 'selected' : ''}>${v}</option>`);

/** The create forms: what each posts to, runs, and asks beyond the fields both share. */
const CREATE_FORMS = {
  job: { action: '/console/jobs', operation: createContentJob, title: 'New content job', prefix: 'new-job' },
  autopilot: {
    action: '/console/autopilot',
    operation: createContentAutopilot,
    title: 'New Autopilot run',
    prefix: 'new-autopilot',
  },
} as const;
type CreateKind = keyof typeof CREATE_FORMS;

/**
 * A create form's operation input: the topic, client and page contract always (the operation says when one is
 * missing or wrong), the optional fields only when filled in. A word count that is not a whole number is passed on as
 * typed, so the operation refuses it by name rather than the page guessing a number.
 */
function createInput(kind: CreateKind, form: Record<string, string>): Record<string, unknown> {
  const input: Record<string, unknown> = {
    topic: form.topic ?? '',
    client_id: form.client_id ?? '',
    page_contract: form.page_contract ?? '',
  };
  if (kind === 'job' && form.mode?.trim()) input.mode = form.mode.trim();
  const words = form.word_count_target?.trim();
  if (words) input.word_count_target = /^\d{1,9}$/.test(words) ? Number(words) : words;
  const tone = form.tone?.trim();
  if (tone) input.tone = tone;
  const instructions = lf(form.custom_instructions ?? '').trim();
  if (instructions) input.custom_instructions = instructions;
  return input;
}

/** A create form, with the CSRF token and its own idempotency key (a double submit creates one job). */
function createForm(
  kind: CreateKind,
  s: ConsoleSession,
  clients: readonly ClientOption[],
  clientId: string | undefined,
) {
  const { action, title, prefix } = CREATE_FORMS[kind];
  const id = (field: string) => `${prefix}-${field}`;
  return html`<section aria-labelledby="${id('title')}">
    <h2 id="${id('title')}">${title}</h2>
    <form method="post" action="${action}" autocomplete="off">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="idempotency_key" value="${randomUUID()}" />
      <label for="${id('topic')}">Topic</label>
      <input id="${id('topic')}" name="topic" type="text" maxlength="300" required />
      <label for="${id('client')}">Client</label>
      <select id="${id('client')}" name="client_id" required>
        ${clientOptions(clients, clientId)}
      </select>
      <label for="${id('page-contract')}">Page contract</label>
      <select id="${id('page-contract')}" name="page_contract" required>
        ${options(PAGE_CONTRACTS, 'article')}
      </select>
      ${
        kind === 'job'
          ? html`<label for="${id('mode')}">Mode</label>
              <select id="${id('mode')}" name="mode">
                <option value="auto" selected>auto: research to draft in one run</option>
                <option value="stepped">stepped: stop at the brief for approval</option>
              </select>`
          : ''
      }
      <label for="${id('words')}">Word count target <span class="muted">(optional, 100–10000)</span></label>
      <input id="${id('words')}" name="word_count_target" type="number" min="100" max="10000" step="1" />
      <label for="${id('tone')}">Tone</label>
      <select id="${id('tone')}" name="tone">
        <option value="" selected>the client's default</option>
        ${options(TONES, undefined)}
      </select>
      <label for="${id('instructions')}">Custom instructions <span class="muted">(optional)</span></label>
      <textarea id="${id('instructions')}" name="custom_instructions" rows="4" cols="60" maxlength="4000"></textarea>
      <button type="submit">${kind === 'job' ? 'Create the job' : 'Start Autopilot'}</button>
    </form>
  </section>`;
}

/** The brief's headings, one a line, as the edit form shows them. */
const headingLines = (outline: readonly Section[]) => outline.map((o) => o.heading).join('\n');

/**
 * approve_content_brief's input from the edit form: each part only when the user changed it from the brief as
 * stored. Headings become the outline (an unchanged heading keeps its level and points; a new one is an H2).
 */
function briefEdits(form: Record<string, string>, job: JobDetail, brief: Artifacts): Record<string, unknown> {
  const edits: Record<string, unknown> = {};
  const outline = outlineOf(brief);
  const lines = lf(form.headings ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (form.headings !== undefined && lines.join('\n') !== headingLines(outline)) {
    const byHeading = new Map(outline.map((o) => [o.heading, o]));
    edits.outline = lines.map((heading, i) => {
      const was = byHeading.get(heading);
      if (!was) return { heading };
      return { heading, level: i === 0 ? 2 : (was.level ?? 2), points: was.points ?? [] };
    });
  }
  const stored = seoOf(brief);
  const seo: Record<string, string> = {};
  const title = form.seo_title?.trim();
  if (title && title !== (stored.title ?? '')) seo.title = title;
  const description = form.meta_description?.trim();
  if (description && description !== (stored.metaDescription ?? '')) seo.meta_description = description;
  if (Object.keys(seo).length > 0) edits.seo_metadata = seo;
  if (form.custom_instructions !== undefined) {
    const instructions = lf(form.custom_instructions).trim();
    if (instructions !== (job.custom_instructions ?? '')) edits.custom_instructions = instructions;
  }
  return edits;
}

/** The content of the `<body>` of a document from the draft renderer (its only `<body>`: drafts are escaped). */
function documentBody(doc: string): string {
  return /<body>([\s\S]*)<\/body>/.exec(doc)?.[1] ?? '';
}

function briefSection(brief: Artifacts): Html {
  const outline = outlineOf(brief);
  const seo = seoOf(brief);
  const faqs = jsonList(brief.faqs);
  return html`<section aria-labelledby="brief">
    <h2 id="brief">Brief</h2>
    <h3>Outline</h3>
    <ol>
      ${outline.map(
        (o) =>
          html`<li>
            ${o.level === 3 ? html`<span class="muted">H3</span> ` : ''}<strong>${o.heading}</strong>
            ${
              (o.points ?? []).length > 0
                ? html`<ul>
                    ${(o.points ?? []).map((p) => html`<li>${p}</li>`)}
                  </ul>`
                : ''
            }
          </li>`,
      )}
    </ol>
    <h3>SEO metadata</h3>
    <table>
      <tbody>
        <tr>
          <th scope="row">Title</th>
          <td>${seo.title ?? '–'}</td>
        </tr>
        <tr>
          <th scope="row">Meta description</th>
          <td>${seo.metaDescription ?? '–'}</td>
        </tr>
        <tr>
          <th scope="row">Slug</th>
          <td>${seo.slug ?? '–'}</td>
        </tr>
      </tbody>
    </table>
    <h3>FAQs</h3>
    ${
      faqs.length === 0
        ? html`<p class="muted">None.</p>`
        : html`<dl>
            ${faqs.map(
              (f) =>
                html`<dt>${text(f.question)}</dt>
                  <dd>${text(f.answer) ?? '–'}</dd>`,
            )}
          </dl>`
    }
  </section>`;
}

function approveForms(job: JobDetail, brief: Artifacts, s: ConsoleSession): Html {
  const action = `${jobHref(job.job_id)}/approve`;
  const seo = seoOf(brief);
  return html`<section aria-labelledby="approve">
    <h2 id="approve">Approve</h2>
    <form method="post" action="${action}">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <label for="headings">Headings, one a line (the draft follows them in order)</label>
      <textarea id="headings" name="headings" rows="10" cols="80">${headingLines(outlineOf(brief))}</textarea>
      <label for="seo_title">SEO title</label>
      <input id="seo_title" name="seo_title" type="text" maxlength="120" value="${seo.title ?? ''}" />
      <label for="meta_description">Meta description</label>
      <input
        id="meta_description"
        name="meta_description"
        type="text"
        maxlength="320"
        value="${seo.metaDescription ?? ''}"
      />
      <label for="custom_instructions">Custom instructions</label>
      <textarea id="custom_instructions" name="custom_instructions" rows="4" cols="80">
${job.custom_instructions ?? ''}</textarea>
      <button type="submit">Approve the brief</button>
    </form>
    <h3>Approve with my own draft</h3>
    <p class="muted">
      Markdown. No writer runs: your draft is scored against the job's research and its claims are fact-checked.
    </p>
    <form method="post" action="${action}">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <label for="draft_body">Draft</label>
      <textarea id="draft_body" name="draft_body" rows="16" cols="80" required></textarea>
      <button type="submit">Approve with my draft</button>
    </form>
  </section>`;
}

function reviewSection(review: Json | null | undefined, score: Json | null | undefined): Html {
  const figures: [string, unknown][] = review
    ? [
        ['Claims checked', review.claims_checked],
        ['Claims supported', review.claims_supported],
        ['Single source', review.claims_single_source],
        ['Removed', review.claims_removed],
        ['Flagged', review.claims_flagged],
        ['Words', review.word_count === undefined ? undefined : `${review.word_count} of ${review.word_count_target}`],
        ['Score before optimizing', review.score_before],
        ['Score after optimizing', review.score_after],
        ['Optimize passes', review.optimize_passes],
        ['Stopped because', review.stop_reason],
      ]
    : [];
  const shown = figures.filter(([, v]) => v !== undefined && v !== null);
  const flagged = texts(review?.flagged_claims);
  const recommendations = jsonList(score?.recommendations).slice(0, 10);
  return html`<section aria-labelledby="review">
    <h2 id="review">Review</h2>
    ${
      typeof score?.rankabilityScore === 'number'
        ? html`<p>Rankability score <strong>${score.rankabilityScore}</strong></p>`
        : ''
    }
    ${
      shown.length > 0
        ? html`<table>
            <tbody>
              ${shown.map(
                ([k, v]) =>
                  html`<tr>
                    <th scope="row">${k}</th>
                    <td>${String(v)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="muted">No fact-check review for this job.</p>`
    }
    ${
      flagged.length > 0
        ? html`<h3>Flagged claims (no source supports them)</h3>
            <ul>
              ${flagged.map((f) => html`<li>${f}</li>`)}
            </ul>`
        : ''
    }
    ${
      recommendations.length > 0
        ? html`<h3>Recommendations</h3>
            <ol>
              ${recommendations.map(
                (r) => html`<li>${text(r.recommendation)} <span class="muted">+${num(r.points)}</span></li>`,
              )}
            </ol>`
        : ''
    }
  </section>`;
}

/** The job's facts: status and stage with progress, kind, page, market, client, ids and Autopilot's figures. */
function jobTable(job: JobDetail, dir: ClientDirectory, autopilot: AutopilotStatus | null): Html {
  return html`<table>
    <tbody>
      <tr>
        <th scope="row">Status</th>
        <td>
          <strong>${job.status}</strong>
          ${WORKING.has(job.status) ? html`<span class="muted">(this page refreshes every 5 s)</span>` : ''}
        </td>
      </tr>
      <tr>
        <th scope="row">Stage</th>
        <td>
          ${job.progress.stage}
          <meter min="0" max="100" value="${job.progress.percent}">${job.progress.percent}%</meter>
          ${job.progress.percent}%
        </td>
      </tr>
      <tr>
        <th scope="row">Kind</th>
        <td>${job.kind === 'autopilot' ? 'Autopilot run' : `content job (${job.mode ?? '–'})`}</td>
      </tr>
      <tr>
        <th scope="row">Page</th>
        <td>${job.page_contract ?? '–'}, ${job.word_count_target} words, ${job.intent}, ${job.tone}</td>
      </tr>
      <tr>
        <th scope="row">Market</th>
        <td>${job.location}, ${job.language}</td>
      </tr>
      <tr>
        <th scope="row">Client</th>
        <td>${clientName(dir, job.client_id)} ${copyField('Client id', job.client_id)}</td>
      </tr>
      <tr>
        <th scope="row">Id</th>
        <td>${copyField(job.kind === 'autopilot' ? 'Run id' : 'Job id', job.job_id)}</td>
      </tr>
      <tr>
        <th scope="row">Created</th>
        <td>${job.created_at}</td>
      </tr>
      ${
        autopilot
          ? html`<tr>
                <th scope="row">Autopilot</th>
                <td>
                  ${autopilot.stage}, optimize passes ${autopilot.optimize_passes} of ${autopilot.optimize_pass_cap}
                </td>
              </tr>
              <tr>
                <th scope="row">Billing</th>
                <td>${autopilot.charged ? 'charged' : autopilot.released ? 'released' : 'reserved'}</td>
              </tr>`
          : ''
      }
    </tbody>
  </table>`;
}

/** A completed job: export links, the review figures and score, and the draft with its citations as footnotes. */
async function completed(kit: ConsoleKit, s: ConsoleSession, job: JobDetail): Promise<Html> {
  const parts = partsOf(await kit.run(s, getContentArtifacts, { job_id: job.job_id, include: ['review', 'score'] }));
  const doc = documentOf(await kit.run(s, getContentArtifacts, { job_id: job.job_id, format: 'html' }));
  return html`<p>
      Export: <a href="${jobHref(job.job_id)}/export.md">Markdown</a> ·
      <a href="${jobHref(job.job_id)}/export.html">HTML</a>
      ${parts.writer ? html`<span class="muted">(written by ${parts.writer})</span>` : ''}
    </p>
    ${reviewSection(parts.review, parts.score)}
    <section aria-labelledby="draft">
      <h2 id="draft">Draft</h2>
      <div class="draft">${raw(documentBody(doc.content))}</div>
      <!-- /draft -->
    </section>`;
}

/** GET /console/jobs: the content jobs and Autopilot runs, filtered and paged, with the create forms. */
function jobListRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console/jobs', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const query = c.req.query();
    const input = listInput(query);
    let list: OperationResult<typeof listContentJobs>;
    let dir: ClientDirectory;
    let scores: Map<string, number>;
    try {
      list = await kit.run(s, listContentJobs, input);
      dir = await kit.clients(s);
      scores = await scoresOf(kit, s, list.data);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    const { limit, offset, total, has_more } = list.pagination;
    const pageHref = (at: number) =>
      `/console/jobs?${new URLSearchParams({ ...input, offset: String(Math.max(0, at)) }).toString()}`;
    const { clients, more: moreClients } = dir;
    const rows = list.data.map((j) => {
      const score = scores.get(j.job_id);
      return html`<tr>
        <td><a href="${jobHref(j.job_id)}">${j.topic}</a></td>
        <td>${clientName(dir, j.client_id)}</td>
        <td>${KIND_LABELS[j.kind] ?? j.kind}</td>
        <td>${j.status}</td>
        <td>${j.progress.stage} <span class="muted">${j.progress.percent}%</span></td>
        <td>${score === undefined ? '–' : score1(score)}</td>
        <td>${j.created_at}</td>
      </tr>`;
    });
    return kit.render(
      c,
      'Content',
      html`<h1>Content</h1>
        <form method="get" action="/console/jobs">
          <label for="kind">Kind</label>
          <select id="kind" name="kind">
            <option value="">any</option>
            ${options(LIST_KINDS, input.kind)}
          </select>
          <label for="status">Status</label>
          <select id="status" name="status">
            <option value="">any</option>
            ${options(JOB_STATUSES, input.status)}
          </select>
          ${clientFilter(dir, input.client_id)}
          <button type="submit">Filter</button>
        </form>
        ${
          list.data.length === 0
            ? html`<p class="muted">No content jobs or Autopilot runs.</p>`
            : html`<table>
                <caption class="muted">
                  ${offset + 1}–${offset + list.data.length} of ${total}, newest first
                </caption>
                ${columns('topic', 'client', 'kind', 'status', 'stage', 'score', 'created')}
                <tbody>
                  ${rows}
                </tbody>
              </table>`
        }
        <nav aria-label="Pages">
          ${offset > 0 ? html`<a href="${pageHref(offset - limit)}">Previous</a>` : ''}
          ${has_more ? html`<a href="${pageHref(offset + limit)}">Next</a>` : ''}
        </nav>
        ${
          clients.length === 0
            ? html`<p class="muted">No clients yet: create one to write content for it.</p>`
            : html`${
                moreClients ? html`<p class="muted">The forms offer the ${clients.length} newest clients.</p>` : ''
              }
              ${createForm('job', s, clients, input.client_id)} ${createForm('autopilot', s, clients, input.client_id)}`
        }`,
      s,
    );
  });
}

/** POST of the create forms: a content job or an Autopilot run, then its page. */
function createRoutes(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  for (const kind of Object.keys(CREATE_FORMS) as CreateKind[]) {
    const { action, operation } = CREATE_FORMS[kind];
    app.post(action, async (c) => {
      const s = await kit.session(c);
      if (!s) return c.redirect('/console/sign-in', 303);
      const form = await kit.form(c, s);
      if (!form) return kit.refused(c, s);
      try {
        const created = await kit.run(s, operation, createInput(kind, form), form.idempotency_key || undefined);
        return c.redirect(jobHref(created.job_id), 303);
      } catch (err) {
        return kit.failure(c, err, s);
      }
    });
  }
}

/** GET /console/jobs/:id: one job's facts, its brief to approve or its completed draft. */
function jobRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console/jobs/:id', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const id = c.req.param('id');
    try {
      const job = await kit.run(s, getContentJob, { job_id: id });
      const dir = await kit.clients(s);
      const autopilot = job.kind === 'autopilot' ? await kit.run(s, getAutopilotStatus, { job_id: id }) : null;
      let body: Html | string = '';
      if (job.status === 'brief_ready') {
        const brief = partsOf(
          await kit.run(s, getContentArtifacts, { job_id: id, include: ['outline', 'seo_metadata', 'faqs'] }),
        );
        body = html`${briefSection(brief)} ${job.kind === 'job' ? approveForms(job, brief, s) : ''}`;
      } else if (job.status === 'completed') {
        body = await completed(kit, s, job);
      }
      return kit.render(
        c,
        job.topic,
        html`${WORKING.has(job.status) ? html`<meta http-equiv="refresh" content="5" />` : ''}
          <p><a href="/console/jobs">Content</a></p>
          <h1>${job.topic}</h1>
          ${jobTable(job, dir, autopilot)}
          ${
            job.error
              ? html`<p class="error" role="alert">${job.error_code ? html`${job.error_code}: ` : ''}${job.error}</p>`
              : ''
          }
          ${body}`,
        s,
      );
    } catch (err) {
      return kit.failure(c, err, s);
    }
  });
}

/** GET /console/jobs/:id/export.(md|html): the draft as a download. */
function exportRoutes(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  for (const [ext, { format, type }] of Object.entries(EXPORTS)) {
    app.get(`/console/jobs/:id/export.${ext}`, async (c: Context<HttpEnv>) => {
      const s = await kit.session(c);
      if (!s) return c.redirect('/console/sign-in', 303);
      try {
        const doc = documentOf(await kit.run(s, getContentArtifacts, { job_id: c.req.param('id'), format }));
        const name = `draft-${doc.job_id.replace(/[^\w-]/g, '')}.${ext}`;
        return c.body(doc.content, 200, {
          'content-type': type,
          'content-disposition': `attachment; filename="${name}"`,
        });
      } catch (err) {
        return kit.failure(c, err, s);
      }
    });
  }
}

/** POST /console/jobs/:id/approve: the brief approved, with its edits or a supplied draft. */
function approveRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.post('/console/jobs/:id/approve', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    const id = c.req.param('id');
    try {
      let input: Record<string, unknown>;
      if (form.draft_body !== undefined) {
        input = { job_id: id, draft_body: lf(form.draft_body) };
      } else {
        const job = await kit.run(s, getContentJob, { job_id: id });
        const brief = partsOf(
          await kit.run(s, getContentArtifacts, { job_id: id, include: ['outline', 'seo_metadata'] }),
        );
        input = { job_id: id, ...briefEdits(form, job, brief) };
      }
      const approved = await kit.run(s, approveContentBrief, input);
      return c.redirect(jobHref(approved.job_id), 303);
    } catch (err) {
      return kit.failure(c, err, s);
    }
  });
}

export function contentPages(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  jobListRoute(app, kit);
  createRoutes(app, kit);
  jobRoute(app, kit);
  exportRoutes(app, kit);
  approveRoute(app, kit);
}
