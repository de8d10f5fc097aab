import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE_ARCHIVE_PATH } from '../../../src/config.ts';
import { createArchiveSearch } from '../../../src/providers/search/archive-search.ts';
import { createWebArchive } from '../../../src/providers/web/archive/archive.ts';
import { createIndexProgress } from '../../../src/providers/web/archive/index-progress.ts';
import type { IndexProgressReport, IndexingStatus } from '../../../src/providers/web/archive/index-progress.ts';
import { createFakeClock } from '../../helpers/clock.ts';
import { tempDir } from '../../helpers/temp.ts';

const tmp = tempDir('index-progress-');
afterAll(() => tmp.cleanup());

function tracked() {
  const clock = createFakeClock();
  const reports: IndexProgressReport[] = [];
  const progress = createIndexProgress({ clock, report: (r) => reports.push(r) });
  return { clock, reports, progress };
}

describe('index build progress', () => {
  it('reports at most every 2 s of the injected clock, with the rate and the time left', () => {
    const { clock, reports, progress } = tracked();
    progress.begin();
    progress.pages(0, 100);
    // Knowing the total is not progress: nothing is said before the first page is done.
    expect(reports).toEqual([]);
    for (let done = 1; done <= 10; done++) {
      clock.advance(500);
      progress.pages(done, 100);
    }
    // Pages 1 to 10 came 0.5 s apart: the first at once, then one every 2 s (pages 5 and 9).
    expect(reports.map((r) => r.done)).toEqual([1, 5, 9]);
    expect(reports[2]).toEqual({
      kind: 'progress',
      phase: 'pages',
      done: 9,
      total: 100,
      perSecond: 2,
      secondsLeft: 46,
      elapsedSeconds: 4.5,
    });
    // 1.999 s after the last report (page 9, at 4.5 s): not yet; 2 s after it: the next one.
    clock.advance(1_499);
    progress.pages(11, 100);
    expect(reports).toHaveLength(3);
    clock.advance(1);
    progress.pages(12, 100);
    expect(reports.map((r) => r.done)).toEqual([1, 5, 9, 12]);
  });

  it('keeps the state /readyz reads, and says once when the build is done', () => {
    const { clock, reports, progress } = tracked();
    expect(progress.status()).toEqual({ state: 'idle', phase: null, done: 0, total: null });
    progress.begin();
    expect(progress.status()).toEqual({ state: 'indexing', phase: null, done: 0, total: null });
    clock.advance(1_000);
    progress.records(40);
    expect(progress.status()).toEqual({ state: 'indexing', phase: 'records', done: 40, total: null });
    expect(reports[0]).toMatchObject({ phase: 'records', done: 40, total: null, perSecond: 40, secondsLeft: null });
    progress.pages(0, 20);
    clock.advance(4_000);
    progress.pages(20, 20);
    expect(progress.status()).toEqual({ state: 'indexing', phase: 'pages', done: 20, total: 20 });
    progress.ready();
    expect(progress.status()).toMatchObject({ state: 'ready' });
    expect(reports.at(-1)).toEqual({
      kind: 'done',
      phase: 'pages',
      done: 20,
      total: 20,
      perSecond: 5,
      secondsLeft: 0,
      elapsedSeconds: 5,
    });
  });

  it('says nothing when the indexes were only opened, and fails without staying "indexing"', () => {
    const { reports, progress } = tracked();
    progress.begin();
    progress.pages(0, 57);
    progress.ready();
    expect(reports).toEqual([]);
    progress.begin();
    progress.failed();
    expect(progress.status().state).toBe('failed');
  });

  it('follows a real build: the total first, then every page in order, then ready', async () => {
    const { clock, progress } = tracked();
    const seen: IndexingStatus[] = [];
    const archive = createWebArchive({
      path: SAMPLE_ARCHIVE_PATH,
      indexDir: join(tmp.dir, 'index'),
      onRecord: progress.records,
    });
    const search = createArchiveSearch({
      archive,
      clock,
      onIndexPage: (done, total) => {
        progress.pages(done, total);
        seen.push(progress.status());
      },
    });
    progress.begin();
    try {
      await search.warm();
      progress.ready();
      const total = seen[0]!.total!;
      expect(total).toBe((await archive.open()).pageCount());
      const dones = seen.map((s) => s.done).filter((d, i, all) => d !== all[i - 1]);
      expect(dones).toEqual(Array.from({ length: total + 1 }, (_, i) => i));
      expect(seen.every((s) => s.state === 'indexing' && s.phase === 'pages' && s.total === total)).toBe(true);
      expect(progress.status()).toEqual({ state: 'ready', phase: null, done: total, total });
    } finally {
      await search.close();
      await archive.close();
    }
  });
});
