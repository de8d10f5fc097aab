/**
 * Turns a subtree into text blocks the way a browser lays it out: block-level elements start a new block, inline
 * elements flow into the current one. Each block remembers the element that owns it and how much of it is link text.
 */
import type { TNode } from './tree.ts';

export interface Block {
  owner: TNode;
  text: string;
  chars: number;
  linkChars: number;
}

const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'br',
  'dialog',
  'search',
  'output',
]);

/** Splits the subtree under `root` into blocks in document order, skipping removed subtrees. */
export function collectBlocks(root: TNode): Block[] {
  const blocks: Block[] = [];
  let parts: string[] = [];
  let linkChars = 0;
  let owner = root;
  const flush = (): void => {
    if (parts.length === 0) return;
    const text = parts
      .join('')
      .replace(/[\s\u00a0\u200b]+/g, ' ')
      .trim();
    if (text) blocks.push({ owner, text, chars: text.length, linkChars: Math.min(linkChars, text.length) });
    parts = [];
    linkChars = 0;
  };
  const visit = (node: TNode, inLink: boolean): void => {
    const block = BLOCK_TAGS.has(node.tag);
    const saved = owner;
    if (block) {
      flush();
      owner = node;
    }
    const link = inLink || node.tag === 'a';
    for (const k of node.kids) {
      if (typeof k === 'string') {
        parts.push(k);
        if (link) linkChars += k.trim().length;
      } else if (!k.removed) {
        if ((k.tag === 'td' || k.tag === 'th') && parts.length > 0) parts.push(' ');
        visit(k, link);
      }
    }
    if (block) {
      flush();
      owner = saved;
    }
  };
  if (!root.removed) visit(root, false);
  flush();
  return blocks;
}

/** Joins blocks into text: list items, table rows and definition items on their own lines, other blocks as paragraphs. */
export function joinBlocks(blocks: readonly Block[]): string {
  let out = '';
  for (const b of blocks) {
    if (out) out += isLineTag(b.owner.tag) ? '\n' : '\n\n';
    out += b.text;
  }
  return out;
}

function isLineTag(tag: string): boolean {
  return tag === 'li' || tag === 'td' || tag === 'th' || tag === 'tr' || tag === 'dt' || tag === 'dd' || tag === 'br';
}
