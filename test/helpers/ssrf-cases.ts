import type { LookupAddress } from 'node:dns';

/**
 * The URLs of docs/reliability.md section E as data, so every entry point (the fetcher, POST /optimize, save_prospect,
 * the MCP tools) can run the same list. `port` is a canary's port: variants carrying it would reach the canary if a
 * guard let them through, which turns "blocked" into something a test can observe.
 */

export interface SsrfUrlCase {
  /** Case id in docs/reliability.md, e.g. 'E.44'. */
  id: string;
  url: string;
  /** The checkUrl code the URL gets. */
  code: 'invalid_url' | 'unsupported_scheme' | 'blocked';
}

const blocked = (id: string, urls: string[]): SsrfUrlCase[] => urls.map((url) => ({ id, url, code: 'blocked' }));

/** Cases decided from the URL alone (E.43–E.52, E.58, E.59): refused with no DNS query and no connection. */
export function ssrfUrlCases(port: number): SsrfUrlCase[] {
  return [
    ...blocked('E.43', [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      'http://LOCALHOST./',
      `http://LOCALHOST.:${port}/`,
    ]),
    ...blocked('E.44', [
      'http://2130706433/',
      'http://0x7f000001/',
      'http://0177.0.0.1/',
      'http://127.1/',
      'http://0x7f.1/',
      `http://2130706433:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://0177.0.0.1:${port}/`,
      `http://127.1:${port}/`,
      `http://0x7f.1:${port}/`,
    ]),
    ...blocked('E.45', [
      'http://0/',
      'http://0.0.0.0/',
      'http://[::]/',
      'http://[::1]/',
      `http://0:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://[::]:${port}/`,
      `http://[::1]:${port}/`,
    ]),
    ...blocked('E.46', [
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
      'http://[0:0:0:0:0:ffff:127.0.0.1]/',
      'http://[::127.0.0.1]/',
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://[::127.0.0.1]:${port}/`,
    ]),
    ...blocked('E.47', [
      'http://[64:ff9b::7f00:1]/',
      'http://[64:ff9b:1::1]/',
      'http://[2002:7f00:1::1]/',
      'http://[2001:0:1::1]/',
    ]),
    ...blocked('E.48', [
      'http://10.0.0.1/',
      'http://172.16.0.1/',
      'http://172.31.255.255/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://169.254.0.1/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://[fd12::1]/',
    ]),
    ...blocked('E.49', [
      'http://169.254.169.254/latest/meta-data/',
      'http://169.254.170.2/',
      'http://100.100.100.200/',
      'http://[fd00:ec2::254]/',
      'http://metadata.google.internal/',
      'http://metadata.google.internal./',
      'http://metadata.azure.internal/',
      'http://metadata/',
    ]),
    ...blocked('E.50', [
      'http://printer.local/',
      'http://db.internal/',
      'http://app.localhost/',
      'http://Foo.INTERNAL./',
      'http://NAS.Local./',
      `http://admin.localhost.:${port}/`,
    ]),
    ...blocked('E.51', [
      'http://evil.com@127.0.0.1/',
      'http://127.1.1.1:80@127.2.2.2:80/',
      'http://a:b@example.com/',
      `http://example.com@127.0.0.1:${port}/`,
    ]),
    ...blocked('E.52', [
      'http://ⓛocalhost/',
      'http://１２７.０.０.１/',
      `http://ⓛocalhost:${port}/`,
      `http://１２７.０.０.１:${port}/`,
    ]),
    ...ssrfSchemeCases(port),
    ...blocked('E.59', [
      'http://example.com:22/',
      'http://example.com:6379/',
      'https://example.com:8443/',
      `http://example.com:${port}/`,
    ]),
  ];
}

/** E.58: schemes other than http(s), refused before any I/O. */
export function ssrfSchemeCases(port: number): SsrfUrlCase[] {
  return [
    'file:///etc/passwd',
    `gopher://127.0.0.1:${port}/_GET%20/`,
    'ftp://example.com/',
    'data:text/html,<h1>hi</h1>',
    'javascript:alert(1)',
    'ws://example.com/',
    'wss://example.com/',
  ].map((url) => ({ id: 'E.58', url, code: 'unsupported_scheme' as const }));
}

/** URLs the policy accepts (public hosts on 80/443), for checking the guard is not simply refusing everything. */
export const ALLOWED_URLS: readonly string[] = [
  'http://example.com/',
  'https://example.com/',
  'https://example.com:443/a?b=c',
  'http://example.com:80/',
  'https://bücher.example.com/',
  'http://93.184.216.34/',
  'https://[2606:2800:220:1:248:1893:25c8:1946]/',
];

/** A DNS case (E.53–E.56): a public-looking name and the answers a stub resolver gives, query by query. */
export interface SsrfDnsCase {
  id: string;
  host: string;
  /** Answers for the 1st, 2nd, ... query; the last repeats. */
  answers: LookupAddress[][];
}

const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });

export const SSRF_DNS_CASES: readonly SsrfDnsCase[] = [
  { id: 'E.53', host: 'loopback.example.com', answers: [[v4('127.0.0.1')]] },
  { id: 'E.53', host: 'metadata.example.com', answers: [[v4('169.254.169.254')]] },
  { id: 'E.54', host: 'mixed.example.com', answers: [[v4('93.184.216.34'), v4('10.0.0.5')]] },
  { id: 'E.54', host: 'mixed6.example.com', answers: [[v6('2606:2800:220:1:248:1893:25c8:1946'), v6('fd12::1')]] },
  { id: 'E.55', host: 'rebind.example.com', answers: [[v4('93.184.216.34')], [v4('127.0.0.1')]] },
  { id: 'E.56', host: 'aaaa-only.example.com', answers: [[v6('::1')]] },
  { id: 'E.56', host: 'mapped.example.com', answers: [[v6('::ffff:127.0.0.1')]] },
];

export interface StubLookup {
  (
    hostname: string,
    options: { all: true },
    callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ): void;
  /** Host names asked, in order. */
  readonly calls: string[];
}

/**
 * A stub for the fetcher's injected `lookup`: answers from `table` (one list per query, the last repeating), and
 * ENOTFOUND for any other name, so a test can never fall through to real DNS.
 */
export function stubLookup(table: Record<string, LookupAddress[] | LookupAddress[][]>): StubLookup {
  const calls: string[] = [];
  const asked = new Map<string, number>();
  const fn = (
    hostname: string,
    _options: { all: true },
    callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) => {
    calls.push(hostname);
    const n = asked.get(hostname) ?? 0;
    asked.set(hostname, n + 1);
    const entry = table[hostname.toLowerCase()];
    if (!entry || entry.length === 0) {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = 'ENOTFOUND';
      queueMicrotask(() => callback(err, []));
      return;
    }
    const sequence = Array.isArray(entry[0]) ? (entry as LookupAddress[][]) : [entry as LookupAddress[]];
    const answer = sequence[Math.min(n, sequence.length - 1)] ?? [];
    queueMicrotask(() => callback(null, answer));
  };
  return Object.assign(fn, { calls });
}

/** The stub table for SSRF_DNS_CASES. */
export function ssrfDnsTable(): Record<string, LookupAddress[][]> {
  return Object.fromEntries(SSRF_DNS_CASES.map((c) => [c.host, c.answers]));
}
