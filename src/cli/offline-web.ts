/**
 * What the offline web covers, for `agent-api start`'s first screen: the web archive in use, how many pages it
 * holds on how many sites, its topics (the sample archive's, from its manifest or README) or its top hosts, and how
 * to add pages or configure real providers.
 *
 * Cheap on purpose: it reads the WARC files record by record (no search index, no page kept in memory) and skips
 * counting for archives over COUNT_LIMIT_BYTES; the server indexes the archive itself in the background.
 */
import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { SAMPLE_ARCHIVE_PATH, type Config } from '../config.ts';
import { isHtmlMime } from '../providers/web/archive/body.ts';
import { listWarcFiles } from '../providers/web/archive/reader.ts';
import { scanWarcFile } from '../providers/web/archive/warc-scan.ts';

/** Archives larger than this (compressed bytes on disk) are not counted at start. */
export const COUNT_LIMIT_BYTES = 256 * 1024 * 1024;
const TOP_HOSTS = 8;

export interface ArchiveTopic {
  name: string;
  /** Example queries the topic answers well. */
  queries: string[];
}

export interface OfflineWebSummary {
  /** The archive path, resolved. */
  path: string;
  /** Whether it is the shipped sample (AGENT_API_WEB_ARCHIVE unset). */
  sample: boolean;
  files: number;
  bytes: number;
  /** Distinct URLs answered with an HTML page (status 200); null when not counted. */
  pages: number | null;
  /** Distinct hosts of those pages; null when not counted. */
  sites: number | null;
  /** Topics of the files a manifest describes (the sample archive's). */
  topics: ArchiveTopic[];
  /** Pages and hosts of the files no manifest describes (all files when there are no topics). */
  other: { pages: number; hosts: { host: string; pages: number }[] } | null;
  /** Why the archive could not be read, when it could not. */
  error?: string;
}

interface FileCount {
  urls: Set<string>;
}

/** The HTML pages (status 200) of one WARC file, by URL. */
async function countFile(file: string): Promise<FileCount> {
  const urls = new Set<string>();
  for await (const { record } of scanWarcFile(file)) {
    if (record.status === 200 && isHtmlMime(record.contentType)) urls.add(record.url);
  }
  return { urls };
}

/** The cells of a markdown table row; an escaped `\|` is a `|` inside its cell. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\\|/g, '|'));
}

/** Topics from a README table whose first column is `topic` (and whose `... queries` column lists `code` items). */
export function topicsFromReadme(text: string): ArchiveTopic[] {
  const lines = text.split(/\r?\n/);
  const start = lines.findIndex((l) => l.trim().startsWith('|') && cells(l)[0]?.toLowerCase() === 'topic');
  if (start < 0) return [];
  const queriesAt = cells(lines[start]!).findIndex((h) => /quer/i.test(h));
  const topics: ArchiveTopic[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.trim().startsWith('|')) break;
    const row = cells(line);
    if (!row[0]) continue;
    const queries = queriesAt >= 0 ? [...(row[queriesAt] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1]!) : [];
    topics.push({ name: row[0], queries });
  }
  return topics;
}

/**
 * The topics of a WARC file built from a pages manifest (the sample layout of scripts/build-sample-archive.ts:
 * `<dir>/sample.warc.gz` from `<dir>/pages/manifest.json`): the manifest's `topics` when it has them, otherwise the
 * topic table of `<dir>/README.md`. Null when no manifest describes the file.
 */
async function describedTopics(file: string): Promise<ArchiveTopic[] | null> {
  const dir = dirname(file);
  const manifestPath = join(dir, 'pages', 'manifest.json');
  if (basename(file) !== 'sample.warc.gz' || !existsSync(manifestPath)) return null;
  try {
    const manifest: unknown = JSON.parse(await readFile(manifestPath, 'utf8'));
    const listed = typeof manifest === 'object' && manifest !== null && 'topics' in manifest ? manifest.topics : null;
    if (Array.isArray(listed)) {
      return listed.flatMap((t: unknown): ArchiveTopic[] => {
        if (typeof t === 'string') return [{ name: t, queries: [] }];
        if (t && typeof t === 'object' && typeof (t as { name?: unknown }).name === 'string') {
          const q = (t as { queries?: unknown }).queries;
          const queries = Array.isArray(q) ? q.filter((x): x is string => typeof x === 'string') : [];
          return [{ name: (t as { name: string }).name, queries }];
        }
        return [];
      });
    }
    const readme = join(dir, 'README.md');
    const topics = existsSync(readme) ? topicsFromReadme(await readFile(readme, 'utf8')) : [];
    return topics.length > 0 ? topics : null;
  } catch {
    return null;
  }
}

const hostOf = (url: string) => new URL(url).hostname;

/** Summarises the configured web archive (AGENT_API_WEB_ARCHIVE, or the sample archive). Never throws. */
export async function describeOfflineWeb(
  config: Pick<Config, 'AGENT_API_WEB_ARCHIVE'>,
  options: { countLimitBytes?: number } = {},
): Promise<OfflineWebSummary> {
  const countLimit = options.countLimitBytes ?? COUNT_LIMIT_BYTES;
  const sample = config.AGENT_API_WEB_ARCHIVE === undefined || config.AGENT_API_WEB_ARCHIVE === '';
  const path = resolve(sample ? SAMPLE_ARCHIVE_PATH : config.AGENT_API_WEB_ARCHIVE!);
  const summary: OfflineWebSummary = {
    path,
    sample,
    files: 0,
    bytes: 0,
    pages: null,
    sites: null,
    topics: [],
    other: null,
  };
  try {
    const files = await listWarcFiles(path);
    summary.files = files.length;
    for (const file of files) summary.bytes += (await stat(file)).size;
    if (summary.bytes > countLimit) return summary;
    const all = new Set<string>();
    const undescribed = new Set<string>();
    for (const file of files) {
      const { urls } = await countFile(file);
      const topics = await describedTopics(file);
      if (topics) summary.topics.push(...topics.filter((t) => !summary.topics.some((s) => s.name === t.name)));
      for (const url of urls) {
        all.add(url);
        if (!topics) undescribed.add(url);
      }
    }
    summary.pages = all.size;
    summary.sites = new Set([...all].map(hostOf)).size;
    // Without topics every page is "other", so the summary names the top hosts instead.
    const rest = summary.topics.length > 0 ? undescribed : all;
    if (rest.size > 0) {
      const byHost = new Map<string, number>();
      for (const url of rest) byHost.set(hostOf(url), (byHost.get(hostOf(url)) ?? 0) + 1);
      const hosts = [...byHost]
        .map(([host, pages]) => ({ host, pages }))
        .sort((a, b) => b.pages - a.pages || (a.host < b.host ? -1 : 1))
        .slice(0, TOP_HOSTS);
      summary.other = { pages: rest.size, hosts };
    }
  } catch (err) {
    summary.error = err instanceof Error ? err.message : String(err);
  }
  return summary;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`;
}

/** The summary as the lines `agent-api start` prints. */
export function formatOfflineWeb(
  s: OfflineWebSummary,
  config: Pick<Config, 'SERP_PROVIDER' | 'LLM_PROVIDER' | 'AGENT_API_OFFLINE'>,
): string[] {
  const where = s.sample ? `the sample archive at ${s.path}` : `AGENT_API_WEB_ARCHIVE=${s.path}`;
  const lines: string[] = [];
  if (s.error !== undefined) {
    lines.push(`Offline web: ${where} cannot be read (${s.error}).`);
  } else if (s.files === 0) {
    lines.push(`Offline web: ${where} holds no .warc or .warc.gz files, so it answers nothing.`);
  } else if (s.pages === null) {
    lines.push(
      `Offline web: ${where} (${plural(s.files, 'WARC file')}, ${megabytes(s.bytes)}; too large to count its pages at start).`,
    );
  } else {
    const invented = s.sample && s.other === null ? ', every site invented for demos' : '';
    lines.push(
      `Offline web: ${where} (${plural(s.files, 'WARC file')}, ${plural(s.pages, 'page')} on ${plural(s.sites ?? 0, 'site')}${invented}).`,
    );
    if (s.topics.length > 0) {
      lines.push('  Topics (with queries to try):');
      for (const t of s.topics) {
        const tries = t.queries.slice(0, 3).map((q) => `"${q}"`);
        lines.push(`    - ${t.name}${tries.length ? `: ${tries.join(', ')}` : ''}`);
      }
    }
    if (s.other) {
      const hosts = s.other.hosts.map((h) => `${h.host} (${h.pages})`).join(', ');
      const label =
        s.topics.length > 0 ? `  Also ${plural(s.other.pages, 'page')} from other files; top hosts:` : '  Top hosts:';
      lines.push(`${label} ${hosts}`);
    }
  }
  const serp =
    config.SERP_PROVIDER === 'archive'
      ? 'Organic search results (SERP_PROVIDER=archive) come only from the archive'
      : `Organic search results come from SERP_PROVIDER=${config.SERP_PROVIDER}`;
  const fetches = config.AGENT_API_OFFLINE
    ? 'page fetches read the archive and never go live (AGENT_API_OFFLINE=1)'
    : 'page fetches read the archive first and fetch other URLs live (AGENT_API_OFFLINE=1 stops that)';
  lines.push(`  ${serp}; ${fetches}.`);
  if (s.error === undefined && s.files > 0)
    lines.push(
      '  A new or changed archive is indexed in the background: progress goes to stderr, and GET /readyz answers 503 with the pages done until searches can use it.',
    );
  lines.push(
    '  Add pages: npx agent-api archive add URL... --out FILE.warc.gz (or, with no network, archive import SAVED-HTML... --out FILE.warc.gz), then set AGENT_API_WEB_ARCHIVE to that file (or to a folder of WARC files).',
  );
  lines.push(
    `  Real providers: SERP_PROVIDER=dataforseo or serpapi, LLM_PROVIDER=openai or anthropic, with their API keys (the configuration table in README.md; src/config.ts). Now: SERP_PROVIDER=${config.SERP_PROVIDER}, LLM_PROVIDER=${config.LLM_PROVIDER}.`,
  );
  return lines;
}
