/**
 * The article route: Mozilla Readability run on the already parsed document, its result element turned into our
 * tree. Readability is the best proven algorithm for article bodies; it mutates the document, so it runs only after
 * everything else has been read from the DOM.
 */
import { Readability } from '@mozilla/readability';
import type { DomDocument, DomElement } from './dom.ts';
import { buildTree, type TNode } from './tree.ts';

/** Readability keeps retrying, with looser rules, until its article holds this many characters. */
const CHAR_THRESHOLD = 500;

/**
 * Readability's article subtree as a tree, or null when Readability finds nothing (or fails). Without `retry` its
 * first, strict pass is the only one: an article shorter than its threshold answers null, so the page keeps the broad
 * route. Each retry parses the page again, which is most of Readability's cost on the pages that need it.
 */
export function readabilityTree(doc: DomDocument, retry = true): TNode | null {
  try {
    // The serializer hands back the article element itself, so nothing is serialised and parsed again.
    const reader = new Readability(doc as never, {
      serializer: (el: unknown) => el as DomElement,
      keepClasses: true,
      charThreshold: retry ? CHAR_THRESHOLD : 0,
    });
    const result = reader.parse();
    const el = result?.content;
    if (!el) return null;
    if (!retry && (result?.length ?? 0) < CHAR_THRESHOLD) return null;
    return buildTree(el).root;
  } catch {
    return null;
  }
}
