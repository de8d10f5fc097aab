import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { ClientId } from '../common/schemas.ts';
import { followOptimization, readOptimization, startOptimization as start } from '../../engine/optimize/service.ts';
import { OptimizationRecord } from './schemas.ts';
import { identifier, shortText } from '../common/text.ts';
import { domainOf } from '../../engine/optimize/competitors.ts';

/** A host or domain name (a URL's host is taken): at least two labels of letters, digits and hyphens. */
function isDomain(input: string): boolean {
  const d = domainOf(input);
  return /^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/.test(d);
}

/** How long start_optimization follows the run for a caller that asked for progress (under MCP clients' 60 s timeout). */
const FOLLOW_MS = 50_000;

export const startOptimization = defineOperation({
  name: 'start_optimization',
  title: 'Start an optimization',
  description:
    'Score a public page against the pages ranking for its keyword (optimize_page usage). 202; poll get_optimization.',
  family: 'optimize',
  http: { method: 'POST', path: '/optimize', status: 202 },
  scope: 'optimize:run',
  subscription: 'plan_required',
  idempotency: 'required',
  input: z.strictObject({
    url: shortText({ max: 2048 }).describe('Public http(s) page.'),
    keyword: shortText({ max: 200 }).describe('Target query.'),
    language: identifier(z.string().trim().min(1).max(10))
      .regex(/^[A-Za-z0-9-]+$/, 'Use a language code such as en-US.')
      .default('en-US')
      .describe('e.g. de, en-GB (default en-US).'),
    client_id: ClientId.optional(),
    exclude_domains: z
      .array(shortText({ max: 253 }))
      .max(50)
      .optional()
      .describe('≤ 50 domains, never competitors.'),
    competitor_urls: z
      .array(shortText({ max: 2048 }))
      .min(1)
      .max(20)
      .optional()
      .describe('1-20 pages to compare with instead of search results.'),
    force_competitors: z
      .boolean()
      .optional()
      .describe('Keep every competitor_urls page (no relevance test or site cap).'),
  }),
  output: OptimizationRecord,
  errors: [
    'validation_error',
    'idempotency_key_required',
    'plan_required',
    'usage_limit_reached',
    'idempotency_key_reused',
    'idempotency_key_in_use',
  ],
  task: { kind: 'optimization', idOf: (body) => body.optimization_id },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  validate: (ctx, input) => {
    const problems: { path: string; message: string }[] = [];
    const checked = ctx.engine.providers.checkUrl(input.url);
    if (!checked.ok) problems.push({ path: 'url', message: checked.reason });
    (input.competitor_urls ?? []).forEach((u, i) => {
      const c = ctx.engine.providers.checkUrl(u);
      if (!c.ok) problems.push({ path: `competitor_urls.${i}`, message: c.reason });
    });
    (input.exclude_domains ?? []).forEach((d, i) => {
      if (!isDomain(d))
        problems.push({ path: `exclude_domains.${i}`, message: 'Use a host name such as example.com.' });
    });
    if (input.force_competitors && !input.competitor_urls) {
      problems.push({ path: 'force_competitors', message: 'force_competitors needs competitor_urls.' });
    }
    return problems;
  },
  handler: async (ctx, input) => {
    const record = await start(ctx.engine, ctx.db, ctx.principal, input);
    ctx.afterCommit(() => ctx.engine.runner.notify());
    return { status: 202, body: record, resourceId: record.optimization_id };
  },
  replay: async (ctx, stored) => await readOptimization(ctx.db, ctx.principal.orgId, stored.resourceId!, 'status'),
  follow: async (ctx, body) =>
    await followOptimization(
      ctx.engine,
      ctx.db,
      ctx.principal.orgId,
      body.optimization_id,
      ctx.progress!,
      FOLLOW_MS,
      ctx.signal,
    ),
});
