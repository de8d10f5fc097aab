import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLE_ARCHIVE_PATH } from '../../../src/config.ts';
import { createWebArchive } from '../../../src/providers/web/archive/archive.ts';
import { readArchiveRecords, readWarcFile } from '../../../src/providers/web/archive/reader.ts';
import { normalizeArchiveUrl } from '../../../src/providers/web/archive/url.ts';
import { serializeExchange, serializeResource, serializeWarcinfo } from '../../../src/providers/web/archive/writer.ts';
import { tempDir } from '../../helpers/temp.ts';

describe('normalizeArchiveUrl', () => {
  it('lower-cases scheme and host, drops default port and fragment, keeps the query', () => {
    expect(normalizeArchiveUrl('HTTPS://WWW.Example.COM:443/A/b?Q=1&x=Y#frag')).toBe(
      'https://www.example.com/A/b?Q=1&x=Y',
    );
    expect(normalizeArchiveUrl('http://example.com:80')).toBe('http://example.com/');
    expect(normalizeArchiveUrl('http://example.com:8080/x')).toBe('http://example.com:8080/x');
    expect(normalizeArchiveUrl('https://example.com/x?')).toBe('https://example.com/x');
    expect(normalizeArchiveUrl('not a url')).toBeNull();
  });
});

describe('reading the sample archive', () => {
  const tmp = tempDir('archive-reader-index-');
  afterAll(() => tmp.cleanup());
  const archive = createWebArchive({ path: SAMPLE_ARCHIVE_PATH, indexDir: tmp.dir });
  afterAll(() => archive.close());

  it('reads every HTTP record and indexes the latest capture per URL', async () => {
    const { files, records } = await readArchiveRecords(SAMPLE_ARCHIVE_PATH);
    // The folder also holds the page sources; only the .warc.gz is read.
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/sample\.warc\.gz$/);
    expect(records).toHaveLength(74);

    const index = await archive.open();
    expect(index.size).toBe(73);
    expect(index.files).toEqual(files);
    const html200 = index.pages(null, 100);
    expect(html200.length).toBeGreaterThanOrEqual(63);
    expect(html200.every((r) => r.status === 200 && r.contentType === 'text/html')).toBe(true);
    expect(html200.map((r) => r.url)).toEqual(html200.map((r) => r.url).sort());
    const missing = [
      'https://www.rapidflowplumbing.com/coupons/',
      'https://brewgeek.net/reviews/lelit-bianca-review/',
      'https://www.flourandwater.blog/2023/11/rye-starter-notes/',
      'https://docs.pyguide.dev/asyncio/streams-legacy/',
    ];
    expect(missing.map((url) => index.entry(url)?.status)).toEqual([404, 404, 404, 404]);
    // Every record of the sample is its own gzip member, so every body is read by offset.
    expect(html200.every((r) => r.location.kind === 'gzip')).toBe(true);
    // Opening is a local read (and one small build). Its time is reported, not held to a budget here: a busy machine's
    // speed is not the reader's (the bench measures it).
    expect(index.openMs).toBeGreaterThanOrEqual(0);
  });

  it('answers 404, redirect and non-HTML records with their status, headers and type', async () => {
    const snapshot = await archive.open();
    const missing = await snapshot.get('https://www.rapidflowplumbing.com/coupons/');
    expect(missing?.status).toBe(404);
    expect(missing?.contentType).toBe('text/html');

    const redirect = await snapshot.get('HTTP://RapidFlowPlumbing.com');
    expect(redirect?.status).toBe(301);
    expect(redirect?.headers['location']).toBe('https://www.rapidflowplumbing.com/');

    const pdf = await snapshot.get('https://www.crema-supply.com/manuals/gaggia-classic-pro-manual.pdf');
    expect(pdf?.contentType).toBe('application/pdf');
    expect(
      Buffer.from(pdf?.payload ?? [])
        .subarray(0, 5)
        .toString('latin1'),
    ).toBe('%PDF-');

    const json = await snapshot.get('https://www.crema-supply.com/api/products/gaggia-classic-pro.json');
    expect(json?.contentType).toBe('application/json');
    expect(JSON.parse(Buffer.from(json?.payload ?? []).toString('utf8')).product.handle).toBe('gaggia-classic-pro');

    const png = await snapshot.get('https://brewgeek.net/static/img/bambino-plus-thumb.png');
    expect(png?.warcType).toBe('resource');
    expect(png?.status).toBe(200);
    expect(png?.contentType).toBe('image/png');
    expect(png?.payload[1]).toBe(0x50); // "P" of the PNG signature
  });

  it('undoes archived gzip and chunked encodings and drops the wire headers', async () => {
    const snapshot = await archive.open();
    const gz = await snapshot.get('https://brewgeek.net/guides/best-espresso-machines-under-500/');
    expect(Buffer.from(gz?.payload ?? []).toString('utf8')).toContain('Breville Bambino Plus');
    expect(gz?.headers['content-encoding']).toBeUndefined();
    const chunked = await snapshot.get(
      'https://forum.homebaristas.org/t/gaggia-classic-pro-vs-breville-bambino-plus/4412',
    );
    expect(Buffer.from(chunked?.payload ?? []).toString('utf8')).toMatch(/^<!DOCTYPE html>/);
    expect(chunked?.headers['transfer-encoding']).toBeUndefined();
  });

  it('keeps the capture with the latest WARC-Date when a URL was archived twice', async () => {
    const snapshot = await archive.open();
    const page = await snapshot.get('https://www.quickeats.co/sourdough-bread-recipe');
    // The 2023 capture comes later in the file but is older.
    expect(page?.date.startsWith('2024-')).toBe(true);
    expect(Buffer.from(page?.payload ?? []).toString('utf8')).toContain('Easy Sourdough Bread Recipe');
  });
});

describe('reading other archives', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'archive-reader-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a folder recursively, plain and gzip files, ignoring other files', async () => {
    await mkdir(join(dir, 'nested', 'deeper'), { recursive: true });
    const date = '2024-01-01T00:00:00Z';
    const page = (url: string, body: string) =>
      serializeExchange(
        {
          url,
          date,
          status: 200,
          statusText: 'OK',
          headers: [['Content-Type', 'text/html']],
          payload: Buffer.from(body),
        },
        { gzip: false },
      );
    await writeFile(join(dir, 'a.warc'), Buffer.concat([await page('https://a.example/', 'A')]));
    await writeFile(
      join(dir, 'nested', 'deeper', 'b.WARC.GZ'),
      Buffer.concat([
        await serializeWarcinfo({ filename: 'b.warc.gz', date, fields: { software: 'test' } }, { gzip: true }),
        await serializeResource(
          { url: 'https://b.example/logo.svg', date, contentType: 'image/svg+xml', payload: Buffer.from('<svg/>') },
          { gzip: true },
        ),
      ]),
    );
    await writeFile(join(dir, 'notes.txt'), 'not a warc');
    await writeFile(join(dir, 'page.html'), '<p>not a warc</p>');
    const { files, records } = await readArchiveRecords(dir);
    expect(files.map((f) => f.slice(dir.length))).toEqual(['/a.warc', '/nested/deeper/b.WARC.GZ']);
    expect(records.map((r) => [r.url, r.status, r.contentType])).toEqual([
      ['https://a.example/', 200, 'text/html'],
      ['https://b.example/logo.svg', 200, 'image/svg+xml'],
    ]);
  });

  it('reads a whole-file gzip (not one member per record) and wget-style <URI> targets', async () => {
    const raw = [
      'WARC/1.0',
      'WARC-Type: response',
      'WARC-Target-URI: <http://old.example/index.html>',
      'WARC-Date: 2020-02-02T02:02:02Z',
      'WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>',
      'Content-Type: application/http; msgtype=response',
    ];
    const http = 'HTTP/1.0 200 OK\r\nContent-Type: text/html; charset=windows-1252\r\n\r\n';
    const body = Buffer.concat([Buffer.from(http, 'latin1'), Buffer.from('caf\xe9', 'latin1')]);
    const record = Buffer.concat([
      Buffer.from(`${raw.join('\r\n')}\r\nContent-Length: ${body.length}\r\n\r\n`, 'latin1'),
      body,
      Buffer.from('\r\n\r\n'),
    ]);
    const file = join(dir, 'whole.warc.gz');
    await writeFile(file, gzipSync(record));
    const [only] = await readWarcFile(file);
    expect(only?.url).toBe('http://old.example/index.html');
    expect(only?.date).toBe('2020-02-02T02:02:02.000Z');
    expect(Buffer.from(only?.payload ?? []).toString('latin1')).toBe('caf\xe9');
  });

  it('opens once per archive and reports a missing path clearly', async () => {
    const indexDir = join(dir, 'index');
    const archive = createWebArchive({ path: join(dir, 'a.warc'), indexDir });
    const [first, second] = await Promise.all([archive.open(), archive.open()]);
    expect(first).toBe(second);
    expect(await archive.open()).toBe(first);
    await archive.close();
    await expect(createWebArchive({ path: join(dir, 'nope'), indexDir }).open()).rejects.toThrow(
      /Cannot read the web archive/,
    );
  });
});
