/**
 * Page-type signals from the page's URL: its shape (depth, a slug of words, a numeric id, a date) and the path
 * words sites use for each type (/products/, /collections/, /docs/, /t/, /services/, …). A URL alone decides little,
 * so these are flags the model weighs with the markup, never rules.
 */
import type { PageSignals } from './signals.ts';

const FORUM_PATH =
  /\/(?:forums?|threads?|topics?|t|questions?|q|comments|community|discussions?|showthread|viewtopic|board|boards|r|talk)(?:[/.?-]|$)/;
const FORUM_HOST =
  /(?:^|\.)(?:forums?|community|discuss|discussions?|discourse|answers|talk|bbs|users|lemmy)\.|reddit\.com|stackexchange\.com|stackoverflow\.com|superuser\.com|serverfault\.com|askubuntu\.com|quora\.com|news\.ycombinator\.com|lobste\.rs|tapatalk\.com/;
const PRODUCT_PATH =
  /\/(?:products?|p|dp|pd|pdp|item|itm|ip|artikel|produkt|produit|producto|prodotto)(?:\/|$)|-p-?\d+|[/-]pd?-?\d{5,}/;
const COLLECTION_PATH =
  /\/(?:collections?|categor(?:y|ies)|c|cat|browse|plp|shop|shop-all|catalog|catalogue|department|departments|kategorie|categorie|store|brands?)(?:\/|$)/;
const LISTING_PATH =
  /\/(?:news|blog|blogs|articles|posts|events|press|archive|archives|tag|tags|topics|search|list|lists|courses|programs|jobs|page\/\d+|issues|awards|directory|resources|insights|stories|reviews|testimonials|coupons|rankings|trending)(?:\/|$)/;
const LISTING_END =
  /^(?:news|blog|blogs|articles|posts|events|press|archive|archives|search|courses|programs|jobs|issues|resources|insights|stories|latest|all|page|reviews|testimonials|coupons|rankings|trending|\d{1,3})$/;
const DOCS_PATH =
  /\/(?:docs?|documentation|reference|manual|api|guides?|tutorial|tutorials|wiki|help|kb|knowledge-?base|learn|handbook|sdk|library|man|man-pages|concepts|userguide|quickstart|getting-started|get-started|glossary|book|en-us\/docs|stable|latest|v\d+(?:\.\d+)*)(?:[/.]|$)/;
const DOCS_HOST =
  /^(?:docs|doc|developer|developers|dev|api|help|support|learn|wiki|devdocs|readthedocs)\.|readthedocs\.(?:io|org)|\.github\.io/;
const SERVICE_PATH =
  /\/(?:services?|solutions?|offerings?|what-we-do|hire|repair|installation|contact|pricing|plans?|consulting|treatments?|practice-areas?|insurance|programs?|degrees?|admissions|tuition|offers?)(?:[/-]|$)|services?(?:\/|$)|-(?:services|company|consulting|solutions|repair|contractors?|agency)(?:\/|$|\.)/;
const ARTICLE_PATH =
  /\/(?:blog|news|article|articles|story|stories|post|posts|opinion|insights?|magazine|journal|editorial|column)\//;
// Slugs that read as an article's headline.
const HEADLINE_SLUG =
  /(?:^|-)(?:how-to|what-is|what-are|why|when-to|ways-to|tips|reasons|steps-to|things-to|guide-to|vs|versus|best|top-\d+)(?:-|$)/;

/** Reads the URL signals of `url` into `out` (all zero when the URL does not parse). */
export function readUrlSignals(url: string, out: PageSignals): void {
  let path = '';
  let host = '';
  let query = '';
  try {
    const u = new URL(url);
    path = decodeURIComponent(u.pathname).toLowerCase();
    host = u.hostname.toLowerCase();
    query = u.search.toLowerCase();
  } catch {
    // No usable URL: the markup decides.
  }
  const segs = path.split('/').filter(Boolean);
  const last = (segs[segs.length - 1] ?? '').replace(/\.(?:html?|php|aspx?|jsp)$/, '');
  const has = (re: RegExp): number => (re.test(path) ? 1 : 0);
  out.urlKnown = url ? 1 : 0;
  out.urlDepth = segs.length;
  out.urlRoot = segs.length === 0 ? 1 : 0;
  out.urlSlugWords = last ? last.split(/[-_]+/).filter((w) => /[a-z]/.test(w)).length : 0;
  out.urlDigits = /\d{4,}/.test(last) ? 1 : 0;
  out.urlNumericEnd = /^\d+$/.test(last) ? 1 : 0;
  out.urlQuery = query ? 1 : 0;
  out.urlDate = has(/\/(?:19|20)\d\d\/(?:[01]?\d)(?:\/|$)/);
  out.urlForum = has(FORUM_PATH);
  out.urlForumHost = FORUM_HOST.test(host) ? 1 : 0;
  out.urlProduct = has(PRODUCT_PATH);
  out.urlCollection = has(COLLECTION_PATH);
  out.urlListing = has(LISTING_PATH);
  out.urlListingEnd = LISTING_END.test(last) ? 1 : 0;
  out.urlDocs = has(DOCS_PATH);
  out.urlDocsHost = DOCS_HOST.test(host) ? 1 : 0;
  out.urlService = has(SERVICE_PATH);
  out.urlArticle = has(ARTICLE_PATH);
  out.urlHeadline = HEADLINE_SLUG.test(last) ? 1 : 0;
  out.urlShopHost = /^(?:shop|store)\./.test(host) ? 1 : 0;
}
