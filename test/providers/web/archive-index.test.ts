/** The archive's on-disk index: built once per content, reused, rebuilt on change, shared safely by processes. */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { appendFile, mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { createWebArchive } from '../../../src/providers/web/archive/archive.ts';
import { MemberTooLarge, inflateMember } from '../../../src/providers/web/archive/gzip-member.ts';
import { readWarcFile } from '../../../src/providers/web/archive/reader.ts';
import { serializeExchange, serializeResource } from '../../../src/providers/web/archive/writer.ts';
import { bundledEntry } from '../../helpers/entry-bundle.ts';
import { tempDir } from '../../helpers/temp.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const tmp = tempDir('archive-index-');
afterAll(() => tmp.cleanup());
let n = 0;
/** A fresh folder for one test: its archive files and its index folder. */
const fresh = async () => {
  const dir = join(tmp.dir, `case-${++n}`);
  await mkdir(dir, { recursive: true });
  return { dir, indexDir: join(dir, 'index') };
};

const page = (url: string, body: string, options: { gzip: boolean; date?: string; status?: number }) =>
  serializeExchange(
    {
      url,
      date: options.date ?? '2024-01-01T00:00:00Z',
      status: options.status ?? 200,
      statusText: 'OK',
      headers: [['Content-Type', 'text/html; charset=utf-8']],
      payload: Buffer.from(body),
    },
    { gzip: options.gzip },
  );

/** One raw WARC record (CRLF header block, content, separator). */
function rawRecord(headers: Record<string, string>, block: string): Buffer {
  const body = Buffer.from(block, 'latin1');
  const head = Object.entries({ ...headers, 'Content-Length': String(body.length) })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`WARC/1.1\r\n${head}\r\n`, 'latin1'), body, Buffer.from('\r\n\r\n')]);
}

const indexFiles = (indexDir: string) => readdirSync(indexDir).filter((f) => f.endsWith('.sqlite'));

describe('the archive index on disk', () => {
  it('is built on the first open and reused, untouched, by later ones', async () => {
    const { dir, indexDir } = await fresh();
    const file = join(dir, 'a.warc.gz');
    await writeFile(file, Buffer.concat([await page('https://a.example/', '<p>A</p>', { gzip: true })]));

    const first = createWebArchive({ path: file, indexDir });
    const opened = await first.open();
    expect(opened.built).toBe(true);
    expect(opened.size).toBe(1);
    const mtime = statSync(opened.indexPath).mtimeMs;
    await first.close();

    const second = createWebArchive({ path: file, indexDir });
    const reopened = await second.open();
    expect(reopened.built).toBe(false);
    expect(reopened.indexPath).toBe(opened.indexPath);
    expect(reopened.key).toBe(opened.key);
    expect(statSync(reopened.indexPath).mtimeMs).toBe(mtime);
    expect(Buffer.from((await reopened.get('https://a.example/'))!.payload).toString()).toBe('<p>A</p>');
    await second.close();
    expect(indexFiles(indexDir)).toEqual([opened.indexPath.slice(indexDir.length + 1)]);
  });

  it('gets a new index when the archive changes, and the old one is removed', async () => {
    const { dir, indexDir } = await fresh();
    const file = join(dir, 'a.warc');
    await writeFile(file, await page('https://a.example/', '<p>old</p>', { gzip: false }));
    const before = createWebArchive({ path: file, indexDir });
    const old = await before.open();
    await before.close();

    await appendFile(
      file,
      await page('https://a.example/', '<p>new</p>', { gzip: false, date: '2024-02-01T00:00:00Z' }),
    );
    await appendFile(file, await page('https://b.example/', '<p>B</p>', { gzip: false }));
    const after = createWebArchive({ path: file, indexDir });
    const current = await after.open();
    expect(current.built).toBe(true);
    expect(current.key).not.toBe(old.key);
    expect(existsSync(old.indexPath)).toBe(false);
    expect(indexFiles(indexDir)).toHaveLength(1);
    expect(current.size).toBe(2);
    expect(Buffer.from((await current.get('https://a.example/'))!.payload).toString()).toBe('<p>new</p>');
    await after.close();
  });

  it('remembers file hashes, and a file rewritten in place (same size) still gets a new index', async () => {
    const { dir, indexDir } = await fresh();
    const file = join(dir, 'a.warc');
    await writeFile(file, await page('https://h.example/', '<p>A</p>', { gzip: false }));
    // Written an hour ago: not "racily" close to its hashing, so the hash may be remembered.
    const past = new Date(Date.now() - 3_600_000);
    await utimes(file, past, past);
    const first = createWebArchive({ path: file, indexDir });
    const before = await first.open();
    await first.close();
    const cache = join(indexDir, 'file-hashes.json');
    const remembered = statSync(cache).mtimeMs;

    const second = createWebArchive({ path: file, indexDir });
    expect((await second.open()).built).toBe(false);
    await second.close();
    expect(statSync(cache).mtimeMs).toBe(remembered); // nothing was hashed again

    const bytes = await readFile(file);
    await writeFile(file, Buffer.from(bytes.toString('latin1').replace('<p>A</p>', '<p>B</p>'), 'latin1'));
    await utimes(file, past, past); // even with its old modification time
    const third = createWebArchive({ path: file, indexDir });
    const after = await third.open();
    expect(after.built).toBe(true);
    expect(after.key).not.toBe(before.key);
    expect(Buffer.from((await after.get('https://h.example/'))!.payload).toString()).toBe('<p>B</p>');
    await third.close();
  });

  it('reads each body by offset, equal to the payload read in file order, for every kind of WARC file', async () => {
    const { dir, indexDir } = await fresh();
    const records = async (gzip: boolean) => [
      await page('https://p.example/one', '<p>one</p>', { gzip }),
      await page('https://p.example/two', `<p>${'two '.repeat(5000)}</p>`, { gzip }),
      await serializeResource(
        {
          url: 'https://p.example/logo.png',
          date: '2024-01-01T00:00:00Z',
          contentType: 'image/png',
          payload: Buffer.from([0x89, 0x50, 0, 255]),
        },
        { gzip },
      ),
    ];
    const kinds = {
      'members.warc.gz': Buffer.concat(await records(true)),
      'plain.warc': Buffer.concat(await records(false)),
      // Gzipped as one stream: no record can be read alone, so the index keeps the bodies.
      'whole.warc.gz': gzipSync(Buffer.concat(await records(false))),
    };
    for (const [name, bytes] of Object.entries(kinds)) {
      const file = join(dir, name);
      await writeFile(file, bytes);
      const archive = createWebArchive({ path: file, indexDir });
      const index = await archive.open();
      const expected = await readWarcFile(file);
      expect(expected).toHaveLength(3);
      for (const record of expected) {
        const got = await index.get(record.url);
        expect(Buffer.from(got!.payload).equals(Buffer.from(record.payload)), `${name} ${record.url}`).toBe(true);
        expect(got!.headers).toEqual(record.headers);
        const location = index.entry(record.url)!.location;
        const kind = { 'members.warc.gz': 'gzip', 'plain.warc': 'plain', 'whole.warc.gz': 'inline' }[name];
        expect(location.kind).toBe(kind);
        if (location.kind !== 'inline') {
          // The stored range is exactly the record's bytes (or its gzip member's) in the file.
          const slice = bytes.subarray(location.offset, location.offset + location.length);
          const text = (kind === 'gzip' ? gunzipSync(slice) : slice).toString('latin1');
          expect(text.startsWith('WARC/1.1\r\n')).toBe(true);
          expect(text).toContain(`WARC-Target-URI: ${record.url}`);
        }
      }
      await archive.close();
    }
  });

  it('reads records that span gzip members by streaming, keeping their bodies in the index', async () => {
    const { dir, indexDir } = await fresh();
    const plain = Buffer.concat([
      await page('https://s.example/a', '<p>first</p>', { gzip: false }),
      await page('https://s.example/b', '<p>second</p>', { gzip: false }),
    ]);
    // Cut in the middle of a record: neither member holds whole records.
    const cut = Math.floor(plain.length / 3);
    const file = join(dir, 'split.warc.gz');
    await writeFile(file, Buffer.concat([gzipSync(plain.subarray(0, cut)), gzipSync(plain.subarray(cut))]));
    const archive = createWebArchive({ path: file, indexDir });
    const index = await archive.open();
    expect(index.size).toBe(2);
    expect(Buffer.from((await index.get('https://s.example/b'))!.payload).toString()).toBe('<p>second</p>');
    expect(index.entry('https://s.example/a')!.location.kind).toBe('inline');
    await archive.close();
  });

  it('resolves revisits, drops those that repeat nothing, and keeps the latest capture per URL', async () => {
    const { dir, indexDir } = await fresh();
    const http = (status: string, body: string) =>
      `HTTP/1.1 ${status}\r\nContent-Type: text/html\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const warc = (type: string, url: string, date: string, extra: Record<string, string>, block: string) =>
      rawRecord(
        {
          'WARC-Type': type,
          'WARC-Target-URI': url,
          'WARC-Date': date,
          'WARC-Record-ID': `<urn:uuid:00000000-0000-4000-8000-${String(++n).padStart(12, '0')}>`,
          'Content-Type': 'application/http; msgtype=response',
          ...extra,
        },
        block,
      );
    const file = join(dir, 'revisits.warc');
    await writeFile(
      file,
      Buffer.concat([
        warc(
          'response',
          'https://r.example/',
          '2024-01-01T00:00:00Z',
          { 'WARC-Payload-Digest': 'sha1:AAAA' },
          http('200 OK', 'original'),
        ),
        // A later revisit of the same payload: its date, the original's body and headers (it has none of its own).
        warc(
          'revisit',
          'https://r.example/',
          '2024-03-01T00:00:00Z',
          { 'WARC-Payload-Digest': 'sha1:AAAA', 'WARC-Refers-To-Target-URI': 'https://r.example/' },
          '',
        ),
        // A revisit by URL with its own headers, at another URL.
        warc(
          'revisit',
          'https://r.example/copy',
          '2024-03-02T00:00:00Z',
          { 'WARC-Refers-To-Target-URI': 'https://r.example/' },
          'HTTP/1.1 203 Copy\r\nX-Own: yes\r\n\r\n',
        ),
        // A revisit of nothing archived is dropped.
        warc('revisit', 'https://r.example/ghost', '2024-03-03T00:00:00Z', { 'WARC-Payload-Digest': 'sha1:ZZZZ' }, ''),
        // Equal dates: the record read last wins.
        warc('response', 'https://r.example/same', '2024-05-05T00:00:00Z', {}, http('200 OK', 'first')),
        warc('response', 'https://r.example/same', '2024-05-05T00:00:00Z', {}, http('200 OK', 'second')),
        // An older capture read later does not win.
        warc('response', 'https://r.example/same', '2023-01-01T00:00:00Z', {}, http('200 OK', 'older')),
      ]),
    );
    const archive = createWebArchive({ path: file, indexDir });
    const index = await archive.open();
    const root = await index.get('https://r.example/');
    expect(root).toMatchObject({ warcType: 'revisit', status: 200, date: '2024-03-01T00:00:00.000Z' });
    expect(Buffer.from(root!.payload).toString()).toBe('original');
    const copy = await index.get('https://r.example/copy');
    expect(copy).toMatchObject({ status: 203, statusText: 'Copy' });
    expect(copy!.headers['x-own']).toBe('yes');
    expect(Buffer.from(copy!.payload).toString()).toBe('original');
    expect(index.entry('https://r.example/ghost')).toBeUndefined();
    expect(Buffer.from((await index.get('https://r.example/same'))!.payload).toString()).toBe('second');
    expect(index.size).toBe(3);
    await archive.close();
  });

  it('lets two processes open a new archive at once: both succeed, one builds, one index remains', async () => {
    const { dir, indexDir } = await fresh();
    const file = join(dir, 'shared.warc.gz');
    const pages = [];
    for (let i = 0; i < 300; i++)
      pages.push(await page(`https://shared.example/${i}`, `<p>page ${i}</p>`, { gzip: true }));
    await writeFile(file, Buffer.concat(pages));
    const script = join(dir, 'open.mts');
    await writeFile(
      script,
      [
        `import { createWebArchive } from ${JSON.stringify(join(ROOT, 'src/providers/web/archive/archive.ts'))};`,
        `const archive = createWebArchive({ path: ${JSON.stringify(file)}, indexDir: ${JSON.stringify(indexDir)} });`,
        `const index = await archive.open();`,
        `const page = await index.get('https://shared.example/299');`,
        `process.stdout.write(JSON.stringify({ built: index.built, path: index.indexPath, size: index.size, body: Buffer.from(page.payload).toString() }));`,
        `await archive.close();`,
      ].join('\n'),
    );
    const bundled = await bundledEntry(script);
    const run = () =>
      new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [bundled], {
          cwd: ROOT,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += String(d)));
        child.stderr.on('data', (d: Buffer) => (err += String(d)));
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, out, err }));
      });
    const results = await Promise.all([run(), run()]);
    const reports = results.map((r) => {
      expect(r.code, r.err).toBe(0);
      return JSON.parse(r.out) as { built: boolean; path: string; size: number; body: string };
    });
    expect(reports.map((r) => r.built).sort()).toEqual([false, true]);
    expect(reports[0]!.path).toBe(reports[1]!.path);
    expect(reports.map((r) => [r.size, r.body])).toEqual([
      [300, '<p>page 299</p>'],
      [300, '<p>page 299</p>'],
    ]);
    // One finished index; no lock or temporary file left behind.
    const names = readdirSync(indexDir);
    expect(indexFiles(indexDir)).toEqual([reports[0]!.path.slice(indexDir.length + 1)]);
    expect(names.filter((name) => /\.lock$|\.tmp-/.test(name))).toEqual([]);
  }, 60_000);

  it('takes over a lock left by a builder that died, and rebuilds a damaged index', async () => {
    const { dir, indexDir } = await fresh();
    const file = join(dir, 'a.warc.gz');
    await writeFile(file, await page('https://l.example/', '<p>L</p>', { gzip: true }));
    const probe = createWebArchive({ path: file, indexDir });
    const { indexPath } = await probe.open();
    await probe.close();

    // A dead builder's lock, and no index: the next open must not wait for it.
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', '0']);
      child.once('exit', () => resolve(child.pid!));
    });
    await writeFile(indexPath, 'this is not an SQLite database');
    await writeFile(`${indexPath}.lock`, JSON.stringify({ pid: dead, host: hostname() }));
    const archive = createWebArchive({ path: file, indexDir });
    const index = await archive.open();
    expect(index.built).toBe(true);
    expect(Buffer.from((await index.get('https://l.example/'))!.payload).toString()).toBe('<p>L</p>');
    expect(existsSync(`${indexPath}.lock`)).toBe(false);
    await archive.close();
  });
});

describe('gzip members', () => {
  it('finds where a member ends, says when it is cut off, and refuses one that inflates past the limit', () => {
    const one = gzipSync(Buffer.from('first member'));
    const two = gzipSync(Buffer.alloc(100_000, 0x61));
    const both = Buffer.concat([one, two]);
    expect(inflateMember(both, 1_000_000)).toEqual({ data: Buffer.from('first member'), length: one.length });
    expect(inflateMember(both.subarray(one.length), 1_000_000)?.length).toBe(two.length);
    expect(inflateMember(two.subarray(0, two.length - 3), 1_000_000)).toBeNull();
    expect(() => inflateMember(two, 1_000)).toThrow(MemberTooLarge);
    expect(() => inflateMember(Buffer.from('not gzip at all'), 1_000)).toThrow(/not a gzip member/);
  });
});
