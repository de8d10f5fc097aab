import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { sql } from 'kysely';
import { expect } from 'vitest';
import {
  startTestApp,
  type RequestOptions,
  type TestApp,
  type TestAppOptions,
  type TestResponse,
} from '../../helpers/app.ts';
import { structured } from '../../helpers/mcp.ts';
import type { NewClient } from '../../../src/store/repos/clients.ts';
import { dialectOf } from '../../../src/store/db.ts';
import type { Plan, SubscriptionStatus } from '../../../src/store/schema.ts';
import {
  call,
  drain,
  idem,
  ISO_MS,
  mcpClient,
  tool,
  type ErrorBody,
  type ToolResult,
} from '../../optimize/helpers/harness.ts';

/**
 * One content test world: a real app on a fresh store (a temp SQLite file, or a PostgreSQL database) with a fake
 * clock, the sample web archive as its only web (AGENT_API_OFFLINE=1), and a runner that moves only when a test drives
 * it (drain / settle). Helpers for the content routes over REST (fresh connection per request, see `call`) and MCP, the
 * status history of jobs (a trigger the app's own writes fire records every write of `status`/`stage`), and
 * everything a tenant's requests left behind.
 */

export { call, drain, idem, ISO_MS, mcpClient, tool, type ErrorBody, type TestResponse, type ToolResult };
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Sample-archive topics (web-archive/README.md). */
export const PLUMBING = 'emergency plumber';
export const ESPRESSO = 'best espresso machine under 500';
export const SOURDOUGH = 'sourdough bread recipe';
export const SOLAR = 'how much do solar panels cost';
export const ASYNCIO = 'python asyncio tutorial';
/** No archived page matches any of its words: research finds nothing. */
export const NO_MATCH = 'zzqx qqvv wwkk';
export const RAPIDFLOW_EMERGENCY = 'https://www.rapidflowplumbing.com/emergency-plumbing/';

export interface JobCreated {
  job_id: string;
  status: string;
  content_type: string | null;
  research_platforms: string[];
  usage_impact: { level: string; included: boolean };
  created_at: string;
}

export interface JobDetail extends JobCreated {
  kind: 'job' | 'autopilot';
  client_id: string;
  creation_source: string;
  mode: 'auto' | 'stepped' | null;
  progress: { stage: string; percent: number };
  topic: string;
  intent: string;
  language: string;
  location: string;
  tone: string;
  custom_instructions: string | null;
  word_count_target: number;
  project_mode: string;
  page_contract: string | null;
  source_url: string | null;
  has_draft_body: boolean;
  billing: { charged: boolean; released: boolean };
  error: string | null;
  error_code: string | null;
  started_at: string | null;
  updated_at: string;
  completed_at: string | null;
}

export interface OutlineSection {
  heading: string;
  level: number;
  points: string[];
  sources: number[];
}

export interface DraftArtifact {
  format: string;
  content: string;
  word_count: number;
  word_count_target: number;
  within_tolerance: boolean;
  /** Only in the stored draft: the default answer holds each sentence once, in `content`. */
  sentences?: { text: string; section: string; sourceUrl: string | null }[];
}

/** A citation row of the default artifacts answer: its claim by offsets in the draft (`at`), or word for word. */
export interface Citation {
  at?: [number, number];
  claim?: string;
  source_url: string;
  quote?: string | null;
  quote_at?: [number, number];
  support?: 'supported' | 'single_source';
}

export interface Review {
  word_count: number;
  word_count_target: number;
  within_tolerance: boolean;
  score_before: number | null;
  score_after: number | null;
  target_score: number;
  optimize_passes: number;
  stop_reason: 'target_reached' | 'no_improvement' | 'pass_cap';
  readability: { flesch_reading_ease: number | null; average_sentence_words: number };
  claims_checked: number;
  claims_supported: number;
  claims_single_source: number;
  claims_removed: number;
  removed_claims: string[];
  claims_flagged: number;
  flagged_claims: string[];
  sources: number;
  writer: string;
}

export interface Artifacts {
  job_id: string;
  status: string;
  writer: string | null;
  outline: OutlineSection[] | null;
  seo_metadata: Record<string, unknown> | null;
  entities: { term: string }[] | null;
  faqs: { question: string; answer: string; sourceUrl: string | null }[] | null;
  draft: DraftArtifact | null;
  citations: Citation[] | null;
  sources: { id: number; url: string; title: string; platform: string }[] | null;
  review: Review | null;
  score: Record<string, unknown> | null;
}

export interface AutopilotStarted {
  job_id: string;
  status: string;
  stage: string;
  usage_impact: { level: string; included: boolean };
  created_at: string;
}

export interface AutopilotStatus {
  job_id: string;
  status: string;
  stage: string;
  started_at: string | null;
  updated_at: string;
  completed_at: string | null;
  optimize_passes: number;
  optimize_pass_cap: number;
  charged: boolean;
  released: boolean;
  error: string | null;
  review: Review | null;
  publish: null;
}

/**
 * A content test app: offline sample archive, runner held (a create's notify claims nothing) so jobs move only when
 * a test drives them with `run` / `settle`, unless `background` starts the polling runner.
 */
export async function startContentApp(options: TestAppOptions = {}): Promise<TestApp> {
  const t = await startTestApp({
    ...options,
    env: { AGENT_API_OFFLINE: '1', AGENT_API_POLL_MS: '60000', ...options.env },
  });
  if (!options.background) await t.engine.runner.stop(0);
  return t;
}

/** Lets the held runner work until nothing is due, then holds it again. */
export async function run(t: TestApp): Promise<void> {
  await t.engine.runner.start();
  try {
    await drain(t);
  } finally {
    await t.engine.runner.stop(0);
  }
}

export interface Tenant {
  orgId: string;
  clientId: string;
  key: string;
  keyId: string;
}

/** An organisation (agency plan unless told: its rate limit and pools leave room), a client and an all-scope key. */
export async function tenant(
  t: TestApp,
  plan: Plan = 'agency',
  client: Partial<NewClient> = {},
  subscription: SubscriptionStatus = 'active',
): Promise<Tenant> {
  const o = await t.org(plan, subscription);
  const c = await t.client(o.id, client);
  const k = await t.key(o.id);
  return { orgId: o.id, clientId: c.id, key: k.apiKey, keyId: k.keyId };
}

const withKey = (idempotencyKey: string | null | undefined, headers: Record<string, string> = {}) =>
  idempotencyKey === undefined || idempotencyKey === null ? headers : { 'idempotency-key': idempotencyKey, ...headers };

export function postJob(
  t: TestApp,
  key: string | null,
  body: unknown,
  idempotencyKey?: string | null,
  headers: Record<string, string> = {},
) {
  return call<JobCreated & ErrorBody>(t, 'POST', '/copywriter/jobs', {
    key,
    body,
    headers: withKey(idempotencyKey, headers),
  });
}

export function postAutopilot(
  t: TestApp,
  key: string | null,
  body: unknown,
  idempotencyKey?: string | null,
  headers: Record<string, string> = {},
) {
  return call<AutopilotStarted & ErrorBody>(t, 'POST', '/copywriter/autopilot', {
    key,
    body,
    headers: withKey(idempotencyKey, headers),
  });
}

export function getJob(t: TestApp, key: string, id: string, query: Record<string, string | number> = {}) {
  return call<JobDetail & ErrorBody>(t, 'GET', `/copywriter/jobs/${id}`, { key, query });
}

/** Every part of a job's artifacts (`include=all`: the default answer is only the draft and a short brief). */
export function getArtifacts(t: TestApp, key: string, id: string) {
  return call<Artifacts & ErrorBody>(t, 'GET', `/copywriter/jobs/${id}/artifacts`, { key, query: { include: 'all' } });
}

export function getAutopilot(t: TestApp, key: string, id: string, query: Record<string, string | number> = {}) {
  return call<AutopilotStatus & ErrorBody>(t, 'GET', `/copywriter/autopilot/${id}`, { key, query });
}

export function approve(t: TestApp, key: string, id: string, opts: RequestOptions = {}) {
  return call<JobDetail & ErrorBody>(t, 'POST', `/copywriter/jobs/${id}/approve`, { key, ...opts });
}

export function listJobs(t: TestApp, key: string, query: Record<string, string | number> = {}) {
  return call<
    { data: JobDetail[]; pagination: { limit: number; offset: number; total: number; has_more: boolean } } & ErrorBody
  >(t, 'GET', '/copywriter/jobs', { key, query });
}

/** Creates a content job and expects 201. */
export async function createdJob(
  t: TestApp,
  key: string,
  body: Record<string, unknown>,
  idempotencyKey?: string,
): Promise<JobCreated> {
  const r = await postJob(t, key, body, idempotencyKey);
  if (r.status !== 201) throw new Error(`expected 201, got ${r.status}: ${r.text}`);
  return r.body;
}

/** Starts an Autopilot run and expects 202. */
export async function startedAutopilot(
  t: TestApp,
  key: string,
  body: Record<string, unknown>,
  idempotencyKey?: string,
): Promise<AutopilotStarted> {
  const r = await postAutopilot(t, key, body, idempotencyKey);
  if (r.status !== 202) throw new Error(`expected 202, got ${r.status}: ${r.text}`);
  return r.body;
}

const RESTING = new Set(['completed', 'failed', 'brief_ready']);

/** Runs the held runner, advancing the fake clock past retry delays, until the job rests (done, failed, brief_ready). */
export async function settle(t: TestApp, id: string, stepMs = 11 * 60_000): Promise<string> {
  for (let i = 0; i < 50; i++) {
    await run(t);
    const row = await t.db.selectFrom('content_jobs').select('status').where('id', '=', id).executeTakeFirstOrThrow();
    if (RESTING.has(row.status)) return row.status;
    t.clock.advance(stepMs);
  }
  throw new Error(`content job ${id} did not settle`);
}

export interface StatusEntry {
  status: string;
  stage: string;
}

/**
 * Records every write of a content job's status or stage (inserts included) with a trigger the app's own writes fire:
 * the full history, in write order. On SQLite, temp triggers on the app's one connection (the one the runner and the
 * handlers write through) into a temp table; on PostgreSQL, triggers and a log table in the test's own database.
 */
export async function recordStatuses(t: TestApp) {
  const db = t.db;
  if (dialectOf(db) === 'postgres') {
    await sql`create table if not exists status_log (seq bigserial primary key, job_id text, status text, stage text)`.execute(
      db,
    );
    await sql`create or replace function status_log_write() returns trigger language plpgsql as $$
      begin insert into status_log (job_id, status, stage) values (new.id, new.status, new.stage); return null; end $$`.execute(
      db,
    );
    for (const [name, event] of [
      ['status_log_insert', sql`insert`],
      ['status_log_update', sql`update of status, stage`],
    ] as const) {
      await sql`drop trigger if exists ${sql.id(name)} on content_jobs`.execute(db);
      await sql`create trigger ${sql.id(name)} after ${event} on content_jobs
        for each row execute function status_log_write()`.execute(db);
    }
  } else {
    await sql`create temp table if not exists status_log (seq integer primary key autoincrement, job_id text, status text, stage text)`.execute(
      db,
    );
    await sql`create temp trigger if not exists status_log_insert after insert on content_jobs
      begin insert into status_log (job_id, status, stage) values (new.id, new.status, new.stage); end`.execute(db);
    await sql`create temp trigger if not exists status_log_update after update of status, stage on content_jobs
      begin insert into status_log (job_id, status, stage) values (new.id, new.status, new.stage); end`.execute(db);
  }
  const rows = async (id: string) =>
    (await sql<StatusEntry>`select status, stage from status_log where job_id = ${id} order by seq`.execute(db)).rows;
  const dedupe = <T>(xs: T[]) => xs.filter((x, i) => i === 0 || JSON.stringify(x) !== JSON.stringify(xs[i - 1]));
  return {
    /** Distinct consecutive statuses. */
    statuses: async (id: string) => dedupe((await rows(id)).map((r) => r.status)),
    /** Distinct consecutive stages. */
    stages: async (id: string) => dedupe((await rows(id)).map((r) => r.stage)),
    entries: async (id: string) => dedupe(await rows(id)),
  };
}

/** Everything an organisation's content requests left behind. */
export async function footprint(t: TestApp, orgId: string) {
  const jobs = await t.db.selectFrom('content_jobs').selectAll().where('org_id', '=', orgId).execute();
  const ledger = await t.db.selectFrom('usage_ledger').selectAll().where('org_id', '=', orgId).execute();
  const runs = await t.db.selectFrom('runs').selectAll().where('org_id', '=', orgId).execute();
  const keys = await t.db.selectFrom('idempotency_keys').selectAll().where('org_id', '=', orgId).execute();
  return {
    jobs: jobs.length,
    reservations: ledger.length,
    runs: runs.length,
    keys: keys.length,
    ledger,
    jobRows: jobs,
    runRows: runs,
  };
}

/** The ledger rows of one job: [{state, units}]. */
export const ledgerOf = (t: TestApp, id: string) =>
  t.db.selectFrom('usage_ledger').select(['state', 'units']).where('resource_id', '=', id).execute();

/** The REST error body and the MCP one are the same object, with the expected status and code. */
export function expectSameError(mcp: ToolResult, rest: TestResponse<ErrorBody>, status: number, code: string): void {
  expect(rest.status, rest.text).toBe(status);
  expect(rest.body.error.code).toBe(code);
  expect(mcp.isError).toBe(true);
  expect(structured(mcp)).toEqual(rest.body);
}

/** Every occurrence of `needle` (case-insensitive) in the JSON of `value`. */
export function mentions(value: unknown, needle: string): number {
  const hay = JSON.stringify(value).toLowerCase();
  return hay.split(needle.toLowerCase()).length - 1;
}

/** A POST with repeated header names, exactly as given (node:http), on a fresh connection. */
export function rawPost(
  t: TestApp,
  path: string,
  key: string,
  headers: Record<string, string | string[]>,
  text: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: ErrorBody & Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL(`/api/agent/v1${path}`, t.url),
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          connection: 'close',
          ...headers,
        },
      },
      (res) => {
        let data = '';
        res.on('data', (d: Buffer) => (data += String(d)));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(data || 'null') as ErrorBody & Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** A POST written byte for byte (header values node:http refuses to send); answers the status code. */
export function socketPost(
  t: TestApp,
  path: string,
  key: string,
  headerLines: string[],
  text: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(t.url);
    const sock = connect(Number(port), hostname);
    let data = '';
    sock.on('data', (d: Buffer) => (data += d.toString('latin1')));
    sock.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    sock.on('error', reject);
    const lines = [
      `POST /api/agent/v1${path} HTTP/1.1`,
      `Host: ${hostname}:${port}`,
      `Authorization: Bearer ${key}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(text)}`,
      'Connection: close',
      ...headerLines,
    ];
    // Written, not ended: a half-close before the answer makes node:http abort a request still in flight (a store
    // that answers over the network, such as PostgreSQL, is still working when the FIN arrives). `Connection: close`
    // ends the exchange once the answer is sent.
    sock.write(Buffer.from(`${lines.join('\r\n')}\r\n\r\n${text}`, 'latin1'));
  });
}

/** Counts the research searches the engine makes, by query (wraps the app's research providers). */
export function countSearches(t: TestApp): (query: string) => number {
  const counts = new Map<string, number>();
  const real = t.engine.providers.researchProvider;
  t.engine.providers.researchProvider = (platform) => {
    const provider = real(platform);
    return {
      name: provider.name,
      platforms: provider.platforms,
      search(query, options) {
        counts.set(query, (counts.get(query) ?? 0) + 1);
        return provider.search(query, options);
      },
    };
  };
  return (query) => counts.get(query) ?? 0;
}
