/**
 * Extraction profiles by page type. What counts as a page's main content depends on what the page is: a forum's
 * replies are its content while an article's comments are not, a product page is its description and specifications
 * rather than its reviews and recommendations, a shop or listing page is its grid of items rather than one block of
 * prose. Each WCXB page type gets a profile, and main-content.ts follows it (the way trafilatura-style extractors
 * profile extraction by page type).
 */
import type { PageType } from '../page-type/index.ts';
import type { PageKind } from './page-type.ts';

export interface ExtractionProfile {
  /** The type the profile is for (the coarse kind for pages classified by markup alone). */
  type: PageType | 'other';
  /** Comment and reply sections are content (forum threads). */
  keepComments: boolean;
  /**
   * When Readability's tighter article result may replace the broad container: always tried ('article', pages
   * marked up or classified as articles), tried when the broad text holds running prose ('prose'), or never.
   */
  readability: 'article' | 'prose' | 'never';
  /** Class or id tokens that are furniture on pages of this type only. */
  furniture: RegExp | null;
  /**
   * Short lines repeated item after item that are dropped: those that are nothing but a link ('links': "Shop now",
   * "More like this"), any ('all': a thread's per-post "Reply", "Author", "Quote"), or none.
   */
  repeated: 'links' | 'all' | 'none';
  /**
   * How the broad candidate is narrowed before anything else (focus.ts): to a product's name and description
   * sections ('product'), to the largest grid of same-shaped items with the heading and introduction ('grid').
   */
  focus: 'product' | 'grid' | null;
  /**
   * Share of the running text Readability's result must hold to replace the broad candidate, when not the default
   * (main-content.ts). A service page tells its offer in several sections, and Readability often keeps only one.
   */
  proseCover?: number;
  /** Class or id tokens that are furniture inside a question or answer only (boilerplate.ts). */
  inPostFurniture?: RegExp;
}

// On a product page the reviews, ratings and carousels of other products surround the description and specifications.
// Around a thread's posts: reply boxes, vote and reaction bars, per-post action menus, lists of other threads; in
// them: the post's meta line ("#3", "Posted May 2"), signatures and quotes of earlier posts (already in the thread).
const FORUM_FURNITURE =
  /^(?:[a-z0-9]+(?:-|_|__))?(?:quick-?reply|reply-?form|post-?form|answer-?form|editor|votes?|voting|vote-?cell|reactions?|likes?|post-?(?:menu|actions|controls|tools|footer)|message-?actions|actionbar|similar(?:-threads|-topics|-questions)?|related-?(?:threads|topics|questions)|hot-?network-?questions|suggested-?topics|topic-?list|thread-?list|meta|attribution|expandlink|signature|quote|quotecontainer|ipsquote|quotebox)(?:(?:-|_|__)[a-z0-9]+)?$|^[a-z0-9]+--quote$/;

const PRODUCT_FURNITURE =
  /^(?:[a-z0-9]+(?:-|_|__))?(?:reviews?|ratings?|carousel|recs|reviews?-(?:section|container|list|widget)|bv|yotpo|okendo|stamped|jdgm|trustpilot|also-?(?:bought|viewed|like)|you-?may-?(?:also-?)?like|similar(?:-products?)?|complete-the-look)(?:(?:-|_|__)[a-z0-9]+)?$/;

const PROFILES: Record<PageType | 'other', ExtractionProfile> = {
  article: {
    type: 'article',
    keepComments: false,
    readability: 'prose',
    furniture: null,
    repeated: 'none',
    focus: null,
  },
  forum: {
    type: 'forum',
    keepComments: true,
    readability: 'never',
    furniture: FORUM_FURNITURE,
    repeated: 'all',
    focus: null,
    inPostFurniture: /^(?:[a-z0-9]+-)?comments(?:-[a-z0-9]+)?$/,
  },
  product: {
    type: 'product',
    keepComments: false,
    readability: 'prose',
    furniture: PRODUCT_FURNITURE,
    repeated: 'links',
    focus: 'product',
  },
  collection: {
    type: 'collection',
    keepComments: false,
    readability: 'never',
    furniture: null,
    repeated: 'links',
    focus: null,
  },
  listing: {
    type: 'listing',
    keepComments: false,
    readability: 'never',
    furniture: null,
    repeated: 'links',
    focus: 'grid',
  },
  documentation: {
    type: 'documentation',
    keepComments: false,
    readability: 'never',
    furniture: null,
    repeated: 'none',
    focus: null,
  },
  service: {
    type: 'service',
    keepComments: false,
    readability: 'prose',
    furniture: null,
    repeated: 'links',
    focus: null,
    proseCover: 0.8,
  },
  other: { type: 'other', keepComments: false, readability: 'prose', furniture: null, repeated: 'links', focus: null },
};

// Readability's looser retries suit pages whose markup says article; classified ones keep the prose test.
const MARKED_ARTICLE: ExtractionProfile = { ...PROFILES.article, readability: 'article' };

/**
 * The profile of a page type (or of the coarse kind guessed from markup, before classification). `kind` is the
 * markup's guess: an article page marked up as one takes Readability however its text looks.
 */
export function profileFor(type: PageType | PageKind, kind: PageKind = 'other'): ExtractionProfile {
  return type === 'article' && kind === 'article' ? MARKED_ARTICLE : PROFILES[type];
}
