/**
 * Marks page furniture as removed: navigation, headers and footers, sidebars, cookie and consent banners, share
 * widgets, related-post blocks, comment forms. Semantic tags and ARIA roles are trusted; class and id names are
 * hints. A subtree holding most of the page's text is never furniture, whatever its name says.
 */
import type { TNode } from './tree.ts';

const FURNITURE_TAGS = new Set(['nav', 'footer', 'aside', 'menu']);
const FURNITURE_ROLES = new Set([
  'navigation', 'banner', 'contentinfo', 'complementary', 'search', 'menu', 'menubar', 'toolbar', 'dialog',
  'alertdialog', 'tablist',
]);

const NEGATIVE = new RegExp(
  '(?:^|[\\s_-])(?:' +
    [
      'nav', 'navbar', 'navigation', 'menu', 'menus', 'submenu', 'megamenu', 'breadcrumbs?', 'footer', 'sidebar',
      'widget', 'widgets', 'cookies?', 'consent', 'gdpr', 'share', 'sharing', 'social', 'socials', 'sharedaddy',
      'addthis', 'related', 'recommended', 'newsletter', 'subscribe', 'subscription', 'popup', 'modal', 'advert',
      'advertisement', 'ads', 'ad', 'sponsored', 'promo', 'pagination', 'pager', 'skip', 'toolbar', 'masthead',
      'disqus', 'outbrain', 'taboola', 'comments?', 'respond', 'login', 'signup', 'search',
    ].join('|') +
    ')(?:$|[\\s_-])',
);

export interface FurnitureOptions {
  /** Above this share of the page's text a subtree is kept whatever its tag or name. */
  maxShare: number;
}

const DEFAULTS: FurnitureOptions = { maxShare: 0.5 };

/** Sets `removed` on furniture subtrees under `root`. */
export function markFurniture(root: TNode, options: FurnitureOptions = DEFAULTS): void {
  const total = Math.max(1, root.chars);
  const stack: [TNode, boolean][] = [[root, false]];
  while (stack.length > 0) {
    const [node, inMain] = stack.pop() as [TNode, boolean];
    if (node !== root && node.chars / total < options.maxShare && isFurniture(node, inMain)) {
      node.removed = true;
      continue;
    }
    const nowInMain = inMain || node.tag === 'main' || node.tag === 'article';
    for (const k of node.kids) if (typeof k !== 'string') stack.push([k, nowInMain]);
  }
}

function isFurniture(node: TNode, inMain: boolean): boolean {
  if (FURNITURE_TAGS.has(node.tag)) return true;
  if (node.tag === 'header' && !inMain) return true;
  const role = node.el.getAttribute('role');
  if (role && FURNITURE_ROLES.has(role.toLowerCase())) return true;
  if (node.tag === 'body' || node.tag === 'main' || node.tag === 'article' || node.tag === 'html') return false;
  return node.attrs.length > 0 && NEGATIVE.test(node.attrs);
}
