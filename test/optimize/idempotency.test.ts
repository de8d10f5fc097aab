import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS } from '../../src/tools/registry.ts';
import { widgetOperations, widgetPipeline } from '../helpers/widget.ts';
import { structured } from '../helpers/mcp.ts';
import {
  call,
  drain,
  footprint,
  getOptimization,
  idem,
  mcpClient,
  postOptimize,
  startWorld,
  type ErrorBody,
  type Optimization,
  type World,
} from './helpers/harness.ts';
import { KEYWORD } from './helpers/web.ts';

/**
 * docs/reliability.md B (idempotency) through POST /optimize and start_optimization: the same key and request give the same
 * durable run, never a second row, reservation, run or search-provider call. Each case searches its own keyword, so
 * the SerpApi fake's request count for that keyword is the provider calls the case caused.
 */

const DAY = 24 * 3_600_000;
let w: World;

beforeAll(async () => {
  // The widget operations share the idempotency table, for B.14 (a key sent to another operation).
  w = await startWorld({
    competitors: ['/c/1'],
    operations: [...OPERATIONS, ...widgetOperations()],
    pipelines: (e) => [widgetPipeline(e, () => 'http://127.0.0.1:9')],
  });
});
afterAll(async () => {
  await w?.close();
});

// Digits only: a number in the keyword is not a head term, so every variant keeps the same competitors on topic.
const kw = (id: string) => `${KEYWORD} ${[...id].map((c) => c.charCodeAt(0)).join('')}`;
const body = (id: string, extra: Record<string, unknown> = {}) => ({
  url: w.web.url('/target/thorough'),
  keyword: kw(id),
  ...extra,
});

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown> };

/** What an organisation's requests left behind, after the runner finished whatever they started. */
async function settled(orgId: string) {
  await drain(w.t);
  return footprint(w.t, orgId);
}

/** A POST with repeated header names, exactly as given (node:http). */
function rawPost(
  key: string,
  headers: Record<string, string | string[]>,
  text: string,
): Promise<{ status: number; body: ErrorBody }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      new URL('/api/agent/v1/optimize', w.t.url),
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
        res.on('data', (d) => (data += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data || 'null') as ErrorBody }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/** A POST written byte for byte: header values node:http refuses to send (control characters). */
function socketPost(key: string, headerLines: string[], text: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const { hostname, port } = new URL(w.t.url);
    const sock = connect(Number(port), hostname);
    let data = '';
    sock.on('data', (d) => (data += d.toString('latin1')));
    sock.on('end', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
    sock.on('error', reject);
    const lines = [
      'POST /api/agent/v1/optimize HTTP/1.1',
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

describe('B. idempotency of start_optimization', () => {
  it('B.11 same key and body twice: 202 both times, the same run, Idempotent-Replayed; one row, reservation, run and search call', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('b11');
    const first = await postOptimize(w.t, key, body('B.11'), k);
    const second = await postOptimize(w.t, key, body('B.11'), k);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(second.body.optimization_id).toBe(first.body.optimization_id);
    const fp = await settled(orgId);
    expect(fp).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    expect(w.serp.calls(kw('B.11'))).toBe(1);
    // After the run finished, a replay answers the same run as it now is, and starts nothing.
    const third = await postOptimize(w.t, key, body('B.11'), k);
    expect(third.status).toBe(202);
    expect(third.headers.get('idempotent-replayed')).toBe('true');
    expect(third.body).toMatchObject({
      optimization_id: first.body.optimization_id,
      status: 'complete',
      billing_status: 'finalized',
    });
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    expect(w.serp.calls(kw('B.11'))).toBe(1);
  });

  it('B.11 over MCP: the same idempotency_key and arguments return the same run as over REST', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('b11-mcp');
    const rest = await postOptimize(w.t, key, body('B.11 mcp'), k);
    expect(rest.status).toBe(202);
    const c = await mcpClient(w.t, key);
    try {
      const a = (await c.client.callTool({
        name: 'start_optimization',
        arguments: { ...body('B.11 mcp'), idempotency_key: k },
      })) as ToolResult;
      const b = (await c.client.callTool({
        name: 'start_optimization',
        arguments: { ...body('B.11 mcp'), idempotency_key: k },
      })) as ToolResult;
      expect(a.isError).toBeFalsy();
      expect(structured<Optimization>(a).optimization_id).toBe(rest.body.optimization_id);
      expect(structured<Optimization>(b).optimization_id).toBe(rest.body.optimization_id);
      const other = (await c.client.callTool({
        name: 'start_optimization',
        arguments: { ...body('B.11 mcp2'), idempotency_key: k },
      })) as ToolResult;
      expect(other.isError).toBe(true);
      expect(structured<ErrorBody>(other).error.code).toBe('idempotency_key_reused');
    } finally {
      await c.close();
    }
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    expect(w.serp.calls(kw('B.11 mcp'))).toBe(1);
    expect(w.serp.calls(kw('B.11 mcp2'))).toBe(0);
  });

  it('B.12 the same request with keys in another order, other whitespace or an omitted default is a replay', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('b12');
    const url = w.web.url('/target/thorough');
    const send = (rawBody: string) =>
      call<Optimization>(w.t, 'POST', '/optimize', {
        key,
        rawBody,
        headers: { 'content-type': 'application/json', 'idempotency-key': k },
      });
    const a = await send(`{"url":"${url}","keyword":"${kw('B.12')}","language":"en-US"}`);
    const b = await send(`{\n  "language" : "en-US",\n\t"keyword":"${kw('B.12')}",   "url" : "${url}"\n}\n`);
    const c = await send(`{"keyword":"${kw('B.12')}","url":"${url}"}`);
    expect([a.status, b.status, c.status]).toEqual([202, 202, 202]);
    expect(b.body.optimization_id).toBe(a.body.optimization_id);
    expect(c.body.optimization_id).toBe(a.body.optimization_id);
    expect([b.headers.get('idempotent-replayed'), c.headers.get('idempotent-replayed')]).toEqual(['true', 'true']);
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    expect(w.serp.calls(kw('B.12'))).toBe(1);
  });

  it('B.13 same key, different body: 422 and no new row, reservation or search call', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('b13');
    expect((await postOptimize(w.t, key, body('B.13'), k)).status).toBe(202);
    for (const other of [
      body('B.13 other'),
      body('B.13', { language: 'en-GB' }),
      body('B.13', { url: w.web.url('/target/thin') }),
    ]) {
      const r = await postOptimize(w.t, key, other, k);
      expect(r.status).toBe(422);
      expect(r.body.error.code).toBe('idempotency_key_reused');
      expect(r.headers.get('idempotent-replayed')).toBeNull();
    }
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    expect(w.serp.calls(kw('B.13 other'))).toBe(0);
    expect(w.serp.calls(kw('B.13'))).toBe(1);
  });

  it('B.14 the same key sent to another operation: 422 either way, nothing new', async () => {
    const { orgId, clientId, key } = await w.t.tenant('agency');
    const k1 = idem('b14');
    expect((await postOptimize(w.t, key, body('B.14'), k1)).status).toBe(202);
    const widget = await call<ErrorBody>(w.t, 'POST', '/widgets/strict', {
      key,
      body: { client_id: clientId, label: 'x', fail: 'permanent' },
      headers: { 'idempotency-key': k1 },
    });
    expect(widget.status).toBe(422);
    expect(widget.body.error.code).toBe('idempotency_key_reused');
    const k2 = idem('b14-widget');
    expect(
      (
        await call(w.t, 'POST', '/widgets/strict', {
          key,
          body: { client_id: clientId, label: 'x', fail: 'permanent' },
          headers: { 'idempotency-key': k2 },
        })
      ).status,
    ).toBe(202);
    const back = await postOptimize(w.t, key, body('B.14 back'), k2);
    expect(back.status).toBe(422);
    expect(back.body.error.code).toBe('idempotency_key_reused');
    const fp = await settled(orgId);
    expect(fp.optimizations).toBe(1);
    expect(fp.keys).toBe(2);
    expect(w.serp.calls(kw('B.14 back'))).toBe(0);
  });

  it('B.15 20 concurrent identical requests: one run; the others replay it (or 409), never two records', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('b15');
    const answers = await Promise.all(Array.from({ length: 20 }, () => postOptimize(w.t, key, body('B.15'), k)));
    for (const a of answers) {
      expect([202, 409]).toContain(a.status);
      if (a.status === 409) {
        expect(a.body.error.code).toBe('idempotency_key_in_use');
        expect(a.headers.get('retry-after')).toMatch(/^\d+$/);
      }
    }
    const fresh = answers.filter((a) => a.status === 202 && a.headers.get('idempotent-replayed') === null);
    expect(fresh).toHaveLength(1);
    expect(new Set(answers.filter((a) => a.status === 202).map((a) => a.body.optimization_id)).size).toBe(1);
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    expect(w.serp.calls(kw('B.15'))).toBe(1);
  });

  it('B.18 empty, 256-character, space or control-character keys and two Idempotency-Key headers: 400, nothing created', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const text = JSON.stringify(body('B.18'));
    for (const bad of ['', 'x'.repeat(256), 'a b']) {
      const r = await rawPost(key, { 'idempotency-key': bad }, text);
      expect(r.status, JSON.stringify(bad)).toBe(400);
      expect(['validation_error', 'idempotency_key_required']).toContain(r.body.error.code);
    }
    const two = await rawPost(key, { 'idempotency-key': ['first-key', 'second-key'] }, text);
    expect(two.status).toBe(400);
    expect(two.body.error.code).toBe('validation_error');
    for (const line of ['Idempotency-Key: a\x01b', 'Idempotency-Key: tab\there', 'Idempotency-Key: del\x7f']) {
      expect(await socketPost(key, [line], text), JSON.stringify(line)).toBe(400);
    }
    expect((await rawPost(key, { 'idempotency-key': 'x'.repeat(255) }, text)).status).toBe(202);
    const fp = await settled(orgId);
    expect(fp).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    const c = await mcpClient(w.t, key);
    try {
      for (const bad of ['', 'x'.repeat(256), 'a b']) {
        const m = (await c.client.callTool({
          name: 'start_optimization',
          arguments: { ...body('B.18'), idempotency_key: bad },
        })) as ToolResult;
        expect(m.isError, JSON.stringify(bad)).toBe(true);
        expect(['validation_error', 'idempotency_key_required']).toContain(structured<ErrorBody>(m).error.code);
      }
    } finally {
      await c.close();
    }
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, keys: 1 });
  });

  it('B.19 a quoted structured-field key and the bare key are the same key', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const bare = idem('b19');
    const a = await postOptimize(w.t, key, body('B.19'), `"${bare}"`);
    const b = await postOptimize(w.t, key, body('B.19'), bare);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(b.body.optimization_id).toBe(a.body.optimization_id);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, runs: 1 });
  });

  it('B.20 the same key in another organisation is independent; it never sees the first organisation’s run', async () => {
    const a = await w.t.tenant('agency');
    const b = await w.t.tenant('agency');
    const k = idem('b20');
    const ra = await postOptimize(w.t, a.key, body('B.20'), k);
    const rb = await postOptimize(w.t, b.key, body('B.20 org b'), k);
    expect([ra.status, rb.status]).toEqual([202, 202]);
    expect(rb.headers.get('idempotent-replayed')).toBeNull();
    expect(rb.body.optimization_id).not.toBe(ra.body.optimization_id);
    expect(rb.body.keyword).toBe(kw('B.20 org b'));
    const same = await postOptimize(w.t, b.key, body('B.20'), idem('b20-b'));
    expect(same.body.optimization_id).not.toBe(ra.body.optimization_id);
    expect((await settled(a.orgId)).optimizations).toBe(1);
    expect((await settled(b.orgId)).optimizations).toBe(2);
    expect((await getOptimization(w.t, b.key, ra.body.optimization_id)).status).toBe(404);
  });

  it('B.21 a first attempt that fails validation is not stored: the corrected request with the same key runs', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('b21');
    const bad = await postOptimize(w.t, key, body('B.21', { language: 'much-too-long' }), k);
    expect(bad.status).toBe(400);
    const unsafe = await postOptimize(w.t, key, body('B.21', { url: 'http://169.254.169.254/latest/meta-data/' }), k);
    expect(unsafe.status).toBe(400);
    expect(await footprint(w.t, orgId)).toMatchObject({ optimizations: 0, reservations: 0, keys: 0 });
    const ok = await postOptimize(w.t, key, body('B.21'), k);
    expect(ok.status).toBe(202);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, keys: 1 });
  });

  it('B.22 a first attempt refused with 401 or 429 (rate limit) is not stored: the later valid call runs', async () => {
    const { orgId, key } = await w.t.tenant('starter');
    const k = idem('b22');
    const unauthorised = await postOptimize(w.t, `${key.slice(0, -6)}AAAAAA`, body('B.22'), k);
    expect(unauthorised.status).toBe(401);
    // starter: 30 requests per minute per key.
    for (let i = 0; i < 30; i++) expect((await call(w.t, 'GET', '/optimizations', { key })).status).toBe(200);
    const limited = await postOptimize(w.t, key, body('B.22'), k);
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limit_exceeded');
    expect(await footprint(w.t, orgId)).toMatchObject({ optimizations: 0, reservations: 0, keys: 0 });
    w.t.clock.advance(Number(limited.headers.get('retry-after')) * 1000);
    const ok = await postOptimize(w.t, key, body('B.22'), k);
    expect(ok.status).toBe(202);
    expect(ok.headers.get('idempotent-replayed')).toBeNull();
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, keys: 1 });
  });

  it('B.25 a key older than the 24 h retention (reaped) starts a new run', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('b25');
    const first = await postOptimize(w.t, key, body('B.25'), k);
    await drain(w.t);
    w.t.clock.advance(DAY + 1_000);
    await w.t.engine.idempotency.reap(w.t.db);
    const again = await postOptimize(w.t, key, body('B.25'), k);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
    expect(again.body.optimization_id).not.toBe(first.body.optimization_id);
    expect(await settled(orgId)).toMatchObject({ optimizations: 2, reservations: 2, runs: 2, keys: 1 });
  });

  it('B.26 the stored replay survives a restart of the server', async () => {
    const { orgId, key } = await w.t.tenant('agency');
    const k = idem('b26');
    const first = await postOptimize(w.t, key, body('B.26'), k);
    await drain(w.t);
    await w.restart();
    const again = await postOptimize(w.t, key, body('B.26'), k);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toMatchObject({ optimization_id: first.body.optimization_id, status: 'complete' });
    expect(await settled(orgId)).toMatchObject({ optimizations: 1, reservations: 1, runs: 1, keys: 1 });
    expect(w.serp.calls(kw('B.26'))).toBe(1);
  });
});
