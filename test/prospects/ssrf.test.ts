import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startCanary, type Canary } from '../helpers/canary.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { ALLOWED_URLS, ssrfUrlCases } from '../helpers/ssrf-cases.ts';
import { caller, footprint, type Any } from './fixture.ts';

/**
 * docs/reliability.md E.43-E.52 (and the scheme and port cases E.58, E.59) through save_prospect: REST answers 400
 * invalid_input naming `url`, MCP answers isError with the same body, nothing is saved, and a loopback canary on the
 * port the URLs carry accepts no connection. save_prospect never fetches anything; this proves it.
 */

const IDS = ['E.43', 'E.44', 'E.45', 'E.46', 'E.47', 'E.48', 'E.49', 'E.50', 'E.51', 'E.52', 'E.58', 'E.59'];

let t: TestApp;
let canary: Canary;
beforeAll(async () => {
  canary = await startCanary();
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
  await canary.close();
});

describe('SSRF-unsafe URLs through save_prospect (docs/reliability.md E)', () => {
  let s: Awaited<ReturnType<typeof t.tenant>> & { listId: string };
  let mcp: Awaited<ReturnType<typeof connectHttpClient>>;
  beforeAll(async () => {
    const tenant = await t.tenant('agency');
    const list = (await caller(t, tenant.key).createList(tenant.clientId, { name: 'SSRF' })).body;
    s = { ...tenant, listId: list.list_id };
    mcp = await connectHttpClient(t.url, tenant.key);
  });
  afterAll(async () => {
    await mcp.close();
  });

  for (const id of IDS) {
    it(`${id} refused with 400 invalid_input over REST and isError over MCP; the canary sees no connection`, async () => {
      const c = caller(t, s.key);
      const cases = ssrfUrlCases(canary.port).filter((x) => x.id === id);
      expect(cases.length).toBeGreaterThan(0);
      for (const { url } of cases) {
        const r = await c.save(s.clientId, s.listId, { url });
        expect([r.status, r.body.error?.code], url).toEqual([400, 'invalid_input']);
        expect(r.body.error.details?.fields, url).toEqual([{ path: 'url', message: expect.any(String) }]);
        const res = await mcp.client.callTool({
          name: 'save_prospect',
          arguments: { client_id: s.clientId, list_id: s.listId, url, idempotency_key: `ssrf-${id}` },
        });
        t.clock.advance(1_000);
        expect(res.isError, url).toBe(true);
        expect(structured<Any>(res)).toEqual(r.body);
      }
      expect(canary.connections).toBe(0);
      expect(await footprint(t, s.orgId)).toMatchObject({ items: 0, keys: 1 });
    });
  }

  it('public hosts on 80/443 are accepted (the guard is not refusing everything), still without any connection', async () => {
    const c = caller(t, s.key);
    for (const url of ALLOWED_URLS) {
      const r = await c.save(s.clientId, s.listId, { url });
      expect([200, 201], url).toContain(r.status);
    }
    expect(canary.connections).toBe(0);
    // The canary does notice a connection when one happens.
    await new Promise<void>((resolve, reject) => {
      const sock = connect(canary.port, '127.0.0.1', () => {
        sock.destroy();
        resolve();
      });
      sock.on('error', reject);
    });
    await expect.poll(() => canary.connections).toBe(1);
  });
});
