import { afterAll, describe, expect, it } from 'vitest';
import { checkUrl } from '../../../src/providers/web/check-url.ts';
import { createSafeFetcher } from '../../../src/providers/web/safe-fetch.ts';
import { FetchError } from '../../../src/providers/types.ts';
import { allowedUrls } from '../../fixtures/ssrf-req-filter/allowed-urls.ts';
import { blockedUrls } from '../../fixtures/ssrf-req-filter/blocked-urls.ts';
import { allowedHostAnswers, blockedHostAnswers } from '../../fixtures/ssrf-req-filter/dns-answers.ts';
import { stubLookup } from '../../helpers/ssrf-cases.ts';

// The regression corpus goes through checkUrl and, for names, the DNS check of every answer (`check`), which never
// connects; the stub answers ENOTFOUND for unknown names, so nothing here can reach real DNS or the network.
const lookup = stubLookup({ ...blockedHostAnswers, ...allowedHostAnswers });
const fetcher = createSafeFetcher({ lookup });
afterAll(() => fetcher.close());

describe('ssrf-req-filter regression corpus', () => {
  it('E.62 the fixture lists are present', () => {
    expect(blockedUrls.length).toBeGreaterThan(100);
    expect(allowedUrls.length).toBe(5);
  });

  it.each([...new Set(blockedUrls)])('E.62 blocked: %s', async (url) => {
    const sync = checkUrl(url);
    if (!sync.ok) return;
    // Only names that need DNS get here; the stub must know them (ENOTFOUND would be `network`, not `blocked`).
    const failure = await fetcher.check(url).then(
      () => null,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(FetchError);
    expect((failure as FetchError).code).toBe('blocked');
  });

  it('E.62 the rebinding name is blocked on every answer it alternates between', async () => {
    const url = 'https://A.127.0.0.1.1time.10.0.0.1.1time.repeat.8f058b82-4c39-4dfe-91f7-9b07bcd7fbd5.rebind.network';
    await expect(fetcher.check(url)).rejects.toMatchObject({ code: 'blocked' });
    await expect(fetcher.check(url)).rejects.toMatchObject({ code: 'blocked' });
  });

  it('E.62 the names that need DNS were all resolved through the stub', () => {
    const asked = new Set(lookup.calls.map((h) => h.toLowerCase()));
    expect([...asked].filter((h) => h in blockedHostAnswers).sort()).toEqual(Object.keys(blockedHostAnswers).sort());
  });

  it.each(allowedUrls)('E.62 allowed (stubbed public DNS): %s', async (url) => {
    expect(checkUrl(url).ok).toBe(true);
    const { addresses } = await fetcher.check(url);
    const host = new URL(url).hostname;
    expect(addresses).toEqual(allowedHostAnswers[host]?.[0]?.map((a) => a.address));
  });
});
