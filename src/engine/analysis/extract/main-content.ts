/**
 * Main-content selection. Every text block gets a value: positive for sentence-like text with few links, negative
 * for link lists and short fragments. The main content is the element whose blocks add up to the highest value
 * (a maximum-sum subtree), found in one bottom-up pass after page furniture has been marked.
 */
import { type Block, collectBlocks } from './blocks.ts';
import { markFurniture } from './boilerplate.ts';
import type { TNode } from './tree.ts';

export interface ScoringWeights {
  /** Non-link characters from which a block counts as running text. */
  longBlock: number;
  /** Penalty per character of a link-dominated block. */
  linkPenalty: number;
  /** Penalty per character of a short non-link block. */
  shortPenalty: number;
}

export const DEFAULT_WEIGHTS: ScoringWeights = { longBlock: 60, linkPenalty: 0.5, shortPenalty: 0.2 };

export interface MainContent {
  container: TNode;
  blocks: Block[];
}

/** Value of one block towards the element that holds it. */
export function blockValue(b: Block, w: ScoringWeights): number {
  if (b.chars === 0) return 0;
  const own = b.chars - b.linkChars;
  if (b.linkChars / b.chars > 0.5) return -b.chars * w.linkPenalty;
  if (own >= w.longBlock) return own;
  return -own * w.shortPenalty;
}

/** Marks furniture, then picks the highest-value element and returns its blocks. */
export function findMainContent(root: TNode, weights: ScoringWeights = DEFAULT_WEIGHTS): MainContent {
  markFurniture(root);
  const all = collectBlocks(root);
  const score = new Map<TNode, number>();
  for (const b of all) {
    const v = blockValue(b, weights);
    for (let n: TNode | null = b.owner; n; n = n.parent) score.set(n, (score.get(n) ?? 0) + v);
  }
  let best = root;
  let bestScore = -Infinity;
  for (const [node, s] of score) {
    if (s > bestScore || (s === bestScore && node.depth < best.depth)) {
      best = node;
      bestScore = s;
    }
  }
  const inside = all.filter((b) => isInside(b.owner, best));
  return { container: best, blocks: inside };
}

function isInside(node: TNode, ancestor: TNode): boolean {
  for (let n: TNode | null = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}
