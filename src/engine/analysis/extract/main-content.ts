/**
 * Main-content selection. Page furniture is marked first (navigation, headers, footers, banners...). The broad
 * candidate is what remains of <main> (or the whole body); articles take Readability's tighter result instead when
 * it holds the page's running text, which is the case on news and blog pages and not on listings, shops or forums.
 */
import { readabilityTree } from './article.ts';
import { type Block, collectBlocks } from './blocks.ts';
import { type FurnitureOptions, markFurniture } from './boilerplate.ts';
import type { DomDocument } from './dom.ts';
import { dropRepeatedControls, focusGrid, focusProduct } from './focus.ts';
import type { ExtractionProfile } from './profile.ts';
import type { TNode } from './tree.ts';

export interface MainContent {
  container: TNode;
  blocks: Block[];
  route: 'broad' | 'article';
}

export interface RouteThresholds {
  /** Pages marked up as articles take Readability's result when it covers this share of the broad text. */
  articleCover: number;
  /** Other pages take it when it holds this share of the running text (long paragraphs). */
  proseCover: number;
  /** Non-link characters from which a block counts as running text. */
  proseBlock: number;
}

export const DEFAULT_THRESHOLDS: RouteThresholds = { articleCover: 0.1, proseCover: 0.6, proseBlock: 150 };

/**
 * The broad candidate alone: furniture marked by the profile's rules (earlier marks cleared), then what remains of
 * <main> or the whole body. Cheap, so extraction reads it once before the page type is known and classifies on it.
 */
export function broadContent(root: TNode, nodes: readonly TNode[], profile: ExtractionProfile): MainContent {
  for (const n of nodes) n.removed = false;
  markFurniture(root, furnitureOptions(profile));
  const container = broadContainer(root, nodes);
  return { container, blocks: collectBlocks(container), route: 'broad' };
}

/** Whether two profiles mark the same furniture, so one's broad candidate serves the other. */
export function sameFurniture(a: ExtractionProfile, b: ExtractionProfile): boolean {
  return a.keepComments === b.keepComments && a.furniture === b.furniture && a.inPostFurniture === b.inPostFurniture;
}

function furnitureOptions(profile: ExtractionProfile): FurnitureOptions {
  return {
    maxShare: 0.5,
    keepComments: profile.keepComments,
    typeFurniture: profile.furniture,
    inPostFurniture: profile.inPostFurniture,
  };
}

/**
 * Picks the main content of a page whose tree was built from `doc`; `doc` is mutated when Readability runs. `broad`
 * is the page's broad candidate when it was already read under the same furniture rules.
 */
export function findMainContent(
  doc: DomDocument,
  root: TNode,
  profile: ExtractionProfile,
  nodes: readonly TNode[],
  broad?: MainContent,
  thresholds: RouteThresholds = DEFAULT_THRESHOLDS,
): MainContent {
  const main = pickMainContent(doc, root, profile, nodes, broad, thresholds);
  if (profile.repeated === 'none') return main;
  return { ...main, blocks: dropRepeatedControls(main.blocks, profile.repeated === 'links') };
}

function pickMainContent(
  doc: DomDocument,
  root: TNode,
  profile: ExtractionProfile,
  nodes: readonly TNode[],
  given: MainContent | undefined,
  thresholds: RouteThresholds,
): MainContent {
  const broad = given ?? broadContent(root, nodes, profile);
  // Narrowing marks more of the broad container as removed; what is left is read again.
  const focus = profile.focus === 'product' ? focusProduct : profile.focus === 'grid' ? focusGrid : null;
  if (focus?.(broad.container, nodes, broad.blocks)) {
    return { container: broad.container, blocks: collectBlocks(broad.container), route: 'broad' };
  }
  const blocks = broad.blocks;
  if (profile.readability === 'never') return broad;
  const isArticle = profile.readability === 'article';
  // Without running text there is nothing Readability could be right about, and it is the slow part.
  const prose = blocks.filter((b) => b.chars - b.linkChars >= thresholds.proseBlock && b.linkChars < 0.3 * b.chars);
  if (!isArticle && prose.length === 0) return broad;
  // Furniture leaves the DOM before Readability sees it, so both routes share one idea of what furniture is.
  for (const n of nodes) if (n.removed && !n.parent?.removed) n.el.remove();
  // Only a page marked up as an article is worth Readability's looser retries: elsewhere a short strict result
  // loses to the broad route anyway (measured on the extraction bench: F1 no lower, extraction a few percent faster).
  const article = readabilityTree(doc, isArticle);
  if (!article) return broad;
  markFurniture(article, furnitureOptions(profile));
  const articleBlocks = collectBlocks(article);
  const articleWords = wordBag(articleBlocks.map((b) => b.text));
  const chosen: MainContent = { container: article, blocks: articleBlocks, route: 'article' };
  if (isArticle) {
    const broadWords = words(blocks.map((b) => b.text));
    return overlap(articleWords, broadWords) >= thresholds.articleCover * broadWords.length ? chosen : broad;
  }
  const proseWords = words(prose.map((b) => b.text));
  return overlap(articleWords, proseWords) >= (profile.proseCover ?? thresholds.proseCover) * proseWords.length
    ? chosen
    : broad;
}

/** The first sizeable <main> (or role=main) outside furniture, else the whole tree. */
function broadContainer(root: TNode, nodes: readonly TNode[]): TNode {
  for (const n of nodes) {
    if ((n.tag === 'main' || n.el.getAttribute('role') === 'main') && n.chars > 200 && !isRemoved(n)) return n;
  }
  return root;
}

function isRemoved(node: TNode): boolean {
  for (let n: TNode | null = node; n; n = n.parent) if (n.removed) return true;
  return false;
}

function words(texts: readonly string[]): string[] {
  return (
    texts
      .join(' ')
      .toLowerCase()
      .match(/[\p{L}\p{N}_]+/gu) ?? []
  );
}

function wordBag(texts: readonly string[]): Map<string, number> {
  const bag = new Map<string, number>();
  for (const w of words(texts)) bag.set(w, (bag.get(w) ?? 0) + 1);
  return bag;
}

/** How many of `list`'s words the bag can match, each bag word used at most as often as it occurs. */
function overlap(bag: Map<string, number>, list: readonly string[]): number {
  const left = new Map(bag);
  let n = 0;
  for (const w of list) {
    const c = left.get(w) ?? 0;
    if (c > 0) {
      n++;
      left.set(w, c - 1);
    }
  }
  return n;
}
