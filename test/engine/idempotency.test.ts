import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  canonicalJson,
  createIdempotencyService,
  parseIdempotencyKey,
  requestHash,
} from '../../src/engine/platform/idempotency.ts';
import { ApiError } from '../../src/errors.ts';
import { immediate, type OpenedDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createFakeClock, type FakeClock } from '../helpers/clock.ts';
import { openTestStore, type TestStore } from '../helpers/store.ts';

const DAY = 24 * 3_600_000;

describe('parseIdempotencyKey', () => {
  it('accepts 1 to 255 printable ASCII characters', () => {
    expect(parseIdempotencyKey(['a'])).toEqual({ ok: true, key: 'a' });
    expect(parseIdempotencyKey(['x'.repeat(255)])).toEqual({ ok: true, key: 'x'.repeat(255) });
    const printable = Array.from({ length: 0x7e - 0x21 + 1 }, (_, i) => String.fromCharCode(0x21 + i)).join('');
    expect(parseIdempotencyKey([printable])).toEqual({ ok: true, key: printable });
  });

  it('B.18 refuses the empty key, 256 characters, spaces, control and non-ASCII characters', () => {
    for (const bad of [
      '',
      'x'.repeat(256),
      'a b',
      ' ',
      'a\tb',
      'a\u0001b',
      'a\u007fb',
      'a\nb',
      'ké',
      'a\u00a0b',
      '""',
    ]) {
      const r = parseIdempotencyKey([bad]);
      expect(r.ok, JSON.stringify(bad)).toBe(false);
    }
  });

  it('B.18 refuses two values (two headers), even identical ones, and no value at all', () => {
    expect(parseIdempotencyKey(['a', 'b']).ok).toBe(false);
    expect(parseIdempotencyKey(['a', 'a']).ok).toBe(false);
    expect(parseIdempotencyKey([]).ok).toBe(false);
  });

  it('B.19 unquotes an RFC 8941 string: "abc-123" is the key abc-123', () => {
    expect(parseIdempotencyKey(['"abc-123"'])).toEqual({ ok: true, key: 'abc-123' });
    expect(parseIdempotencyKey(['"a\\"b"'])).toEqual({ ok: true, key: 'a"b' });
    expect(parseIdempotencyKey(['"a\\\\b"'])).toEqual({ ok: true, key: 'a\\b' });
    // The length limit applies to the key itself, not to its quoted form.
    expect(parseIdempotencyKey([`"${'x'.repeat(255)}"`])).toEqual({ ok: true, key: 'x'.repeat(255) });
    expect(parseIdempotencyKey([`"${'x'.repeat(256)}"`]).ok).toBe(false);
    // Unbalanced quotes are not a structured string: kept as they are (printable, so valid).
    expect(parseIdempotencyKey(['"abc'])).toEqual({ ok: true, key: '"abc' });
  });
});

describe('canonicalJson', () => {
  it('B.12 sorts object keys at every depth and ignores whitespace', () => {
    const a = JSON.parse('{"b": 1, "a": {"y": [3, {"q": 1, "p": 2}], "x": null}}') as unknown;
    const b = JSON.parse('{\n  "a":{"x":null,"y":[3,{"p":2,"q":1}]},\n\t"b":1}') as unknown;
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"a":{"x":null,"y":[3,{"p":2,"q":1}]},"b":1}');
  });

  it('keeps array order and value types significant', () => {
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
    expect(canonicalJson({ a: 1 })).not.toBe(canonicalJson({ a: '1' }));
    expect(canonicalJson({ a: null })).not.toBe(canonicalJson({}));
  });

  it('drops undefined members, as JSON does', () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe('{"a":1}');
    expect(canonicalJson(undefined)).toBe('null');
  });
});

describe('requestHash', () => {
  it('is the same for equal inputs whatever their key order', () => {
    expect(requestHash('create_widget', { a: 1, b: [1, { c: 2, d: 3 }] })).toBe(
      requestHash('create_widget', { b: [1, { d: 3, c: 2 }], a: 1 }),
    );
  });

  it('differs by operation and by any value', () => {
    const base = requestHash('create_widget', { a: 1 });
    expect(requestHash('start_widget', { a: 1 })).not.toBe(base);
    expect(requestHash('create_widget', { a: 2 })).not.toBe(base);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('idempotency service', () => {
  let store: TestStore;
  let database: OpenedDatabase;
  let clock: FakeClock;
  let orgId: string;
  const service = () => createIdempotencyService({ clock, ttlMs: DAY });

  beforeEach(async () => {
    store = await openTestStore();
    database = store.opened;
    await migrateToLatest(database.db);
    clock = createFakeClock();
    orgId = (await createOrganisation(database.db, { name: 'o', plan: 'starter', subscription: 'active' }, clock.now()))
      .id;
  });
  afterEach(async () => {
    await store.close();
  });

  const scope = (over: Partial<{ key: string; operation: string; hash: string }> = {}) => ({
    orgId,
    key: 'k1',
    operation: 'create_widget',
    hash: requestHash('create_widget', { a: 1 }),
    ...over,
  });

  it('B.11 runs the work once and replays the stored result', async () => {
    const svc = service();
    let executions = 0;
    const work = async () => ({ status: 201, body: { id: ++executions }, resourceId: 'r1' });
    const first = await immediate(database.db, (trx) => svc.execute(trx, scope(), work));
    const second = await immediate(database.db, (trx) => svc.execute(trx, scope(), work));
    expect(first).toEqual({ status: 201, body: { id: 1 }, resourceId: 'r1', replayed: false });
    expect(second).toEqual({ status: 201, body: { id: 1 }, resourceId: 'r1', replayed: true });
    expect(executions).toBe(1);
  });

  it('B.13/B.14 answers 422 idempotency_key_reused for another body or another operation', async () => {
    const svc = service();
    await immediate(database.db, (trx) =>
      svc.execute(trx, scope(), async () => ({ status: 201, body: {}, resourceId: null })),
    );
    for (const other of [
      scope({ hash: requestHash('create_widget', { a: 2 }) }),
      scope({ operation: 'start_widget', hash: requestHash('start_widget', { a: 1 }) }),
    ]) {
      const err = await immediate(database.db, (trx) =>
        svc.execute(trx, other, async () => ({ status: 201, body: {}, resourceId: null })),
      ).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect(err).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    }
  });

  it('B.21 stores nothing when the work fails', async () => {
    const svc = service();
    await expect(
      immediate(database.db, (trx) =>
        svc.execute(trx, scope(), async () => Promise.reject(new ApiError('invalid_input'))),
      ),
    ).rejects.toThrow();
    const rows = await database.db.selectFrom('idempotency_keys').selectAll().execute();
    expect(rows).toHaveLength(0);
  });

  it('B.25 treats a record past its TTL as absent and reap() deletes it', async () => {
    const svc = service();
    let executions = 0;
    const work = async () => ({ status: 201, body: { n: ++executions }, resourceId: null });
    await immediate(database.db, (trx) => svc.execute(trx, scope(), work));
    clock.advance(DAY - 1);
    expect((await immediate(database.db, (trx) => svc.execute(trx, scope(), work))).replayed).toBe(true);
    expect(await svc.reap(database.db)).toBe(0);
    clock.advance(1);
    expect(await svc.reap(database.db)).toBe(1);
    expect(
      await immediate(database.db, (trx) => svc.execute(trx, scope({ hash: 'another body' }), work)),
    ).toMatchObject({ replayed: false, body: { n: 2 } });
    clock.advance(DAY + 1);
    // Expired but not yet reaped: still treated as absent.
    expect(await immediate(database.db, (trx) => svc.execute(trx, scope(), work))).toMatchObject({
      replayed: false,
      body: { n: 3 },
    });
  });
});
