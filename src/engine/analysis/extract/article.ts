/**
 * The article route: Mozilla Readability run on the already parsed document, its result element turned into our
 * tree. Readability is the best proven algorithm for article bodies; it mutates the document, so it runs only after
 * everything else has been read from the DOM.
 */
import { Readability } from '@mozilla/readability';
import type { DomDocument, DomElement } from './dom.ts';
import { buildTree, type TNode } from './tree.ts';

/** Readability's article subtree as a tree, or null when Readability finds nothing (or fails). */
export function readabilityTree(doc: DomDocument): TNode | null {
  try {
    // The serializer hands back the article element itself, so nothing is serialised and parsed again.
    const reader = new Readability(doc as never, { serializer: (el: unknown) => el as DomElement, keepClasses: true });
    const result = reader.parse();
    const el = result?.content;
    if (!el) return null;
    return buildTree(el).root;
  } catch {
    return null;
  }
}
