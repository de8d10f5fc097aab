/** A comparison key for "the same page": host without `www.`, no default port, fragment or trailing slash. */
export function documentKey(raw: string): string {
  try {
    const u = new URL(raw);
    const host = u.hostname.toLowerCase().replace(/^www\./, '');
    const path = u.pathname.replace(/\/+$/, '') || '/';
    return `${host}${u.port ? `:${u.port}` : ''}${path}${u.search}`;
  } catch {
    return raw;
  }
}
