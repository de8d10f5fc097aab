import type { Context } from 'hono';
import type { ApiError } from '../../errors.ts';
import { errorHeaders } from './headers.ts';

/**
 * The API's error response: `{error: {code, message, details}}` with the catalogue's status and the error's headers;
 * an extra header of the same name (the OAuth challenge) replaces the error's own.
 */
export function errorResponse(c: Context, err: ApiError, extraHeaders: Record<string, string> = {}): Response {
  return c.json(err.toBody(), err.status as 400, { ...errorHeaders(err), ...extraHeaders });
}
