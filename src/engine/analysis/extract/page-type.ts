/**
 * A coarse guess at what kind of page this is, from JSON-LD types, og:type, the generator and the URL path. It only
 * steers extraction (comment threads are the content of a forum page, reviews belong to a product page), so a wrong
 * guess costs a little precision, not the page.
 */
import type { PageMetadata } from './metadata.ts';

export type PageKind = 'article' | 'forum' | 'product' | 'collection' | 'documentation' | 'other';

const FORUM_TYPES = new Set(['DiscussionForumPosting', 'QAPage', 'SocialMediaPosting', 'Comment']);
const PRODUCT_TYPES = new Set(['Product', 'ProductGroup', 'IndividualProduct', 'Offer', 'AggregateOffer']);
const FORUM_GENERATOR = /discourse|xenforo|vbulletin|phpbb|invision|mybb|nodebb|flarum|vanilla|simple machines|smf/i;
const FORUM_PATH =
  /\/(?:forums?|threads?|topics?|t|questions|comments|community|discussions?|showthread\.php|viewtopic\.php|board)(?:[/.?]|$)/i;
const FORUM_HOST =
  /(?:^|\.)(?:forums?|community|discuss|discourse|answers)\.|reddit\.com|stackexchange\.com|stackoverflow\.com/i;
const PRODUCT_PATH = /\/(?:products?|p|dp|item|itm|ip)\//i;

/** Guesses the page kind; `url` may be empty. */
export function guessPageKind(meta: PageMetadata, jsonLdTypes: readonly string[], url: string): PageKind {
  if (jsonLdTypes.some((t) => FORUM_TYPES.has(t)) || FORUM_GENERATOR.test(meta.generator)) return 'forum';
  let path = '';
  let host = '';
  try {
    const u = new URL(url || meta.canonical);
    path = u.pathname;
    host = u.hostname;
  } catch {
    // No usable URL: decide from the markup alone.
  }
  if (FORUM_HOST.test(host) || FORUM_PATH.test(path)) return 'forum';
  if (jsonLdTypes.some((t) => PRODUCT_TYPES.has(t)) || meta.ogType.startsWith('product') || PRODUCT_PATH.test(path))
    return 'product';
  if (jsonLdTypes.some((t) => /Article$|BlogPosting/.test(t)) || meta.ogType === 'article') return 'article';
  if (/\/(?:docs?|documentation|reference|manual|api)(?:[/.]|$)/i.test(path)) return 'documentation';
  if (/\/(?:collections?|categor(?:y|ies)|c|shop)\//i.test(path)) return 'collection';
  return 'other';
}
