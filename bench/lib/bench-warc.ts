/**
 * Writes a bench's web archive: a `.warc.gz` of HTML pages, one gzip member per record (as `archive import` writes
 * them), with fixed dates (a second apart from 2024-06-01) and record ids, so the same pages give the same file.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { serializeExchange, serializeWarcinfo, uuidV5RecordId } from '../../src/providers/web/archive/writer.ts';

/** One page to archive: where it lives, its bytes and the Content-Type it is served with. */
export interface BenchPage {
  url: string;
  html: Uint8Array;
  contentType: string;
}

/** Writes `pages` to `file` after a warcinfo record naming `filename`; `recordIds` seeds the record ids. */
export async function writeBenchArchive(
  file: string,
  filename: string,
  recordIds: string,
  pages: Iterable<BenchPage>,
): Promise<void> {
  const options = { gzip: true, recordId: uuidV5RecordId(recordIds) };
  const out = createWriteStream(file);
  const write = async (bytes: Uint8Array) => {
    if (!out.write(bytes)) await once(out, 'drain');
  };
  const base = Date.parse('2024-06-01T00:00:00Z');
  await write(
    await serializeWarcinfo(
      { filename, date: new Date(base).toISOString(), fields: { software: 'agent-api bench' } },
      options,
    ),
  );
  let i = 0;
  for (const page of pages) {
    await write(
      await serializeExchange(
        {
          url: page.url,
          date: new Date(base + i++ * 1000).toISOString(),
          status: 200,
          statusText: 'OK',
          headers: [
            ['Content-Type', page.contentType],
            ['Content-Length', String(page.html.byteLength)],
          ],
          payload: page.html,
        },
        options,
      ),
    );
  }
  out.end();
  await once(out, 'finish');
}
