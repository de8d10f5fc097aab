import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildSampleArchive, makePdf } from '../../../scripts/build-sample-archive.ts';
import { SAMPLE_ARCHIVE_PATH } from '../../../src/config.ts';

describe('the shipped sample archive', () => {
  it('is what scripts/build-sample-archive.ts builds from web-archive/pages, and rebuilding is deterministic', async () => {
    const pages = join(SAMPLE_ARCHIVE_PATH, 'pages');
    const first = await buildSampleArchive(pages);
    const second = await buildSampleArchive(pages);
    expect(Buffer.compare(Buffer.from(first), Buffer.from(second))).toBe(0);
    // Compare the WARC bytes, not the gzip bytes: zlib builds may compress differently on other machines.
    const shipped = await readFile(join(SAMPLE_ARCHIVE_PATH, 'sample.warc.gz'));
    const same = gunzipSync(shipped).equals(gunzipSync(first));
    expect(same, 'web-archive/sample.warc.gz is stale: run node --import tsx scripts/build-sample-archive.ts').toBe(
      true,
    );
    expect(shipped.byteLength).toBeLessThan(2 * 1024 * 1024);
  });

  it('writes a PDF whose cross-reference offsets point at its objects', () => {
    const pdf = Buffer.from(makePdf(['Hello (world)'])).toString('latin1');
    const xref = Number(/startxref\n(\d+)/.exec(pdf)?.[1]);
    expect(pdf.slice(xref, xref + 4)).toBe('xref');
    const offsets = [...pdf.matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    offsets.forEach((offset, i) => expect(pdf.slice(offset).startsWith(`${i + 1} 0 obj`)).toBe(true));
    expect(pdf).toContain("(Hello \\(world\\)) '");
  });
});
