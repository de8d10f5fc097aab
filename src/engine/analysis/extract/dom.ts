/**
 * The narrow slice of a DOM that extraction uses, and parsing into it with linkedom. Traversals are iterative so a
 * deeply nested page cannot overflow the stack.
 */
import { parseHTML } from 'linkedom';
// Nodes without a listener map each, before any page is parsed (see the module).
import './linkedom-lite.ts';

export const ELEMENT_NODE = 1;
export const TEXT_NODE = 3;

export interface DomNode {
  readonly nodeType: number;
  readonly parentNode: DomNode | null;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly nodeValue: string | null;
}

export interface DomElement extends DomNode {
  readonly localName: string;
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
  remove(): void;
}

export interface DomDocument extends DomNode {
  readonly documentElement: DomElement | null;
  readonly childNodes: ArrayLike<DomNode>;
}

const DOCUMENT_NODE = 9;

/** True for element nodes. */
export function isElement(node: DomNode): node is DomElement {
  return node.nodeType === ELEMENT_NODE;
}

/**
 * Parses HTML into a document. linkedom leaves a bare fragment without <html>/<body> and throws on input with no
 * element at all, so such input is wrapped first; null only when even that fails.
 */
export function parseDocument(html: string): DomDocument | null {
  const whole = /<html[\s>]/i.test(html.slice(0, 4096)) || /<html[\s>]/i.test(html);
  const source = whole ? html : `<!DOCTYPE html><html><head></head><body>${html}</body></html>`;
  try {
    return parseHTML(source).document as unknown as DomDocument;
  } catch {
    try {
      return parseHTML(`<!DOCTYPE html><html><head></head><body>${escapeText(html)}</body></html>`)
        .document as unknown as DomDocument;
    } catch {
      return null;
    }
  }
}

function escapeText(text: string): string {
  return text.replace(/[<>&]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&amp;'));
}

/** Lower-cased tag name, '' for non-elements. */
export function tagOf(node: DomNode): string {
  return node.nodeType === ELEMENT_NODE ? (node as DomElement).localName.toLowerCase() : '';
}

/**
 * Visits every element under `root` (not `root` itself) in document order; returning false from `enter` skips that
 * element's subtree.
 */
export function walkElements(root: DomNode, enter: (el: DomElement) => boolean | void): void {
  const stack: DomNode[] = [];
  pushChildren(stack, root);
  while (stack.length > 0) {
    const node = stack.pop() as DomNode;
    if (!isElement(node)) continue;
    if (enter(node) === false) continue;
    pushChildren(stack, node);
  }
}

/** Pushes a node's children so that popping yields them in document order. */
function pushChildren(stack: DomNode[], node: DomNode): void {
  const start = stack.length;
  if (node.nodeType === DOCUMENT_NODE) {
    // linkedom's doctype node has no nextSibling, so the document's children are read from its list.
    const list = (node as DomDocument).childNodes;
    for (let i = 0; i < list.length; i++) stack.push(list[i] as DomNode);
  } else {
    for (let c = node.firstChild; c; c = c.nextSibling) stack.push(c);
  }
  for (let i = start, j = stack.length - 1; i < j; i++, j--) {
    const t = stack[i] as DomNode;
    stack[i] = stack[j] as DomNode;
    stack[j] = t;
  }
}

/** Collapses runs of whitespace (including NBSP) to one space and trims. */
export function normalizeSpace(text: string): string {
  return text.replace(/[\s\u00a0\u200b]+/g, ' ').trim();
}

/** Whitespace-normalised text of a subtree, without script/style/template content. */
export function textOf(root: DomNode): string {
  const parts: string[] = [];
  const stack: DomNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as DomNode;
    if (node.nodeType === TEXT_NODE) {
      parts.push(node.nodeValue ?? '');
      continue;
    }
    if (!isElement(node) && node !== root) continue;
    const tag = tagOf(node);
    if (tag === 'script' || tag === 'style' || tag === 'template' || tag === 'noscript') continue;
    pushChildren(stack, node);
  }
  return normalizeSpace(parts.join(''));
}
