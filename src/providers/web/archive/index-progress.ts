/**
 * What an archive index build is doing, for people and for load balancers: the state `/readyz` reads (indexing,
 * with pages done of total) and progress reports (done, total, pages per second, time left) at most every
 * `everyMs` of the injected clock, so a long first start says what it does and tests need no sleeps.
 *
 * A build has two phases: `records` reads the WARC files into the URL index (the total is known only at its end),
 * then `pages` extracts and indexes every HTML page (the costly part, with a known total).
 */
import type { TimeSource } from '../../../clock.ts';

export type IndexingPhase = 'records' | 'pages';

/** Where the archive's indexes are: not asked for yet, being built or opened, ready, or failed (search is off). */
export interface IndexingStatus {
  state: 'idle' | 'indexing' | 'ready' | 'failed';
  phase: IndexingPhase | null;
  done: number;
  /** Null while the total is not known (the records phase). */
  total: number | null;
}

/** One progress report. */
export interface IndexProgressReport {
  /** `progress` while building (throttled); `done` once, when a build that reported progress is over. */
  kind: 'progress' | 'done';
  phase: IndexingPhase;
  done: number;
  total: number | null;
  /** Of the current phase, since it began; null before any time has passed. */
  perSecond: number | null;
  /** Seconds left at that rate; null when the total or the rate is unknown. */
  secondsLeft: number | null;
  /** Seconds since the build began. */
  elapsedSeconds: number;
}

export interface IndexProgress {
  status(): IndexingStatus;
  /** The indexes are being opened (and built when missing). */
  begin(): void;
  /** Records read so far into the URL index. */
  records(read: number): void;
  /** Pages indexed so far of `total` (0: the total is known, nothing is done yet). */
  pages(done: number, total: number): void;
  ready(): void;
  failed(): void;
}

/** Two seconds: often enough to see a build move, rarely enough not to flood a log. */
export const PROGRESS_EVERY_MS = 2_000;

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Tracks a build's state and reports its progress through `report`, throttled by `clock`. */
export function createIndexProgress(options: {
  clock: TimeSource;
  report: (report: IndexProgressReport) => void;
  everyMs?: number;
}): IndexProgress {
  const everyMs = options.everyMs ?? PROGRESS_EVERY_MS;
  let status: IndexingStatus = { state: 'idle', phase: null, done: 0, total: null };
  let began = 0;
  let phaseBegan = 0;
  /** When the last progress report went out; null: none yet in this build. */
  let lastReport: number | null = null;

  const reportOf = (kind: IndexProgressReport['kind'], now: number): IndexProgressReport => {
    const seconds = (now - phaseBegan) / 1000;
    const perSecond = seconds > 0 ? status.done / seconds : null;
    const left = status.total === null ? null : status.total - status.done;
    return {
      kind,
      phase: status.phase ?? 'records',
      done: status.done,
      total: status.total,
      perSecond: perSecond === null ? null : round1(perSecond),
      secondsLeft: left !== null && perSecond ? Math.round(left / perSecond) : left === 0 ? 0 : null,
      elapsedSeconds: round1((now - began) / 1000),
    };
  };

  const move = (phase: IndexingPhase, done: number, total: number | null) => {
    const now = options.clock.now();
    // The first phase began with the build (hashing the files is part of reading them).
    if (status.phase !== null && status.phase !== phase) phaseBegan = now;
    status = { state: 'indexing', phase, done, total };
    // The first report goes out with the first page or record done (an index that is only opened says nothing);
    // the others at most every `everyMs`.
    if (done === 0 || (lastReport !== null && now - lastReport < everyMs)) return;
    lastReport = now;
    options.report(reportOf('progress', now));
  };

  return {
    status: () => ({ ...status }),
    begin() {
      began = options.clock.now();
      phaseBegan = began;
      lastReport = null;
      status = { state: 'indexing', phase: null, done: 0, total: null };
    },
    records: (read) => move('records', read, null),
    pages: (done, total) => move('pages', done, total),
    ready() {
      // An index that was only opened reported nothing and says nothing now.
      if (lastReport !== null) options.report(reportOf('done', options.clock.now()));
      status = { state: 'ready', phase: null, done: status.done, total: status.total };
    },
    failed() {
      status = { ...status, state: 'failed' };
    },
  };
}
