/**
 * The structure of the main content: headings, paragraphs, lists, tables, images and links, read from the chosen
 * container (removed furniture skipped).
 */
import { type Block, collectBlocks } from './blocks.ts';
import type { TNode } from './tree.ts';
import type { Heading, Image, Link, ListBlock, Table } from './types.ts';
import { hostOf, registrableHost, resolveHref, resolveSrc } from './urls.ts';

export interface ContentParts {
  headings: Heading[];
  paragraphs: string[];
  lists: ListBlock[];
  tables: Table[];
  images: Image[];
  links: Link[];
}

const LIMIT = 2000;
const NOT_PARAGRAPH = new Set([
  'li',
  'td',
  'th',
  'dt',
  'dd',
  'caption',
  'figcaption',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'tr',
  'table',
  'ul',
  'ol',
  'summary',
  'legend',
]);

/** Text of a subtree on one line. */
export function nodeText(node: TNode): string {
  return collectBlocks(node)
    .map((b) => b.text)
    .join(' ');
}

/** Reads the parts under `container`; `base` resolves relative URLs, `siteHost` decides internal links. */
export function readParts(
  container: TNode,
  blocks: readonly Block[],
  base: string | null,
  siteHost: string,
): ContentParts {
  const parts: ContentParts = { headings: [], paragraphs: [], lists: [], tables: [], images: [], links: [] };
  const site = siteHost ? registrableHost(siteHost) : '';
  for (const b of blocks) {
    if (!NOT_PARAGRAPH.has(b.owner.tag) && parts.paragraphs.length < LIMIT) parts.paragraphs.push(b.text);
  }
  const stack: TNode[] = [container];
  while (stack.length > 0) {
    const node = stack.pop() as TNode;
    if (node.removed) continue;
    const tag = node.tag;
    if (/^h[1-6]$/.test(tag)) {
      const text = nodeText(node);
      if (text && parts.headings.length < LIMIT) parts.headings.push({ level: Number(tag[1]), text });
    } else if ((tag === 'ul' || tag === 'ol') && parts.lists.length < LIMIT) {
      const items = kidNodes(node)
        .filter((k) => k.tag === 'li')
        .map(nodeText)
        .filter((t) => t.length > 0);
      if (items.length > 0) parts.lists.push({ ordered: tag === 'ol', items });
    } else if (tag === 'table' && parts.tables.length < LIMIT) {
      const table = readTable(node);
      if (table) parts.tables.push(table);
    } else if (tag === 'img' && parts.images.length < LIMIT) {
      const image = readImage(node, base);
      if (image) parts.images.push(image);
    } else if (tag === 'a' && parts.links.length < LIMIT) {
      const href = resolveHref(node.el.getAttribute('href') ?? '', base);
      if (href) {
        const host = hostOf(href);
        parts.links.push({ href, text: nodeText(node), internal: site !== '' && registrableHost(host) === site });
      }
    }
    const kids = kidNodes(node);
    for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i] as TNode);
  }
  return parts;
}

function kidNodes(node: TNode): TNode[] {
  return node.kids.filter((k): k is TNode => typeof k !== 'string' && !k.removed);
}

function rowsOf(table: TNode): TNode[] {
  const rows: TNode[] = [];
  const stack: TNode[] = [...kidNodes(table)].reverse();
  while (stack.length > 0) {
    const n = stack.pop() as TNode;
    if (n.tag === 'tr') rows.push(n);
    else if (n.tag === 'thead' || n.tag === 'tbody' || n.tag === 'tfoot') stack.push(...kidNodes(n).reverse());
  }
  return rows;
}

function readTable(table: TNode): Table | null {
  const rows = rowsOf(table).map((tr) => {
    const cells = kidNodes(tr).filter((c) => c.tag === 'td' || c.tag === 'th');
    return {
      header: (cells.length > 0 && cells.every((c) => c.tag === 'th')) || tr.parent?.tag === 'thead',
      cells: cells.map(nodeText),
    };
  });
  if (rows.length === 0) return null;
  const first = rows[0];
  const headers = first && first.header ? first.cells : [];
  const body = (headers.length > 0 ? rows.slice(1) : rows)
    .map((r) => r.cells)
    .filter((r) => r.some((c) => c.length > 0));
  if (headers.length === 0 && body.length === 0) return null;
  return { headers, rows: body };
}

function readImage(node: TNode, base: string | null): Image | null {
  const el = node.el;
  const candidates = [
    el.getAttribute('src'),
    el.getAttribute('data-src'),
    el.getAttribute('data-lazy-src'),
    firstSrcset(el.getAttribute('srcset')),
  ];
  for (const c of candidates) {
    if (!c || c.startsWith('data:')) continue;
    const src = resolveSrc(c, base);
    if (src) return { src, alt: (el.getAttribute('alt') ?? '').replace(/\s+/g, ' ').trim() };
  }
  return null;
}

function firstSrcset(srcset: string | null): string | null {
  if (!srcset) return null;
  return srcset.trim().split(/\s+/)[0] ?? null;
}
