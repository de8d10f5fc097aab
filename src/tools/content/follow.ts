import type { Engine } from '../../engine/engine.ts';
import { requireContentJob } from '../../engine/content/service.ts';
import { CONTENT_KINDS, getContentJob, type ContentJobRow } from '../../store/repos/content.ts';
import type { OperationContext } from '../define.ts';

/** States where nothing moves until someone acts (or ever): waits and follows stop there. */
const RESTING = new Set(['completed', 'failed', 'brief_ready', 'draft']);
const FOLLOW_MS = 50_000;
const STAGES = [
  'queued',
  'researching',
  'briefing',
  'brief_ready',
  'drafting',
  'optimizing',
  'fact_checking',
  'finalizing',
  'completed',
];

const runKind = (row: ContentJobRow) => CONTENT_KINDS[row.kind];

/** Waits up to `seconds` for the job's status or stage to change, then answers the job as it is. */
export async function waitForContent(
  engine: Engine,
  orgId: string,
  id: string,
  seconds: number,
  signal: AbortSignal,
  kind?: 'job' | 'autopilot',
): Promise<ContentJobRow> {
  const first = await requireContentJob(engine.db, orgId, id, kind);
  if (seconds > 0 && !RESTING.has(first.status)) {
    await engine.changes.waitFor(
      runKind(first),
      id,
      async () => {
        const now = await getContentJob(engine.db, orgId, id);
        return !!now && (now.status !== first.status || now.stage !== first.stage);
      },
      seconds * 1000,
      signal,
    );
  }
  return requireContentJob(engine.db, orgId, id, kind);
}

/** For a caller with a progress token: reports each stage until the job rests (or 50 s), then answers the job. */
export async function followContent(ctx: OperationContext, id: string): Promise<ContentJobRow> {
  const deadline = Date.now() + FOLLOW_MS;
  let last = '';
  for (;;) {
    const row = await requireContentJob(ctx.engine.db, ctx.principal.orgId, id);
    if (row.stage !== last) {
      last = row.stage;
      const done =
        row.status === 'failed'
          ? STAGES.length - 1
          : Math.max(0, STAGES.indexOf(row.stage === 'complete' ? 'completed' : row.stage));
      await ctx.progress?.(done, STAGES.length - 1, row.stage);
    }
    const remaining = deadline - Date.now();
    if (RESTING.has(row.status) || remaining <= 0 || ctx.signal.aborted) return row;
    await ctx.engine.changes.waitFor(
      runKind(row),
      id,
      async () => (await getContentJob(ctx.engine.db, ctx.principal.orgId, id))?.stage !== last,
      remaining,
      ctx.signal,
    );
  }
}
