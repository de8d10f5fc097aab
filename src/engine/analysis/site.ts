/**
 * Which site a host belongs to: its registrable domain (eTLD+1) by the Public Suffix List (`tldts`), private domains
 * included, so `a.github.io` and `b.github.io` are two sites while `www.bbc.co.uk` and `news.bbc.co.uk` are one. The
 * one place that decides it: internal links, the competitor cap per site, excluded domains and brand labels.
 */
import { getDomain, getDomainWithoutSuffix } from 'tldts';

const OPTIONS = { allowPrivateDomains: true } as const;

/** Lower-case, without a trailing dot or the brackets of an IPv6 literal. */
function clean(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^\[(.*)\]$/, '$1');
}

/**
 * The registrable domain of a host name (`news.bbc.co.uk` -> `bbc.co.uk`, `a.github.io` -> `a.github.io`). A host
 * that has none (an IP address, `localhost`, a single label) is its own site: the cleaned host name comes back.
 */
export function registrableDomain(host: string): string {
  const h = clean(host);
  if (h === '') return '';
  return getDomain(h, OPTIONS) ?? h;
}

/**
 * The label a site registered (`rapidflowplumbing` of www.rapidflowplumbing.co.uk, `rapidflow` of
 * rapidflow.github.io); null for IP addresses, `localhost` and other hosts without a registrable domain.
 */
export function siteLabel(host: string): string | null {
  const h = clean(host);
  if (h === '') return null;
  return getDomainWithoutSuffix(h, OPTIONS) || null;
}
