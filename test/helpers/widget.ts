import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../../src/errors.ts';
import { iso } from '../../src/clock.ts';
import { defineOperation, type AnyOperation, type WriteContext } from '../../src/tools/define.ts';
import { Uuid } from '../../src/tools/common/schemas.ts';
import type { Engine } from '../../src/engine/engine.ts';
import { definePipeline, PermanentError, type Pipeline } from '../../src/engine/runner/types.ts';
import { getOwnedClient } from '../../src/store/repos/clients.ts';
import { getRunFor, insertRun } from '../../src/store/repos/runs.ts';
import { getReservation } from '../../src/store/repos/usage-ledger.ts';
import type { Db } from '../../src/store/db.ts';

/**
 * A test-only paid operation and pipeline: proves the foundation (idempotency, reservations, the runner) before the
 * real families exist. The resource is the run row itself; its one step calls the billable provider on loopback.
 */
const WidgetInput = z.strictObject({
  client_id: Uuid,
  label: z.string().min(1).max(100),
  units: z.number().int().min(1).max(10_000).default(1),
  fail: z.enum(['permanent']).optional(),
});

const WidgetView = z.object({
  widget_id: z.string(),
  status: z.enum(['queued', 'running', 'waiting', 'complete', 'failed']),
  label: z.string().optional(),
  result: z.unknown().nullable(),
  error: z.string().nullable(),
  billing: z.enum(['reserved', 'charged', 'released', 'none']),
  created_at: z.string(),
});

async function widgetView(db: Db, orgId: string, id: string): Promise<z.infer<typeof WidgetView>> {
  const run = await getRunFor(db, 'widget', id);
  if (!run || run.org_id !== orgId) throw new ApiError('not_found', 'No such widget.');
  const checkpoint = JSON.parse(run.checkpoint) as Record<string, unknown>;
  const ledger = await getReservation(db, 'widget', id);
  const status =
    run.state === 'done'
      ? 'complete'
      : run.state === 'failed'
        ? 'failed'
        : run.state === 'waiting'
          ? 'waiting'
          : run.lease_owner
            ? 'running'
            : 'queued';
  return {
    widget_id: id,
    status,
    result: checkpoint.call ?? null,
    error: run.state === 'failed' ? run.last_error : null,
    billing: ledger?.state ?? 'none',
    created_at: iso(run.created_at),
  };
}

async function createWidget(ctx: WriteContext, input: z.output<typeof WidgetInput>) {
  const client = await getOwnedClient(ctx.db, ctx.principal.orgId, input.client_id);
  if (!client) throw new ApiError('not_found', 'No such client.');
  const id = randomUUID();
  await ctx.engine.usage.reserve(ctx.db, {
    orgId: ctx.principal.orgId,
    plan: ctx.principal.plan,
    operation: 'content_job',
    units: input.units,
    resourceKind: 'widget',
    resourceId: id,
  });
  const run = await insertRun(
    ctx.db,
    {
      kind: 'widget',
      resourceId: id,
      orgId: ctx.principal.orgId,
      maxAttempts: ctx.engine.settings.maxAttempts,
      input: { label: input.label, fail: input.fail ?? null } satisfies WidgetRunInput,
    },
    ctx.engine.clock.now(),
  );
  ctx.afterCommit(() => ctx.engine.runner.notify());
  return {
    widget_id: id,
    status: 'queued' as const,
    label: input.label,
    result: null,
    error: null,
    billing: 'reserved' as const,
    created_at: iso(run.created_at),
  };
}

const annotations = { readOnlyHint: false as const, destructiveHint: false, idempotentHint: true, openWorldHint: true };

export function widgetOperations(): AnyOperation[] {
  return [
    defineOperation({
      name: 'create_widget',
      title: 'Create widget',
      description: 'Test-only paid operation (optional idempotency key).',
      family: 'copywriter',
      http: { method: 'POST', path: '/widgets', status: 201, replayStatus: 200 },
      scope: 'copywriter:run',
      subscription: 'plan_required',
      idempotency: 'optional',
      input: WidgetInput,
      output: WidgetView,
      errors: ['invalid_input', 'plan_required', 'usage_limit_reached', 'idempotency_key_reused'],
      annotations,
      handler: createWidget,
      replay: (ctx, stored) =>
        widgetView(ctx.db, ctx.principal.orgId, (stored.body as { widget_id: string }).widget_id),
    }),
    defineOperation({
      name: 'start_widget',
      title: 'Start widget',
      description: 'Test-only paid operation (idempotency key required).',
      family: 'optimize',
      http: { method: 'POST', path: '/widgets/strict', status: 202 },
      scope: 'optimize:run',
      subscription: 'plan_required',
      idempotency: 'required',
      input: WidgetInput,
      output: WidgetView,
      errors: [
        'validation_error',
        'idempotency_key_required',
        'plan_required',
        'usage_limit_reached',
        'idempotency_key_reused',
      ],
      annotations,
      handler: createWidget,
    }),
    defineOperation({
      name: 'get_widget',
      title: 'Get widget',
      description: 'Test-only read.',
      family: 'copywriter',
      http: { method: 'GET', path: '/widgets/:widget_id', status: 200 },
      scope: 'copywriter:read',
      subscription: null,
      idempotency: 'none',
      input: z.strictObject({ widget_id: z.string() }),
      output: WidgetView,
      errors: [],
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      handler: (ctx, input) => widgetView(ctx.db, ctx.principal.orgId, input.widget_id),
    }),
  ];
}

/** What a widget run is accepted with (its checkpoint input). */
interface WidgetRunInput {
  label: string;
  fail: string | null;
}

/**
 * The widget pipeline: one step that calls the provider with an idempotency key derived from run and step. The
 * step's output is the widget's result, read from the finished run's checkpoint, so it is not transient.
 */
export function widgetPipeline(engine: Engine, providerUrl: () => string): Pipeline {
  return definePipeline<'call', WidgetRunInput, { call: unknown }>({
    kind: 'widget',
    steps: [
      {
        name: 'call',
        stage: 'call',
        transient: false,
        async run(ctx) {
          const { input } = ctx;
          if (input.fail === 'permanent') throw new PermanentError('the widget cannot be made');
          const res = await fetch(`${providerUrl()}/work`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'idempotency-key': ctx.idempotencyKey() },
            body: JSON.stringify({ label: input.label }),
            signal: ctx.signal,
          });
          if (!res.ok) throw new Error(`provider answered ${res.status}`);
          return res.json();
        },
      },
    ],
    enterStage: async () => undefined,
    onComplete: async (ctx) => void (await engine.usage.charge(ctx.trx, 'widget', ctx.resourceId)),
    onFail: async (ctx) => void (await engine.usage.release(ctx.trx, 'widget', ctx.resourceId)),
  });
}
