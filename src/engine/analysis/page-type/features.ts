/**
 * The classifier's inputs: a fixed list of named numbers made from an extraction's page signals, its title and H1,
 * and its JSON-LD. Counts enter as log(1 + n), so one huge page does not outweigh the rest; shares (link density,
 * running-text share, code share, cards per link) enter as they are. The list is fixed and named so the fitted
 * weights (weights.ts) can be read one by one.
 *
 * Nothing here reads the main content the extractor chose: extraction classifies a page before it has chosen (to
 * pick how to choose), so features of the chosen content would differ between that call and a later one on the
 * finished extraction, and would change whenever the extractor does. An extraction without page signals (built
 * elsewhere, or stored before they existed) gets stand-in signals from what it does carry (signalsOf).
 */
import type { Extraction } from '../extract/types.ts';
import { type PageSignals, readHeadSignals } from './signals.ts';

/** Signals that enter as log(1 + count). */
const LOG_SIGNALS = [
  'buttons',
  'inputs',
  'cartControls',
  'quantityInputs',
  'searchInputs',
  'contactControls',
  'replyControls',
  'textareas',
  'priceTexts',
  'dateTexts',
  'forumTexts',
  'serviceTexts',
  'productTexts',
  'longParagraphs',
  'telLinks',
  'mailLinks',
  'itempropProduct',
  'itempropArticle',
  'itempropForum',
  'itemtypeProduct',
  'itemtypeArticle',
  'itemtypeForum',
  'itemtypeList',
  'hintPrice',
  'hintCart',
  'hintProduct',
  'hintSku',
  'hintRating',
  'hintAuthor',
  'hintDate',
  'hintPost',
  'hintDocs',
  'hintCode',
  'hintCard',
  'hintPagination',
  'hintFilter',
  'hintService',
  'hintBreadcrumb',
  'hintArticle',
  'hintProductItem',
  'checkboxes',
  'radios',
  'productFields',
  'collectionTexts',
  'listingTexts',
  'docsTexts',
  'pageLinks',
  'anchorLinks',
  'headingIds',
  'sideLinks',
  'cartForms',
  'cards',
  'priceCards',
  'dateCards',
  'cardGroups',
  'posts',
  'tag_p',
  'tag_a',
  'tag_h1',
  'tag_h2',
  'tag_h3',
  'tag_h4',
  'tag_li',
  'tag_table',
  'tag_pre',
  'tag_code',
  'tag_img',
  'tag_article',
  'tag_section',
  'tag_aside',
  'tag_nav',
  'tag_time',
  'tag_form',
  'tag_blockquote',
  'tag_dl',
  'tag_address',
  'tag_figure',
  'chars',
  'urlDepth',
  'urlSlugWords',
] as const;

/** 0/1 signals that enter as they are. */
const FLAG_SIGNALS = [
  'ldForum',
  'ldProduct',
  'ldArticle',
  'ldDocs',
  'ldCollection',
  'ldService',
  'ldFaq',
  'ldBreadcrumb',
  'ldAny',
  'ogArticle',
  'ogProduct',
  'ogWebsite',
  'genForum',
  'genDocs',
  'genShop',
  'genWordpress',
  'urlKnown',
  'urlRoot',
  'urlDigits',
  'urlQuery',
  'urlDate',
  'urlForum',
  'urlForumHost',
  'urlProduct',
  'urlCollection',
  'urlListing',
  'urlListingEnd',
  'urlDocs',
  'urlDocsHost',
  'urlService',
  'urlArticle',
  'urlShopHost',
  'ldAggregateOffer',
  'ldItemList',
  'ldCollectionPage',
  'ldItemPage',
  'ldQa',
  'ldEvent',
  'ldSoftware',
  'ogProductGroup',
  'urlNumericEnd',
  'urlHeadline',
  'h1PriceNear',
] as const;

/** Shares and main-content measures, computed below. */
const DERIVED = [
  'linkDensity',
  'proseShare',
  'codeShare',
  'cardsPer100Links',
  'priceCardShare',
  'dateCardShare',
  'titleListing',
  'titleCollection',
  'titleDocs',
  'titleForum',
  'titleService',
  'titleQuestion',
  'titleWords',
  'ldProducts',
  'ldPricedProducts',
  'ldArticles',
  'ldFaqEntries',
  'cardTextPerCard',
  'sideLinkShare',
  'anchorLinkShare',
  'proseBlock',
  'proseBlockShare',
] as const;

// Words of a page's title and H1 that name what it is. English only; other languages rely on the markup.
const TITLE_LISTING =
  /\b(?:news|blog|latest|archives?|all (?:posts|articles|stories)|articles|stories|events|press|page \d+|results|search|directory|courses|programs|episodes|podcasts?|issues|awards|lists?|topics?|tag|category)\b/i;
const TITLE_COLLECTION =
  /\b(?:shop|buy|sale|collection|products|accessories|for (?:men|women|kids)|men's|women's|online store)\b/i;
const TITLE_DOCS =
  /\b(?:documentation|docs|reference|api|manual|guide|tutorial|getting started|quickstart|install(?:ation|ing)?|configur\w+|sdk|cli|man page|handbook|glossary|overview)\b/i;
const TITLE_FORUM = /\b(?:forums?|threads?|community|discussion|reddit|r\/\w+|answers|help needed|question)\b|\?/i;
const TITLE_SERVICE =
  /\b(?:services?|company|contractors?|agency|consulting|repair|installation|near me|hire|solutions|insurance|lawyers?|attorneys?|clinic|plans?|pricing|tuition|degree|certificat\w+|training)\b/i;

/** Every feature name, in the order of the vector. */
export const FEATURE_NAMES: readonly string[] = [...LOG_SIGNALS, ...FLAG_SIGNALS, ...DERIVED];

const log1 = (n: number): number => Math.log1p(Math.max(0, n));

/** The feature vector of an extraction. */
export function pageFeatures(e: Extraction): number[] {
  const s = signalsOf(e);
  const g = (k: string): number => s[k] ?? 0;
  const chars = Math.max(1, g('chars'));
  const heads = `${e.title} ${e.h1}`;
  const title = (re: RegExp): number => (re.test(heads) ? 1 : 0);
  const derived: Record<(typeof DERIVED)[number], number> = {
    linkDensity: g('linkChars') / chars,
    proseShare: g('longParagraphChars') / chars,
    codeShare: Math.min(1, (g('preChars') + g('codeChars')) / chars),
    cardsPer100Links: Math.min(3, (100 * g('cards')) / Math.max(10, g('tag_a'))),
    priceCardShare: g('priceCards') / Math.max(4, g('cards')),
    dateCardShare: g('dateCards') / Math.max(4, g('cards')),
    titleListing: title(TITLE_LISTING),
    titleCollection: title(TITLE_COLLECTION),
    titleDocs: title(TITLE_DOCS),
    titleForum: title(TITLE_FORUM),
    titleService: title(TITLE_SERVICE),
    titleQuestion: /\?\s*$/.test(e.h1 || e.title) ? 1 : 0,
    titleWords: log1((e.h1 || e.title).split(/\s+/).filter(Boolean).length),
    ldProducts: log1(e.structuredData.products.length),
    ldPricedProducts: log1(e.structuredData.products.filter((p) => p.price !== '').length),
    ldArticles: log1(e.structuredData.articles.length),
    ldFaqEntries: log1(e.structuredData.faq.length),
    cardTextPerCard: log1(g('cards') > 0 ? g('cardChars') / g('cards') : 0),
    sideLinkShare: Math.min(1, g('sideLinks') / Math.max(10, g('tag_a'))),
    anchorLinkShare: Math.min(1, g('anchorLinks') / Math.max(10, g('tag_a'))),
    proseBlock: log1(g('proseBlockChars')),
    proseBlockShare: Math.min(1, g('proseBlockChars') / chars),
  };
  return [
    ...LOG_SIGNALS.map((k) => log1(g(k))),
    ...FLAG_SIGNALS.map((k) => (g(k) > 0 ? 1 : 0)),
    ...DERIVED.map((k) => derived[k]),
  ];
}

/**
 * The extraction's page signals, or, when it has none, stand-ins from what it carries: the JSON-LD types and the
 * canonical URL give the head's signals exactly, and the main content stands in for the page's tree (its
 * paragraphs, lists, tables, headings, images and links). Weaker than real signals, but the same kind of numbers.
 */
function signalsOf(e: Extraction): PageSignals {
  if (e.pageSignals) return e.pageSignals;
  const s: PageSignals = {};
  readHeadSignals({ ogType: '', generator: '' }, e.structuredData.types, e.canonical, s);
  let linkChars = 0;
  for (const l of e.links) linkChars += l.text.length;
  const long = e.paragraphs.filter((p) => p.length >= 150);
  s.chars = e.mainText.length;
  s.linkChars = linkChars;
  s.tag_a = e.links.length;
  s.tag_p = e.paragraphs.length;
  s.longParagraphs = long.length;
  s.longParagraphChars = long.reduce((a, p) => a + p.length, 0);
  s.tag_li = e.lists.reduce((a, l) => a + l.items.length, 0);
  s.tag_table = e.tables.length;
  s.tag_img = e.images.length;
  for (const h of e.headings) if (h.level >= 1 && h.level <= 4) s[`tag_h${h.level}`] = (s[`tag_h${h.level}`] ?? 0) + 1;
  return s;
}
