/**
 * What kind of page ranks for a keyword (its search intent, read from the ranking pages' page types) and what that
 * means: which candidates are another kind of page (`page_type_mismatch`), and the `page_type` advice for a scored
 * page of the wrong kind.
 *
 * A score compares a page with the pages that rank; that comparison only means something between pages of one kind.
 * A product page measured against buying guides is told to grow to 2,000 words and add a FAQ, when what keeps it
 * out of the results is that searchers want a guide, not a product. So Optimize reads the kind of each ranking page
 * (`classifyPage`), takes the kind most of them are as the intent, compares the page only with pages of that kind,
 * and says first, before any term or length advice, when the page itself is of another kind.
 *
 * The rules, each chosen to act only when the results are clear and the classifier is sure:
 *  - The intent is the type most relevant candidates share, counting at most MAX_PER_SITE pages per site (one site
 *    with many pages does not make an intent). A tie goes to the type whose best-ranked page ranks higher.
 *  - It is acted on (`dominant`) only when that type has at least INTENT_MIN_PAGES pages, at least half of the
 *    pages counted, and no other type has as many: a results page split between kinds serves several intents, and
 *    every kind there ranks.
 *  - A page is of another kind only when the classifier is sure of it (SURE_CONFIDENCE) and its type is not a close
 *    neighbour of the intent's (article and documentation: both are long-form text that answers a question, and the
 *    classifier confuses them more than any other pair). An unsure page gets the benefit of the doubt.
 */
import type { PageType } from '../analysis/page-type/index.ts';
import type { Recommendation } from '../analysis/score/types.ts';

/** Fewest pages of one type that make a search intent. */
export const INTENT_MIN_PAGES = 3;
/** The classifier's confidence from which a page counts as another type than the intent. */
export const SURE_CONFIDENCE = 0.5;
/** The least points the page_type advice carries: the score's high-priority threshold. */
export const PAGE_TYPE_MIN_POINTS = 2;

/** A page's type as recorded in the result and the evidence. */
export interface PageTypeOf {
  page_type: PageType;
  /** The classifier's probability of that type, 0-1, three decimals. */
  page_type_confidence: number;
}

/** A candidate as the intent counts it: its type, where it ranks and its site. */
export interface TypedCandidate {
  type: PageType;
  confidence: number;
  position: number | null;
  site: string;
}

/** The search intent: the type most relevant ranking pages share. */
export interface SearchIntent {
  page_type: PageType;
  /** Relevant ranking pages of that type. */
  pages: number;
  /** Relevant ranking pages counted (at most MAX_PER_SITE per site). */
  of: number;
  /** True when the type clearly dominates (see the module's rules): other types are excluded and advised on. */
  dominant: boolean;
}

/** Each type in words: one page, several, and what such pages are. */
export const TYPE_WORDS: Record<PageType, { one: string; many: string; what: string }> = {
  article: { one: 'an article', many: 'articles', what: 'guides, reviews, roundups and other editorial pages' },
  forum: { one: 'a forum thread', many: 'forum threads', what: 'discussions where people ask and answer' },
  product: { one: 'a product page', many: 'product pages', what: 'pages that sell one product' },
  collection: {
    one: 'a shop category page',
    many: 'shop category pages',
    what: 'collections of products to browse and buy',
  },
  listing: {
    one: 'a listing page',
    many: 'listing pages',
    what: 'rankings, directories and indexes of many items',
  },
  documentation: {
    one: 'a documentation page',
    many: 'documentation pages',
    what: 'reference and how-to pages of a product or project',
  },
  service: { one: 'a service page', many: 'service pages', what: 'pages that offer a service to hire or book' },
};

/** Pairs of types that answer the same kind of query: never a mismatch of each other. */
const NEIGHBOURS: readonly (readonly [PageType, PageType])[] = [['article', 'documentation']];

function neighbours(a: PageType, b: PageType): boolean {
  return NEIGHBOURS.some(([x, y]) => (x === a && y === b) || (x === b && y === a));
}

const rank = (position: number | null) => position ?? Number.MAX_SAFE_INTEGER;

/**
 * The search intent of the relevant candidates (any order; at most `perSite` counted per site, best-ranked first);
 * null when there are none.
 */
export function searchIntent(candidates: readonly TypedCandidate[], perSite: number): SearchIntent | null {
  const ranked = [...candidates].sort((a, b) => rank(a.position) - rank(b.position));
  const perSiteSeen = new Map<string, number>();
  const counts = new Map<PageType, { pages: number; best: number }>();
  let of = 0;
  for (const c of ranked) {
    const n = perSiteSeen.get(c.site) ?? 0;
    if (n >= perSite) continue;
    perSiteSeen.set(c.site, n + 1);
    of++;
    const t = counts.get(c.type) ?? { pages: 0, best: rank(c.position) };
    counts.set(c.type, { pages: t.pages + 1, best: t.best });
  }
  const order = [...counts].sort(([, a], [, b]) => b.pages - a.pages || a.best - b.best);
  const first = order[0];
  if (!first) return null;
  const [type, { pages }] = first;
  const tied = order[1] !== undefined && order[1][1].pages === pages;
  const dominant = pages >= INTENT_MIN_PAGES && pages * 2 >= of && !tied;
  return { page_type: type, pages, of, dominant };
}

/** True when `page` is surely another kind of page than a dominant intent. */
export function isMismatch(intent: SearchIntent | null, page: { type: PageType; confidence: number }): boolean {
  if (!intent?.dominant || page.type === intent.page_type) return false;
  return page.confidence >= SURE_CONFIDENCE && !neighbours(page.type, intent.page_type);
}

/** "5 of the 7 relevant ranking pages are articles". */
function countWords(intent: SearchIntent): string {
  return `${intent.pages} of the ${intent.of} relevant ranking pages are ${TYPE_WORDS[intent.page_type].many}`;
}

/** The page_type_mismatch detail: "a product page; 5 of the 7 relevant ranking pages are articles". */
export function mismatchDetail(type: PageType, intent: SearchIntent): string {
  return `${TYPE_WORDS[type].one}; ${countWords(intent)}`;
}

/** A product page where searchers want to compare several products. */
const PRODUCT_NOT_ONE =
  'a single product page rarely ranks where searchers want to compare several products: target this keyword with a';

/**
 * What the mismatch means for the page, per pair (page type, then intent) where there is more to say than the
 * intent's general advice below.
 */
const PAIR_ADVICE: Partial<Record<`${PageType}>${PageType}`, string>> = {
  'product>article': `${PRODUCT_NOT_ONE} buying guide or roundup that links to this product, or target this page at a product-specific keyword (its name or model).`,
  'product>listing': `${PRODUCT_NOT_ONE} page that ranks and compares them (this product among them), or target this page at a product-specific keyword (its name or model).`,
  'product>collection':
    'searchers want a choice of products to browse: target this keyword with a category page that lists them (this product among them), and this page at its own name or model.',
  'collection>product':
    "searchers look for one specific product: target this keyword with that product's own page, linked from this category page.",
  'collection>article':
    'searchers want advice before they buy: target this keyword with a buying guide that links to this category, and this page at a shopping keyword.',
  'article>product':
    'searchers want to buy one specific product: target this keyword with its product page, and link to it from this article.',
  'article>collection':
    'searchers want to browse and buy: target this keyword with a shop category page, and link to it from this article.',
  'article>service':
    'searchers want to hire someone: target this keyword with a service page (what you offer, where, how to book), and link to it from this article.',
  'service>article':
    'searchers want to learn before they hire: target this keyword with an article that answers the question and links to this service page, and this page at a hiring keyword (the service and the place).',
};

/** What the mismatch means, by the intent's type, when no pair advice says more. */
const INTENT_ADVICE: Record<PageType, string> = {
  article:
    'searchers want to read before they act: target this keyword with an article that answers the query, and this page at a keyword its own kind answers.',
  forum:
    'searchers want first-hand answers from people: a page of another kind competes only with real questions, answers and experience; otherwise target a keyword whose results are not discussions.',
  product:
    'searchers look for one specific product: target this keyword with that product page, and this page at a keyword its own kind answers.',
  collection:
    'searchers want a choice of products to browse and buy: target this keyword with a shop category page, and this page at a keyword its own kind answers.',
  listing:
    'searchers want a list of options to choose from: target this keyword with a page that lists and compares them, and this page at a keyword its own kind answers.',
  documentation:
    'searchers want reference documentation: target this keyword with a documentation page, and link to it from this page.',
  service:
    'searchers want to hire someone: target this keyword with a service page (what you offer, where, how to book), and this page at a keyword its own kind answers.',
};

/** A page of the scored page's own site among the results, with its type when it was fetched. */
export interface OwnSiteResult {
  url: string;
  position: number | null;
  type: PageType;
}

/**
 * The page_type advice's text: the intent with its true count, the page's type, what that means for the page, and
 * the best-ranked page of the intent's type on the page's own site when the results hold one whose type is known.
 */
export function pageTypeAdvice(
  keyword: string,
  pageType: PageType,
  intent: SearchIntent,
  ownSite: readonly OwnSiteResult[],
): string {
  const w = TYPE_WORDS[intent.page_type];
  const meaning = PAIR_ADVICE[`${pageType}>${intent.page_type}`] ?? INTENT_ADVICE[intent.page_type];
  const own = [...ownSite]
    .filter((p) => p.type === intent.page_type)
    .sort((a, b) => rank(a.position) - rank(b.position))[0];
  const ownWords = own
    ? ` Your site already has ${w.one} in these results: ${own.url}${own.position === null ? '' : ` (position ${own.position})`}; make it the page for "${keyword}" and link to it from this page, rather than compete with it.`
    : '';
  return `For "${keyword}", ${countWords(intent)} (${w.what}); this page is ${TYPE_WORDS[pageType].one}. In practice, ${meaning}${ownWords}`;
}

/**
 * The page_type recommendation, or null when the page is of the intent's kind (or the intent is not dominant, or the
 * classifier is unsure of the page). It is advice about the page as a whole, not a check of the score, so it has no
 * points of its own: it carries the list's largest points (at least PAGE_TYPE_MIN_POINTS, the high-priority mark), so
 * that the list stays sorted by points with it first, and a client that sorts or cuts by points keeps it on top.
 * Category `structure`: of the score's categories, the one about the page's form rather than its words.
 */
export function pageTypeRecommendation(
  keyword: string,
  page: { type: PageType; confidence: number },
  intent: SearchIntent | null,
  ownSite: readonly OwnSiteResult[],
  others: readonly Recommendation[],
): Recommendation | null {
  if (!intent || !isMismatch(intent, page)) return null;
  const points = Math.max(PAGE_TYPE_MIN_POINTS, ...others.map((r) => r.points));
  return {
    id: 'page_type',
    check: 'page_type',
    category: 'structure',
    kind: 'page_type',
    term: null,
    points,
    priority: 'high',
    recommendation: pageTypeAdvice(keyword, page.type, intent, ownSite),
  };
}
