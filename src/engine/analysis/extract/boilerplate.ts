/**
 * Marks page furniture as removed: navigation, headers and footers, sidebars, cookie and consent banners, share
 * widgets, related-post blocks, comment sections. Semantic tags and ARIA roles are trusted; class and id names are
 * hints, matched on whole class tokens (a page builder's "elementor-widget-wrap" is not a widget sidebar). A
 * subtree holding most of the page's text is never furniture, whatever its name says.
 */
import type { TNode } from './tree.ts';

const FURNITURE_ROLES = new Set([
  'navigation',
  'banner',
  'contentinfo',
  'complementary',
  'search',
  'menu',
  'menubar',
  'toolbar',
  'alertdialog',
]);

const FURNITURE_WORDS = [
  'nav',
  'navbar',
  'navigation',
  'navlinks',
  'menu',
  'menubar',
  'submenu',
  'megamenu',
  'breadcrumbs?',
  'footer',
  'sidebar',
  'cookies?',
  'cookiebar',
  'consent',
  'gdpr',
  'share',
  'sharing',
  'sharebar',
  'social',
  'socials',
  'sharedaddy',
  'addthis',
  'related',
  'newsletter',
  'subscribe',
  'subscription',
  'advert',
  'advertisement',
  'ads',
  'ad',
  'sponsored',
  'promo',
  'pagination',
  'pager',
  'toolbar',
  'masthead',
  'disqus',
  'outbrain',
  'taboola',
  'login',
  'signup',
  'skiplinks?',
  'upsells?',
  'cross-?sells?',
  'recently-viewed',
  'recommendations?',
  // Shop listings: the filter and sort panels beside the products.
  'filters',
  'facets?',
  'refinements?',
  'facet-filters?',
  'product-filters?',
  'collection-filters?',
  // Forum software chrome around each post: author panels, badges, signatures.
  'signature',
  'userextras',
  'userinfo',
  'user-info',
  'usertitle',
  'userbanner',
  'postprofile',
  'authorpane',
  'author-pane',
  'posterinfo',
];
// A furniture word with at most one prefix and one suffix part: "site-footer", "nav-wrapper", "share_bar".
const FURNITURE_TOKEN = new RegExp(
  `^(?:[a-z0-9]+(?:-|_|__))?(?:${FURNITURE_WORDS.join('|')})(?:(?:-|_|__)[a-z0-9]+)?$`,
);
const HEADER_TOKEN = /^(?:site|global|main|top|page)?[-_]?header$/;
const COMMENT_TOKEN =
  /^(?:[a-z0-9]+(?:-|_|__))?(?:comments?|respond|replies|comment-respond|commentlist)(?:(?:-|_|__)[a-z0-9]+)?$/;
// Names that say "this is the body text": they outweigh any furniture word next to them ("article-body pagination").
const CONTENT_NAME = /(?:article|entry|post|story|main|page)[-_]?(?:body|content|text)/;
const KEEP_ASIDE =
  /(?:^|[\s_-])(?:note|notes|footnotes?|admonition|callout|tip|warning|info|caution|important)(?:$|[\s_-])/;

export interface FurnitureOptions {
  /** Above this share of the page's text a subtree is kept whatever its tag or name. */
  maxShare: number;
  /** Comment sections are content on forums and review-led product pages. */
  keepComments: boolean;
  /** Class or id tokens that are furniture on this page type only (reviews on a product page). */
  typeFurniture?: RegExp | null;
  /**
   * Class or id tokens that are furniture inside a question or an answer only: the comment threads under each post
   * of a Q&A site, while a thread's own list of replies (not inside a post) stays.
   */
  inPostFurniture?: RegExp | null;
}

const POST_TOKEN = /^(?:question|answer|post-layout)$/;

function isPost(node: TNode): boolean {
  return node.attrs.length > 0 && node.attrs.split(/\s+/).some((t) => POST_TOKEN.test(t));
}

/** Sets `removed` on furniture subtrees under `root`. */
export function markFurniture(root: TNode, options: FurnitureOptions): void {
  const total = Math.max(1, root.chars);
  const stack: [TNode, boolean, boolean][] = [[root, false, false]];
  const inPostFurniture = options.inPostFurniture;
  while (stack.length > 0) {
    const [node, inMain, inPost] = stack.pop() as [TNode, boolean, boolean];
    const share = node.chars / total;
    if (
      node !== root &&
      share < 0.9 &&
      (isFurniture(node, inMain, options) || (inPost && hasToken(node, inPostFurniture))) &&
      (share < options.maxShare || isSemantic(node))
    ) {
      node.removed = true;
      continue;
    }
    const nowInMain = inMain || node.tag === 'main' || node.tag === 'article';
    const nowInPost = inPost || (!!inPostFurniture && isPost(node));
    for (const k of node.kids) if (typeof k !== 'string') stack.push([k, nowInMain, nowInPost]);
  }
}

function hasToken(node: TNode, pattern: RegExp | null | undefined): boolean {
  return !!pattern && node.attrs.length > 0 && node.attrs.split(/\s+/).some((t) => pattern.test(t));
}

// Furniture by tag or ARIA role: trusted even when it holds much of a small page's text.
function isSemantic(node: TNode): boolean {
  return node.tag === 'nav' || node.tag === 'footer' || node.tag === 'menu' || node.el.hasAttribute('role');
}

function isFurniture(node: TNode, inMain: boolean, options: FurnitureOptions): boolean {
  switch (node.tag) {
    case 'nav':
    case 'footer':
    case 'menu':
      return true;
    case 'aside':
      return !KEEP_ASIDE.test(node.attrs) && node.el.getAttribute('role') !== 'note';
    case 'header':
      if (!inMain && (node.linkChars > 0.3 * node.chars || node.chars < 100)) return true;
      break;
    case 'body':
    case 'main':
    case 'html':
      return false;
    default:
      break;
  }
  const role = node.el.getAttribute('role');
  if (role && FURNITURE_ROLES.has(role.toLowerCase())) return true;
  if (node.tag === 'article' || node.attrs.length === 0 || CONTENT_NAME.test(node.attrs)) return false;
  for (const token of node.attrs.split(/\s+/)) {
    if (FURNITURE_TOKEN.test(token) || HEADER_TOKEN.test(token)) return true;
    if (!options.keepComments && COMMENT_TOKEN.test(token)) return true;
    if (options.typeFurniture?.test(token)) return true;
  }
  return false;
}
