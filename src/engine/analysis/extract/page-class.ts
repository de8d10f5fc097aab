/**
 * The page type extraction profiles by: the page-type classifier (page-type/) run on a preliminary extraction whose
 * main content is the broad candidate. The classifier's features read main-content figures (words, paragraphs, link
 * density), and the broad candidate is what non-article pages end up with anyway, so the figures are close to the
 * final ones while costing one read of the parts, not a second extraction.
 */
import { joinBlocks } from './blocks.ts';
import type { MainContent } from './main-content.ts';
import { nodeText, readParts } from './parts.ts';
import { type PageType, classifyPage } from '../page-type/index.ts';
import type { TNode } from './tree.ts';
import type { Extraction } from './types.ts';

/** Classifies `out` (metadata and page signals filled in) as if `broad` were its main content. */
export function classifyBroad(
  out: Extraction,
  broad: MainContent,
  base: string | null,
  siteHost: string,
  pageH1: TNode | undefined,
): PageType {
  const mainText = joinBlocks(broad.blocks);
  const preliminary: Extraction = {
    ...out,
    ...readParts(broad.container, broad.blocks, base, siteHost),
    mainText,
    wordCount: (mainText.match(/[\p{L}\p{N}_]+/gu) ?? []).length,
    h1: pageH1 ? nodeText(pageH1) : '',
  };
  return classifyPage(preliminary).type;
}
