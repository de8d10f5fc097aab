import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { ClientFilter, listOf, pageOf, PaginationInput } from '../common/schemas.ts';
import { listOptimizationViews } from '../../engine/optimize/service.ts';
import { OptimizationStatus, OptimizationSummaryRecord } from './schemas.ts';
import { shortText } from '../common/text.ts';

export const listOptimizations = defineOperation({
  name: 'list_optimizations',
  title: 'List optimizations',
  description: 'Optimizations as summaries, newest first.',
  family: 'optimize',
  http: { method: 'GET', path: '/optimizations', status: 200 },
  scope: 'optimize:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({
    client_id: ClientFilter,
    status: OptimizationStatus.optional().describe('queued, running, complete or failed.'),
    keyword: shortText({ max: 200, trim: false }).optional().describe('Substring of the keyword.'),
    url: shortText({ max: 2048, trim: false }).optional().describe('Exact page url.'),
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
    return pageOf(rows, input, total);
  },
});
