import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  displayPrefix,
  generateApiKey,
  hashApiKey,
  isWellFormedApiKey,
  KEY_PREFIX,
} from '../../src/engine/accounts/api-keys.ts';
import { issueApiKey } from '../../src/engine/accounts/admin.ts';
import { authenticate } from '../../src/engine/accounts/auth.ts';
import { openDatabase, type OpenedDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { createOrganisation } from '../../src/store/repos/organisations.ts';
import { createFakeClock } from '../helpers/clock.ts';
import { tempDir } from '../helpers/temp.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_RE = /^aapi_[0-9A-Za-z]{36}$/;

describe('API key format', () => {
  it('generates prefixed keys of 5 + 30 + 6 base62 characters that pass their own check', () => {
    const keys = Array.from({ length: 200 }, () => generateApiKey());
    for (const k of keys) {
      expect(k).toMatch(KEY_RE);
      expect(k.startsWith(KEY_PREFIX)).toBe(true);
      expect(isWellFormedApiKey(k)).toBe(true);
    }
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('uses the whole alphabet for the random part (no bias towards a subset)', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++)
      for (const ch of generateApiKey().slice(KEY_PREFIX.length, KEY_PREFIX.length + 30)) seen.add(ch);
    expect(seen.size).toBe(62);
  });

  it('detects every single-character substitution in the body and the checksum', () => {
    const key = generateApiKey();
    const start = KEY_PREFIX.length;
    let tried = 0;
    for (let i = start; i < key.length; i++) {
      for (const ch of ALPHABET) {
        if (ch === key[i]) continue;
        const mutated = key.slice(0, i) + ch + key.slice(i + 1);
        tried++;
        expect(isWellFormedApiKey(mutated), `substitution at ${i}`).toBe(false);
      }
    }
    expect(tried).toBe(36 * 61);
  });

  it('detects adjacent transpositions in the body', () => {
    const key = generateApiKey();
    for (let i = KEY_PREFIX.length; i < KEY_PREFIX.length + 29; i++) {
      if (key[i] === key[i + 1]) continue;
      const swapped = key.slice(0, i) + key[i + 1] + key[i] + key.slice(i + 2);
      expect(isWellFormedApiKey(swapped), `swap at ${i}`).toBe(false);
    }
  });

  it('rejects wrong prefixes, lengths, characters and surrounding whitespace', () => {
    const key = generateApiKey();
    const body = key.slice(KEY_PREFIX.length);
    const bad = [
      '',
      KEY_PREFIX,
      `sk_live_${body}`,
      `AAPI_${body}`,
      `aapi-${body}`,
      `${key}x`,
      key.slice(0, -1),
      ` ${key}`,
      `${key} `,
      `${key}\n`,
      `aapi_${body.slice(0, 10)}-${body.slice(11)}`,
      `aapi_${'é'.repeat(36)}`,
      `Bearer ${key}`,
    ];
    for (const k of bad) expect(isWellFormedApiKey(k), JSON.stringify(k)).toBe(false);
  });

  it('hashes with SHA-256 (hex) and shows only the prefix and four characters in listings', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toBe(createHash('sha256').update(key).digest('hex'));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(displayPrefix(key)).toBe(key.slice(0, 9));
    expect(displayPrefix(key).startsWith('aapi_')).toBe(true);
  });
});

describe('issuing and authenticating keys', () => {
  let store: OpenedDatabase | null = null;
  let cleanup: (() => void) | null = null;
  afterEach(async () => {
    await store?.close();
    cleanup?.();
    store = null;
    cleanup = null;
  });

  async function openStore() {
    const tmp = tempDir();
    cleanup = tmp.cleanup;
    store = openDatabase(tmp.dbPath);
    await migrateToLatest(store.db);
    return store;
  }

  it('stores only the hash: no column of the key row holds the key', async () => {
    const s = await openStore();
    const clock = createFakeClock();
    const org = await createOrganisation(s.db, { name: 'o', plan: 'pro', subscription: 'active' }, clock.now());
    const issued = await issueApiKey(
      s.db,
      { orgId: org.id, scopes: ['optimize:run', 'reporter:read'], name: 'k' },
      clock.now(),
    );
    expect(issued.apiKey).toMatch(KEY_RE);
    const row = s.raw.prepare('SELECT * FROM api_keys WHERE id = ?').get(issued.keyId) as Record<string, unknown>;
    expect(row.key_hash).toBe(hashApiKey(issued.apiKey));
    expect(row.display_prefix).toBe(displayPrefix(issued.apiKey));
    const dump = JSON.stringify(s.raw.prepare('SELECT * FROM api_keys').all());
    expect(dump).not.toContain(issued.apiKey);
    expect(dump).not.toContain(issued.apiKey.slice(KEY_PREFIX.length));
  });

  it('refuses unknown scopes and empty scope lists', async () => {
    const s = await openStore();
    const org = await createOrganisation(s.db, { name: 'o', plan: 'starter', subscription: 'active' }, 0);
    await expect(issueApiKey(s.db, { orgId: org.id, scopes: ['copywriter:run', 'admin:all'] }, 0)).rejects.toThrow(
      /admin:all/,
    );
    await expect(issueApiKey(s.db, { orgId: org.id, scopes: [] }, 0)).rejects.toThrow(/scope/);
    expect(s.raw.prepare('SELECT count(*) AS n FROM api_keys').get()).toEqual({ n: 0 });
  });

  it('resolves a key to its organisation, plan, rate and expanded scopes', async () => {
    const s = await openStore();
    const clock = createFakeClock();
    const org = await createOrganisation(s.db, { name: 'o', plan: 'agency', subscription: 'inactive' }, clock.now());
    const { apiKey, keyId } = await issueApiKey(
      s.db,
      { orgId: org.id, scopes: ['optimize:run', 'prospector:write'] },
      clock.now(),
    );
    const p = await authenticate(s.db, clock, apiKey);
    expect(p).toMatchObject({ orgId: org.id, keyId, plan: 'agency', subscriptionActive: false, ratePerMinute: 120 });
    expect([...p.scopes].sort()).toEqual(['optimize:read', 'optimize:run', 'prospector:read', 'prospector:write']);
  });

  it('rejects a well-formed key that was never issued, and malformed keys without a statement', async () => {
    const s = await openStore();
    const clock = createFakeClock();
    await expect(authenticate(s.db, clock, generateApiKey())).rejects.toMatchObject({
      code: 'unauthorized',
      status: 401,
    });
    const good = generateApiKey();
    const badChecksum = good.slice(0, -1) + (good.endsWith('0') ? '1' : '0');
    const before = s.stats.statements;
    for (const k of [null, '', 'sk_live_abc', badChecksum]) {
      await expect(authenticate(s.db, clock, k)).rejects.toMatchObject({ code: 'unauthorized' });
    }
    expect(s.stats.statements - before).toBe(0);
  });

  it('reads expiry against the injected clock: valid until the instant it expires', async () => {
    const s = await openStore();
    const clock = createFakeClock();
    const org = await createOrganisation(s.db, { name: 'o', plan: 'starter', subscription: 'active' }, clock.now());
    const { apiKey } = await issueApiKey(
      s.db,
      { orgId: org.id, scopes: ['reporter:read'], expiresAt: clock.now() + 1_000 },
      clock.now(),
    );
    await expect(authenticate(s.db, clock, apiKey)).resolves.toMatchObject({ orgId: org.id });
    clock.advance(999);
    await expect(authenticate(s.db, clock, apiKey)).resolves.toMatchObject({ orgId: org.id });
    clock.advance(1);
    await expect(authenticate(s.db, clock, apiKey)).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
