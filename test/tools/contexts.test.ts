import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { defineOperation, type ReadContext, type WriteContext } from '../../src/tools/define.ts';
import { OPERATIONS } from '../../src/tools/registry.ts';
import type { TxDb } from '../../src/store/db.ts';
import { startTestApp } from '../helpers/app.ts';

/**
 * A writing handler runs inside its operation's transaction and can reach no other connection: querying the root
 * connection from inside the transaction would wait for the transaction itself (docs/architecture.md, "Operations").
 */
const seen: Array<{ kind: string; engineHasDb: boolean; inTransaction: boolean; rows: number }> = [];

const probeWrite = defineOperation({
  name: 'probe_write',
  title: 'Probe write',
  description: 'Test-only write.',
  family: 'copywriter',
  http: { method: 'POST', path: '/probe', status: 200 },
  scope: null,
  subscription: null,
  idempotency: 'optional',
  input: z.strictObject({}),
  output: z.object({ ok: z.boolean() }),
  errors: [],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async (ctx) => {
    expectTypeOf(ctx.db).toEqualTypeOf<TxDb>();
    // @ts-expect-error a writing handler's engine has no root connection
    void ctx.engine.db;
    const rows = await ctx.db.selectFrom('organisations').select('id').execute();
    seen.push({
      kind: 'write',
      engineHasDb: 'db' in ctx.engine,
      inTransaction: probeInTransaction(ctx),
      rows: rows.length,
    });
    return { ok: true };
  },
  replay: async (ctx) => {
    expectTypeOf(ctx).toEqualTypeOf<ReadContext>();
    return { ok: true };
  },
});

const probeRead = defineOperation({
  name: 'probe_read',
  title: 'Probe read',
  description: 'Test-only read.',
  family: 'copywriter',
  http: { method: 'GET', path: '/probe', status: 200 },
  scope: null,
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({}),
  output: z.object({ ok: z.boolean() }),
  errors: [],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx) => {
    expectTypeOf(ctx).toEqualTypeOf<ReadContext>();
    seen.push({ kind: 'read', engineHasDb: 'db' in ctx.engine, inTransaction: probeInTransaction(ctx), rows: 0 });
    return { ok: true };
  },
});

/** Whether the handler's database handle is the transaction's connection rather than the app's root handle. */
function probeInTransaction(ctx: ReadContext | WriteContext): boolean {
  return ctx.db !== rootDb;
}
let rootDb: unknown;

describe('operation contexts', () => {
  let t: Awaited<ReturnType<typeof startTestApp>>;
  beforeAll(async () => {
    t = await startTestApp({ operations: [...OPERATIONS, probeWrite, probeRead] });
    rootDb = t.db;
  });
  afterAll(async () => {
    await t?.close();
  });

  it("a writing handler's context holds only its transaction: the engine it gets has no root connection", async () => {
    const { key } = await t.tenant();
    const r = await t.request('POST', '/api/agent/v1/probe', { key, body: {} });
    expect(r.status).toBe(200);
    const write = seen.find((s) => s.kind === 'write')!;
    expect(write).toMatchObject({ engineHasDb: false, inTransaction: true });
    expect(write.rows).toBeGreaterThan(0);
  });

  it('a reading handler gets the root connection, and an engine without one all the same', async () => {
    const { key } = await t.tenant();
    const r = await t.request('GET', '/api/agent/v1/probe', { key });
    expect(r.status).toBe(200);
    expect(seen.find((s) => s.kind === 'read')).toMatchObject({ engineHasDb: false, inTransaction: false });
  });
});
