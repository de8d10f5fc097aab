import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { Timestamp } from '../common/schemas.ts';
import { PLANS } from '../../engine/accounts/contract.ts';

const Window = z.object({
  limit: z.number().int().describe('Units the window allows.'),
  used: z.number().int().describe('Units charged in the window.'),
  reserved: z.number().int().describe('Units reserved by accepted work that has not finished.'),
  remaining_percent: z.number().describe('Share of the limit still free, 0-100.'),
  recovers_at: Timestamp.nullable().describe('When room frees up; null unless the window is full.'),
});

export const UsageOutput = z.object({
  plan: z.enum(PLANS),
  rate_limit_per_minute: z.number().int(),
  windows: z.object({ '24h': Window, '7d': Window }),
});

export const getUsage = defineOperation({
  name: 'get_usage',
  title: 'Get usage',
  description: 'Pooled usage: rolling 24-hour and 7-day used, reserved and remaining units.',
  family: 'usage',
  http: { method: 'GET', path: '/usage', status: 200 },
  scope: null,
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({}),
  output: UsageOutput,
  errors: [],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: (ctx) => ctx.engine.usage.view(ctx.db, ctx.principal.orgId, ctx.principal.plan),
});
