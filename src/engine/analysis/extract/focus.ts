/**
 * Narrowing the broad candidate by page type. The broad route keeps everything that is not furniture, which on a
 * product page still holds the buy box (prices, sizes, quantity, delivery notes, swatches) around what the page says
 * about the product. A product page's content is its name plus its description and specification sections, which
 * shops name as such ("product-description", "pdp-details", "specs", itemprop="description"); when those sections
 * hold enough text, everything else in the container is set aside.
 */
import type { Block } from './blocks.ts';
import { nodeText } from './parts.ts';
import type { TNode } from './tree.ts';

// Name parts of the sections that describe a product.
const DESCRIPTION_PART =
  /^(?:description|descriptions|desc|details|detail|specs|specifications|specification|features|overview|ingredients|materials)$/;
// Name parts that disqualify a section whatever else it says (review and shipping blocks, short summaries, menus).
const NOT_DESCRIPTION_PART =
  /^(?:reviews?|ratings?|shipping|delivery|returns|meta|nav|menu|short|excerpt|tab|tabs|title|toggle|button|btn|link|label|header|heading|trigger|icon|modal|popup|drawer|swatch|swatches|option|options|variant|variants|price|cart|summary)$/;
const MIN_SECTION = 60;
const MIN_TOTAL = 150;
const PROSE_BLOCK = 80;
const PROSE_COVER = 0.6;

function describes(node: TNode): boolean {
  if (node.el.getAttribute('itemprop') === 'description') return true;
  if (node.attrs.length === 0) return false;
  let hit = false;
  for (const token of node.attrs.split(/\s+/)) {
    for (const part of token.split(/[-_]+/)) {
      if (NOT_DESCRIPTION_PART.test(part)) return false;
      if (DESCRIPTION_PART.test(part)) hit = true;
    }
  }
  return hit;
}

function isProductScope(node: TNode): boolean {
  return /schema\.org\/Product$/i.test(node.el.getAttribute('itemtype') ?? '');
}

/** The outermost description sections under `container` (removed subtrees skipped), in document order. */
function descriptionSections(container: TNode): TNode[] {
  const found: TNode[] = [];
  const stack: TNode[] = [container];
  while (stack.length > 0) {
    const n = stack.pop() as TNode;
    if (n.removed) continue;
    if (n !== container && n.chars >= MIN_SECTION && n.linkChars < 0.4 * n.chars && describes(n)) {
      found.push(n);
      continue;
    }
    for (let i = n.kids.length - 1; i >= 0; i--) {
      const k = n.kids[i];
      if (k !== undefined && typeof k !== 'string') stack.push(k);
    }
  }
  return found;
}

/** Marks as removed everything under `container` that neither holds nor lies inside one of `keep`. */
function keepOnly(container: TNode, keep: readonly TNode[]): void {
  const onPath = new Set<TNode>();
  for (const k of keep) {
    for (let n: TNode | null = k; n && n !== container && !onPath.has(n); n = n.parent) onPath.add(n);
  }
  const kept = new Set(keep);
  const stack: TNode[] = [container];
  while (stack.length > 0) {
    const n = stack.pop() as TNode;
    for (const k of n.kids) {
      if (typeof k === 'string') continue;
      if (!onPath.has(k)) k.removed = true;
      else if (!kept.has(k)) stack.push(k);
    }
  }
}

/**
 * On a product page, keeps only the product's name and its description sections under `container` (looking inside
 * the element marked up as the schema.org Product when there is one). Returns whether anything was narrowed.
 */
export function focusProduct(container: TNode, nodes: readonly TNode[], blocks: readonly Block[]): boolean {
  const h1 = nodes.find((n) => n.tag === 'h1' && n.chars > 0 && isUnder(n, container));
  const scope = nodes.find((n) => isProductScope(n) && n.chars >= MIN_TOTAL && isUnder(n, container)) ?? container;
  const sections = descriptionSections(scope);
  // Drop duplicated sections (the same description in a desktop tab and a mobile accordion).
  const seen = new Set<string>();
  const unique = sections.filter((s) => {
    const key = `${s.chars}:${nodeText(s).slice(0, 200)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const total = unique.reduce((a, s) => a + s.chars, 0);
  if (total < MIN_TOTAL || total > 0.9 * container.chars) return false;
  // The sections must hold most of the running text: a description told outside them is content too.
  let prose = 0;
  let inside = 0;
  for (const b of blocks) {
    if (b.chars - b.linkChars < PROSE_BLOCK) continue;
    prose += b.chars;
    if (unique.some((s) => isUnder(b.owner, s))) inside += b.chars;
  }
  if (inside < PROSE_COVER * prose) return false;
  const keep = h1 && isUnder(h1, container) && !unique.some((s) => isUnder(h1, s)) ? [h1, ...unique] : unique;
  for (const s of sections) if (!unique.includes(s)) s.removed = true;
  keepOnly(container, keep);
  return true;
}

function isUnder(node: TNode, ancestor: TNode): boolean {
  for (let n: TNode | null = node; n; n = n.parent) if (n === ancestor) return true;
  return false;
}
const REPEATED_MAX_CHARS = 40;
const REPEATED_MIN_COUNT = 3;

/**
 * Drops the short lines a page repeats item after item that are nothing but a link ("Shop now",
 * "More like this", "Reply"): the controls of a grid or a thread, not its content. Repeated labels and values
 * that are not links ("Weight:", "Wide", a brand's name) are what a grid says about its items, and stay.
 */
export function dropRepeatedControls(blocks: readonly Block[], linksOnly: boolean): Block[] {
  const counts = new Map<string, number>();
  const control = (b: Block): boolean => b.chars <= REPEATED_MAX_CHARS && (!linksOnly || b.linkChars >= 0.9 * b.chars);
  for (const b of blocks) if (control(b)) counts.set(b.text, (counts.get(b.text) ?? 0) + 1);
  return blocks.filter((b) => !control(b) || (counts.get(b.text) ?? 0) < REPEATED_MIN_COUNT);
}

const MIN_CARDS = 4;
const GRID_SHARE = 0.5;
const INTRO_BLOCK = 150;

/** Siblings of the same tag and leading class name (digits ignored): the cards of one grid. */
function cardKey(node: TNode): string {
  const first = node.attrs.split(/\s+/, 1)[0] ?? '';
  return `${node.tag}|${first.replace(/\d+/g, '')}`;
}

/** The element whose same-shaped children hold the most text, when at least MIN_CARDS of them do. */
function largestGrid(container: TNode): TNode | null {
  let best: TNode | null = null;
  let bestChars = 0;
  const stack: TNode[] = [container];
  while (stack.length > 0) {
    const n = stack.pop() as TNode;
    const groups = new Map<string, { count: number; chars: number }>();
    for (const k of n.kids) {
      if (typeof k === 'string' || k.removed) continue;
      stack.push(k);
      if (k.chars === 0) continue;
      const key = cardKey(k);
      const g = groups.get(key) ?? { count: 0, chars: 0 };
      g.count++;
      g.chars += k.chars;
      groups.set(key, g);
    }
    for (const g of groups.values()) {
      if (g.count >= MIN_CARDS && g.chars > bestChars) {
        best = n;
        bestChars = g.chars;
      }
    }
  }
  return best && bestChars >= GRID_SHARE * container.chars ? best : null;
}

/**
 * On a shop's category page or a listing, keeps the page's heading, the largest grid of same-shaped cards and the
 * running text outside it (a category's introduction), setting aside the filters, sort bars, pagination and promos
 * around the grid. Returns whether anything was narrowed.
 */
export function focusGrid(container: TNode, nodes: readonly TNode[], blocks: readonly Block[]): boolean {
  const grid = largestGrid(container);
  if (!grid || grid === container) return false;
  const keep: TNode[] = [grid];
  const h1 = nodes.find((n) => n.tag === 'h1' && n.chars > 0 && isUnder(n, container));
  if (h1 && !isUnder(h1, grid)) keep.push(h1);
  for (const b of blocks) {
    if (b.chars - b.linkChars >= INTRO_BLOCK && b.linkChars < 0.3 * b.chars && !isUnder(b.owner, grid)) {
      if (!keep.some((k) => isUnder(b.owner, k) || isUnder(k, b.owner))) keep.push(b.owner);
    }
  }
  keepOnly(container, keep);
  return true;
}
