import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { createProject, type NewTrackerProject } from '../../src/engine/tracker/service.ts';
import type { TestApp, TestResponse } from '../helpers/app.ts';

/** Shared helpers for the tracker tests: projects on the sample archive, REST calls that keep the rate limit fresh. */

export const DOMAIN = 'rapidflowplumbing.com';
export const BRAND = 'RapidFlow Plumbing';
export const KEYWORDS = ['emergency plumber', 'water heater repair'];
export const DAY = 86_400_000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Any = any;

/** A project on the sample archive's plumbing sites, created as the CLI does (straight in the store). */
export async function project(t: TestApp, clientId: string, extra: Partial<NewTrackerProject> = {}): Promise<string> {
  const { project_id } = await createProject(
    t.db,
    { clientId, name: 'RapidFlow visibility', domain: DOMAIN, brandNames: [BRAND], queries: KEYWORDS, ...extra },
    t.clock.now(),
  );
  return project_id;
}

/** One REST call; the fake clock moves a second afterwards so a long test never meets the per-key rate limit. */
export async function call(
  t: TestApp,
  method: string,
  path: string,
  key: string | null,
  opts: { query?: Record<string, string | number>; body?: unknown; headers?: Record<string, string> } = {},
): Promise<TestResponse<Any>> {
  const r = await t.request<Any>(method, path, { key, ...opts });
  t.clock.advance(1_000);
  return r;
}

/** Starts a scan over REST and runs the runner until it is idle; answers the 202 body. */
export async function scan(
  t: TestApp,
  key: string,
  projectId: string,
  headers: Record<string, string> = {},
): Promise<Any> {
  const r = await call(t, 'POST', `/reporter/projects/${projectId}/scans`, key, { headers });
  expect(r.status, r.text).toBe(202);
  await t.engine.runner.runUntilIdle();
  return r.body;
}

export const errorCode = (r: TestResponse<Any>) => (r.body as { error: { code: string } }).error.code;

/** A UUID no tenant owns. */
export const nobody = () => randomUUID();
