/**
 * `npm run bench -- archive [--pages N]`: the web archive at scale (bench/lib/archive-scale.ts). A generated
 * archive of N realistic pages (default 10,000) on the on-disk SQLite FTS5 index against the in-memory BM25F index
 * it replaced: index build time, start-up to the first search once indexed, server RSS after 100 searches, and
 * search time per query. Goals: start-up under 2 s and RSS under 300 MB.
 */
import { archiveScale } from './lib/archive-scale.ts';
import { table } from './lib/harness.ts';

export async function run(args: string[]): Promise<void> {
  const rows = await archiveScale(args);
  process.stdout.write(
    table(
      ['figure', 'FTS5 on disk', 'in memory (before)', 'unit', 'goal', 'note'],
      rows.map((r) => [r.figure, r.fts5, r.in_memory, r.unit, r.goal, r.note].map((c) => String(c ?? ''))),
    ),
  );
}
