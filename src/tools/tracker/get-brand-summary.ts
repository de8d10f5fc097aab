import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { ClientId, Timestamp } from '../common/schemas.ts';
import { readBrandSummary } from '../../engine/tracker/summaries.ts';
import { Coverage, Overall, Platform } from './schemas.ts';

const Rate = z.number().nullable().describe('0-1; null when nothing was measured.');

export const getBrandSummary = defineOperation({
  name: 'get_brand_summary',
  title: 'Get brand summary',
  description:
    "A client's AI visibility per platform: answers mentioning and citing the brand, top cited URLs; no data: coverage.missing.",
  family: 'tracker',
  http: { method: 'GET', path: '/reporter/brand-summary', status: 200 },
  scope: 'reporter:read',
  subscription: null,
  idempotency: 'none',
  input: z.strictObject({ client_id: ClientId }),
  output: z.object({
    client_id: z.string(),
    snapshot: z.object({ method: z.literal('latest_per_platform') }),
    projects: z.number().int(),
    totals: z.object({
      answers_measured: z.number().int(),
      mentioned: z.number().int(),
      cited: z.number().int(),
      mention_rate: Rate,
      citation_rate: Rate,
    }),
    platforms: z.array(
      Overall.extend({
        platform: Platform,
        projects: z.number().int(),
        answers_measured: z.number().int().describe('Prompt answers measured: the denominator.'),
        answers_failed: z.number().int(),
        mentioned: z.number().int(),
        cited: z.number().int(),
        present: z.number().int(),
        mention_rate: Rate,
        citation_rate: Rate,
        measured_at: Timestamp,
      }),
    ),
    top_cited_urls: z.array(
      z.object({
        url: z.string(),
        citations: z.number().int().describe('Measured answers citing it.'),
        platforms: z.array(Platform),
        brand_domain: z.boolean(),
      }),
    ),
    coverage: Coverage,
  }),
  errors: ['invalid_input'],
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (ctx, input) => readBrandSummary(ctx.engine, ctx.db, ctx.principal.orgId, input.client_id),
});
