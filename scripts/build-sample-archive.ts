/**
 * Builds web-archive/sample.warc.gz from the page sources in web-archive/pages/ (manifest.json plus HTML files).
 * Deterministic: fixed WARC-Date values from the manifest, name-based record ids and gzip members with a fixed
 * header, so rebuilding on the same Node version gives a byte-identical file.
 *
 *   node --import tsx scripts/build-sample-archive.ts [--out FILE]
 *
 * A page file that starts with `<!--@` is a fragment: its `<!--@head-->`, `<!--@main-->` and `<!--@aside-->`
 * sections fill `{{head}}`, `{{main}}` and `{{aside}}` in the site's `_layout.html` (a missing aside takes the
 * site's `_aside.html`), with `{{title}}`, `{{description}}` and `{{url}}` from the manifest. Other files are used
 * as they are.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import {
  serializeExchange,
  serializeResource,
  serializeWarcinfo,
  uuidV5RecordId,
} from '../src/providers/web/archive/writer.ts';
import type { WarcWriteOptions } from '../src/providers/web/archive/writer.ts';

interface SiteConfig {
  server?: string;
  /** How the site's responses were archived on the wire. */
  encoding?: 'gzip' | 'chunked';
  charset?: string;
}

interface ManifestRecord {
  url: string;
  status?: number;
  type?: 'response' | 'resource';
  file?: string;
  title?: string;
  description?: string;
  contentType?: string;
  location?: string;
  /** Seconds after the manifest's base date; defaults to 45 s per record in manifest order. */
  offsetSeconds?: number;
  date?: string;
  generate?: 'pdf';
  pdfLines?: string[];
  bodyBase64?: string;
  headers?: Record<string, string>;
}

interface Manifest {
  baseDate: string;
  sites: Record<string, SiteConfig>;
  records: ManifestRecord[];
}

const REASONS: Record<number, string> = { 200: 'OK', 301: 'Moved Permanently', 302: 'Found', 404: 'Not Found' };

/** A one-page PDF whose text is the given lines, with a correct cross-reference table. */
export function makePdf(lines: string[]): Uint8Array {
  const escape = (s: string) => s.replace(/\\/g, '\\\\').replace(/\(/g, '\\(').replace(/\)/g, '\\)');
  const stream = ['BT', '/F1 12 Tf', '72 740 Td', '16 TL', ...lines.map((l) => `(${escape(l)}) '`), 'ET'].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function section(fragment: string, name: string): string | null {
  const start = fragment.indexOf(`<!--@${name}-->`);
  if (start < 0) return null;
  const from = start + `<!--@${name}-->`.length;
  const next = fragment.indexOf('<!--@', from);
  return fragment.slice(from, next < 0 ? undefined : next).trim();
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The HTML of a manifest page: a fragment composed into its site layout, or a whole document as it is. */
export function composePage(sitesDir: string, record: ManifestRecord): string {
  if (!record.file) throw new Error(`${record.url}: no file`);
  const source = readFileSync(join(sitesDir, record.file), 'utf8');
  if (!source.startsWith('<!--@')) return source;
  const host = record.file.split('/')[0] ?? '';
  const layout = readFileSync(join(sitesDir, host, '_layout.html'), 'utf8');
  const asidePath = join(sitesDir, host, '_aside.html');
  const aside = section(source, 'aside') ?? (existsSync(asidePath) ? readFileSync(asidePath, 'utf8').trim() : '');
  const values: Record<string, string> = {
    title: escapeHtml(record.title ?? ''),
    description: escapeHtml(record.description ?? ''),
    url: escapeHtml(record.url),
    head: section(source, 'head') ?? '',
    main: section(source, 'main') ?? '',
    aside,
  };
  return layout.replace(/\{\{(\w+)\}\}/g, (m, key: string) => values[key] ?? m);
}

function chunk(bytes: Uint8Array, size: number): Uint8Array {
  const parts: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) {
    const piece = bytes.subarray(i, i + size);
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), Buffer.from(piece), Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n\r\n'));
  return Buffer.concat(parts);
}

function httpDate(iso: string): string {
  return new Date(iso).toUTCString();
}

/** Builds the archive bytes from a pages folder. */
export async function buildSampleArchive(pagesDir: string): Promise<Uint8Array> {
  const manifest = JSON.parse(readFileSync(join(pagesDir, 'manifest.json'), 'utf8')) as Manifest;
  const sitesDir = join(pagesDir, 'sites');
  const options: WarcWriteOptions = { gzip: true, recordId: uuidV5RecordId('agent-api sample web archive') };
  const base = Date.parse(manifest.baseDate);
  const parts: Uint8Array[] = [
    await serializeWarcinfo(
      {
        filename: 'sample.warc.gz',
        date: manifest.baseDate,
        fields: {
          software: 'agent-api scripts/build-sample-archive.ts',
          format: 'WARC File Format 1.1',
          description: 'Sample offline web for agent-api: invented sites and pages written for demos and tests.',
          isPartOf: 'agent-api sample web archive',
        },
      },
      options,
    ),
  ];

  manifest.records.forEach((r, i) => {
    if (!r.date) r.date = new Date(base + (r.offsetSeconds ?? (i + 1) * 45) * 1000).toISOString();
  });
  for (const r of manifest.records) {
    const date = r.date as string;
    const host = new URL(r.url).host;
    const site = manifest.sites[host] ?? {};
    const status = r.status ?? 200;
    let body: Uint8Array;
    if (r.generate === 'pdf') body = makePdf(r.pdfLines ?? []);
    else if (r.bodyBase64) body = Buffer.from(r.bodyBase64, 'base64');
    else if (r.file) body = Buffer.from(composePage(sitesDir, r), site.charset === 'iso-8859-1' ? 'latin1' : 'utf8');
    else body = new Uint8Array();
    const contentType = r.contentType ?? `text/html; charset=${site.charset ?? 'utf-8'}`;

    if (r.type === 'resource') {
      parts.push(await serializeResource({ url: r.url, date, contentType, payload: body }, options));
      continue;
    }
    const headers: [string, string][] = [
      ['Date', httpDate(date)],
      ['Server', site.server ?? 'nginx'],
    ];
    if (body.length > 0 || status === 200) headers.push(['Content-Type', contentType]);
    if (r.location) headers.push(['Location', r.location]);
    for (const [k, v] of Object.entries(r.headers ?? {})) headers.push([k, v]);
    let payload = body;
    const textual = contentType.startsWith('text/');
    if (site.encoding === 'gzip' && textual && body.length > 0) {
      payload = gzipSync(body, { level: 6 });
      payload[9] = 0xff;
      headers.push(['Content-Encoding', 'gzip'], ['Vary', 'Accept-Encoding']);
    }
    if (site.encoding === 'chunked' && textual && body.length > 0) {
      payload = chunk(payload, 4096);
      headers.push(['Transfer-Encoding', 'chunked']);
    } else {
      headers.push(['Content-Length', String(payload.length)]);
    }
    parts.push(
      await serializeExchange(
        {
          url: r.url,
          date,
          status,
          statusText: REASONS[status] ?? '',
          headers,
          payload,
          requestHeaders: [
            ['User-Agent', 'Mozilla/5.0 (compatible; agent-api-sample-builder/1.0)'],
            ['Accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8'],
            ['Accept-Encoding', 'gzip'],
          ],
        },
        options,
      ),
    );
  }
  return Buffer.concat(parts);
}

const invokedDirectly = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  const root = fileURLToPath(new URL('../web-archive/', import.meta.url));
  const outFlag = process.argv.indexOf('--out');
  const out =
    outFlag > 0 && process.argv[outFlag + 1]
      ? resolve(process.argv[outFlag + 1] as string)
      : join(root, 'sample.warc.gz');
  const bytes = await buildSampleArchive(join(root, 'pages'));
  writeFileSync(out, bytes);
  process.stderr.write(`wrote ${out} (${bytes.length} bytes)\n`);
}
