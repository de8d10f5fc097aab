/**
 * The sentence filters of docs/extractive-writer.md section 2: boilerplate, chatter, another author's first person,
 * calls to action, form prompts, price and guarantee policies, testimonials, unbalanced quotes and fragments.
 * Sentences are split by the project's one splitter (src/engine/analysis/sentences.ts), re-exported here.
 */
import { countText } from './text.ts';

// The shared splitter joins its parts from the paragraph's own text, so every sentence is a substring of its page.
export { createSentenceSplitter, splitSentences } from '../../analysis/sentences.ts';

const BOILERPLATE = [
  /\bclick (?:here|below|the)\b/i,
  /\bcookies?\b/i,
  /\bnewsletter\b/i,
  /\bsubscri(?:be|ption)\b/i,
  /\bsign (?:up|in)\b|\blog ?in\b/i,
  /\bprivacy policy\b|\bterms (?:of|and) (?:service|use|conditions)\b|\ball rights reserved\b|©|\bcopyright\b/i,
  /\b(?:share|pin|tweet) (?:this|on)\b|\bfollow us\b/i,
  /\bread (?:more|next|on)\b|\brelated (?:posts?|articles?)\b|\bleave a (?:comment|reply)\b/i,
  /\baffiliate\b|\bwe may earn\b|\bcommission\b|\bsponsored\b|\badvertisement\b/i,
  /\b(?:posted|written|updated|published) (?:by|on)\b|\bminutes? read\b/i,
  /\b(?:this|our) (?:article|post|guide|page|review|video|site|website|blog)\b|\bin this (?:article|post|guide)\b/i,
  /\b(?:see|listed|shown|described|mentioned) (?:below|above)\b|\bas follows\b|\b(?:the|this) table\b|\bscroll\b/i,
  /\b(?:prices|table|list|chart|steps|options|links?|form) (?:below|above)\b/i,
  /\b(?:last updated|reviewed by|fact[- ]checked|written by|edited by)\b/i,
  /\b(?:read|see|check out|watch) (?:this|our|the full)\b|\bdownload\b|\(pdf\)/i,
  // Navigation: what a menu, a breadcrumb trail or a pager says.
  /\bskip to (?:the )?(?:main )?content\b|\bback to top\b|\byou are here\b|\bbreadcrumbs?\b|\bmain menu\b/i,
  /\b(?:previous|next|older|newer) (?:post|article|page|story)\b|\bgo to (?:page|top)\b/i,
];

// A business selling itself: true of the page that says it, false once quoted on anyone else's page.
const PROMO =
  /\bsince (?:19|20)\d\d\b|\b(?:family|locally|veteran|woman|women|worker|employee)[- ]owned\b|\bwarrant(?:y|ies) on\b|\b(?:satisfaction|money[- ]back) guarantee|\baward[- ]winning\b|\byears of experience\b|\barrival time\b|\bsame[- ]day\b|\bflat[- ]rate\b|\bupfront pric|\bno overtime\b|\bcoupons?\b|\bmembership\b|\bfree (?:estimates?|quotes?|consultations?|shipping|inspections?|assessments?)\b|\d+% off\b|\$\d+ off\b|\b(?:call|book|order|shop|buy|schedule) (?:now|today|online)\b|\bfor service in\b|\b(?:is|are|now) available in\b|\bon call\b|\blimited time\b|!/i;

// Telephone numbers: a researched page's contact details are never the client's.
const PHONE = /(?:\+?1[-.\s]?)?\(?\b\d{3}\)?[-.\s]\d{3}[-.\s]\d{4}\b|\b1[-.\s]8\d\d[-.\s]\d{3}[-.\s]\d{4}\b/;

// A call to action: it asks the reader to contact, buy from or sign up with whoever wrote it.
const CALL_TO_ACTION = new RegExp(
  [
    String.raw`^(?:call|phone|text us|email us|e-mail us|contact us|order|buy|shop|claim|sign up|join|download|visit|click|tap|hurry|act now|get started|learn more|find out more|don't wait|do not wait)\b`,
    String.raw`\bcall (?:us|them|now|today|anytime|any time|24/7|\(?\d)`,
    String.raw`\bgive (?:us|them) a (?:call|ring)\b`,
    String.raw`\b(?:contact|email|e-mail|message|text) (?:us|them|our team|the team)\b`,
    String.raw`\b(?:get|request|schedule|book|claim|grab) (?:a |an |your )?(?:free |no-obligation |instant |fast )?(?:quote|estimate|appointment|consultation|assessment)s?\b`,
    String.raw`\b(?:ask|talk to) (?:us|our (?:team|experts?|technicians?|plumbers?))\b`,
  ].join('|'),
  'i',
);

// A form or lead-capture prompt ("Enter your zip code to see if you qualify ...").
const FORM_PROMPT =
  /\b(?:enter|type|fill (?:in|out)|submit|provide) (?:your|the|a|an) (?:zip|postal|address|e-?mail|phone|name|details|info|information|form|location|city)\b|\bzip ?codes?\b|\bpostal codes?\b|\bsee if you qualify\b|\byou (?:may |could )?qualify for\b|\$0 down\b|\bno money down\b|\bget matched\b|\bcompare quotes from\b/i;

// A business's own price or guarantee policy: once quoted, it would promise the client's customers the same.
const POLICY =
  /\b(?:price|quote|estimate|rate|bill)s? (?:does not|doesn't|do not|don't|will not|won't|never|cannot|can't) (?:change|go up|increase|rise)\b|\bbefore (?:any )?work (?:begins|starts|is done)\b|\b(?:you|customers?|clients?) approve\b|\bguarantee(?:s|d)?\b|\b(?:no|without) (?:hidden|extra|surprise|overtime|trip|after-hours|weekend|holiday) (?:fees?|charges?|costs?)\b|\b(?:hidden|surprise) (?:fees?|charges?)\b|\bprice[- ]match|\b(?:gives?|hands?) you (?:the|a) (?:total |final |flat |fixed |written )?(?:price|quote|estimate)\b|\b(?:up-?front|fixed|flat) (?:price|pricing|rate|quote)s?\b|\bsame (?:price|rate)s? (?:24\/7|day or night|at night|on (?:nights|weekends|holidays))|\bno (?:extra )?charge for\b|\b(?:financing|payment plans?) (?:is |are )?available\b|\b\d+(?:\.\d+)?% of (?:our |all |its |their )?(?:emergency |service )?(?:calls|jobs|customers|repairs|visits|clients|installs|installations)\b/i;

// Advice keeps a policy-like phrase honest: "Always get a written estimate before any work begins."
const ADVICE =
  /\b(?:should|always|never|ask (?:for|whether|if|about)|make sure|insist|look for|check (?:whether|that|if)|get (?:a|an) (?:written|second)|be sure|before you (?:hire|sign|pay|agree))\b/i;

// A reviewer's words: a quoted verdict, a star rating or praise for a business.
const TESTIMONIAL =
  /[★☆]|\b[1-5](?:\.\d)? (?:out of 5|out of five|stars?)\b|\b(?:highly recommend(?:ed)?|would (?:definitely )?recommend|will (?:definitely )?(?:use|call|hire) (?:them|again)|best (?:service|experience|plumber|company|team|installer|technician)s? (?:ever|in town|around)|five stars|a\+ service|saved (?:us|me|our|my)\b|thank(?:s| you) (?:to )?(?:the|our) (?:team|crew|tech))/i;

// A price stated as the business's own (no range or hedge): on a service page it would read as the client's price.
const AMOUNT = /[$€£]\s?\d/;
const HEDGE =
  /\b(?:typically|typical|usually|average|averages?|most|many|often|generally|around|about|roughly|approximately|between|range|ranges|from|can|may|might|could|expect|depend\w*|varies|vary|national|or more|or less|up to|as (?:little|much) as|at least|under|over|starting|less than|more than)\b|\d\s*(?:to|-|–|—)\s*[$€£]?\d/i;

const SMALL = /^(?:a|an|and|as|at|but|by|for|from|in|of|on|or|the|to|vs|with|&)$/i;

/** A short list item made only of capitalised words: a name or a link title (`Capital City Plumbing Co.`). */
function nameOnly(text: string): boolean {
  const words = text.match(/[\p{L}\p{N}'’&]+/gu) ?? [];
  return words.length > 0 && words.length <= 12 && words.every((w) => SMALL.test(w) || /^[\p{Lu}\p{N}]/u.test(w));
}

// Forum chatter: thanks, agreement and opinion openers that say nothing outside the thread.
const CHATTER =
  /^(?:i think|i guess|i believe|imo|imho|thanks|thank you|thx|lol|\+1|same here|me too|edit:|update:|hi\b|hello|hey|agreed|this\.)|\bthanks?\b|\bthank you\b/i;

// First person: another author's "I" or "we" would speak for the client once copied into its page.
const FIRST_PERSON =
  /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|ours|ourselves|let's)\b/i;

export interface SentenceRule {
  /** A list item rather than a prose sentence. */
  item: boolean;
  /** The sentence comes from a researched page (not the client's own knowledge base, imported page or site). */
  foreign: boolean;
  /** The draft is a commercial service page: another business's stated price would read as the client's. */
  commercial?: boolean;
}

/** Quotation marks or brackets that do not pair up: a piece of a quotation, cut by the splitter or the page. */
export function unbalanced(text: string): boolean {
  const count = (re: RegExp): number => text.match(re)?.length ?? 0;
  if (count(/“/g) !== count(/”/g) || count(/"/g) % 2 === 1 || count(/«/g) !== count(/»/g)) return true;
  for (const [open, close] of [
    ['(', ')'],
    ['[', ']'],
  ] as const) {
    let depth = 0;
    for (const ch of text) {
      if (ch === open) depth += 1;
      else if (ch === close && --depth < 0) return true;
    }
    if (depth !== 0) return true;
  }
  return false;
}

/** Why a sentence is not usable, or null when it is (docs/extractive-writer.md section 2). */
export function rejectReason(text: string, rule: SentenceRule): string | null {
  const words = countText(text);
  const min = rule.item ? 2 : 6;
  const max = rule.item ? 80 : 60;
  if (words < min) return 'too_short';
  if (words > max) return 'too_long';
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  if (letters === 0 || letters / text.length < 0.45) return 'not_prose';
  if (/https?:\/\/|www\.|[{}<>|]|=>|\(\)|\[\d+\]|^[#>]/.test(text)) return 'markup';
  if (BOILERPLATE.some((re) => re.test(text))) return 'boilerplate';
  if (CHATTER.test(text)) return 'chatter';
  if (unbalanced(text)) return 'unbalanced';
  // Quotation marks keep first person: `"I" in a quote` is rare in reference prose, so we do not try to parse it.
  if (rule.foreign && firstPerson(text)) return 'first_person';
  if (rule.foreign && FORM_PROMPT.test(text)) return 'form_prompt';
  if (rule.foreign && CALL_TO_ACTION.test(text)) return 'call_to_action';
  if (rule.foreign && POLICY.test(text) && !ADVICE.test(text)) return 'policy';
  if (rule.foreign && (PROMO.test(text) || PHONE.test(text))) return 'promotion';
  // A quoted review with its reviewer (`"Great service." - Mike D.`) or a sentence that is one quotation.
  if (
    /^[“"][^”"]+[”"]\s*(?:[-–—]\s*\p{Lu}.*)?$/u.test(text) ||
    /\s[-–—]\s*\p{Lu}\p{L}+(?:\s\p{Lu}\.?)?$/u.test(text) ||
    (rule.foreign && TESTIMONIAL.test(text))
  )
    return 'testimonial';
  if (rule.foreign && rule.commercial && AMOUNT.test(text) && !HEDGE.test(text)) return 'business_price';
  // Prose sentences end like sentences; a line without a closing mark is a title, label or caption.
  if (!rule.item && !/[.!?…][”"’')\]]*$/u.test(text)) return 'fragment';
  // A sentence that starts in lower case is the tail of one the page (or a splitter) cut.
  if (rule.foreign && !rule.item && /^\p{Ll}/u.test(text)) return 'fragment';
  if (rule.foreign && rule.item && nameOnly(text)) return 'name_only';
  return null;
}

/** Speaks in the first person (outside quotation marks). */
export function firstPerson(text: string): boolean {
  return FIRST_PERSON.test(text.replace(/[“"][^”"]*[”"]/g, ' '));
}

/** Starts with a word that refers back to an earlier sentence: weaker out of its context. */
export function startsWithReference(text: string): boolean {
  return /^(?:it|its|this|that|these|those|they|them|their|he|she|his|her|however|but|and|so|also|then|still|instead|otherwise|both|such|here|there|yes|no)\b/i.test(
    text,
  );
}

/** An FAQ question put to a business ("Do you charge extra on weekends?"): its answer is that business's policy. */
export function askedOfBusiness(question: string): boolean {
  return /^(?:do|does|can|will|would|could|are|is) (?:you|your (?:company|team|technicians?|plumbers?|crew|staff))\b/i.test(
    question.trim(),
  );
}
