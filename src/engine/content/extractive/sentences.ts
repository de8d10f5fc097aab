/**
 * Sentence splitting and the sentence filters: Intl.Segmenter's sentence boundaries (any language), repaired for
 * the abbreviations and quoted questions ICU splits too eagerly, then the boilerplate, chatter and self-promotion
 * rules of docs/extractive-writer.md section 2.
 */
import { countText, normalizeSpace } from './text.ts';

// A period after these is not a sentence end when the next word follows (Mr. Smith, Fig. 3, approx. 20).
const NON_TERMINAL =
  /(?:^|[\s(])(?:mr|mrs|ms|dr|st|prof|sr|jr|fig|figs|vol|approx|cf|e\.g|i\.e|vs|mt|ft|lb|lbs|oz|dept)\.\s*$/i;

/** Splits paragraphs into sentences for one language. */
export function createSentenceSplitter(language: string): (text: string) => string[] {
  let segmenter: Intl.Segmenter;
  try {
    segmenter = new Intl.Segmenter(language, { granularity: 'sentence' });
  } catch {
    segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });
  }
  return (text: string): string[] => {
    const parts: string[] = [];
    for (const s of segmenter.segment(normalizeSpace(text))) {
      const seg = s.segment.trim();
      if (!seg) continue;
      const prev = parts[parts.length - 1];
      // ICU ends sentences after `Mr.` and inside `“Is it safe?” she asked`; a lower-case start means it went on.
      if (prev !== undefined && (NON_TERMINAL.test(prev) || /^[\p{Ll},;:)\]]/u.test(seg))) {
        parts[parts.length - 1] = `${prev} ${seg}`;
      } else parts.push(seg);
    }
    return parts;
  };
}

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
];

// A business selling itself: true of the page that says it, false once quoted on anyone else's page.
const PROMO =
  /\bsince (?:19|20)\d\d\b|\bfamily[- ]owned\b|\bwarrant(?:y|ies) on\b|\b(?:satisfaction|money[- ]back) guarantee|\baward[- ]winning\b|\byears of experience\b|\barrival time\b|\bsame[- ]day\b|\bflat[- ]rate\b|\bupfront pric|\bno overtime\b|\bcoupons?\b|\bmembership\b|\bfree (?:estimates?|quotes?|consultations?|shipping)\b|\d+% off\b|\$\d+ off\b|\b(?:call|book|order|shop|buy|schedule) (?:now|today|online)\b|\bfor service in\b|\b(?:is|are|now) available in\b|\bon call\b|\blimited time\b/i;

// Telephone numbers: a researched page's contact details are never the client's.
const PHONE = /(?:\+?1[-.\s]?)?\(?\b\d{3}\)?[-.\s]\d{3}[-.\s]\d{4}\b|\b1[-.\s]8\d\d[-.\s]\d{3}[-.\s]\d{4}\b/;

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
const FIRST_PERSON = /\b(?:i|i'm|i've|i'd|i'll|me|my|mine|myself|we|we're|we've|we'd|we'll|us|our|ours|ourselves)\b/i;

export interface SentenceRule {
  /** A list item rather than a prose sentence. */
  item: boolean;
  /** The sentence comes from a researched page (not the client's own knowledge base or imported page). */
  foreign: boolean;
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
  // Quotation marks keep first person: `"I" in a quote` is rare in reference prose, so we do not try to parse it.
  if (rule.foreign && firstPerson(text)) return 'first_person';
  if (rule.foreign && (PROMO.test(text) || PHONE.test(text))) return 'promotion';
  // A quoted review with its reviewer (`"Great service." - Mike D.`) or a sentence that is one quotation.
  if (/^[“"][^”"]+[”"]\s*(?:[-–—]\s*\p{Lu}.*)?$/u.test(text) || /\s[-–—]\s*\p{Lu}\p{L}+(?:\s\p{Lu}\.?)?$/u.test(text))
    return 'testimonial';
  // Prose sentences end like sentences; a line without a closing mark is a title, label or caption.
  if (!rule.item && !/[.!?…][”"’')\]]*$/u.test(text)) return 'fragment';
  if (rule.foreign && rule.item && nameOnly(text)) return 'name_only';
  return null;
}

/** Speaks in the first person (outside quotation marks). */
export function firstPerson(text: string): boolean {
  return FIRST_PERSON.test(text.replace(/[“"][^”"]*[”"]/g, ' '));
}

/** Starts with a word that refers back to an earlier sentence: weaker out of its context. */
export function startsWithReference(text: string): boolean {
  return /^(?:it|its|this|that|these|those|they|them|their|he|she|his|her|however|but|and|so|also|then|still|instead|otherwise|both|such|here|there)\b/i.test(
    text,
  );
}
