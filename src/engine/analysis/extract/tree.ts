/**
 * A compact copy of the document body: elements as plain objects with their text sizes, so scoring and rendering
 * walk JavaScript arrays instead of linkedom's getters. Invisible and non-text elements are left out at build time.
 */
import { type DomDocument, type DomElement, type DomNode, ELEMENT_NODE, TEXT_NODE, tagOf } from './dom.ts';

export interface TNode {
  el: DomElement;
  tag: string;
  /** Lower-cased `class` and `id`, space separated, for boilerplate hints. */
  attrs: string;
  parent: TNode | null;
  kids: (TNode | string)[];
  /** Characters of whitespace-collapsed text in the subtree. */
  chars: number;
  /** Of `chars`, those inside links. */
  linkChars: number;
  depth: number;
  /** Set by boilerplate removal: the subtree is not content. */
  removed: boolean;
}

// Elements whose content is never visible text on the page.
const SKIP = new Set([
  'head',
  'script',
  'style',
  'template',
  'svg',
  'canvas',
  'iframe',
  'object',
  'embed',
  'meta',
  'link',
  'select',
  'option',
  'input',
  'textarea',
  'button',
  'map',
  'audio',
  'video',
  'source',
  'track',
  'datalist',
  'dialog',
]);

const MAX_DEPTH = 400;
const NOSCRIPT_MIN_CHARS = 500;

/**
 * Builds the tree under the document's root element (body and anything a broken page left beside it), or under
 * any element.
 */
export function buildTree(from: DomDocument | DomElement): { root: TNode; nodes: TNode[] } {
  const rootEl = ('documentElement' in from ? (from.documentElement ?? from) : from) as DomElement;
  const root = makeNode(rootEl, tagOf(rootEl) || 'html', null, 0);
  const nodes: TNode[] = [root];
  const stack: [DomNode, TNode][] = [];
  pushKids(stack, rootEl, root);
  while (stack.length > 0) {
    const [dom, parent] = stack.pop() as [DomNode, TNode];
    if (dom.nodeType === TEXT_NODE) {
      const v = dom.nodeValue ?? '';
      if (v) parent.kids.push(v);
      continue;
    }
    if (dom.nodeType !== ELEMENT_NODE) continue;
    const el = dom as DomElement;
    const tag = tagOf(el);
    if (SKIP.has(tag) || isHidden(el)) continue;
    const node = makeNode(el, tag, parent, parent.depth + 1);
    parent.kids.push(node);
    nodes.push(node);
    if (node.depth < MAX_DEPTH) pushKids(stack, el, node);
  }
  // Nodes are in pre-order, so walking backwards sees every child before its parent.
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i] as TNode;
    let chars = 0;
    let linkChars = 0;
    for (const k of node.kids) {
      if (typeof k === 'string') chars += visibleLength(k);
      else {
        chars += k.chars;
        linkChars += k.linkChars;
      }
    }
    node.chars = chars;
    node.linkChars = node.tag === 'a' ? chars : linkChars;
    // <noscript> is invisible in a browser, except that shells like Discourse's put the whole crawler view of the
    // page there; small ones (tracking pixels, "enable JavaScript") stay out.
    if (node.tag === 'noscript' && chars < NOSCRIPT_MIN_CHARS) node.removed = true;
  }
  return { root, nodes };
}

function makeNode(el: DomElement, tag: string, parent: TNode | null, depth: number): TNode {
  const attrs = `${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''}`.toLowerCase().trim();
  return { el, tag, attrs, parent, kids: [], chars: 0, linkChars: 0, depth, removed: false };
}

function pushKids(stack: [DomNode, TNode][], el: DomNode, parent: TNode): void {
  const start = stack.length;
  for (let c = el.firstChild; c; c = c.nextSibling) stack.push([c, parent]);
  for (let i = start, j = stack.length - 1; i < j; i++, j--) {
    const t = stack[i] as [DomNode, TNode];
    stack[i] = stack[j] as [DomNode, TNode];
    stack[j] = t;
  }
}

/** Length of a text node once runs of whitespace count as one character. */
function visibleLength(text: string): number {
  let n = 0;
  let space = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ws = c === 32 || c === 10 || c === 9 || c === 13 || c === 160 || c === 12;
    if (ws) {
      if (!space) n++;
      space = true;
    } else {
      n++;
      space = false;
    }
  }
  return n;
}

// Utility classes that hide an element (Bootstrap, Tailwind, WordPress, IPS), and the responsive ones that show it
// again from some breakpoint up ("hidden md:block", "d-none d-lg-flex"), which a desktop rendering would show.
const HIDING_CLASS =
  /^(?:d-none|hidden|hide|is-hidden|ipshide|sr-only|visually-hidden|visuallyhidden|screen-reader-text|screen-reader-only|u-hidden)$/;
const SHOWING_CLASS = /^(?:sm|md|lg|xl|2xl):|^d-(?:sm|md|lg|xl|xxl)-/;

function hiddenByClass(cls: string): boolean {
  let hides = false;
  for (const token of cls.toLowerCase().split(/\s+/)) {
    if (SHOWING_CLASS.test(token)) return false;
    if (HIDING_CLASS.test(token)) hides = true;
  }
  return hides;
}

function isHidden(el: DomElement): boolean {
  // React streaming SSR parks resolved content in <div hidden id="S:0"> until its script moves it into place.
  if (el.hasAttribute('hidden') && !/^S:/.test(el.getAttribute('id') ?? '')) return true;
  if (el.getAttribute('aria-hidden') === 'true') return true;
  const cls = el.getAttribute('class');
  if (cls && hiddenByClass(cls)) return true;
  const style = el.getAttribute('style');
  if (style && /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(style)) return true;
  return false;
}
