/**
 * Loaders for the extraction datasets, which are data kept outside this repository (in ../shared/datasets beside the
 * checkout; not part of the project or its documentation): the Zyte article-extraction benchmark layout
 * (`html/<id>.html.gz` + one `ground-truth.json`) and the WCXB layout (`html/<id>.html.gz`, `ground-truth/<id>.json`,
 * `metadata.json`).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export interface ZytePage {
  id: string;
  url: string;
  html: string;
  articleBody: string;
}

export interface WcxbPage {
  id: string;
  url: string;
  pageType: string;
  html: string;
  mainContent: string;
  with: string[];
  without: string[];
}

/** Absolute path of the external datasets folder (../shared/datasets, beside the repository checkout). */
export function datasetsRoot(): string {
  return fileURLToPath(new URL('../../../shared/datasets/', import.meta.url));
}

/** Decodes page bytes as UTF-8, falling back to windows-1252 for the odd legacy page. */
export function decodeHtml(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

function readHtml(dir: string, id: string): string {
  return decodeHtml(gunzipSync(readFileSync(join(dir, 'html', `${id}.html.gz`))));
}

function idsIn(dir: string): string[] {
  return readdirSync(join(dir, 'html'))
    .filter((f) => f.endsWith('.html.gz'))
    .map((f) => f.slice(0, -'.html.gz'.length))
    .sort();
}

/** Loads a folder in the Zyte layout; `limit` keeps the first ids in sorted order. */
export function loadZyte(dir: string, limit = Infinity): ZytePage[] {
  const truth = JSON.parse(readFileSync(join(dir, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { articleBody?: string; url?: string }
  >;
  return idsIn(dir)
    .filter((id) => truth[id] !== undefined)
    .slice(0, limit)
    .map((id) => ({
      id,
      url: truth[id]?.url ?? '',
      html: readHtml(dir, id),
      articleBody: truth[id]?.articleBody ?? '',
    }));
}

interface WcxbTruthFile {
  url?: string;
  _internal?: { page_type?: { primary?: string } | string };
  ground_truth?: { main_content?: string; with?: string[]; without?: string[] };
}

/** wcxb `get_page_type`, with metadata.json as the fallback when the truth file carries none. */
function pageTypeOf(data: WcxbTruthFile, meta: string | undefined): string {
  const pt = data._internal?.page_type;
  const primary = typeof pt === 'string' ? pt : (pt?.primary ?? meta ?? 'article');
  return primary === 'category' ? 'collection' : primary;
}

/**
 * Loads a folder in the WCXB layout; `perType` keeps the first ids of each page type in sorted order, skipping pages
 * longer than `maxHtmlChars`.
 */
export function loadWcxb(dir: string, perType = Infinity, maxHtmlChars = Infinity): WcxbPage[] {
  const metaPath = join(dir, 'metadata.json');
  const meta = existsSync(metaPath)
    ? ((JSON.parse(readFileSync(metaPath, 'utf8')) as { files?: Record<string, { page_type?: string }> }).files ?? {})
    : {};
  const counts = new Map<string, number>();
  const pages: WcxbPage[] = [];
  for (const id of idsIn(dir)) {
    const truthPath = join(dir, 'ground-truth', `${id}.json`);
    if (!existsSync(truthPath)) continue;
    const data = JSON.parse(readFileSync(truthPath, 'utf8')) as WcxbTruthFile;
    const gt = data.ground_truth;
    if (!gt || typeof gt !== 'object') continue;
    const pageType = pageTypeOf(data, meta[id]?.page_type);
    const seen = counts.get(pageType) ?? 0;
    if (seen >= perType) continue;
    const html = readHtml(dir, id);
    if (html.length > maxHtmlChars) continue;
    counts.set(pageType, seen + 1);
    pages.push({
      id,
      url: data.url ?? '',
      pageType,
      html,
      mainContent: gt.main_content ?? '',
      with: gt.with ?? [],
      without: gt.without ?? [],
    });
  }
  return pages;
}
