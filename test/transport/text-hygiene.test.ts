import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { startTestApp, type TestApp, type TestResponse } from '../helpers/app.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';

/**
 * Text hygiene on every input (docs/reliability.md, Hardening (I)): control characters, bidirectional overrides,
 * lone surrogates, invalid UTF-8 bodies and prototype-named fields are refused with 400 naming the field, over REST
 * and over MCP with the same error body, and nothing is stored. Long text (notes, instructions, drafts, context)
 * keeps tabs, line breaks and bidirectional characters; short identifiers (names, keywords, topics, urls, ids) do not.
 */

type ErrorBody = {
  error: { code: string; message: string; details?: { fields?: { path: string; message: string }[] } };
};
type Any = ErrorBody & Record<string, unknown> & { data?: Record<string, unknown>[] };
type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

const CONTROL = /control characters.*\(found U\+[0-9A-F]{4}\)/;
const BIDI = /bidirectional .*\(found U\+[0-9A-F]{4}\)/;
const SURROGATE = /well-formed Unicode/;
const PAGE = 'https://example.com/target-page';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.close();
});

/** A fresh agency tenant with one prospect list, REST and MCP callers bound to its key. */
async function setup() {
  const tenant = await t.tenant('agency');
  const { key, clientId } = tenant;

  async function rest(
    method: string,
    path: string,
    opts: { body?: unknown; rawBody?: string; query?: Record<string, string> } = {},
  ): Promise<TestResponse<Any>> {
    const headers: Record<string, string> = {};
    if (method !== 'GET') headers['idempotency-key'] = `k-${randomUUID()}`;
    if (opts.rawBody !== undefined) headers['content-type'] = 'application/json';
    const r = await t.request<Any>(method, path, { key, headers, ...opts });
    t.clock.advance(1_000);
    return r;
  }

  /** Raw bytes as a JSON body (what fetch would never produce from a JS string). */
  async function restBytes(method: string, path: string, bytes: Uint8Array): Promise<TestResponse<Any>> {
    const res = await fetch(new URL(`/api/agent/v1${path}`, t.url), {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'idempotency-key': `k-${randomUUID()}`,
      },
      body: bytes,
    });
    const text = await res.text();
    t.clock.advance(1_000);
    return { status: res.status, headers: res.headers, body: JSON.parse(text) as Any, text };
  }

  const mcp = await connectHttpClient(t.url, key);
  async function tool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    const op = OPERATIONS.find((o) => o.name === name)!;
    const withKey = op.idempotency === 'none' ? args : { ...args, idempotency_key: randomUUID() };
    const r = (await mcp.client.callTool({ name, arguments: withKey })) as ToolResult;
    t.clock.advance(1_000);
    return r;
  }
  /** A tool call the server refuses before running it: the JSON-RPC error. */
  async function toolRpcError(name: string, args: Record<string, unknown>): Promise<McpError> {
    const err = await mcp.client.callTool({ name, arguments: args }).then(
      () => null,
      (e: unknown) => e,
    );
    t.clock.advance(1_000);
    expect(err).toBeInstanceOf(McpError);
    return err as McpError;
  }

  const list = await rest('POST', `/clients/${clientId}/prospect-lists`, { body: { name: 'Base list' } });
  expect(list.status).toBe(201);
  const listId = list.body.list_id as string;
  return { ...tenant, rest, restBytes, tool, toolRpcError, listId, close: () => mcp.close() };
}

/** Saves a prospect with `notes` over REST and over MCP; both keep the notes exactly. Answers the REST save. */
async function expectNotesKept(s: Awaited<ReturnType<typeof setup>>, name: string, notes: string) {
  const saved = await s.rest('POST', `/clients/${s.clientId}/prospect-lists/${s.listId}/items`, {
    body: { url: `https://example.com/${name}-rest`, notes },
  });
  expect(saved.status, saved.text).toBe(201);
  expect(saved.body.notes).toBe(notes);
  const viaMcp = await s.tool('save_prospect', {
    client_id: s.clientId,
    list_id: s.listId,
    url: `https://example.com/${name}-mcp`,
    notes,
  });
  expect(viaMcp.isError).toBeFalsy();
  expect(structured<Any>(viaMcp).notes).toBe(notes);
  return saved;
}

type Setup = Awaited<ReturnType<typeof setup>>;

/** REST answered 400 with `code`, naming `field` with a message matching `message`. */
function expectRefused(r: TestResponse<Any>, code: string, field: string, message?: RegExp): void {
  expect(r.status, r.text).toBe(400);
  expect(r.body.error.code).toBe(code);
  expect(r.body.error.details?.fields, r.text).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ path: field, ...(message ? { message: expect.stringMatching(message) } : {}) }),
    ]),
  );
}

/** The MCP call answered isError with the same body as REST. */
function expectSameOnMcp(mcp: ToolResult, r: TestResponse<Any>): void {
  expect(mcp.isError, JSON.stringify(mcp)).toBe(true);
  expect(structured(mcp)).toEqual(r.body);
}

/** What a tenant has stored: prospect lists (names), items of its base list, content jobs and optimizations. */
async function footprint(s: Setup) {
  const lists = await s.rest('GET', `/clients/${s.clientId}/prospect-lists`);
  const items = await s.rest('GET', `/clients/${s.clientId}/prospect-lists/${s.listId}/items`);
  const jobs = await s.rest('GET', '/copywriter/jobs');
  const opts = await s.rest('GET', '/optimizations');
  return {
    lists: lists.body.data!.map((l) => l.name),
    items: items.body.data!.length,
    jobs: jobs.body.data!.length,
    optimizations: opts.body.data!.length,
  };
}
const EMPTY = { lists: ['Base list'], items: 0, jobs: 0, optimizations: 0 };

describe('Hardening (I): text hygiene', () => {
  it('I.12 NUL, ESC, DEL and C1 (U+0085, U+009B) in a short identifier (list name, topic, location, keyword) are a 400 naming the field, on REST and MCP alike', async () => {
    const s = await setup();
    try {
      for (const bad of ['a\u0000b', 'a\u0085b', 'a\u001bb', 'a\u007fb', 'a\u009bb', 'trailing\u0000']) {
        const name = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, { body: { name: bad } });
        expectRefused(name, 'invalid_input', 'name', CONTROL);
        expectSameOnMcp(await s.tool('create_prospect_list', { client_id: s.clientId, name: bad }), name);

        const job = { client_id: s.clientId, page_contract: 'article', topic: bad };
        const topic = await s.rest('POST', '/copywriter/jobs', { body: job });
        expectRefused(topic, 'invalid_input', 'topic', CONTROL);
        expectSameOnMcp(await s.tool('create_content_job', job), topic);

        const located = { client_id: s.clientId, page_contract: 'article', topic: 'plumbing', location: bad };
        const location = await s.rest('POST', '/copywriter/jobs', { body: located });
        expectRefused(location, 'invalid_input', 'location', CONTROL);
        expectSameOnMcp(await s.tool('create_content_job', located), location);

        const opt = { url: PAGE, keyword: bad };
        const keyword = await s.rest('POST', '/optimize', { body: opt });
        expectRefused(keyword, 'validation_error', 'keyword', CONTROL);
        expectSameOnMcp(await s.tool('start_optimization', opt), keyword);

        const filter = await s.rest('GET', '/optimizations', { query: { keyword: bad } });
        expectRefused(filter, 'validation_error', 'keyword', CONTROL);
        expectSameOnMcp(await s.tool('list_optimizations', { keyword: bad }), filter);
      }
      // The message names the character.
      const nul = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, { body: { name: 'a\u0000b' } });
      expectRefused(nul, 'invalid_input', 'name', /U\+0000/);
      const nel = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, { body: { name: 'a\u0085b' } });
      expectRefused(nel, 'invalid_input', 'name', /U\+0085/);
      expect(await footprint(s)).toEqual(EMPTY);
    } finally {
      await s.close();
    }
  });

  it('I.13 bidirectional override and isolate characters (U+202A-U+202E, U+2066-U+2069) are refused in short identifiers and kept verbatim in long text (notes)', async () => {
    const s = await setup();
    try {
      for (const ch of ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069']) {
        const bad = `invoice${ch}fdp.exe`;
        const code = ch.codePointAt(0)!.toString(16).toUpperCase();
        const name = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, { body: { name: bad } });
        expectRefused(name, 'invalid_input', 'name', new RegExp(`bidirectional .*U\\+${code}`));
        expectSameOnMcp(await s.tool('create_prospect_list', { client_id: s.clientId, name: bad }), name);
      }
      const bad = 'seo\u202Etools';
      const keyword = await s.rest('POST', '/optimize', { body: { url: PAGE, keyword: bad } });
      expectRefused(keyword, 'validation_error', 'keyword', BIDI);
      expectSameOnMcp(await s.tool('start_optimization', { url: PAGE, keyword: bad }), keyword);

      const item = { url: 'https://example.com/a', target_name: 'Evil\u2067Corp' };
      const target = await s.rest('POST', `/clients/${s.clientId}/prospect-lists/${s.listId}/items`, { body: item });
      expectRefused(target, 'invalid_input', 'target_name', BIDI);
      expectSameOnMcp(await s.tool('save_prospect', { client_id: s.clientId, list_id: s.listId, ...item }), target);
      const topicBody = { client_id: s.clientId, page_contract: 'article', topic: 'best \u202Dplumber' };
      const topic = await s.rest('POST', '/copywriter/jobs', { body: topicBody });
      expectRefused(topic, 'invalid_input', 'topic', BIDI);
      expectSameOnMcp(await s.tool('create_content_job', topicBody), topic);
      expect(await footprint(s)).toEqual(EMPTY);

      // Long text: right-to-left marks and isolates are legitimate in prose, and stored as sent.
      const notes = 'Contact: \u2067مرحبا\u2069 (ask for \u202Bשלום\u202C); file \u202Egnp.exe';
      await expectNotesKept(s, 'bidi', notes);
    } finally {
      await s.close();
    }
  });

  it('I.14 tab, newline and CR are kept in long text (notes, custom_instructions) but refused inside short identifiers; other C0/C1 stay refused in long text', async () => {
    const s = await setup();
    try {
      const items = `/clients/${s.clientId}/prospect-lists/${s.listId}/items`;
      const notes = 'line one\n\tindented\r\nline three\t(end)';
      const saved = await expectNotesKept(s, 'ws', notes);
      const updated = await s.rest('PATCH', `${items}/${saved.body.item_id as string}`, {
        body: { notes: 'first\nsecond' },
      });
      expect([updated.status, updated.body.notes]).toEqual([200, 'first\nsecond']);

      // Long text still refuses other control characters, C1 and DEL.
      for (const bad of ['bell\u0007', 'esc\u001b[31m', 'csi\u009b', 'nul\u0000', 'vt\u000bff\u000c', 'del\u007f']) {
        const r = await s.rest('POST', items, { body: { url: 'https://example.com/ctl', notes: bad } });
        expectRefused(r, 'invalid_input', 'notes', CONTROL);
        expectSameOnMcp(
          await s.tool('save_prospect', {
            client_id: s.clientId,
            list_id: s.listId,
            url: 'https://example.com/ctl',
            notes: bad,
          }),
          r,
        );
        const job = { client_id: s.clientId, page_contract: 'article', topic: 'plumbing', custom_instructions: bad };
        const j = await s.rest('POST', '/copywriter/jobs', { body: job });
        expectRefused(j, 'invalid_input', 'custom_instructions', CONTROL);
        expectSameOnMcp(await s.tool('create_content_job', job), j);
      }

      // Short identifiers: a tab, newline or CR inside is refused (surrounding whitespace is trimmed, as before).
      for (const ws of ['\t', '\n', '\r', '\r\n']) {
        const name = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, {
          body: { name: `Guest${ws}posts` },
        });
        expectRefused(name, 'invalid_input', 'name', CONTROL);
        expectSameOnMcp(await s.tool('create_prospect_list', { client_id: s.clientId, name: `Guest${ws}posts` }), name);
        const keyword = await s.rest('POST', '/optimize', { body: { url: PAGE, keyword: `seo${ws}tools` } });
        expectRefused(keyword, 'validation_error', 'keyword', CONTROL);
        const target = await s.rest('POST', items, {
          body: { url: 'https://example.com/t', target_name: `The${ws}Site` },
        });
        expectRefused(target, 'invalid_input', 'target_name', CONTROL);
        const job = { client_id: s.clientId, page_contract: 'article', topic: `emergency${ws}plumber` };
        const topic = await s.rest('POST', '/copywriter/jobs', { body: job });
        expectRefused(topic, 'invalid_input', 'topic', CONTROL);
        expectSameOnMcp(await s.tool('create_content_job', job), topic);
      }
      const trimmed = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, {
        body: { name: '\t Guest posts \r\n' },
      });
      expect([trimmed.status, trimmed.body.name]).toEqual([201, 'Guest posts']);
      const f = await footprint(s);
      expect(f).toMatchObject({ items: 2, jobs: 0, optimizations: 0 });
      expect(f.lists.sort()).toEqual(['Base list', 'Guest posts']);
    } finally {
      await s.close();
    }
  });

  it('I.15 a lone surrogate ("a\\ud800b" in JSON, or in MCP arguments) is a 400 naming the field and is never stored as U+FFFD', async () => {
    const s = await setup();
    try {
      for (const escaped of ['a\\ud800b', 'seo\\ud83d', '\\udc00tools', 'x\\udfff\\ud800y']) {
        const raw = `{"url":"${PAGE}","keyword":"${escaped}"}`;
        const keyword = await s.rest('POST', '/optimize', { rawBody: raw });
        expectRefused(keyword, 'validation_error', 'keyword', SURROGATE);
        const value = (JSON.parse(raw) as { keyword: string }).keyword;
        expect(/\p{Cs}/u.test(value)).toBe(true);
        expectSameOnMcp(await s.tool('start_optimization', { url: PAGE, keyword: value }), keyword);

        const name = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, {
          rawBody: `{"name":"${escaped}"}`,
        });
        expectRefused(name, 'invalid_input', 'name', SURROGATE);

        const notes = await s.rest('POST', `/clients/${s.clientId}/prospect-lists/${s.listId}/items`, {
          rawBody: `{"url":"https://example.com/s","notes":"${escaped}"}`,
        });
        expectRefused(notes, 'invalid_input', 'notes', SURROGATE);

        const job = { client_id: s.clientId, page_contract: 'article', topic: value };
        const topic = await s.rest('POST', '/copywriter/jobs', { body: job });
        expectRefused(topic, 'invalid_input', 'topic', SURROGATE);
        expectSameOnMcp(await s.tool('create_content_job', job), topic);

        const filter = await s.rest('GET', '/optimizations', { query: { keyword: value } });
        // A lone surrogate cannot be percent-encoded as UTF-8: the client sends U+FFFD, which is well-formed.
        expect(filter.status).toBe(200);
      }
      // A well-formed astral character written as a surrogate pair escape is fine.
      const pair = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, {
        rawBody: '{"name":"rocket \\ud83d\\ude80"}',
      });
      expect([pair.status, pair.body.name]).toEqual([201, 'rocket \u{1F680}']);
      const f = await footprint(s);
      expect(f).toMatchObject({ items: 0, jobs: 0, optimizations: 0 });
      expect(JSON.stringify(f)).not.toContain('\ufffd');
    } finally {
      await s.close();
    }
  });

  it('I.16 a JSON body that is not valid UTF-8 (0xC3 0x28, truncated, overlong, encoded surrogate) is a 400 naming (body), never decoded to U+FFFD', async () => {
    const s = await setup();
    try {
      const enc = new TextEncoder();
      const withBytes = (prefix: string, bytes: number[], suffix: string) =>
        Uint8Array.from([...enc.encode(prefix), ...bytes, ...enc.encode(suffix)]);
      const bads = [[0xc3, 0x28], [0xe2, 0x82], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xff], [0x80]];
      for (const bytes of bads) {
        const list = await s.restBytes(
          'POST',
          `/clients/${s.clientId}/prospect-lists`,
          withBytes('{"name":"a', bytes, 'b"}'),
        );
        expect(list.status, list.text).toBe(400);
        expect(list.body.error.code).toBe('invalid_input');
        expect(list.body.error.details?.fields).toEqual([{ path: '(body)', message: expect.stringMatching(/UTF-8/) }]);

        const opt = await s.restBytes('POST', '/optimize', withBytes(`{"url":"${PAGE}","keyword":"seo`, bytes, '"}'));
        expect(opt.status, opt.text).toBe(400);
        expect(opt.body.error.code).toBe('validation_error');
        expect(opt.body.error.details?.fields).toEqual([{ path: '(body)', message: expect.stringMatching(/UTF-8/) }]);
      }
      // The same body in valid UTF-8 is accepted: the refusal is about the bytes, not the text.
      const ok = await s.restBytes('POST', `/clients/${s.clientId}/prospect-lists`, enc.encode('{"name":"Café ok"}'));
      expect([ok.status, ok.body.name]).toEqual([201, 'Café ok']);
      const f = await footprint(s);
      expect(f.lists.sort()).toEqual(['Base list', 'Café ok']);
      expect(f.optimizations).toBe(0);
    } finally {
      await s.close();
    }
  });

  it('I.17 ?__proto__=x, ?constructor=x and ?prototype=x on GET list routes are unknown fields: 400 naming them', async () => {
    const s = await setup();
    try {
      const routes: [string, string][] = [
        [`/clients/${s.clientId}/prospect-lists`, 'invalid_input'],
        [`/clients/${s.clientId}/prospect-lists/${s.listId}/items`, 'invalid_input'],
        ['/copywriter/jobs', 'invalid_input'],
        ['/optimizations', 'validation_error'],
        ['/reporter/projects', 'invalid_input'],
        ['/clients', 'invalid_input'],
      ];
      for (const [path, code] of routes) {
        for (const name of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString']) {
          const r = await s.rest('GET', path, { query: { [name]: 'x' } });
          expect(r.status, `${path}?${name}=x ${r.text}`).toBe(400);
          expect(r.body.error.code).toBe(code);
          expect(r.body.error.details?.fields).toEqual([{ path: name, message: 'Unknown field.' }]);
        }
        // A repeated parameter is one unknown field too.
        const twice = await s.rest('GET', `${path}?__proto__=a&__proto__=b`);
        expect(twice.status).toBe(400);
        expect(twice.body.error.details?.fields).toEqual([{ path: '__proto__', message: 'Unknown field.' }]);
      }
      // Known parameters still work next to nothing else.
      expect((await s.rest('GET', `/clients/${s.clientId}/prospect-lists`, { query: { limit: '5' } })).status).toBe(
        200,
      );
    } finally {
      await s.close();
    }
  });

  it('I.18 "__proto__", "constructor" and "prototype" keys in a JSON body (or MCP arguments) are unknown fields: 400 naming them, nothing created', async () => {
    const s = await setup();
    try {
      const lists = `/clients/${s.clientId}/prospect-lists`;
      const items = `${lists}/${s.listId}/items`;
      const cases: [string, string, string, string, string][] = [
        ['POST', lists, '{"name":"ok","__proto__":{"name":"x"}}', '__proto__', 'invalid_input'],
        ['POST', lists, '{"name":"ok","__proto__":"x"}', '__proto__', 'invalid_input'],
        ['POST', lists, '{"name":"ok","constructor":{"prototype":{"polluted":true}}}', 'constructor', 'invalid_input'],
        ['POST', lists, '{"name":"ok","prototype":1}', 'prototype', 'invalid_input'],
        // Path parameters merged into the input do not hide a body's prototype-named keys.
        [
          'POST',
          items,
          `{"url":"https://example.com/p","__proto__":{"client_id":"${randomUUID()}"}}`,
          '__proto__',
          'invalid_input',
        ],
        ['POST', items, '{"url":"https://example.com/p","constructor":"x"}', 'constructor', 'invalid_input'],
        ['DELETE', `${lists}/${s.listId}`, '{"name":"Base list","__proto__":{}}', '__proto__', 'invalid_input'],
        [
          'POST',
          '/optimize',
          `{"url":"${PAGE}","keyword":"seo","__proto__":{"keyword":"x"}}`,
          '__proto__',
          'validation_error',
        ],
        ['POST', '/optimize', `{"url":"${PAGE}","keyword":"seo","constructor":1}`, 'constructor', 'validation_error'],
        [
          'POST',
          '/copywriter/jobs',
          `{"client_id":"${s.clientId}","topic":"plumbing","page_contract":"article","__proto__":{"mode":"stepped"}}`,
          '__proto__',
          'invalid_input',
        ],
      ];
      for (const [method, path, raw, field, code] of cases) {
        const r = await s.rest(method, path, { rawBody: raw });
        expect(r.status, `${method} ${path} ${raw} ${r.text}`).toBe(400);
        expect(r.body.error.code).toBe(code);
        expect(r.body.error.details?.fields).toEqual([{ path: field, message: 'Unknown field.' }]);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      // An update whose only field is a prototype name changes nothing.
      const saved = await s.rest('POST', items, { body: { url: 'https://example.com/kept', notes: 'kept' } });
      expect(saved.status).toBe(201);
      const patch = await s.rest('PATCH', `${items}/${saved.body.item_id as string}`, {
        rawBody: '{"__proto__":{"notes":"changed"}}',
      });
      expect(patch.status).toBe(400);
      expect(patch.body.error.details?.fields).toEqual([{ path: '__proto__', message: 'Unknown field.' }]);
      const f = await footprint(s);
      expect(f).toEqual({ ...EMPTY, items: 1 });

      // MCP: the same names are unknown arguments (JSON-RPC -32602 carrying the same error body).
      for (const field of ['constructor', 'prototype']) {
        const args = JSON.parse(`{"client_id":"${s.clientId}","name":"ok","${field}":"x"}`) as Record<string, unknown>;
        const err = await s.toolRpcError('create_prospect_list', args);
        expect(err.code).toBe(-32602);
        expect(err.data).toEqual({
          error: {
            code: 'invalid_input',
            message: `Invalid input: ${field}.`,
            details: { fields: [{ path: field, message: 'Unknown field.' }] },
          },
        });
      }
      expect((await footprint(s)).lists).toEqual(['Base list']);
    } finally {
      await s.close();
    }
  });

  it('I.19 every text field of every operation input is checked (a sweep of the registry schemas), and well-formed non-ASCII text is accepted unchanged', async () => {
    /** Long text: tabs, line breaks and bidirectional characters allowed. Every other text field is an identifier. */
    const LONG = new Set([
      'notes',
      'custom_instructions',
      'draft_body',
      'context',
      'content',
      'meta_description',
      'brand_voice',
      'knowledge_base',
    ]);
    const seen: string[] = [];
    const isText = (p: Record<string, unknown>): boolean =>
      (p.type === 'string' && p.enum === undefined && p.format !== 'uuid') ||
      (Array.isArray(p.anyOf) && (p.anyOf as Record<string, unknown>[]).some(isText));
    const problems = (op: (typeof OPERATIONS)[number], field: string, value: unknown): string[] => {
      const r = op.input.safeParse({ [field]: value });
      if (r.success) return [];
      const issues: { path: PropertyKey[]; message: string }[] = r.error.issues;
      return issues.filter((i) => i.path.join('.') === field).map((i) => i.message);
    };
    for (const op of OPERATIONS) {
      const schema = z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) as {
        properties?: Record<string, Record<string, unknown>>;
      };
      for (const [field, prop] of Object.entries(schema.properties ?? {})) {
        if (!isText(prop)) continue;
        seen.push(`${op.name}.${field}`);
        const where = `${op.name}.${field}`;
        expect(problems(op, field, 'a\u0000b'), where).toEqual(
          expect.arrayContaining([expect.stringMatching(CONTROL)]),
        );
        expect(problems(op, field, 'a\u0085b'), where).toEqual(
          expect.arrayContaining([expect.stringMatching(CONTROL)]),
        );
        expect(problems(op, field, 'a\ud800b'), where).toEqual(
          expect.arrayContaining([expect.stringMatching(SURROGATE)]),
        );
        const tab = problems(op, field, 'a\tb');
        const bidi = problems(op, field, 'a\u202eb');
        if (LONG.has(field)) {
          expect(
            tab.filter((m) => CONTROL.test(m)),
            where,
          ).toEqual([]);
          expect(
            bidi.filter((m) => BIDI.test(m)),
            where,
          ).toEqual([]);
        } else {
          expect(tab, where).toEqual(expect.arrayContaining([expect.stringMatching(CONTROL)]));
          expect(bidi, where).toEqual(expect.arrayContaining([expect.stringMatching(BIDI)]));
        }
      }
    }
    // The sweep reached the fields this item is about.
    expect(seen).toEqual(
      expect.arrayContaining([
        'create_content_job.topic',
        'create_content_job.location',
        'create_content_job.custom_instructions',
        'create_content_job.draft_body',
        'create_content_job.source_url',
        'create_content_autopilot.context',
        'start_optimization.keyword',
        'start_optimization.url',
        'list_optimizations.keyword',
        'get_optimization.optimization_id',
        'get_content_job.job_id',
        'create_prospect_list.name',
        'delete_prospect_list.name',
        'save_prospect.notes',
        'save_prospect.target_name',
        'save_prospect.contact_path',
        'delete_prospect.url',
        'create_client.name',
        'create_client.domain',
        'create_client.service_area',
        'create_client.brand_voice',
        'create_client.knowledge_base',
        'update_client.name',
        'update_client.knowledge_base',
        'create_tracker_project.name',
        'create_tracker_project.domain',
        'create_tracker_project.location',
        'create_tracker_project.language',
        'update_tracker_project.location',
        'delete_tracker_project.name',
      ]),
    );

    // Well-formed non-ASCII text passes every rule and comes back unchanged.
    const s = await setup();
    try {
      const name = 'Café 東京 — مرحبا שלום 🚀 ñ';
      const list = await s.rest('POST', `/clients/${s.clientId}/prospect-lists`, { body: { name } });
      expect([list.status, list.body.name]).toEqual([201, name]);
      const viaMcp = await s.tool('create_prospect_list', { client_id: s.clientId, name: `${name} (mcp)` });
      expect(viaMcp.isError).toBeFalsy();
      expect(structured<Any>(viaMcp).name).toBe(`${name} (mcp)`);
    } finally {
      await s.close();
    }
  });
});
