import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ARCHIVE_PATH } from '../../../src/config.ts';
import { FetchError } from '../../../src/providers/types.ts';
import type { FetchedPage, PageFetcher } from '../../../src/providers/types.ts';
import { createWebArchive } from '../../../src/providers/web/archive/archive.ts';
import { createArchiveFetcher } from '../../../src/providers/web/archive/fetcher.ts';
import { serializeExchange } from '../../../src/providers/web/archive/writer.ts';
import { tempDir } from '../../helpers/temp.ts';

const tmp = tempDir('archive-fetcher-index-');
afterAll(() => tmp.cleanup());

/** A fallback that records what it was asked and answers a fixed live page. */
function recordingFallback(): PageFetcher & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async fetch(url: string): Promise<FetchedPage> {
      calls.push(url);
      return {
        requestedUrl: url,
        url,
        status: 200,
        headers: { 'content-type': 'text/html' },
        contentType: 'text/html',
        charset: 'utf-8',
        body: '<p>live</p>',
        bytes: 11,
        fetchedAt: '2024-06-01T00:00:00.000Z',
        source: 'live',
      };
    },
  };
}

async function fetchError(p: Promise<unknown>): Promise<FetchError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof FetchError) return err;
    throw err;
  }
  throw new Error('expected a FetchError');
}

describe('archive fetcher on the sample archive', () => {
  const archive = createWebArchive({ path: SAMPLE_ARCHIVE_PATH, indexDir: tmp.dir });
  afterAll(() => archive.close());

  it('answers an archived page with its status, headers and decoded body', async () => {
    const fetcher = createArchiveFetcher({ archive, offline: true });
    const page = await fetcher.fetch('https://brewgeek.net/reviews/breville-bambino-plus-review/#specs');
    expect(page.source).toBe('archive');
    expect(page.status).toBe(200);
    expect(page.requestedUrl).toBe('https://brewgeek.net/reviews/breville-bambino-plus-review/#specs');
    expect(page.url).toBe('https://brewgeek.net/reviews/breville-bambino-plus-review/');
    expect(page.contentType).toBe('text/html');
    expect(page.charset).toBe('utf-8');
    expect(page.headers['server']).toBe('cloudflare');
    expect(page.body).toContain('<h1>Breville Bambino Plus Review');
    expect(page.bytes).toBe(Buffer.byteLength(page.body));
    expect(page.fetchedAt).toBe('2024-05-20T14:12:00.000Z');
  });

  it('decodes a legacy charset declared by the server', async () => {
    const fetcher = createArchiveFetcher({ archive, offline: true });
    const page = await fetcher.fetch('https://bakersbench.community/threads/starter-not-rising-after-7-days.2231/');
    expect(page.charset).toBe('windows-1252');
    expect(page.body).toContain('chloé_bakes');
    expect(page.body).toContain('19°C');
  });

  it('returns 404 and non-HTML records as they are', async () => {
    const fetcher = createArchiveFetcher({ archive, offline: true });
    const missing = await fetcher.fetch('https://docs.pyguide.dev/asyncio/streams-legacy/');
    expect(missing.status).toBe(404);
    expect(missing.body).toContain('Page not found');
    const pdf = await fetcher.fetch('https://www.sunwiseenergy.org/downloads/solar-buyers-checklist.pdf');
    expect(pdf.status).toBe(200);
    expect(pdf.contentType).toBe('application/pdf');
    expect(pdf.body).toBe('');
    expect(pdf.bytes).toBeGreaterThan(500);
    const json = await fetcher.fetch('https://www.crema-supply.com/api/products/gaggia-classic-pro.json');
    expect(JSON.parse(json.body).product.vendor).toBe('Gaggia');
  });

  it('follows an archived redirect to an archived page', async () => {
    const fetcher = createArchiveFetcher({ archive, offline: true });
    const page = await fetcher.fetch('http://rapidflowplumbing.com/');
    expect(page.status).toBe(200);
    expect(page.requestedUrl).toBe('http://rapidflowplumbing.com/');
    expect(page.url).toBe('https://www.rapidflowplumbing.com/');
    const raw = await createArchiveFetcher({ archive, offline: true, maxRedirects: 0 }).fetch(
      'http://rapidflowplumbing.com/',
    );
    expect(raw.status).toBe(301);
    expect(raw.headers['location']).toBe('https://www.rapidflowplumbing.com/');
  });

  it('fails a miss with not_archived when offline, without calling the fallback', async () => {
    const fallback = recordingFallback();
    const fetcher = createArchiveFetcher({ archive, offline: true, fallback });
    const err = await fetchError(fetcher.fetch('https://unknown.example/page'));
    expect(err.code).toBe('not_archived');
    expect(err.url).toBe('https://unknown.example/page');
    expect(fallback.calls).toEqual([]);
  });

  it('sends a miss to the live fallback when online, and answers hits from the archive', async () => {
    const fallback = recordingFallback();
    const fetcher = createArchiveFetcher({ archive, offline: false, fallback });
    const live = await fetcher.fetch('https://unknown.example/page');
    expect(live.source).toBe('live');
    expect(fallback.calls).toEqual(['https://unknown.example/page']);
    const hit = await fetcher.fetch('https://www.theloafjournal.com/');
    expect(hit.source).toBe('archive');
    expect(fallback.calls).toHaveLength(1);
  });

  it('rejects invalid and non-http URLs before looking anything up', async () => {
    const fallback = recordingFallback();
    const fetcher = createArchiveFetcher({ archive, offline: false, fallback });
    expect((await fetchError(fetcher.fetch('not a url'))).code).toBe('invalid_url');
    expect((await fetchError(fetcher.fetch('ftp://example.com/file'))).code).toBe('unsupported_scheme');
    expect(fallback.calls).toEqual([]);
  });

  it('honours an aborted signal', async () => {
    const fetcher = createArchiveFetcher({ archive, offline: true });
    const controller = new AbortController();
    controller.abort();
    await expect(fetcher.fetch('https://www.theloafjournal.com/', { signal: controller.signal })).rejects.toThrow();
  });
});

describe('archive fetcher redirect loops', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'archive-fetcher-'));
    const hop = (from: string, to: string) =>
      serializeExchange(
        {
          url: from,
          date: '2024-01-01T00:00:00Z',
          status: 302,
          statusText: 'Found',
          headers: [['Location', to]],
          payload: new Uint8Array(),
        },
        { gzip: true },
      );
    await writeFile(
      join(dir, 'loop.warc.gz'),
      Buffer.concat([await hop('https://a.example/', 'https://b.example/'), await hop('https://b.example/', '/')]),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('stops a loop of archived redirects with too_many_redirects', async () => {
    const loops = createWebArchive({ path: dir, indexDir: tmp.dir });
    const fetcher = createArchiveFetcher({ archive: loops, offline: true });
    expect((await fetchError(fetcher.fetch('https://a.example/'))).code).toBe('too_many_redirects');
    await loops.close();
  });
});
