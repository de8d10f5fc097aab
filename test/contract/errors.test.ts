import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError, ERROR_CATALOGUE, isErrorCode, toApiError, type ErrorCode } from '../../src/errors.ts';
import { defineOperation, type AnyOperation } from '../../src/tools/define.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';

/** The error catalogue (src/errors.ts) against docs/api.md §1.3, and how errors reach clients (§1.2). */

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

/** Every code docs/api.md §1.3 catalogues, with its status. */
const DOCUMENTED: Record<string, number> = {
  invalid_input: 400,
  validation_error: 400,
  idempotency_key_required: 400,
  unauthorized: 401,
  subscription_required: 402,
  plan_required: 403,
  forbidden: 403,
  not_found: 404,
  location_conflict: 409,
  invalid_state: 409,
  idempotency_key_in_use: 409,
  confirmation_mismatch: 409,
  payload_too_large: 413,
  idempotency_key_reused: 422,
  rate_limit_exceeded: 429,
  usage_limit_reached: 429,
  internal_error: 500,
  service_unavailable: 503,
};

const SECRET = 'SQLITE_CONSTRAINT at /var/lib/agent-api/secret-path.db token=sk-live-0123456789';

/** Test-only operations that fail on purpose. */
function failingOperations(): AnyOperation[] {
  const annotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
  return [
    defineOperation({
      name: 'get_failure',
      title: 'Get failure',
      description: 'Throws what it is asked to (test only).',
      family: 'usage',
      http: { method: 'GET', path: '/test/failure', status: 200 },
      scope: null,
      subscription: null,
      idempotency: 'none',
      input: z.strictObject({ kind: z.enum(['plain', 'string', 'api']), code: z.string().optional() }),
      output: z.object({ ok: z.boolean() }),
      errors: [],
      annotations,
      handler: async (_ctx, input) => {
        if (input.kind === 'api') throw new ApiError(input.code as ErrorCode);
        if (input.kind === 'string') throw SECRET as unknown as Error;
        const err = new Error(SECRET);
        err.stack = `Error: ${SECRET}\n    at handler (/work/main/src/tools/secret.ts:1:1)`;
        throw err;
      },
    }),
    defineOperation({
      name: 'create_failure',
      title: 'Create failure',
      description: 'Writes a row, then throws (test only).',
      family: 'usage',
      http: { method: 'POST', path: '/test/failure', status: 201 },
      scope: null,
      subscription: null,
      idempotency: 'optional',
      input: z.strictObject({ name: z.string() }),
      output: z.object({ ok: z.boolean() }),
      errors: [],
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      handler: async (ctx, input) => {
        await createOrganisation(
          ctx.db,
          { name: input.name, plan: 'starter', subscription: 'active' },
          ctx.engine.clock.now(),
        );
        throw new Error(SECRET);
      },
    }),
  ];
}

describe('error catalogue', () => {
  it('maps every code to an HTTP error status and a one-sentence message', () => {
    for (const code of CODES) {
      const { status, message } = ERROR_CATALOGUE[code];
      expect(Number.isInteger(status) && status >= 400 && status <= 599, code).toBe(true);
      expect(message, code).toMatch(/^[A-Z].*\.$/);
      expect(isErrorCode(code)).toBe(true);
      expect(new ApiError(code).status).toBe(status);
    }
    expect(isErrorCode('nope')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
  });

  it('holds exactly the codes docs/api.md §1.3 catalogues, with their statuses', () => {
    expect(Object.fromEntries(CODES.map((c) => [c, ERROR_CATALOGUE[c].status]))).toEqual(DOCUMENTED);
  });

  it('turns anything that is not an ApiError into internal_error without its text', () => {
    for (const thrown of [new Error(SECRET), SECRET, { message: SECRET }, undefined]) {
      const e = toApiError(thrown);
      expect(e.toBody()).toEqual({
        error: { code: 'internal_error', message: ERROR_CATALOGUE.internal_error.message },
      });
    }
  });

  it('every code appears in the README error table with its status', () => {
    const rows = readmeErrorRows(readFileSync(README, 'utf8'));
    expect(rows.size, 'README.md has no table whose header names a "code" column').toBeGreaterThan(0);
    for (const code of CODES)
      expect(rows.get(code), `README error table row for ${code}`).toBe(ERROR_CATALOGUE[code].status);
  });
});

describe('errors as served', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startTestApp({ operations: [...OPERATIONS, ...failingOperations()] });
    ({ key } = await t.tenant('agency'));
  });
  afterAll(async () => {
    await t.close();
  });

  it('an unknown route is 404 not_found with the error body, authenticated or not', async () => {
    for (const [method, path, auth] of [
      ['GET', '/api/agent/v1/no-such-thing', true],
      ['GET', '/api/agent/v1/no-such-thing', false],
      ['POST', '/api/agent/v2/usage', true],
      ['DELETE', '/api/agent/v1/usage', true],
      ['GET', '/', false],
    ] as const) {
      const r = await t.request(method, path, { key: auth ? key : null });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(r.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.headers.get('x-request-id')).toBeTruthy();
    }
  });

  it('every catalogue code thrown by a handler answers its status and the same body over REST and MCP', async () => {
    const mcp = await connectHttpClient(t.url, key);
    try {
      for (const code of CODES) {
        const r = await t.request('GET', '/test/failure', { key, query: { kind: 'api', code } });
        expect(r.status, code).toBe(ERROR_CATALOGUE[code].status);
        expect(r.body, code).toEqual({ error: { code, message: ERROR_CATALOGUE[code].message } });
        expect(r.headers.get('x-request-id'), code).toBeTruthy();
        const viaTool = await mcp.client.callTool({ name: 'get_failure', arguments: { kind: 'api', code } });
        expect(viaTool.isError, code).toBe(true);
        expect(structured(viaTool), code).toEqual(r.body);
      }
    } finally {
      await mcp.close();
    }
  });

  it('a 500 answers internal_error with no stack trace or internal text, and the log keeps the detail', async () => {
    const mcp = await connectHttpClient(t.url, key);
    try {
      for (const kind of ['plain', 'string'] as const) {
        const r = await t.request('GET', '/test/failure', {
          key,
          query: { kind },
          headers: { 'x-request-id': `req-500-${kind}` },
        });
        expect(r.status).toBe(500);
        expect(r.body).toEqual({ error: { code: 'internal_error', message: ERROR_CATALOGUE.internal_error.message } });
        expect(r.text).not.toMatch(/SQLITE|secret|sk-live|\bat \/|\.ts:\d/);
        expect(r.headers.get('x-request-id')).toBe(`req-500-${kind}`);
        expect(r.headers.get('x-ratelimit-limit')).toBe('120');
        const viaTool = await mcp.client.callTool({ name: 'get_failure', arguments: { kind } });
        expect(viaTool.isError).toBe(true);
        expect(structured(viaTool)).toEqual(r.body);
        expect(JSON.stringify(viaTool)).not.toMatch(/SQLITE|secret|sk-live/);
      }
    } finally {
      await mcp.close();
    }
    const logged = t
      .logs!.lines()
      .map((l) => JSON.parse(l) as { requestId?: string; msg: string; err?: { message?: string } });
    expect(logged.find((l) => l.requestId === 'req-500-plain' && l.msg === 'unhandled error')?.err?.message).toContain(
      'SQLITE_CONSTRAINT',
    );
  });

  it('a writing handler that throws commits nothing and stores nothing under its idempotency key', async () => {
    const count = async () =>
      Number(
        (
          await t.db
            .selectFrom('organisations')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count();
    for (let i = 0; i < 2; i++) {
      const r = await t.request('POST', '/test/failure', {
        key,
        body: { name: 'never stored' },
        headers: { 'idempotency-key': 'fails-every-time' },
      });
      expect(r.status).toBe(500);
      expect(r.headers.get('idempotent-replayed')).toBeNull();
      expect(r.body).toEqual({ error: { code: 'internal_error', message: ERROR_CATALOGUE.internal_error.message } });
    }
    expect(await count()).toBe(before);
    const stored = await t.db.selectFrom('idempotency_keys').selectAll().execute();
    expect(stored).toEqual([]);
  });
});

/** code -> status from every README table whose header has a "code" column and an HTTP/status column. */
function readmeErrorRows(markdown: string): Map<string, number> {
  const rows = new Map<string, number>();
  const lines = markdown.split('\n');
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1]!)) continue;
    const header = lines[i]!.split('|').map((c) => c.trim().toLowerCase());
    const codeCol = header.findIndex((c) => c === 'code');
    const statusCol = header.findIndex((c) => c === 'http' || c === 'status');
    if (codeCol < 0 || statusCol < 0) continue;
    for (let j = i + 2; j < lines.length && lines[j]!.trim().startsWith('|'); j++) {
      const cells = lines[j]!.split('|').map((c) => c.trim());
      const code = /`([a-z_]+)`/.exec(cells[codeCol] ?? '')?.[1];
      const status = Number.parseInt(cells[statusCol] ?? '', 10);
      if (code && Number.isInteger(status)) rows.set(code, status);
    }
  }
  return rows;
}
