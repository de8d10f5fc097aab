/**
 * `npm run bench -- archive [--pages N] [--real-pages N] [--only real|scale]`: the web archive.
 *
 *  - `real` (bench/lib/archive-real.ts): the first-start index build on real pages, 2,000 by default (the WCXB dev
 *    pages in ../shared/datasets/wcxb-dev, repeated under varied URLs): the baseline (main before worker threads,
 *    checked out with git worktree), this checkout in one thread, and this checkout with its worker threads, each in
 *    its own process. Goal: workers at least 2x faster than the baseline. Skipped with a message when the dataset
 *    is absent.
 *  - `scale` (bench/lib/archive-scale.ts): a generated archive of N realistic pages (default 10,000) on the on-disk
 *    SQLite FTS5 index against the in-memory BM25F index it replaced: index build time, start-up to the first search
 *    once indexed, server RSS after 100 searches, and search time per query. Goals: start-up under 2 s and RSS under
 *    300 MB.
 */
import { INDEX_BUILD_BASELINE, WCXB_DEV_DIR, archiveIndexBuild } from './lib/archive-real.ts';
import { archiveScale } from './lib/archive-scale.ts';
import { table } from './lib/harness.ts';

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
}

export async function run(args: string[]): Promise<void> {
  const only = option(args, '--only');
  if (only !== undefined && only !== 'real' && only !== 'scale') throw new Error('--only takes real or scale');
  if (only !== 'scale') {
    const pages = Number(option(args, '--real-pages') ?? 2000);
    if (!Number.isInteger(pages) || pages < 1) throw new Error('--real-pages must be a positive integer');
    const rows = await archiveIndexBuild(pages);
    if (!rows) process.stdout.write(`index build on real pages: skipped, no WCXB dev pages at ${WCXB_DEV_DIR}\n`);
    else
      process.stdout.write(
        table(
          ['figure', `baseline ${INDEX_BUILD_BASELINE}`, 'one thread (now)', 'worker threads (now)', 'unit', 'note'],
          rows,
        ),
      );
  }
  if (only === 'real') return;
  const scaleArgs = args.filter(
    (a, i) => !['--only', '--real-pages'].includes(a) && !['--only', '--real-pages'].includes(args[i - 1] ?? ''),
  );
  const rows = await archiveScale(scaleArgs);
  process.stdout.write(
    table(
      ['figure', 'FTS5 on disk', 'in memory (before)', 'unit', 'goal', 'note'],
      rows.map((r) => [r.figure, r.fts5, r.in_memory, r.unit, r.goal, r.note].map((c) => String(c ?? ''))),
    ),
  );
}
