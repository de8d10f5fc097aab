/** `extract(html)`: page metadata plus the main content of a page, parsed once with linkedom. */
import { joinBlocks } from './blocks.ts';
import { parseDocument } from './dom.ts';
import { findMainContent } from './main-content.ts';
import { readMetadata } from './metadata.ts';
import { parseStructuredData } from './structured-data.ts';
import { buildTree } from './tree.ts';
import type { ExtractOptions, Extraction } from './types.ts';

export type * from './types.ts';

/** An Extraction with nothing in it. */
export function emptyExtraction(): Extraction {
  return {
    title: '', metaDescription: '', canonical: '', lang: '', h1: '', headings: [], mainText: '', wordCount: 0,
    paragraphs: [], lists: [], tables: [], images: [], links: [],
    structuredData: { faq: [], articles: [], products: [], types: [] },
  };
}

/** Extracts metadata and main content from an HTML string; never throws. */
export function extract(html: string, options: ExtractOptions = {}): Extraction {
  try {
    return extractUnsafe(typeof html === 'string' ? html : '', options);
  } catch {
    return emptyExtraction();
  }
}

function extractUnsafe(html: string, _options: ExtractOptions): Extraction {
  const out = emptyExtraction();
  const doc = parseDocument(html);
  if (!doc) return out;
  const meta = readMetadata(doc);
  out.title = meta.title;
  out.metaDescription = meta.metaDescription;
  out.canonical = meta.canonical;
  out.lang = meta.lang;
  out.structuredData = parseStructuredData(meta.jsonLd);
  const { root } = buildTree(doc);
  const main = findMainContent(root);
  out.mainText = joinBlocks(main.blocks);
  out.wordCount = (out.mainText.match(/[\p{L}\p{N}_]+/gu) ?? []).length;
  return out;
}
