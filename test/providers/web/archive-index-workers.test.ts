import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from '../../../src/sqlite-driver.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  WORKERS_FROM_PAGES,
  archiveExtractText,
  archiveWorkerEntry,
  startArchiveIndexWorkers,
} from '../../../src/archive-index.ts';
import { SAMPLE_ARCHIVE_PATH } from '../../../src/config.ts';
import { createWebArchive } from '../../../src/providers/web/archive/archive.ts';
import type { ArchiveIndex } from '../../../src/providers/web/archive/archive.ts';
import { startPageTextWorkers } from '../../../src/providers/web/archive/page-text-workers.ts';
import type { PageTexts } from '../../../src/providers/web/archive/page-text.ts';
import { buildSearchIndex, openSearchIndex } from '../../../src/providers/web/archive/search-index.ts';
import { tempDir } from '../../helpers/temp.ts';

const tmp = tempDir('archive-workers-');
let records: ArchiveIndex;
const archive = createWebArchive({ path: SAMPLE_ARCHIVE_PATH, indexDir: join(tmp.dir, 'index') });

beforeAll(async () => {
  records = await archive.open();
});
afterAll(async () => {
  await archive.close();
  tmp.cleanup();
});

/** Everything a search index holds, table by table, in a comparable form. */
function dump(path: string) {
  const db = new Database(path, { readonly: true });
  try {
    return {
      meta: db.prepare('SELECT * FROM meta ORDER BY key').all(),
      pages: db.prepare('SELECT * FROM pages ORDER BY id').all(),
      vocab: db.prepare('SELECT term, doc, cnt FROM vocab ORDER BY term').all(),
    };
  } catch (err) {
    throw new Error(`cannot read the index at ${path}`, { cause: err });
  } finally {
    db.close();
  }
}

let built = 0;
async function build(texts?: PageTexts): Promise<string> {
  const path = join(tmp.dir, `search-${++built}.sqlite`);
  await buildSearchIndex(path, records, { key: records.key, extractText: archiveExtractText, texts });
  return path;
}

const QUERIES = ['emergency plumber', 'best espresso machine under 500', 'python asyncio tutorial', 'heat pump'];
const ranked = (path: string) => {
  const index = openSearchIndex(path, records.key);
  try {
    return QUERIES.map((q) => index.query(q, { limit: 10 }));
  } finally {
    index.close();
  }
};

describe('building the search index in worker threads', () => {
  let inThread: string;
  beforeAll(async () => {
    inThread = await build();
  });

  it('gives exactly the index built in this thread, every page made by a worker', async () => {
    // From the sources (as tests run) the worker is the TypeScript entry, started with tsx's loader.
    expect(archiveWorkerEntry()).toEqual({ code: expect.stringContaining('archive-index-worker.ts') });
    const workers = await startArchiveIndexWorkers({ pages: WORKERS_FROM_PAGES, threads: 2 });
    expect(workers?.threads).toBe(2);
    let withWorkers: string;
    try {
      withWorkers = await build(workers!.text);
      expect(workers!.answered).toBe(records.pageCount());
    } finally {
      await workers?.close();
    }
    expect(records.pageCount()).toBeGreaterThan(20);
    const expected = dump(inThread);
    expect(expected.pages).toHaveLength(records.pageCount());
    expect(dump(withWorkers)).toEqual(expected);
    expect(ranked(withWorkers)).toEqual(ranked(inThread));
  });

  it('stops at an abort: the build rejects with its reason and writes no more pages', async () => {
    const workers = await startArchiveIndexWorkers({ pages: WORKERS_FROM_PAGES, threads: 2 });
    const abort = new AbortController();
    const written: number[] = [];
    try {
      const building = buildSearchIndex(join(tmp.dir, 'aborted.sqlite'), records, {
        key: records.key,
        extractText: archiveExtractText,
        texts: workers!.text,
        signal: abort.signal,
        onPage: (done) => {
          written.push(done);
          if (done === 3) abort.abort(new Error('closing'));
        },
      });
      await expect(building).rejects.toThrow('closing');
    } finally {
      await workers?.close();
    }
    expect(written).toEqual([0, 1, 2, 3]);
  });

  it('starts no worker for a build too small to repay starting one', async () => {
    expect(await startArchiveIndexWorkers({ pages: WORKERS_FROM_PAGES - 1, threads: 2 })).toBeNull();
  });

  it('answers null when no worker can start, and the build runs in this thread', async () => {
    const problems: unknown[] = [];
    const broken = join(tmp.dir, 'broken-worker.mjs');
    await writeFile(broken, "throw new Error('this worker cannot start');\n");
    const workers = await startPageTextWorkers({
      entry: { url: pathToFileURL(broken) },
      threads: 2,
      onProblem: (err) => problems.push(err),
    });
    expect(workers).toBeNull();
    expect(problems).toHaveLength(2);
    expect(String(problems[0])).toContain('this worker cannot start');
  });

  it('indexes in this thread the pages of a worker that died, and the index is the same', async () => {
    // A worker that says it is ready, then exits on its first page.
    const dying = join(tmp.dir, 'dying-worker.mjs');
    await writeFile(
      dying,
      "import { parentPort } from 'node:worker_threads';\n" +
        'parentPort.on("message", () => process.exit(3));\nparentPort.postMessage({ ready: true });\n',
    );
    const problems: unknown[] = [];
    const workers = await startPageTextWorkers({
      entry: { url: pathToFileURL(dying) },
      threads: 2,
      onProblem: (err) => problems.push(err),
    });
    expect(workers?.threads).toBe(2);
    let path: string;
    try {
      path = await build(workers!.text);
    } finally {
      await workers?.close();
    }
    expect(workers!.answered).toBe(0);
    expect(problems.map(String)).toEqual([expect.stringContaining('code 3'), expect.stringContaining('code 3')]);
    expect(dump(path)).toEqual(dump(inThread));
  });
});
