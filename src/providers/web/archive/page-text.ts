/**
 * The costly part of indexing one archived page for search, on its own: decoding its bytes, extracting its main
 * text and title, splitting the text into sentences and termizing them. A pure function of the page, so it gives
 * the same answer in a worker thread (page-text-workers.ts) as in the thread that writes the index.
 */
import { decodeText } from './body.ts';
import { fallbackExtractText } from './fallback-extract.ts';
import type { ExtractText } from './fallback-extract.ts';
import { sentenceText } from './snippet.ts';

/** One archived HTML page as the index reads it: its URL, its payload and the types it was served with. */
export interface PageInput {
  url: string;
  payload: Uint8Array;
  /** The `Content-Type` header as archived, for its charset. */
  contentTypeHeader: string | null;
  /** The MIME type the index recorded. */
  contentType: string | null;
}

/** What the search index stores of a page. */
export interface PageText {
  /** The extracted title, or the URL when the page has none. */
  title: string;
  sentences: string[];
  /** Per sentence, its terms joined by single spaces. */
  terms: string[];
  titleTerms: string[];
}

/** Indexes pages' text somewhere (this thread or workers); answers in any order, each page's own text. */
export type PageTexts = (page: PageInput) => Promise<PageText>;

/** The text of one page; `termize` is shared across pages for its stem cache (its answers do not depend on it). */
export function pageText(page: PageInput, extractText: ExtractText, termize: (text: string) => string[]): PageText {
  const html = decodeText(page.payload, page.contentTypeHeader, page.contentType).text;
  let extracted: { title: string; text: string };
  try {
    extracted = extractText(html, page.url);
  } catch {
    // One page the extractor cannot handle must not take search down; the fallback reads anything linkedom parses.
    extracted = fallbackExtractText(html, page.url);
  }
  const title = extracted.title.trim() || page.url;
  const text = sentenceText(extracted.text, termize);
  return { title, sentences: text.sentences, terms: text.terms, titleTerms: termize(title) };
}
