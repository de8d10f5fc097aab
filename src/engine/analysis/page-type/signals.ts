/**
 * Page-type signals: counts read from what extraction already built (the compact tree, the metadata, the JSON-LD
 * types, the URL), before furniture removal and Readability change anything. They are plain numbers, so an
 * Extraction can carry them and the classifier (classify.ts) can run later without the document. Counting only:
 * which count means what is decided in features.ts.
 *
 * Form controls (<button>, <input>, <select>) never enter the tree (they are not text), so the one pass over the DOM
 * that readMetadata already makes reports them through `noteControl`.
 */
import type { DomElement } from '../extract/dom.ts';
import type { TNode } from '../extract/tree.ts';

/** Every signal, by name; all are counts or 0/1 flags, except the character totals. */
export interface PageSignals {
  [name: string]: number;
}

/** Accumulator for the DOM-walk part (form controls), filled while readMetadata walks the document. */
export interface ControlCounts {
  buttons: number;
  inputs: number;
  cartControls: number;
  quantityInputs: number;
  searchInputs: number;
  contactControls: number;
  replyControls: number;
  textareas: number;
}

export function emptyControls(): ControlCounts {
  return {
    buttons: 0,
    inputs: 0,
    cartControls: 0,
    quantityInputs: 0,
    searchInputs: 0,
    contactControls: 0,
    replyControls: 0,
    textareas: 0,
  };
}

const CART =
  /add[\s_-]?to[\s_-]?(?:cart|bag|basket)|addtocart|buy[\s_-]?now|warenkorb|panier|carrito|carrello|winkelwagen|in den korb/i;
const CONTACT = /quote|estimate|appointment|book(?:ing)?\b|schedule|consult|contact|enquir|inquir|get started|request/i;
const REPLY = /\breply\b|\bquote\b|\bupvote|\bvote\b|like this post|reagieren|antworten|répondre/i;

/** Counts one element seen in the metadata walk, when it is a form control. */
export function noteControl(el: DomElement, tag: string, c: ControlCounts): void {
  if (tag === 'button' || (tag === 'input' && /^(?:submit|button)$/i.test(el.getAttribute('type') ?? ''))) {
    c.buttons++;
    const label = `${el.getAttribute('name') ?? ''} ${el.getAttribute('class') ?? ''} ${el.getAttribute('id') ?? ''} ${el.getAttribute('value') ?? ''} ${el.getAttribute('aria-label') ?? ''} ${el.getAttribute('data-action') ?? ''} ${textUnder(el)}`;
    if (CART.test(label)) c.cartControls++;
    else if (CONTACT.test(label)) c.contactControls++;
    else if (REPLY.test(label)) c.replyControls++;
    return;
  }
  if (tag === 'input') {
    c.inputs++;
    const type = (el.getAttribute('type') ?? '').toLowerCase();
    const name = `${el.getAttribute('name') ?? ''} ${el.getAttribute('id') ?? ''}`.toLowerCase();
    if (type === 'search' || /\b(?:q|s|search|query|keywords?)\b/.test(name)) c.searchInputs++;
    else if (/qty|quantity/.test(name)) c.quantityInputs++;
    else if (type === 'email' || type === 'tel' || /phone|email|zip|postal/.test(name)) c.contactControls++;
  } else if (tag === 'textarea') c.textareas++;
}

function textUnder(el: DomElement): string {
  let out = '';
  const stack = [el.firstChild];
  let budget = 40;
  while (stack.length > 0 && budget-- > 0) {
    const n = stack.pop();
    if (!n) continue;
    if (n.nextSibling) stack.push(n.nextSibling);
    if (n.nodeType === 3) out += n.nodeValue ?? '';
    else if (n.firstChild) stack.push(n.firstChild);
  }
  return out.slice(0, 80);
}

// Class/id hints, matched once per element on the lower-cased "class id" string the tree keeps.
const HINTS: readonly (readonly [string, RegExp])[] = [
  ['hintPrice', /(?:^|[\s_-])(?:price|prices|pricing|amount|money|sale-price|regular-price)(?:$|[\s_-])/],
  ['hintCart', /cart|basket|checkout|add-to|addto|buy-box|buybox/],
  ['hintProduct', /product/],
  ['hintSku', /\bsku\b|variant|swatch/],
  ['hintRating', /rating|stars|review/],
  ['hintAuthor', /author|byline|username|user-name|poster|avatar/],
  ['hintDate', /(?:^|[\s_-])(?:date|time|published|posted|timestamp|meta)(?:$|[\s_-])/],
  ['hintPost', /(?:^|[\s_-])(?:post|message|reply|replies|comment|comments|thread|topic|answer|cooked)(?:$|[\s_-])/],
  ['hintDocs', /docs?|documentation|toc|table-of-contents|sidebar|sphinx|markdown|theme-doc|rst-|wy-|md-|vp-|api/],
  ['hintCode', /highlight|language-|hljs|prism|codehilite|sourcecode|code-block/],
  ['hintCard', /(?:^|[\s_-])(?:card|tile|item|grid|teaser|listing|entry|result)(?:$|[\s_-])/],
  ['hintPagination', /pagination|pager|page-numbers|load-more|nav-links/],
  ['hintFilter', /filter|facet|sort-by|sortby|refine/],
  ['hintService', /service|testimonial|cta|hero|benefit|feature|contact|quote|booking|appointment|pricing|plan/],
  ['hintBreadcrumb', /breadcrumb/],
  ['hintArticle', /article|entry-content|post-content|story|blog/],
];

const PRICE_TEXT =
  /(?:[$€£¥₹]|\b(?:USD|EUR|GBP|CHF|CAD|AUD|Rs\.?))\s?\d|\d(?:[\d.,\s]*\d)?\s?(?:€|\$|£|kr\b|zł|Kč|EUR\b|USD\b|руб)/;
const DATE_TEXT =
  /\b(?:19|20)\d\d-\d\d-\d\d\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2},? (?:19|20)\d\d\b|\b\d{1,2}(?:st|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]* (?:19|20)\d\d\b|\b\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago\b/i;
const FORUM_TEXT =
  /\b(?:replies|reply|posted by|joined|posts:|members?|thread|original poster|quote|upvotes?|votes?|answered|asked)\b/i;
const SERVICE_TEXT =
  /\b(?:our services|free (?:quote|estimate|consultation)|get a quote|request a quote|contact us|call us|call now|book (?:now|an appointment|online)|schedule (?:a|your)|service areas?|areas? we serve|licensed|insured|years of experience|why choose|enroll|apply now|tuition|our team)\b/i;
const PRODUCT_TEXT =
  /\b(?:add to cart|add to bag|add to basket|in stock|out of stock|free shipping|sku|quantity|qty|size guide|buy now|shipping|returns)\b/i;

interface Acc {
  hasLink: boolean;
  hasImg: boolean;
  hasPrice: boolean;
  hasDate: boolean;
  heading: boolean;
}

/**
 * Reads the tree's signals. `nodes` is the tree in pre-order (buildTree's list); the walk is one backwards pass for
 * what each subtree holds and one forwards pass for the rest.
 */
export function readTreeSignals(nodes: readonly TNode[], out: PageSignals): void {
  const acc: Acc[] = new Array<Acc>(nodes.length);
  const index = new Map<TNode, number>();
  for (let i = 0; i < nodes.length; i++) index.set(nodes[i] as TNode, i);
  const count = (k: string, by = 1): void => {
    out[k] = (out[k] ?? 0) + by;
  };
  let priceTexts = 0;
  let dateTexts = 0;
  let forumTexts = 0;
  let serviceTexts = 0;
  let productTexts = 0;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i] as TNode;
    const a: Acc = {
      hasLink: n.tag === 'a',
      hasImg: n.tag === 'img' || n.tag === 'picture',
      hasPrice: false,
      hasDate: n.tag === 'time',
      heading: /^h[1-6]$/.test(n.tag),
    };
    for (const k of n.kids) {
      if (typeof k === 'string') {
        if (k.length < 2 || k.length > 2000) continue;
        if (PRICE_TEXT.test(k)) {
          a.hasPrice = true;
          priceTexts++;
        }
        if (k.length < 200) {
          if (DATE_TEXT.test(k)) {
            a.hasDate = true;
            dateTexts++;
          }
          if (FORUM_TEXT.test(k)) forumTexts++;
          if (PRODUCT_TEXT.test(k)) productTexts++;
        }
        if (SERVICE_TEXT.test(k)) serviceTexts++;
      } else {
        const c = acc[index.get(k) ?? -1];
        if (!c) continue;
        a.hasLink ||= c.hasLink;
        a.hasImg ||= c.hasImg;
        a.hasPrice ||= c.hasPrice;
        a.hasDate ||= c.hasDate;
        a.heading ||= c.heading;
      }
    }
    acc[i] = a;
  }
  out.priceTexts = priceTexts;
  out.dateTexts = dateTexts;
  out.forumTexts = forumTexts;
  out.serviceTexts = serviceTexts;
  out.productTexts = productTexts;
  let cards = 0;
  let priceCards = 0;
  let dateCards = 0;
  let cardGroups = 0;
  let posts = 0;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i] as TNode;
    const tag = n.tag;
    count(`tag_${TAG_KEYS.get(tag) ?? 'other'}`);
    if (tag === 'p') {
      const text = n.chars - n.linkChars;
      if (text >= 150 && n.linkChars < 0.3 * n.chars) {
        count('longParagraphs');
        count('longParagraphChars', n.chars);
      }
    } else if (tag === 'pre' || tag === 'code') count(tag === 'pre' ? 'preChars' : 'codeChars', n.chars);
    else if (tag === 'a') {
      const href = n.el.getAttribute('href') ?? '';
      if (/^tel:/i.test(href)) count('telLinks');
      else if (/^mailto:/i.test(href)) count('mailLinks');
    }
    const prop = n.el.getAttribute('itemprop');
    if (prop) {
      const p = prop.toLowerCase();
      if (/price|offers|sku|gtin|availability/.test(p)) count('itempropProduct');
      else if (/author|datepublished|articlebody|headline/.test(p)) count('itempropArticle');
      else if (/text|upvotecount|answercount|suggestedanswer|acceptedanswer|comment/.test(p)) count('itempropForum');
    }
    const itemtype = n.el.getAttribute('itemtype');
    if (itemtype) {
      if (/Product|Offer/.test(itemtype)) count('itemtypeProduct');
      else if (/Article|BlogPosting/.test(itemtype)) count('itemtypeArticle');
      else if (/Comment|Answer|Question|DiscussionForumPosting/.test(itemtype)) count('itemtypeForum');
      else if (/ListItem|ItemList/.test(itemtype)) count('itemtypeList');
    }
    if (n.attrs) for (const [name, re] of HINTS) if (re.test(n.attrs)) count(name);
    // Repeated cards: at least four siblings of one shape (tag and first class), each with a link.
    let elementKids = 0;
    for (const k of n.kids) if (typeof k !== 'string') elementKids++;
    if (elementKids >= 2) {
      const groups = new Map<string, number[]>();
      for (const k of n.kids) {
        if (typeof k === 'string') continue;
        const key = `${k.tag} ${k.attrs.split(' ')[0] ?? ''}`;
        const j = index.get(k) ?? -1;
        const list = groups.get(key);
        if (list) list.push(j);
        else groups.set(key, [j]);
      }
      for (const members of groups.values()) {
        // Posts: siblings of one shape that each carry a date and a few lines of text (replies, comments, answers).
        if (members.length < 2) continue;
        const dated = members.filter((j) => {
          const m = nodes[j];
          return acc[j]?.hasDate && m !== undefined && m.chars - m.linkChars >= 80;
        });
        if (dated.length >= 2) posts += dated.length;
      }
      for (const [key, members] of groups) {
        if (members.length < 4 || key.startsWith('a ') || key.startsWith('option')) continue;
        const withLink = members.filter((j) => acc[j]?.hasLink && (nodes[j]?.chars ?? 0) > 10);
        if (withLink.length < 4) continue;
        const linky = withLink.filter((j) => acc[j]?.hasImg || acc[j]?.heading);
        if (linky.length < 3) continue;
        cardGroups++;
        cards += linky.length;
        priceCards += linky.filter((j) => acc[j]?.hasPrice).length;
        dateCards += linky.filter((j) => acc[j]?.hasDate).length;
      }
    }
  }
  const root = nodes[0];
  out.chars = root?.chars ?? 0;
  out.linkChars = root?.linkChars ?? 0;
  out.cards = cards;
  out.priceCards = priceCards;
  out.dateCards = dateCards;
  out.cardGroups = cardGroups;
  out.posts = posts;
}

const TAG_KEYS = new Map<string, string>(
  [
    'p',
    'a',
    'h1',
    'h2',
    'h3',
    'h4',
    'li',
    'ul',
    'ol',
    'table',
    'pre',
    'code',
    'img',
    'article',
    'section',
    'aside',
    'nav',
    'time',
    'form',
    'blockquote',
    'dl',
    'footer',
    'header',
    'address',
    'figure',
  ].map((t) => [t, t]),
);

const FORUM_TYPES = /^(?:DiscussionForumPosting|QAPage|Question|Answer|Comment|SocialMediaPosting|Conversation)$/;
const PRODUCT_TYPES = /^(?:Product|ProductGroup|IndividualProduct|ProductModel|Offer|AggregateOffer|Car|Vehicle|Book)$/;
const ARTICLE_TYPES = /(?:Article|BlogPosting|Blog|Report|Review|Recipe|NewsArticle|OpinionNewsArticle)$/;
const DOCS_TYPES = /^(?:TechArticle|APIReference|SoftwareSourceCode|HowTo)$/;
const COLLECTION_TYPES = /^(?:CollectionPage|ItemList|OfferCatalog|SearchResultsPage|ProductCollection)$/;
const SERVICE_TYPES =
  /^(?:Service|LocalBusiness|ProfessionalService|HomeAndConstructionBusiness|Plumber|Electrician|HVACBusiness|RoofingContractor|GeneralContractor|MovingCompany|LegalService|Attorney|Dentist|MedicalBusiness|MedicalClinic|Physician|AccountingService|FinancialService|InsuranceAgency|AutoRepair|EducationalOrganization|CollegeOrUniversity|Course|EducationalOccupationalProgram|Event|FAQPage|ContactPage|Organization|Corporation)$/;

/** Signals from the head: JSON-LD types, og:type, the generator and the URL. */
export function readHeadSignals(
  meta: { ogType: string; generator: string },
  jsonLdTypes: readonly string[],
  url: string,
  out: PageSignals,
): void {
  const has = (re: RegExp): number => (jsonLdTypes.some((t) => re.test(t)) ? 1 : 0);
  out.ldForum = has(FORUM_TYPES);
  out.ldProduct = has(PRODUCT_TYPES);
  out.ldArticle = jsonLdTypes.some((t) => ARTICLE_TYPES.test(t) && !DOCS_TYPES.test(t)) ? 1 : 0;
  out.ldDocs = has(DOCS_TYPES);
  out.ldCollection = has(COLLECTION_TYPES);
  out.ldService = has(SERVICE_TYPES);
  out.ldFaq = has(/^FAQPage$/);
  out.ldBreadcrumb = has(/^BreadcrumbList$/);
  out.ldAny = jsonLdTypes.length > 0 ? 1 : 0;
  const og = meta.ogType;
  out.ogArticle = /article|blog|news/.test(og) ? 1 : 0;
  out.ogProduct = /product/.test(og) ? 1 : 0;
  out.ogWebsite = og === 'website' ? 1 : 0;
  const gen = meta.generator;
  out.genForum = /discourse|xenforo|vbulletin|phpbb|invision|mybb|nodebb|flarum|vanilla|simple machines|smf/i.test(gen)
    ? 1
    : 0;
  out.genDocs =
    /sphinx|mkdocs|docusaurus|gitbook|vitepress|hugo|jekyll|docfx|readthedocs|mintlify|nextra|starlight|antora|doxygen|javadoc/i.test(
      gen,
    )
      ? 1
      : 0;
  out.genShop = /shopify|woocommerce|magento|prestashop|bigcommerce|shopware|opencart|oxid/i.test(gen) ? 1 : 0;
  out.genWordpress = /wordpress/i.test(gen) ? 1 : 0;
  readUrlSignals(url, out);
}

function readUrlSignals(url: string, out: PageSignals): void {
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
  out.urlQuery = query ? 1 : 0;
  out.urlDate = has(/\/(?:19|20)\d\d\/(?:[01]?\d)(?:\/|$)/);
  out.urlForum = has(
    /\/(?:forums?|threads?|topics?|t|questions|q|comments|community|discussions?|showthread|viewtopic|board|boards|r)(?:[/.?-]|$)/,
  );
  out.urlForumHost =
    /(?:^|\.)(?:forums?|community|discuss|discourse|answers|talk)\.|reddit\.com|stackexchange\.com|stackoverflow\.com|superuser\.com|serverfault\.com|quora\.com/.test(
      host,
    )
      ? 1
      : 0;
  out.urlProduct = has(/\/(?:products?|p|dp|item|itm|ip|artikel|produkt|produit|producto)(?:\/|$)|-p-?\d+|\/pd\//);
  out.urlCollection = has(
    /\/(?:collections?|categor(?:y|ies)|c|shop|catalog|catalogue|department|kategorie|store|brands?)(?:\/|$)/,
  );
  out.urlListing = has(
    /\/(?:news|blog|blogs|articles|posts|events|press|archive|archives|tag|tags|topics|search|list|lists|courses|programs|jobs|page\/\d+|issues|awards|directory|resources|insights|stories)(?:\/|$)/,
  );
  out.urlListingEnd =
    /^(?:news|blog|blogs|articles|posts|events|press|archive|archives|search|courses|programs|jobs|issues|resources|insights|stories|latest|all|page|\d{1,3})$/.test(
      last,
    )
      ? 1
      : 0;
  out.urlDocs = has(
    /\/(?:docs?|documentation|reference|manual|api|guides?|tutorial|tutorials|wiki|help|kb|knowledge-?base|learn|handbook|sdk|library|en-us\/docs|stable|latest|v\d+(?:\.\d+)*)(?:[/.]|$)/,
  );
  out.urlDocsHost =
    /^(?:docs|developer|developers|dev|api|help|support|learn|wiki|readthedocs)\.|readthedocs\.io|\.github\.io/.test(
      host,
    )
      ? 1
      : 0;
  out.urlService = has(
    /\/(?:services?|solutions?|what-we-do|hire|repair|installation|contact|pricing|plans?|consulting|treatments?|practice-areas?|insurance|programs?|degrees?|admissions|tuition|offers?)(?:[/-]|$)|services?(?:\/|$)/,
  );
  out.urlArticle = has(/\/(?:blog|news|article|articles|story|stories|post|posts|opinion|insights?|magazine)\//);
  out.urlShopHost = /^(?:shop|store)\./.test(host) ? 1 : 0;
}
