import type { EngineServices } from '../engine.ts';
import type { ReadDb } from '../../store/db.ts';
import { CONTENT_KINDS, getContentJob, type ContentJobRow } from '../../store/repos/content.ts';
import { requireContentJob } from './service.ts';
import { isRestingStatus, PROGRESS_STAGES, progressPosition } from './states.ts';

/** How long a create call with a progress token follows its job (under MCP clients' 60 s timeout). */
const FOLLOW_MS = 50_000;

const runKind = (row: ContentJobRow) => CONTENT_KINDS[row.kind];

/** Waits up to `seconds` for the job's status or stage to change, then answers the job as it is. */
export async function waitForContent(
  engine: EngineServices,
  db: ReadDb,
  orgId: string,
  id: string,
  seconds: number,
  signal: AbortSignal,
  kind?: 'job' | 'autopilot',
): Promise<ContentJobRow> {
  const first = await requireContentJob(db, orgId, id, kind);
  if (seconds > 0 && !isRestingStatus(first.status)) {
    await engine.changes.waitFor(
      runKind(first),
      id,
      async () => {
        const now = await getContentJob(db, orgId, id);
        return !!now && (now.status !== first.status || now.stage !== first.stage);
      },
      seconds * 1000,
      signal,
    );
  }
  return requireContentJob(db, orgId, id, kind);
}

/** What following a job needs of an operation's context (tools/define.ts). */
export interface FollowContext {
  engine: EngineServices;
  db: ReadDb;
  principal: { orgId: string };
  progress: ((progress: number, total: number, message: string) => Promise<void>) | null;
  signal: AbortSignal;
}

/**
 * For a caller with a progress token: reports each stage (its position in the state table's progress order) until
 * the job rests or 50 s of the engine's clock pass, then answers the job. `acceptedStatus` is the status the call's
 * own answer saw at commit: a queued job reports `queued` first even when a runner has already moved it on.
 */
export async function followContent(ctx: FollowContext, id: string, acceptedStatus: string): Promise<ContentJobRow> {
  const { engine, db, signal } = ctx;
  const { orgId } = ctx.principal;
  const report = ctx.progress;
  const deadline = engine.clock.now() + FOLLOW_MS;
  let last = '';
  if (acceptedStatus === 'queued') {
    last = 'queued';
    await report?.(progressPosition('queued'), PROGRESS_STAGES.length - 1, 'queued');
  }
  for (;;) {
    const row = await requireContentJob(db, orgId, id);
    if (row.stage !== last) {
      last = row.stage;
      await report?.(progressPosition(row.stage), PROGRESS_STAGES.length - 1, row.stage);
    }
    const remaining = deadline - engine.clock.now();
    // A shutting-down server answers the job as it is now (the change hub is closed).
    if (isRestingStatus(row.status) || remaining <= 0 || signal.aborted || engine.changes.closed) return row;
    await engine.changes.waitFor(
      runKind(row),
      id,
      async () => (await getContentJob(db, orgId, id))?.stage !== last,
      remaining,
      signal,
    );
  }
}
