/**
 * `agent-api archive import`: saved HTML files into a WARC file without network, through the real launcher, then
 * read back by the archive fetcher and archive search.
 */
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { PassThrough } from 'node:stream';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { registerArchiveCommands } from '../../src/cli/commands/archive.ts';
import { createArchiveSearch } from '../../src/providers/search/archive-search.ts';
import { createWebArchive } from '../../src/providers/web/archive/archive.ts';
import { createArchiveFetcher } from '../../src/providers/web/archive/fetcher.ts';
import { archiveImport } from '../../src/providers/web/archive/html-import.ts';
import { readWarcFile } from '../../src/providers/web/archive/reader.ts';
import { uuidV5RecordId } from '../../src/providers/web/archive/writer.ts';
import { SAVED_PAGE, writeBrowserSavedPage, writeUrlSources } from '../fixtures/archive-import/saved-pages.ts';
import { tempDir } from '../helpers/temp.ts';
import { cli, failed, newDb, oneJson } from './helpers.ts';

interface Imported {
  out: string;
  imported: { file: string; url: string; source: string; charset: string; bytes: number; date: string }[];
  refused: { file: string; reason: string }[];
  duplicates: { url: string; winner: string; loser: string; rule: string; reason: string }[];
}

const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));
const db = newDb(cleanups);
const tmp = tempDir('archive-import-');
cleanups.push(tmp.cleanup);
const basenameOf = (file: string) => basename(file);
let n = 0;
const fresh = async () => {
  const dir = join(tmp.dir, `case-${++n}`);
  await mkdir(dir, { recursive: true });
  return dir;
};

describe('agent-api archive import', () => {
  it('imports a page a browser saved: its _files folder is skipped, its charset and save time are kept', async () => {
    const dir = await fresh();
    const { file, assets } = await writeBrowserSavedPage(dir);
    const out = join(dir, 'out', 'saved.warc.gz');
    const result = oneJson<Imported>(await cli(db, ['archive', 'import', dir, '--out', out, '--json']));
    expect(result).toEqual({
      out,
      imported: [
        {
          file,
          url: SAVED_PAGE.url,
          source: 'saved-from',
          charset: 'windows-1252',
          bytes: statSync(file).size,
          date: SAVED_PAGE.savedAt,
        },
      ],
      refused: [],
      duplicates: [],
    });
    expect(existsSync(join(assets, 'reviews.html'))).toBe(true); // there, but not a page

    // One gzip member per record, as the sample archive: warcinfo, then the request and the response.
    const text = gunzipSync(readFileSync(out)).toString('latin1');
    expect(text.match(/^WARC\/1\.1\r\n/gm)).toHaveLength(3);
    expect(text).toContain('WARC-Type: warcinfo');
    expect(text).toContain('software: agent-api archive import');
    const [record] = await readWarcFile(out);
    expect(record).toMatchObject({ url: SAVED_PAGE.url, status: 200, date: SAVED_PAGE.savedAt });
    expect(record!.headers['content-type']).toBe('text/html; charset=windows-1252');
    expect(Buffer.from(record!.payload).equals(await readFile(file))).toBe(true); // the bytes as saved

    const archive = createWebArchive({ path: out, indexDir: join(dir, 'index') });
    const page = await createArchiveFetcher({ archive, offline: true }).fetch(SAVED_PAGE.url);
    expect(page.charset).toBe('windows-1252');
    expect(page.body).toContain(SAVED_PAGE.phrase);
    expect(page.fetchedAt).toBe(SAVED_PAGE.savedAt);
    await archive.close();
  }, 60_000);

  it('takes the URL from the canonical link, then og:url, then the saved-from comment, then --base-url', async () => {
    const dir = await fresh();
    await writeUrlSources(dir);
    const out = join(dir, 'sources.warc');
    const base = 'https://base.example/site';
    const result = await archiveImport({ paths: [dir], out, baseUrl: base });
    // Folders are read in sorted path order; the subfolder's page is joined to the base URL by its relative path.
    expect(result.imported.map((p) => [p.file.slice(dir.length + 1), p.url, p.source])).toEqual([
      ['canonical.html', 'https://canonical.example/one/', 'canonical'],
      ['og.html', 'https://og.example/two/', 'og:url'],
      ['plain/page one.htm', 'https://base.example/site/plain/page%20one.htm', 'base-url'],
      ['relative.html', 'https://base.example/articles/four/', 'canonical'],
      ['saved.html', 'https://saved.example/three/', 'saved-from'],
    ]);
    expect((await readWarcFile(out)).map((r) => r.url)).toEqual(result.imported.map((p) => p.url));

    // Without a base URL the relative canonical link cannot be resolved: the comment gives the URL.
    const single = await archiveImport({ paths: [join(dir, 'relative.html')], out: join(dir, 'single.warc') });
    expect(single.imported.map((p) => [p.url, p.source])).toEqual([['https://saved.example/four/', 'saved-from']]);
    // A single file is joined to the base URL by its name.
    const named = await archiveImport({
      paths: [join(dir, 'plain', 'page one.htm')],
      out: join(dir, 'named.warc'),
      baseUrl: 'https://base.example/docs/',
    });
    expect(named.imported[0]?.url).toBe('https://base.example/docs/page%20one.htm');
  });

  it('with --strict, fails on a file with no URL, naming it, and writes nothing, not even to an existing archive', async () => {
    const dir = await fresh();
    await writeUrlSources(dir);
    const out = join(dir, 'existing.warc');
    await writeFile(out, 'WARC/1.1\r\nWARC-Type: warcinfo\r\nContent-Length: 0\r\n\r\n\r\n\r\n');
    const before = await readFile(out);
    // Through the launcher: a non-zero exit, the file at fault named on stderr, nothing on stdout.
    const r = await cli(db, ['archive', 'import', dir, '--out', out, '--json', '--strict']);
    failed(r, /nothing was written[\s\S]*plain\/page one\.htm: no URL/);
    expect(r.stderr).not.toMatch(/canonical\.html:/); // only the file at fault is named
    expect((await readFile(out)).equals(before)).toBe(true);

    const never = join(dir, 'never.warc.gz');
    const refused = async (input: Parameters<typeof archiveImport>[0], message: RegExp) => {
      await expect(archiveImport({ strict: true, ...input })).rejects.toThrow(message);
      expect(existsSync(never)).toBe(false);
    };
    await refused({ paths: [join(dir, 'plain')], out: never }, /page one\.htm: no URL/);
    await refused({ paths: [join(dir, 'saved.html'), join(dir, 'nothing-here')], out: never }, /ENOENT/);
    await writeFile(join(dir, 'notes.txt'), 'not html');
    await refused({ paths: [join(dir, 'notes.txt')], out: never }, /notes\.txt: not an \.html/);
    // A bad --base-url is refused in both modes: it is the command that is wrong, not a file.
    await refused({ paths: [dir], out: never, baseUrl: 'ftp://x.example/' }, /--base-url/);
    await expect(archiveImport({ paths: [dir], out: never, baseUrl: 'ftp://x.example/' })).rejects.toThrow(
      /--base-url/,
    );

    // A file that vanishes while the import runs fails a strict run before `out` is touched.
    const vanishing = join(dir, 'vanishing');
    await mkdir(vanishing);
    await writeFile(join(vanishing, 'a.html'), '<link rel="canonical" href="https://a.example/">');
    await writeFile(join(vanishing, 'gone.html'), '<link rel="canonical" href="https://gone.example/">');
    const vanish = (strict: boolean) =>
      archiveImport({
        paths: [vanishing],
        out,
        strict,
        concurrency: 1,
        progress: (e) => {
          if (e.done === 1) rmSync(join(vanishing, 'gone.html'), { force: true });
        },
      });
    await expect(vanish(true)).rejects.toThrow(/gone\.html: cannot be read: ENOENT/);
    expect((await readFile(out)).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    // Without --strict the same run keeps the page it could read and names the one it could not.
    await writeFile(join(vanishing, 'gone.html'), '<link rel="canonical" href="https://gone.example/">');
    const kept = await vanish(false);
    expect(kept.imported.map((p) => p.url)).toEqual(['https://a.example/']);
    expect(kept.refused).toEqual([
      { file: join(vanishing, 'gone.html'), reason: expect.stringMatching(/^cannot be read: ENOENT/) as string },
    ]);
    expect((await readFile(out)).subarray(0, before.length).equals(before)).toBe(true);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  }, 60_000);

  it('writes every page it can and names every file it refused (all of them), exiting 1', async () => {
    const dir = await fresh();
    const site = join(dir, 'site');
    await writeUrlSources(site); // four pages that name a URL, one that does not
    // Twelve more without a URL (more than the ten today's message showed), one with only a malformed og:url,
    // and a gzipped page.
    for (let i = 1; i <= 12; i++) {
      await writeFile(join(site, `orphan-${String(i).padStart(2, '0')}.html`), `<p>orphan ${i}</p>`);
    }
    await writeFile(
      join(site, 'bad-og.html'),
      '<html><head><meta property="og:url" content="https://exa mple.com/x"></head><body>bad</body></html>',
    );
    await writeFile(
      join(site, 'zipped.html.gz'),
      gzipSync('<html><head><link rel="canonical" href="https://zipped.example/"></head><body>zipped</body></html>'),
    );
    const out = join(dir, 'partial.warc.gz');
    const r = await cli(db, ['archive', 'import', site, '--out', out, '--json']);
    expect(r.code, r.stderr).toBe(1);
    // stdout is exactly one JSON object; progress went to stderr.
    expect(r.stdout.split('\n').filter((l) => l !== '')).toHaveLength(1);
    const result = JSON.parse(r.stdout) as Imported;
    expect(Object.keys(result).sort()).toEqual(['duplicates', 'imported', 'out', 'refused']);
    expect(result.imported.map((p) => p.url)).toEqual([
      'https://canonical.example/one/',
      'https://og.example/two/',
      'https://saved.example/four/',
      'https://saved.example/three/',
      'https://zipped.example/',
    ]);
    const refusedNames = result.refused.map((f) => f.file.slice(site.length + 1));
    expect(refusedNames).toEqual([
      'bad-og.html',
      ...Array.from({ length: 12 }, (_, i) => `orphan-${String(i + 1).padStart(2, '0')}.html`),
      'plain/page one.htm',
    ]);
    expect(result.refused[0]?.reason).toMatch(/^no URL: og:url "https:\/\/exa mple\.com\/x" is not an http\(s\) URL/);
    expect(result.refused.every((f) => f.reason.startsWith('no URL'))).toBe(true);
    expect(result.duplicates).toEqual([]);
    for (const name of refusedNames) expect(r.stderr).toContain(`refused ${join(site, name)}: no URL`);
    expect(r.stderr).toMatch(/archive import \[.*\] 19\/19 files \| [\d.]+ pages\/s \| .* left \| 14 refused/);
    // The good pages are in the archive, the gzipped one decompressed.
    const records = await readWarcFile(out);
    expect(records.map((rec) => rec.url)).toEqual(result.imported.map((p) => p.url));
    expect(new TextDecoder().decode(records.at(-1)!.payload)).toContain('zipped</body>');
    expect(result.imported.at(-1)?.bytes).toBe(records.at(-1)!.payload.byteLength);

    // The human form: the count on stdout, every refusal on stderr, the same exit status.
    const human = await cli(db, ['archive', 'import', site, '--out', join(dir, 'human.warc')]);
    expect(human.code).toBe(1);
    expect(human.stdout).toBe(`imported 5 pages into ${join(dir, 'human.warc')}; 14 refused\n`);
    expect(human.stderr.match(/^refused /gm)).toHaveLength(14);
  }, 60_000);

  it('writes a URL named by several files once and reports the files left out, winner, loser and why', async () => {
    const dir = await fresh();
    const page = (head: string, body: string) => `<html><head>${head}</head><body>${body}</body></html>`;
    const canonical = (url: string) => `<link rel="canonical" href="${url}">`;
    const og = (url: string) => `<meta property="og:url" content="${url}">`;
    const files: Record<string, string> = {
      // The og:url file comes first in path order but the canonical link is the stronger source.
      'a-og.html': page(og('https://dup.example/source/'), '<p>og copy with a lot more text than the other</p>'),
      'b-canonical.html': page(canonical('https://dup.example/source/'), '<p>canonical</p>'),
      // Same source: the one with more text wins though it comes later.
      'c-short.html': page(canonical('https://dup.example/text/'), '<p>short</p>'),
      'd-long.html': page(canonical('https://dup.example/text/'), '<p>the full page, with its whole text</p>'),
      // Same source and as much text: path order.
      'e-first.html': page(canonical('https://dup.example/path/'), '<p>same</p>'),
      'f-second.html': page(canonical('https://dup.example/path/'), '<p>same</p>'),
    };
    for (const [name, html] of Object.entries(files)) await writeFile(join(dir, name), html);
    const out = join(dir, 'dups.warc');
    const r = await cli(db, ['archive', 'import', dir, '--out', out, '--json']);
    const result = oneJson<Imported>(r); // duplicates alone are no failure: exit 0
    expect(result.imported.map((p) => p.file.slice(dir.length + 1))).toEqual([
      'b-canonical.html',
      'd-long.html',
      'e-first.html',
    ]);
    expect(result.duplicates.map((d) => [d.url, basenameOf(d.winner), basenameOf(d.loser), d.rule])).toEqual([
      ['https://dup.example/path/', 'e-first.html', 'f-second.html', 'path-order'],
      ['https://dup.example/source/', 'b-canonical.html', 'a-og.html', 'source'],
      ['https://dup.example/text/', 'd-long.html', 'c-short.html', 'text'],
    ]);
    expect(result.duplicates[1]?.reason).toMatch(/canonical link, a stronger source than the loser's og:url/);
    expect(result.duplicates[2]?.reason).toMatch(/more text \(\d+ characters against 5\)/);
    expect(r.stderr).toContain(
      `duplicate https://dup.example/text/: kept ${join(dir, 'd-long.html')}, left out ${join(dir, 'c-short.html')}`,
    );
    const records = await readWarcFile(out);
    expect(records.map((rec) => rec.url).sort()).toEqual([
      'https://dup.example/path/',
      'https://dup.example/source/',
      'https://dup.example/text/',
    ]);
    expect(new TextDecoder().decode(records.find((rec) => rec.url.endsWith('/text/'))!.payload)).toContain('full page');
  }, 60_000);

  it('falls back from a malformed og:url or canonical link to the next source, then --base-url', async () => {
    const dir = await fresh();
    const comment = '<!-- saved from url=(0026)https://saved.example/one/ -->';
    await writeFile(
      join(dir, 'to-canonical.html'),
      '<html><head><link rel="canonical" href="http://[bad"><meta property="og:url" content="https://og.example/a/"></head></html>',
    );
    await writeFile(
      join(dir, 'to-comment.html'),
      `${comment}<html><head><meta property="og:url" content="https://"></head></html>`,
    );
    await writeFile(
      join(dir, 'to-base.html'),
      '<html><head><meta property="og:url" content="www.example.com/page"></head></html>',
    );
    const out = join(dir, 'fallback.warc');
    const result = oneJson<Imported>(
      await cli(db, ['archive', 'import', dir, '--out', out, '--base-url', 'https://base.example/', '--json']),
    );
    expect(result.imported.map((p) => [basenameOf(p.file), p.url, p.source])).toEqual([
      ['to-base.html', 'https://base.example/to-base.html', 'base-url'],
      ['to-canonical.html', 'https://og.example/a/', 'og:url'],
      ['to-comment.html', 'https://saved.example/one/', 'saved-from'],
    ]);
    expect(result.refused).toEqual([]);
  }, 60_000);

  it('appends to an existing archive, where the later capture of a URL wins', async () => {
    const dir = await fresh();
    const site = join(dir, 'site');
    await mkdir(site);
    const pageAt = async (name: string, body: string, when: string) => {
      const file = join(site, name);
      await writeFile(
        file,
        `<html><head><link rel="canonical" href="https://a.example/"></head><body>${body}</body></html>`,
      );
      await utimes(file, new Date(when), new Date(when));
    };
    const out = join(dir, 'grow.warc.gz');
    await pageAt('v1.html', '<p>first version</p>', '2024-01-01T00:00:00Z');
    // Through the registered command, in process: the human line, then the JSON object.
    const lines: string[] = [];
    const program = new Command().exitOverride();
    registerArchiveCommands(program, {
      createFetcher: () => {
        throw new Error('archive import must not fetch');
      },
      stdout: (line) => lines.push(line),
      stderr: new PassThrough(),
    });
    await program.parseAsync(['archive', 'import', site, '--out', out], { from: 'user' });
    expect(lines).toEqual([`imported 1 pages into ${out}`]);
    const firstBytes = await readFile(out);

    await pageAt('v1.html', '<p>second version</p>', '2024-06-01T00:00:00Z');
    await writeFile(
      join(site, 'other.html'),
      '<html><head><meta property="og:url" content="https://b.example/"></head><body>b</body></html>',
    );
    lines.length = 0;
    await program.parseAsync(['archive', 'import', site, '--out', out, '--json'], { from: 'user' });
    expect((JSON.parse(lines[0]!) as Imported).imported.map((p) => p.url)).toEqual([
      'https://b.example/',
      'https://a.example/',
    ]);
    const grown = await readFile(out);
    expect(grown.subarray(0, firstBytes.length).equals(firstBytes)).toBe(true); // appended, nothing rewritten
    expect(
      gunzipSync(grown)
        .toString('latin1')
        .match(/WARC-Type: warcinfo/g),
    ).toHaveLength(2);

    const archive = createWebArchive({ path: out, indexDir: join(dir, 'index') });
    const fetcher = createArchiveFetcher({ archive, offline: true });
    expect((await fetcher.fetch('https://a.example/')).body).toContain('second version');
    expect((await fetcher.fetch('https://b.example/')).status).toBe(200);
    expect((await archive.open()).size).toBe(2);
    await archive.close();
  });

  it('makes the imported pages found by the archive fetcher and the archive search', async () => {
    const dir = await fresh();
    await writeBrowserSavedPage(join(dir, 'saved'));
    await writeUrlSources(join(dir, 'sources'));
    const out = join(dir, 'web.warc.gz');
    await archiveImport({ paths: [join(dir, 'saved')], out });
    await archiveImport({ paths: [join(dir, 'sources')], out, baseUrl: 'https://base.example/' });
    const archive = createWebArchive({ path: out, indexDir: join(dir, 'index') });
    const search = createArchiveSearch({ archive });
    const found = await search.search('crème brûlée bain-marie', { platform: 'organic' });
    expect(found.results[0]).toMatchObject({ position: 1, url: SAVED_PAGE.url, title: SAVED_PAGE.title });
    expect(found.results[0]?.snippet).toMatch(/crème|brûlée|bain-marie/i);
    const plain = await search.search('plain page', { platform: 'organic' });
    expect(plain.results[0]?.url).toBe('https://base.example/plain/page%20one.htm');
    const fetched = await createArchiveFetcher({ archive, offline: true }).fetch(plain.results[0]!.url);
    expect(fetched.body).toContain('<p>plain page</p>');
    await search.close();
    await archive.close();
  });

  it('writes byte-identical files with a fixed date and name-based record ids', async () => {
    const dir = await fresh();
    await writeUrlSources(dir);
    const run = async (name: string) => {
      const out = join(dir, name, 'out.warc');
      await archiveImport({
        paths: [dir],
        out,
        baseUrl: 'https://base.example/',
        date: '2024-01-01T00:00:00Z',
        recordId: uuidV5RecordId('archive-import-test'),
      });
      return readFile(out);
    };
    const [a, b] = [await run('a'), await run('b')];
    expect(a.equals(b)).toBe(true);
    expect(a.toString('latin1')).toContain('WARC-Date: 2024-01-01T00:00:00Z');
  });
});
