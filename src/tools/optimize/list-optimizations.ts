import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { listOf, pageOf, PaginationInput, Uuid } from '../common/schemas.ts';
import { listOptimizationViews } from '../../engine/optimize/service.ts';
import { OptimizationStatus, OptimizationSummaryRecord } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const listOptimizations = defineOperation({
  name: 'list_optimizations',
  title: 'List optimizations',
  description:
    "The organisation's optimizations, newest first, as summaries without full results; filter by client, status, keyword (substring) or exact url.",
  family: 'optimize',
  http: { method: 'GET', path: '/optimizations', status: 200 },
  scope: 'optimize:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    client_id: Uuid.optional(),
    status: OptimizationStatus.optional(),
    keyword: shortText({ max: 200, trim: false }).optional(),
    url: shortText({ max: 2048, trim: false }).optional(),
    ...PaginationInput,
  }),
  output: listOf(OptimizationSummaryRecord),
  errors: ['validation_error'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => {
    const { rows, total } = await listOptimizationViews(
      ctx.db,
      ctx.principal.orgId,
      { clientId: input.client_id, status: input.status, keyword: input.keyword, url: input.url },
      input,
    );
    return pageOf(rows as z.input<typeof OptimizationSummaryRecord>[], input, total);
  },
});
