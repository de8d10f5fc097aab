import type { Context } from 'hono';
import type { ApiError } from '../../errors.ts';
import { errorHeaders } from './headers.ts';

/** The API's error response: `{error: {code, message, details}}` with the catalogue's status and the error's headers. */
export function errorResponse(c: Context, err: ApiError, extraHeaders: Record<string, string> = {}): Response {
  return c.json(err.toBody(), err.status as 400, { ...extraHeaders, ...errorHeaders(err) });
}
