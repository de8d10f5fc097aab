import { readFileSync } from 'node:fs';
import { compactInputSchema } from '../../src/transport/mcp/compact-schema.ts';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { OPERATIONS } from '../../src/tools/registry.ts';
import type { AnyOperation } from '../../src/tools/define.ts';
import { ERROR_CATALOGUE } from '../../src/errors.ts';
import { SCOPES } from '../../src/engine/accounts/scopes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { connectHttpClient } from '../helpers/mcp.ts';

/**
 * The registry is the single definition of every operation; this walks it and checks that each one is complete and
 * is served the same way everywhere: REST route, MCP tool, OpenAPI operation, README tool table
 * (docs/architecture.md: operations are defined once).
 */

const README = fileURLToPath(new URL('../../README.md', import.meta.url));
const BASE = '/api/agent/v1';

/**
 * The tool names docs/api.md §3 and §5 fix: the one list of tool names kept by hand, on purpose. Every other test
 * takes names from src/tools/registry.ts; this snapshot guards the public contract, so renaming or dropping a tool
 * (which breaks every client that calls it) fails here until this list and docs/api.md change with it. A new tool is
 * added here as well.
 */
const DOCUMENTED_TOOLS = [
  'create_content_job',
  'approve_content_brief',
  'list_content_jobs',
  'get_content_job',
  'get_content_artifacts',
  'create_content_autopilot',
  'get_autopilot_status',
  'start_optimization',
  'score_content',
  'get_optimization',
  'list_optimizations',
  'get_usage',
  'estimate_usage',
  'list_clients',
  'create_client',
  'update_client',
  'list_tracker_projects',
  'get_tracker_project',
  'create_tracker_project',
  'update_tracker_project',
  'delete_tracker_project',
  'get_tracker_results',
  'get_tracker_trends',
  'get_tracker_summary',
  'get_brand_summary',
  'start_tracker_scan',
  'list_prospect_lists',
  'create_prospect_list',
  'list_prospects',
  'save_prospect',
  'update_prospect',
  'delete_prospect',
  'delete_prospect_list',
];
/** POST operations that write nothing: they take a body too large for a query string and compute an answer. */
const COMPUTE_ONLY = new Set(['score_content']);
const VERBS = ['get', 'list', 'create', 'start', 'estimate', 'score', 'approve', 'save', 'update', 'delete'];

/**
 * docs/api.md §2.2: the scope family of each operation family. Reads need `<family>:read` (clients: any valid key);
 * writes that start gated, metered work need `<family>:run`; writes that only change the family's records need
 * `<family>:write`.
 */
const SCOPE_FAMILY: Record<string, string | null> = {
  copywriter: 'copywriter',
  autopilot: 'copywriter',
  optimize: 'optimize',
  tracker: 'reporter',
  prospector: 'prospector',
  usage: null,
  clients: 'clients',
};

/** The scope docs/api.md §2.2 assigns an operation; null for any valid key. */
function expectedScope(op: AnyOperation): string | null {
  const family = SCOPE_FAMILY[op.family];
  if (family === undefined) throw new Error(`unknown family ${op.family}`);
  if (family === null) return null;
  if (op.http.method === 'GET') return family === 'clients' ? null : `${family}:read`;
  return `${family}:${op.subscription ? 'run' : 'write'}`;
}

const cases = OPERATIONS.map((op) => [op.name, op] as const);

function draft7(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

function pathParams(op: AnyOperation): string[] {
  return [...op.http.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
}

/** A well-formed id for a path parameter that names nothing. */
function sampleId(param: string): string {
  return param === 'optimization_id' ? 'opt_01JZZZZZZZZZZZZZZZZZZZZZZZ' : crypto.randomUUID();
}

describe('operation registry contract', () => {
  it('has unique names and unique REST routes', () => {
    expect(OPERATIONS.length).toBeGreaterThan(0);
    const names = OPERATIONS.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort(), 'the public tool names (DOCUMENTED_TOOLS)').toEqual([...DOCUMENTED_TOOLS].sort());
    const routes = OPERATIONS.map((op) => `${op.http.method} ${op.http.path.replace(/:[a-z_]+/g, ':id')}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  describe.each(cases)('%s', (name, op) => {
    it('has a snake_case, verb-first name that docs/api.md §5 documents', () => {
      expect(name).toMatch(/^[a-z]+(_[a-z]+)+$/);
      expect(VERBS).toContain(name.split('_')[0]);
      expect(DOCUMENTED_TOOLS).toContain(name);
      expect(op.title.trim()).not.toBe('');
      expect(op.description.trim().length).toBeGreaterThan(10);
    });

    it('declares its scope (null only for usage and client reads) as docs/api.md §2.2 assigns it', () => {
      expect(op.scope === null || (SCOPES as readonly string[]).includes(op.scope)).toBe(true);
      expect(op.scope).toBe(expectedScope(op));
    });

    it('keeps reads working without a subscription', () => {
      if (op.http.method === 'GET') expect(op.subscription).toBeNull();
      if (op.subscription) expect(op.errors).toContain(op.subscription);
    });

    it('has all four annotation hints, consistent with its method', () => {
      const a = op.annotations;
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) {
        expect(typeof a[hint], hint).toBe('boolean');
      }
      // Reads are GETs, plus the POSTs that only compute an answer from stored data (a draft's score).
      expect(a.readOnlyHint).toBe(op.http.method === 'GET' || COMPUTE_ONLY.has(name));
      if (a.readOnlyHint) expect(a.destructiveHint).toBe(false);
      if (op.http.method === 'DELETE') expect(a.destructiveHint).toBe(true);
    });

    it('has an object output schema', () => {
      expect(op.output).toBeInstanceOf(z.ZodType);
      // An operation that renders documents (define.ts `render`) may answer one of several object shapes.
      const schema = draft7(op.output, 'output') as { type?: string; anyOf?: { type?: string }[] };
      const shapes = op.render && schema.anyOf ? schema.anyOf : [schema];
      for (const shape of shapes) expect(shape.type).toBe('object');
      expect(op.input).toBeInstanceOf(z.ZodObject);
    });

    it('documents only catalogue error codes, including the ones its settings imply', () => {
      for (const code of op.errors) expect(Object.keys(ERROR_CATALOGUE), code).toContain(code);
      expect(new Set(op.errors).size).toBe(op.errors.length);
      if (op.idempotency === 'required') expect(op.errors).toContain('idempotency_key_required');
      if (op.idempotency !== 'none') expect(op.errors).toContain('idempotency_key_reused');
      // The optimize family answers bad input with validation_error, every other family with invalid_input.
      expect(op.errors).not.toContain(op.family === 'optimize' ? 'invalid_input' : 'validation_error');
    });

    it('names every path parameter as an input field', () => {
      const shape = op.input.shape as Record<string, unknown>;
      for (const p of pathParams(op)) expect(Object.keys(shape), p).toContain(p);
    });
  });

  describe('as served', () => {
    let t: TestApp;
    let key: string;
    let tools: Map<string, Tool>;
    let openapi: { paths: Record<string, Record<string, Record<string, unknown>>> };

    beforeAll(async () => {
      t = await startTestApp();
      ({ key } = await t.tenant('agency'));
      const c = await connectHttpClient(t.url, key);
      tools = new Map((await c.client.listTools()).tools.map((tool) => [tool.name, tool]));
      await c.close();
      openapi = (await t.request('GET', '/openapi.json')).body as typeof openapi;
    });
    afterAll(async () => {
      await t.close();
    });

    it('serves exactly the registry as MCP tools', () => {
      expect([...tools.keys()].sort()).toEqual(OPERATIONS.map((op) => op.name).sort());
    });

    it('has one OpenAPI operation per registry entry, with operationId = name', () => {
      const ids: string[] = [];
      for (const methods of Object.values(openapi.paths))
        for (const o of Object.values(methods)) ids.push(String(o.operationId));
      expect(ids.sort()).toEqual(OPERATIONS.map((op) => op.name).sort());
    });

    describe.each(cases)('%s', (name, op) => {
      it('has a REST route that an authenticated call reaches', async () => {
        const path = op.http.path.replace(/:([a-z_]+)/g, (_, p: string) => sampleId(p));
        const r = await t.request(op.http.method, `${BASE}${path}`, {
          key,
          ...(op.http.method === 'GET' ? {} : { body: {} }),
        });
        // Only a matched, authenticated route sets the rate-limit headers; an unknown route answers "No such route.".
        expect(r.headers.get('x-ratelimit-limit'), `${op.http.method} ${path} -> ${r.status} ${r.text}`).toBe('120');
        expect(r.text).not.toContain('No such route');
        expect(r.status).not.toBe(405);
        expect(r.status).toBeLessThan(500);
      });

      it('is an MCP tool with the same input fields (compact schemas), its output fields and annotations', () => {
        const tool = tools.get(name);
        expect(tool, name).toBeDefined();
        const input = tool!.inputSchema as {
          type: string;
          properties?: Record<string, unknown>;
          required?: string[];
        };
        const expected = compactInputSchema(draft7(op.input, 'input')) as {
          properties?: Record<string, unknown>;
          required?: string[];
        };
        const expectedFields = Object.keys(expected.properties ?? {});
        const keyField = op.idempotency === 'none' ? [] : ['idempotency_key'];
        expect(input.type).toBe('object');
        expect(Object.keys(input.properties ?? {}).sort()).toEqual([...expectedFields, ...keyField].sort());
        for (const field of expectedFields)
          expect(input.properties![field], field).toEqual(expected.properties![field]);
        expect(new Set(input.required ?? [])).toEqual(
          new Set([...(expected.required ?? []), ...(op.idempotency === 'required' ? ['idempotency_key'] : [])]),
        );

        // The output schema says only "an object" (compact-schema.ts): open, so the error body fits too; the fields
        // are the operation's output schema in OpenAPI.
        expect(tool!.outputSchema).toEqual({ type: 'object' });

        expect(tool!.annotations).toMatchObject(op.annotations);
      });

      it('is an OpenAPI operation at its route with its scope, fields, success status and errors', () => {
        const openPath = BASE + op.http.path.replace(/:([a-z_]+)/g, '{$1}');
        const o = openapi.paths[openPath]?.[op.http.method.toLowerCase()] as
          | {
              operationId: string;
              'x-required-scope'?: string;
              parameters: Array<{ name: string; in: string; required: boolean }>;
              requestBody?: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
              responses: Record<string, unknown>;
            }
          | undefined;
        expect(o, `${op.http.method} ${openPath}`).toBeDefined();
        expect(o!.operationId).toBe(name);
        expect(o!['x-required-scope']).toBe(op.scope ?? undefined);

        const fields = Object.keys(draft7(op.input, 'input').properties as object);
        const documented = [
          ...o!.parameters.filter((p) => p.in !== 'header').map((p) => p.name),
          ...Object.keys(o!.requestBody?.content['application/json'].schema.properties ?? {}),
        ];
        expect(documented.sort()).toEqual([...fields].sort());
        for (const p of pathParams(op))
          expect(o!.parameters).toContainEqual(expect.objectContaining({ name: p, in: 'path', required: true }));
        const header = o!.parameters.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
        if (op.idempotency === 'none') expect(header).toBeUndefined();
        else expect(header?.required).toBe(op.idempotency === 'required');

        expect(Object.keys(o!.responses)).toContain(String(op.http.status));
        for (const code of op.errors)
          expect(Object.keys(o!.responses), code).toContain(String(ERROR_CATALOGUE[code].status));
      });
    });
  });

  const rows = readmeToolRows(readFileSync(README, 'utf8'));
  it("the README tool table lists exactly the registry's operations", () => {
    expect(rows.length, 'README.md has no table whose header names a "tool" column').toBeGreaterThan(0);
    expect(rows.map((r) => r.name).sort()).toEqual(OPERATIONS.map((op) => op.name).sort());
  });
  it("the README tool table shows each operation's route, scope and idempotency as the registry defines them", () => {
    const byName = new Map(OPERATIONS.map((op) => [op.name, op]));
    for (const row of rows) {
      const op = byName.get(row.name);
      if (!op) continue;
      if (row.rest !== undefined) expect(row.rest, `${row.name} REST`).toBe(`${op.http.method} ${op.http.path}`);
      if (row.scope !== undefined) expect(row.scope, `${row.name} scope`).toBe(op.scope ?? 'any key');
      if (row.idempotency !== undefined) expect(row.idempotency, `${row.name} idempotency`).toBe(op.idempotency);
    }
  });
});

interface ReadmeToolRow {
  name: string;
  rest?: string;
  scope?: string;
  idempotency?: string;
}

/**
 * The rows of every README table whose header has a "tool" column: the backticked name in that column, and the
 * REST, scope and idempotency columns where the table has them (backticks stripped).
 */
function readmeToolRows(markdown: string): ReadmeToolRow[] {
  const rows: ReadmeToolRow[] = [];
  const lines = markdown.split('\n');
  const cellsOf = (line: string) =>
    line
      .trim()
      .replace(/^\|/, '')
      .replace(/\|$/, '')
      .split('|')
      .map((c) => c.trim());
  for (let i = 0; i + 1 < lines.length; i++) {
    if (!lines[i]!.trim().startsWith('|') || !/^\s*\|[\s:|-]+\|\s*$/.test(lines[i + 1]!)) continue;
    const header = cellsOf(lines[i]!).map((c) => c.toLowerCase());
    const toolCol = header.findIndex((c) => /\btool\b/.test(c));
    if (toolCol < 0) continue;
    const col = (re: RegExp) => header.findIndex((c) => re.test(c));
    const [restCol, scopeCol, idemCol] = [col(/\brest\b|route/), col(/\bscope\b/), col(/idempotency/)];
    for (let j = i + 2; j < lines.length && lines[j]!.trim().startsWith('|'); j++) {
      const cells = cellsOf(lines[j]!);
      const name = /`([a-z_]+)`/.exec(cells[toolCol] ?? '')?.[1];
      if (!name) continue;
      const plain = (k: number) => (k < 0 ? undefined : (cells[k] ?? '').replace(/`/g, '').trim());
      rows.push({ name, rest: plain(restCol), scope: plain(scopeCol), idempotency: plain(idemCol) });
    }
  }
  return rows;
}
