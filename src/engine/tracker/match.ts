/**
 * How a result is matched to a project's brand: its domain (the host or any subdomain of it) and its names (whole
 * words, case, accents and punctuation ignored).
 */

/** A domain as projects store it: host only, lower-case, punycode, without `www.`; null when it is not a host name. */
export function normalizeDomain(input: string): string | null {
  const raw = input.trim();
  if (!raw) return null;
  let host: string;
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`).hostname;
  } catch {
    return null;
  }
  host = host
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\./, '');
  // A registrable name: at least two labels, no IP literals.
  if (!/^([a-z0-9-]+\.)+[a-z0-9-]{2,}$/.test(host) || /^[\d.]+$/.test(host)) return null;
  return host;
}

/** The host of a URL, lower-case without a trailing dot; null when the URL cannot be parsed. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase().replace(/\.$/, '');
  } catch {
    return null;
  }
}

/** Whether `url` is on `domain` or one of its subdomains (`www.`, `blog.` ...). */
export function isOnDomain(url: string, domain: string): boolean {
  const host = hostOf(url);
  return host !== null && (host === domain || host.endsWith(`.${domain}`));
}

/** Lower-case, accents removed, every run of non-letters/digits one space, padded: for whole-word matching. */
function words(text: string): string {
  return ` ${text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()} `;
}

/** A matcher for the brand's names and its domain, built once per project. */
export function brandMatcher(names: readonly string[], domain: string): (text: string) => boolean {
  const needles = [...new Set(names.map(words).filter((w) => w.trim() !== ''))];
  const escaped = domain.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // The domain written out ("rapidflowplumbing.com", "www.rapidflowplumbing.com/..."), not inside a longer host.
  const bareDomain = new RegExp(`(^|[^a-z0-9.-])([a-z0-9-]+\\.)*${escaped}($|[^a-z0-9-])`, 'i');
  return (text: string) => {
    if (!text) return false;
    if (bareDomain.test(text)) return true;
    const hay = words(text);
    return needles.some((n) => hay.includes(n));
  };
}
