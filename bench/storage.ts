/**
 * `npm run bench -- storage [--runs N]`: database growth per finished optimization on the sample web archive
 * (offline). N optimizations run to completion in a real app on a temp SQLite file; the file's pages (after a WAL
 * checkpoint) are counted before and after, and compared with the bytes of each run's `view=full` body, the answer
 * a client reads. A finished run keeps its result and evidence, not its working data (issue 10's bound: at most 2x).
 */
import { ARCHIVE_PAIRS } from './lib/optimize-archive.ts';
import { table } from './lib/harness.ts';
import { startTestApp } from '../test/helpers/app.ts';

export async function run(args: string[]): Promise<void> {
  const i = args.indexOf('--runs');
  const runs = i >= 0 ? Number(args[i + 1]) : 20;
  const t = await startTestApp({ env: { AGENT_API_OFFLINE: '1', SERP_PROVIDER: 'archive' } });
  try {
    const { key } = await t.tenant('agency');
    const raw = t.app.database.raw;
    const bytes = () => {
      raw.pragma('wal_checkpoint(TRUNCATE)');
      return Number(raw.pragma('page_count', { simple: true })) * Number(raw.pragma('page_size', { simple: true }));
    };
    // One run first, so schema pages and the first allocations do not count against the measured ones.
    const warm = ARCHIVE_PAIRS[0]!;
    await t.request('POST', '/api/agent/v1/optimize', {
      key,
      body: warm,
      headers: { 'Idempotency-Key': 'storage-warm' },
    });
    await t.engine.runner.runUntilIdle();
    const before = bytes();
    const ids: string[] = [];
    for (let n = 0; n < runs; n++) {
      const pair = ARCHIVE_PAIRS[n % ARCHIVE_PAIRS.length]!;
      const r = await t.request<{ optimization_id: string }>('POST', '/api/agent/v1/optimize', {
        key,
        body: pair,
        headers: { 'Idempotency-Key': `storage-${n}` },
      });
      ids.push(r.body.optimization_id);
    }
    await t.engine.runner.runUntilIdle();
    const after = bytes();
    let viewBytes = 0;
    let complete = 0;
    for (const id of ids) {
      const r = await t.request<{ status: string }>('GET', `/api/agent/v1/optimizations/${id}`, {
        key,
        query: { view: 'full' },
      });
      if (r.body.status === 'complete') complete++;
      viewBytes += Buffer.byteLength(r.text);
    }
    const perRun = (after - before) / runs;
    const perView = viewBytes / runs;
    process.stdout.write(
      table(
        ['measure', 'value'],
        [
          ['optimizations finished (complete)', `${runs} (${complete})`],
          ['database growth per finished optimization', `${(perRun / 1024).toFixed(1)} KiB`],
          ['view=full body per optimization', `${(perView / 1024).toFixed(1)} KiB`],
          ['growth / view=full', (perRun / perView).toFixed(2)],
        ],
      ),
    );
  } finally {
    await t.close();
  }
}
