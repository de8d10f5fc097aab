/** `extract(html)`: page metadata plus the main content of a page, parsed once with linkedom. */
import { joinBlocks } from './blocks.ts';
import { cleanExtraction } from './clean.ts';
import { parseDocument } from './dom.ts';
import { broadContent, findMainContent, sameFurniture } from './main-content.ts';
import { classifyBroad } from './page-class.ts';
import { readMetadata } from './metadata.ts';
import { guessPageKind } from './page-type.ts';
import { productFallback } from './product.ts';
import { profileFor } from './profile.ts';
import {
  type PageSignals,
  emptyControls,
  noteControl,
  readHeadSignals,
  readTreeSignals,
} from '../page-type/signals.ts';
import { nodeText, readParts } from './parts.ts';
import { parseStructuredData } from './structured-data.ts';
import { type TNode, buildTree } from './tree.ts';
import type { ExtractOptions, Extraction, Heading } from './types.ts';
import { hostOf, resolveHref } from './urls.ts';

export type * from './types.ts';

/** An Extraction with nothing in it. */
export function emptyExtraction(): Extraction {
  return {
    title: '',
    metaDescription: '',
    siteName: '',
    canonical: '',
    lang: '',
    h1: '',
    headings: [],
    mainText: '',
    wordCount: 0,
    paragraphs: [],
    lists: [],
    tables: [],
    images: [],
    links: [],
    structuredData: { faq: [], articles: [], products: [], types: [] },
  };
}

/**
 * Extracts metadata and main content from an HTML string; never throws. Its text is clean of what operation inputs
 * refuse (clean.ts), so it can reach artifacts a client sends back.
 */
export function extract(html: string, options: ExtractOptions = {}): Extraction {
  try {
    return cleanExtraction(extractUnsafe(typeof html === 'string' ? html : '', options));
  } catch {
    return emptyExtraction();
  }
}

function extractUnsafe(html: string, options: ExtractOptions): Extraction {
  const out = emptyExtraction();
  const doc = parseDocument(html);
  if (!doc) return out;
  const controls = emptyControls();
  const meta = readMetadata(doc, (el, tag) => {
    if (tag === 'button' || tag === 'input' || tag === 'textarea') noteControl(el, tag, controls);
  });
  const pageUrl = resolveHref(options.url ?? '', null);
  out.title = meta.title;
  out.metaDescription = meta.metaDescription;
  out.siteName = meta.siteName;
  out.canonical = meta.canonical ? (resolveHref(meta.canonical, pageUrl) ?? meta.canonical) : '';
  out.lang = meta.lang;
  out.structuredData = parseStructuredData(meta.jsonLd);
  const docUrl = pageUrl ?? resolveHref(out.canonical, null);
  const base = (meta.baseHref ? resolveHref(meta.baseHref, docUrl) : null) ?? docUrl;
  const { root, nodes } = buildTree(doc);
  const pageH1 = nodes.find((n) => n.tag === 'h1');
  const kind = guessPageKind(meta, out.structuredData.types, docUrl ?? '');
  // Read before findMainContent: furniture marking and Readability change the tree and the document.
  const signals: PageSignals = { ...controls };
  readHeadSignals(meta, out.structuredData.types, docUrl ?? '', signals);
  readTreeSignals(nodes, signals);
  out.pageSignals = signals;
  // The page type decides the profile; the markup's guess decides how the broad candidate to classify on is read.
  const first = profileFor(kind, kind);
  const broad = broadContent(root, nodes, first);
  const type = options.pageType ?? classifyBroad(out, broad, base, hostOf(docUrl ?? ''), pageH1);
  const profile = profileFor(type, kind);
  const main = findMainContent(doc, root, profile, nodes, sameFurniture(first, profile) ? broad : undefined);
  out.mainText = joinBlocks(main.blocks);
  const fromData = profile.type === 'product' ? productFallback(out.mainText, out.structuredData) : null;
  if (fromData) out.mainText = fromData;
  out.wordCount = (out.mainText.match(/[\p{L}\p{N}_]+/gu) ?? []).length;
  const parts = readParts(main.container, main.blocks, base, hostOf(docUrl ?? ''));
  Object.assign(out, parts);
  if (fromData) out.paragraphs = fromData.split(/\n{2,}/).filter((t) => t.trim().length > 0);
  if (main.route === 'article') out.headings = restoreLevels(out.headings, nodes);
  out.h1 = firstH1(main.container) ?? (pageH1 ? nodeText(pageH1) : '');
  return out;
}

/** Readability demotes <h1> to <h2>; give headings back the level they have on the page. */
function restoreLevels(headings: Heading[], nodes: readonly TNode[]): Heading[] {
  const levels = new Map<string, number>();
  for (const n of nodes) {
    if (/^h[1-6]$/.test(n.tag)) {
      const text = nodeText(n);
      if (!levels.has(text)) levels.set(text, Number(n.tag[1]));
    }
  }
  return headings.map((h) => ({ level: levels.get(h.text) ?? h.level, text: h.text }));
}

function firstH1(container: TNode): string | null {
  const stack: TNode[] = [container];
  while (stack.length > 0) {
    const n = stack.pop() as TNode;
    if (n.removed) continue;
    if (n.tag === 'h1') return nodeText(n) || null;
    for (let i = n.kids.length - 1; i >= 0; i--) {
      const k = n.kids[i];
      if (k !== undefined && typeof k !== 'string') stack.push(k);
    }
  }
  return null;
}
