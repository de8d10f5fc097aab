/**
 * How this server indexes its web archive for search: the main-text extractor (the analysis extractor, named with
 * the package version so a release that reads pages differently indexes them again) and the worker threads that run
 * it while an index is built. The worker entry, archive-index-worker.ts, uses the same extractor, so an index built
 * with workers is the one built without.
 */
import { z } from 'zod';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pkg from '../package.json' with { type: 'json' };
import { extract } from './engine/analysis/extract/index.ts';
import type { ExtractText } from './providers/web/archive/fallback-extract.ts';
import { startPageTextWorkers } from './providers/web/archive/page-text-workers.ts';
import type { PageTextWorkers, WorkerEntry } from './providers/web/archive/page-text-workers.ts';

/** The id of the extractor below: an index is only reused by the extractor that built it. */
export const ARCHIVE_EXTRACTOR_ID = `analysis-${pkg.version}`;

/** A page's title and main text, as the search index stores them. */
export const archiveExtractText: ExtractText = (html, url) => {
  const e = extract(html, { url });
  return { title: e.title, text: e.mainText };
};

/**
 * At most this many workers: past it the thread writing the index is the bottleneck, and each worker holds a parsed
 * page (tens of MB for a large one) besides its own copy of the extractor.
 */
const MAX_THREADS = 4;

/** The part of tsx's package.json that names the ES module of its `register()` API. */
const TSX_MANIFEST = z.object({
  exports: z.object({ './esm/api': z.object({ import: z.object({ default: z.string() }) }) }),
});

/** The ES module of tsx's `register()` API, or null without tsx. */
function tsxRegisterModule(): string | null {
  try {
    const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
    const parsed = TSX_MANIFEST.safeParse(JSON.parse(readFileSync(manifest, 'utf8')));
    const target = parsed.success ? parsed.data.exports['./esm/api'].import.default : null;
    return target ? pathToFileURL(join(dirname(manifest), target)).href : null;
  } catch {
    return null;
  }
}

/**
 * The worker entry beside this module: the bundle's `archive-index-worker.js` in dist/ (scripts/build.mjs), else
 * the TypeScript source, loaded after registering tsx in the worker: a loader registered in this thread is not
 * inherited, and on Node 20 `--import tsx` in a worker's execArgv does not apply to its entry. Null when neither.
 */
export function archiveWorkerEntry(): WorkerEntry | null {
  const bundled = new URL('./archive-index-worker.js', import.meta.url);
  if (existsSync(bundled)) return { url: bundled };
  const source = new URL('./archive-index-worker.ts', import.meta.url);
  const tsx = existsSync(source) ? tsxRegisterModule() : null;
  if (!tsx) return null;
  return {
    code: `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`,
  };
}

/**
 * Fewer pages than this are indexed in-thread: starting a worker (loading the extractor again) costs about what
 * extracting 10 to 20 pages does from the bundle, and several times that from the sources through tsx.
 */
export const WORKERS_FROM_PAGES = 100;

export interface ArchiveIndexWorkersOptions {
  /** Pages the build will index. */
  pages: number;
  /** Defaults to one per core, up to MAX_THREADS. */
  threads?: number;
  onProblem?: (err: unknown) => void;
}

/** Starts the index workers for a build; null when the build is small or they cannot start (index in-thread). */
export async function startArchiveIndexWorkers(options: ArchiveIndexWorkersOptions): Promise<PageTextWorkers | null> {
  const entry = options.pages >= WORKERS_FROM_PAGES ? archiveWorkerEntry() : null;
  if (!entry) return null;
  const threads = options.threads ?? Math.min(availableParallelism(), MAX_THREADS);
  return startPageTextWorkers({ entry, threads, onProblem: options.onProblem });
}
