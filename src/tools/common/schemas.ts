import { z } from 'zod';

/** `?limit=&offset=` as docs/api.md §1.5 defines them: default 20, at most 100 (over 100 is a 400). */
export const PaginationInput = {
  limit: z.coerce.number().int().min(1).max(100).default(20).describe('Page size, 1-100 (default 20).'),
  offset: z.coerce.number().int().min(0).default(0).describe('Rows to skip (default 0).'),
};

export const Pagination = z.object({
  limit: z.number().int(),
  offset: z.number().int(),
  total: z.number().int(),
  has_more: z.boolean(),
});

/** The list envelope every listing answers. */
export function listOf<T extends z.ZodType>(item: T) {
  return z.object({ data: z.array(item), pagination: Pagination });
}

export function pageOf<T>(rows: T[], page: { limit: number; offset: number }, total: number) {
  return {
    data: rows,
    pagination: { limit: page.limit, offset: page.offset, total, has_more: page.offset + rows.length < total },
  };
}

export { Timestamp } from '../../clock.ts';
export { UsageImpact } from '../../engine/platform/usage.ts';
/** Any 8-4-4-4-12 hex identifier: a well-formed id that does not exist is a 404, not a 400. */
export const Uuid = z.guid();

/** The same words for the same field in every tool (the MCP tool list is paid for on every session). */
export const ClientId = Uuid.describe('Client id.');
export const ClientFilter = Uuid.optional().describe('Only this client id.');

/** Long-poll of a status read: 0 to 30 seconds, 0 answers at once. */
export const WaitSeconds = z.coerce
  .number()
  .int()
  .min(0)
  .max(30)
  .default(0)
  .describe('Seconds (≤ 30) to wait for a change (default 0).');

/**
 * The `validate` of a partial update: it must change something. Refuses an input with none of `fields` set, naming
 * them, as a field error on `(body)`.
 */
export function somethingToChange(fields: readonly string[]) {
  return (_ctx: unknown, input: Record<string, unknown>): { path: string; message: string }[] =>
    fields.some((field) => input[field] !== undefined)
      ? []
      : [{ path: '(body)', message: `Send at least one of ${fields.join(', ')}.` }];
}
