import { FetchError } from '../types.ts';
import { checkUrl, type AllowList } from './check-url.ts';

/** Statuses the fetcher follows (always re-issuing a GET). */
export const REDIRECT_STATUSES: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * The next hop of a redirect: `location` resolved against the current URL (so `//127.0.0.1/` becomes
 * `http://127.0.0.1/`), refused when it leaves HTTPS for HTTP, and run through the same checks as the first URL.
 * Throws FetchError; `requestedUrl` is what the error reports.
 */
export function nextHop(current: URL, location: string, requestedUrl: string, allow?: AllowList): URL {
  let target: URL;
  try {
    target = new URL(location.trim(), current);
  } catch {
    throw new FetchError('invalid_url', requestedUrl, 'redirect Location could not be parsed');
  }
  if (current.protocol === 'https:' && target.protocol === 'http:') {
    throw new FetchError('blocked', requestedUrl, 'redirect from https to http is not followed');
  }
  const checked = checkUrl(target.href, allow ? { allow } : {});
  if (!checked.ok) throw new FetchError(checked.code, requestedUrl, `redirect target refused: ${checked.reason}`);
  return checked.url;
}
