/**
 * Page-type signals from extraction's compact tree, read before furniture removal changes it: tag counts, class/id
 * hints, short texts that name a type (prices, dates, "reply", "add to cart", "sort by", "on this page"), and the
 * page's repeated structures — card grids (many siblings of one shape with a link and an image or heading; with a
 * price they are products, with a date they are posts or articles), dated posts, pagination links, a side
 * navigation's links and anchored headings. Two passes over the pre-order node list: backwards for what each
 * subtree holds, forwards for the rest.
 */
import type { TNode } from '../extract/tree.ts';
import type { PageSignals } from './signals.ts';

// Class/id hints, matched once per element on the lower-cased "class id" string the tree keeps.
const HINTS: readonly (readonly [string, RegExp])[] = [
  ['hintPrice', /(?:^|[\s_-])(?:price|prices|pricing|amount|money|sale-price|regular-price)(?:$|[\s_-])/],
  ['hintCart', /cart|basket|checkout|add-to|addto|buy-box|buybox/],
  ['hintProduct', /product/],
  ['hintProductItem', /product[-_]?(?:card|tile|item|block|box|thumb|grid|list)|productcard|producttile|plp/],
  ['hintSku', /\bsku\b|variant|swatch/],
  ['hintRating', /rating|stars|review/],
  ['hintAuthor', /author|byline|username|user-name|poster|avatar/],
  ['hintDate', /(?:^|[\s_-])(?:date|time|published|posted|timestamp|meta)(?:$|[\s_-])/],
  ['hintPost', /(?:^|[\s_-])(?:post|message|reply|replies|comment|comments|thread|topic|answer|cooked)(?:$|[\s_-])/],
  ['hintDocs', /docs?|documentation|toc|table-of-contents|sidebar|sphinx|markdown|theme-doc|rst-|wy-|md-|vp-|api/],
  ['hintCode', /highlight|language-|hljs|prism|codehilite|sourcecode|code-block/],
  ['hintCard', /(?:^|[\s_-])(?:card|tile|item|grid|teaser|listing|entry|result)(?:$|[\s_-])/],
  ['hintPagination', /pagination|pager|paginator|page-numbers|page-nav|load-more|nav-links/],
  ['hintFilter', /filter|facet|sort-by|sortby|refine/],
  ['hintService', /service|testimonial|cta|hero|benefit|feature|contact|quote|booking|appointment|pricing|plan/],
  ['hintBreadcrumb', /breadcrumb/],
  ['hintArticle', /article|entry-content|post-content|story|blog/],
];

const PRICE_TEXT =
  /(?:[$€£¥₹]|\b(?:USD|EUR|GBP|CHF|CAD|AUD|Rs\.?))\s?\d|\d(?:[\d.,\s]*\d)?\s?(?:€|\$|£|kr\b|zł|Kč|EUR\b|USD\b|руб)/;
const DATE_TEXT =
  /\b(?:19|20)\d\d-\d\d-\d\d\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2},? (?:19|20)\d\d\b|\b\d{1,2}(?:st|nd|rd|th)? (?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]* (?:19|20)\d\d\b|\b\d+ (?:minutes?|hours?|days?|weeks?|months?|years?) ago\b/i;

// Short texts (under 200 characters) that name a type, each counted by the signal named first.
const SHORT_TEXTS: readonly (readonly [string, RegExp])[] = [
  [
    'forumTexts',
    /\b(?:replies|reply|posted by|joined|posts:|members?|thread|original poster|quote|upvotes?|votes?|answered|asked)\b/i,
  ],
  [
    'productTexts',
    /\b(?:add to cart|add to bag|add to basket|in stock|out of stock|free shipping|sku|quantity|qty|size guide|buy now|shipping|returns)\b/i,
  ],
];
// Interface labels (under 60 characters: buttons, links, headings) that name a type.
const LABELS: readonly (readonly [string, RegExp])[] = [
  [
    'collectionTexts',
    /\b(?:sort by|sort|filters?|refine|showing \d|\d+ (?:items|products|results)|results for|shop all|shop now|compare|view all products|quick (?:view|shop))\b/i,
  ],
  [
    'listingTexts',
    /\b(?:read more|continue reading|posted (?:on|in)|\d+ min(?:ute)? read|older (?:posts|entries)|newer (?:posts|entries)|all (?:posts|articles|news|stories)|view all|see all|load more|show more|\d+ comments?)\b/i,
  ],
  [
    'docsTexts',
    /\b(?:edit (?:this|on) (?:page|github)|on this page|in this (?:article|section|page)|table of contents|contents|parameters|returns|arguments|syntax|example|examples|deprecated|since version|api reference|copy(?: code)?|see also|was this (?:page|article) helpful|next|previous)\b/i,
  ],
];
// One test for every phrase above: most texts hold none, and one pass over a text costs less than five.
const ANY_PHRASE = new RegExp([...SHORT_TEXTS, ...LABELS].map(([, re]) => re.source).join('|'), 'i');
const SERVICE_TEXT =
  /\b(?:our services|free (?:quote|estimate|consultation)|get a quote|request a quote|contact us|call us|call now|book (?:now|an appointment|online)|schedule (?:a|your)|service areas?|areas? we serve|licensed|insured|years of experience|why choose|enroll|apply now|tuition|our team)\b/i;
// A pagination link's whole text: a page number, or next/previous/older/more.
const PAGE_LINK =
  /^\s*(?:\d{1,3}|next|previous|prev|older|newer|older posts|newer posts|»|›|→|load more|show more|next page|last)\s*$/i;

const TAG_KEYS = new Set([
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
]);

/** What a subtree holds, for the card and post tests. */
interface Acc {
  hasLink: boolean;
  hasImg: boolean;
  hasPrice: boolean;
  hasDate: boolean;
  heading: boolean;
  links: number;
  prices: number;
}

/**
 * Reads the tree's signals. `nodes` is the tree in pre-order (buildTree's list); the walk is one backwards pass for
 * what each subtree holds and one forwards pass for the rest.
 */
export function readTreeSignals(nodes: readonly TNode[], out: PageSignals): void {
  const index = new Map<TNode, number>();
  for (let i = 0; i < nodes.length; i++) index.set(nodes[i] as TNode, i);
  const acc = readSubtrees(nodes, index, out);
  const count = (k: string, by = 1): void => {
    out[k] = (out[k] ?? 0) + by;
  };
  const repeats = { cards: 0, priceCards: 0, dateCards: 0, cardGroups: 0, cardChars: 0, posts: 0 };
  let sideLinks = 0;
  let proseBlock = 0;
  let firstH1 = -1;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i] as TNode;
    readElement(n, count);
    if (n.tag === 'h1' && firstH1 < 0) firstH1 = i;
    proseBlock = Math.max(proseBlock, proseUnder(n));
    if ((n.tag === 'aside' || n.tag === 'nav' || /sidebar|sidenav|side-nav|toc\b/.test(n.attrs)) && !inHeader(n))
      sideLinks = Math.max(sideLinks, acc[i]?.links ?? 0);
    readRepeats(n, nodes, index, acc, repeats);
  }
  const root = nodes[0];
  out.chars = root?.chars ?? 0;
  out.linkChars = root?.linkChars ?? 0;
  out.sideLinks = sideLinks;
  out.proseBlockChars = proseBlock;
  out.h1PriceNear = firstH1 >= 0 && priceNear(nodes[firstH1] as TNode, index, acc) ? 1 : 0;
  Object.assign(out, repeats);
}

/** Characters of running text in a node's own <p> children: the largest is an article's (or post's) body. */
function proseUnder(n: TNode): number {
  let sum = 0;
  for (const k of n.kids) if (typeof k !== 'string' && k.tag === 'p' && k.chars - k.linkChars >= 150) sum += k.chars;
  return sum;
}

/**
 * Whether the page's heading shares a block with one price or a few: a product page's buy box (title, price, was
 * price). A collection's heading sits above a whole grid of prices, so the first block around it that holds a price
 * holds many.
 */
function priceNear(h1: TNode, index: ReadonlyMap<TNode, number>, acc: readonly Acc[]): boolean {
  let n: TNode | null = h1;
  for (let up = 0; n && up < 5; up++, n = n.parent) {
    const prices = acc[index.get(n) ?? -1]?.prices ?? 0;
    if (prices > 0) return prices <= 3;
  }
  return false;
}

/** The backwards pass: each subtree's Acc, and the counts of short texts. */
function readSubtrees(nodes: readonly TNode[], index: ReadonlyMap<TNode, number>, out: PageSignals): Acc[] {
  const acc: Acc[] = new Array<Acc>(nodes.length);
  const texts: Record<string, number> = { priceTexts: 0, dateTexts: 0, serviceTexts: 0, pageLinks: 0 };
  for (const [name] of [...SHORT_TEXTS, ...LABELS]) texts[name] = 0;
  for (let i = nodes.length - 1; i >= 0; i--) {
    const n = nodes[i] as TNode;
    const a: Acc = {
      hasLink: n.tag === 'a',
      hasImg: n.tag === 'img' || n.tag === 'picture',
      hasPrice: false,
      hasDate: n.tag === 'time',
      heading: /^h[1-6]$/.test(n.tag),
      links: n.tag === 'a' ? 1 : 0,
      prices: 0,
    };
    for (const k of n.kids) {
      if (typeof k === 'string') readText(k, n.tag, a, texts);
      else {
        const c = acc[index.get(k) ?? -1];
        if (!c) continue;
        a.hasLink ||= c.hasLink;
        a.hasImg ||= c.hasImg;
        a.hasPrice ||= c.hasPrice;
        a.hasDate ||= c.hasDate;
        a.heading ||= c.heading;
        a.links += c.links;
        a.prices += c.prices;
      }
    }
    acc[i] = a;
  }
  Object.assign(out, texts);
  return acc;
}

function readText(k: string, tag: string, a: Acc, texts: Record<string, number>): void {
  const add = (name: string): void => {
    texts[name] = (texts[name] ?? 0) + 1;
  };
  if (tag === 'a' && k.length < 20 && PAGE_LINK.test(k)) add('pageLinks');
  if (k.length < 2 || k.length > 2000) return;
  if (PRICE_TEXT.test(k)) {
    a.hasPrice = true;
    a.prices++;
    add('priceTexts');
  }
  if (k.length < 200) {
    if (DATE_TEXT.test(k)) {
      a.hasDate = true;
      add('dateTexts');
    }
    if (ANY_PHRASE.test(k)) {
      for (const [name, re] of SHORT_TEXTS) if (re.test(k)) add(name);
      if (k.length < 60) for (const [name, re] of LABELS) if (re.test(k)) add(name);
    }
  }
  if (SERVICE_TEXT.test(k)) add('serviceTexts');
}

/** One element's own counts: its tag, long paragraphs, code, links, microdata and class hints. */
function readElement(n: TNode, count: (k: string, by?: number) => void): void {
  const tag = n.tag;
  count(`tag_${TAG_KEYS.has(tag) ? tag : 'other'}`);
  if (tag === 'p') {
    const text = n.chars - n.linkChars;
    if (text >= 150 && n.linkChars < 0.3 * n.chars) {
      count('longParagraphs');
      count('longParagraphChars', n.chars);
    }
  } else if (tag === 'pre' || tag === 'code') count(tag === 'pre' ? 'preChars' : 'codeChars', n.chars);
  else if (tag === 'form') {
    if (/cart|basket|bag|checkout|buy/i.test(n.el.getAttribute('action') ?? '')) count('cartForms');
  } else if (tag === 'a') {
    const href = n.el.getAttribute('href') ?? '';
    if (/^tel:/i.test(href)) count('telLinks');
    else if (/^mailto:/i.test(href)) count('mailLinks');
    else if (/^#./.test(href)) count('anchorLinks');
  } else if (/^h[2-4]$/.test(tag) && n.el.getAttribute('id')) count('headingIds');
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
}

/** Whether a node sits in the page header (where a site-wide menu is not a side navigation). */
function inHeader(n: TNode): boolean {
  for (let p = n.parent; p; p = p.parent)
    if (p.tag === 'header' || /(?:^|\s)(?:header|masthead)/.test(p.attrs)) return true;
  return false;
}

interface Repeats {
  cards: number;
  priceCards: number;
  dateCards: number;
  cardGroups: number;
  cardChars: number;
  posts: number;
}

/**
 * Repeated children of one node: siblings of one shape (tag and first class). At least two with a date and a few
 * lines of text are posts (replies, comments, answers); at least four with a link, three of them with an image or
 * heading, are a card grid.
 */
function readRepeats(
  n: TNode,
  nodes: readonly TNode[],
  index: ReadonlyMap<TNode, number>,
  acc: readonly Acc[],
  r: Repeats,
): void {
  let elementKids = 0;
  for (const k of n.kids) if (typeof k !== 'string') elementKids++;
  if (elementKids < 2) return;
  const groups = new Map<string, number[]>();
  for (const k of n.kids) {
    if (typeof k === 'string') continue;
    const key = `${k.tag} ${k.attrs.split(' ')[0] ?? ''}`;
    const j = index.get(k) ?? -1;
    const list = groups.get(key);
    if (list) list.push(j);
    else groups.set(key, [j]);
  }
  for (const [key, members] of groups) {
    if (members.length < 2) continue;
    const dated = members.filter((j) => {
      const m = nodes[j];
      return acc[j]?.hasDate && m !== undefined && m.chars - m.linkChars >= 80;
    });
    if (dated.length >= 2) r.posts += dated.length;
    if (members.length < 4 || key.startsWith('a ') || key.startsWith('option')) continue;
    const withLink = members.filter((j) => acc[j]?.hasLink && (nodes[j]?.chars ?? 0) > 10);
    if (withLink.length < 4) continue;
    const linky = withLink.filter((j) => acc[j]?.hasImg || acc[j]?.heading);
    if (linky.length < 3) continue;
    r.cardGroups++;
    r.cards += linky.length;
    r.priceCards += linky.filter((j) => acc[j]?.hasPrice).length;
    r.dateCards += linky.filter((j) => acc[j]?.hasDate).length;
    for (const j of linky) r.cardChars += nodes[j]?.chars ?? 0;
  }
}
