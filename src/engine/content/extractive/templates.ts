/**
 * The only words the extractive writer writes itself: section-heading templates, the call-to-action line and the
 * title patterns, chosen by intent, page contract and tone (docs/extractive-writer.md section 5). They name the
 * topic, the client, its service area and domain, and make no claim; body text always comes from sources.
 */
import type { Intent, PageContract, Tone } from '../types.ts';
import { capitalizeFirst } from './text.ts';

export type StyleName = 'neutral' | 'friendly' | 'direct';

export interface Style {
  name: StyleName;
  tone: Tone;
}

/** Tone picks the style; a neutral tone (`clear_practical`) lets the brand voice's wording pick it instead. */
export function createStyle(tone: Tone, brandVoice: string | null): Style {
  if (tone === 'persuasive_direct') return { name: 'direct', tone };
  if (tone === 'friendly_simple') return { name: 'friendly', tone };
  if (tone === 'clear_practical' && brandVoice) {
    if (/\b(?:friendly|warm|casual|approachable|conversational|playful|relaxed)\b/i.test(brandVoice))
      return { name: 'friendly', tone };
    if (/\b(?:direct|bold|confident|urgent|persuasive|punchy|assertive)\b/i.test(brandVoice))
      return { name: 'direct', tone };
  }
  return { name: 'neutral', tone };
}

export interface TemplateVars {
  topic: string;
  /**
   * The topic as a noun phrase for headings: as written, except that a trailing (or leading) service-area name
   * moves behind "in" with the area's own capitals (`emergency plumber austin` -> `emergency plumber in Austin`).
   */
  keyword: string;
  client: string;
  area: string | null;
  domain: string | null;
  /** The topic already names the service area (`plumber austin` for Austin, TX). */
  topicHasArea: boolean;
}

export type SlotKey =
  | 'what'
  | 'why'
  | 'how'
  | 'tips'
  | 'options'
  | 'types'
  | 'choose'
  | 'compare'
  | 'best'
  | 'pricing'
  | 'benefits'
  | 'process'
  | 'why_choose'
  | 'services'
  | 'area'
  | 'contact'
  | 'conclusion';

export interface Slot {
  key: SlotKey;
  /** Matches a source heading that fills the slot. */
  heading: RegExp;
  /** Matches sentences that suit the slot when it is filled from a template. */
  material: RegExp;
  /** Position (0-1) of a templated section among the others; contract sections always use it. */
  nominal: number;
  /** Contract sections: the heading is always the template and up to three source clusters feed it. */
  contract: boolean;
  /** Sentences come only from the client's own knowledge base and imported page. */
  ownOnly: boolean;
  /** The client's own sentences rank higher. */
  preferOwn: boolean;
  /** Headings that belong to a more specific slot even though `heading` matches them. */
  notHeading?: RegExp;
}

const s = (key: SlotKey, heading: RegExp, material: RegExp, nominal: number, flags: Partial<Slot> = {}): Slot => ({
  key,
  heading,
  material,
  nominal,
  contract: false,
  ownOnly: false,
  preferOwn: false,
  ...flags,
});

const SLOTS: Record<SlotKey, Slot> = {
  what: s(
    'what',
    /^(?:what (?:is|are)|what's)\b|\b(?:definition|overview|basics|explained|introduction|meaning|understanding)\b/i,
    /\b(?:is an?|is the|are|refers? to|means?|defined as|is when)\b/i,
    0.05,
  ),
  why: s(
    'why',
    /^why\b(?! choose)|\b(?:importance|matters?|reasons?)\b/i,
    /\b(?:because|important|matters?|reasons?|helps?|prevent\w*|avoid\w*|sav(?:e|es|ing)|risks?)\b/i,
    0.25,
  ),
  how: s(
    'how',
    /^how\b(?! much| to choose| to pick)|\b(?:steps?|guide|works?|instructions|method)\b/i,
    /\b(?:first|then|next|after|before|steps?|start|until)\b/i,
    0.45,
  ),
  tips: s(
    'tips',
    /\b(?:tips?|mistakes?|avoid|advice|best practices?|tricks?|care|maintenance|maintain|troubleshoot\w*)\b/i,
    /\b(?:should|never|always|make sure|avoid|tips?|keep|check|try)\b/i,
    0.8,
  ),
  options: s(
    'options',
    /\b(?:options?|alternatives?|choices?|ways to)\b/i,
    /\b(?:options?|alternatives?|choices?|either)\b/i,
    0.2,
  ),
  types: s(
    'types',
    /\b(?:types?|kinds?|styles?|categories|models?|varieties)\b/i,
    /\b(?:types?|kinds?|models?|styles?|categor\w*)\b/i,
    0.35,
  ),
  choose: s(
    'choose',
    /\b(?:choos\w*|pick\w*|select\w*|buying|buyer'?s?|what to look for|consider\w*|factors?)\b/i,
    /\b(?:choos\w*|look for|consider\w*|depends?|budget|decid\w*|worth)\b/i,
    0.7,
  ),
  compare: s(
    'compare',
    /\b(?:vs\.?|versus|compar\w*|differences?|head[- ]to[- ]head)\b/i,
    /\b(?:vs\.?|versus|compared?|comparison|than|whereas|unlike|difference)\b/i,
    0.3,
  ),
  best: s(
    'best',
    /\b(?:best|top|picks?|recommended|reviews?|winners?|rated)\b/i,
    /\b(?:best|top|recommend\w*|favou?rite|rated|winner|pick)\b/i,
    0.15,
  ),
  pricing: s(
    'pricing',
    /\b(?:cost\w*|pric\w*|fees?|rates?|budget|how much|afford\w*|cheap\w*|expens\w*)\b|\$/i,
    /[$€£]|\b(?:cost\w*|pric\w*|fees?|charg\w*|budget|afford\w*|cheap\w*|expens\w*|dollars?)\b/i,
    0.6,
  ),
  benefits: s(
    'benefits',
    /\b(?:benefits?|advantages?|pros)\b|^why (?:you|use|get|hire|install)/i,
    /\b(?:benefit\w*|advantage\w*|sav(?:e|es|ing|ings)|improv\w*|reduc\w*|protect\w*|lower|better)\b/i,
    0.2,
  ),
  process: s(
    'process',
    /\b(?:process|how it works|what to expect|procedure)\b|^how (?:we|our)\b/i,
    /\b(?:first|then|next|after|before|arriv\w*|inspect\w*|diagnos\w*|quotes?|estimates?|schedul\w*|approv\w*)\b/i,
    0.55,
    { ownOnly: true },
  ),
  why_choose: s(
    'why_choose',
    /\bwhy (?:choose|us|hire)\b|\b(?:guarantee\w*|warrant\w*|licensed|insured|certified|trusted)\b/i,
    /\b(?:licens\w*|insur\w*|warrant\w*|guarantee\w*|certif\w*|experience\w*|reviews?|rated|trusted|reputable|years)\b/i,
    0.85,
    { preferOwn: true, ownOnly: true },
  ),
  services: s(
    'services',
    /\b(?:services?|repairs?|install\w*|replac\w*|maintenance|inspections?)\b|^what we (?:do|offer)/i,
    /\b(?:repair\w*|install\w*|replac\w*|servic\w*|maintenance|inspect\w*|clean\w*|fix\w*)\b/i,
    0.1,
    {
      preferOwn: true,
      ownOnly: true,
      notHeading: /\b(?:process|how|steps?|costs?|pric\w*|areas?|why)\b/i,
    },
  ),
  area: s(
    'area',
    /\b(?:areas?|locations?|serv(?:e|ing)|near (?:you|me)|cities|neighbou?rhoods?|communities)\b/i,
    /$^/,
    0.75,
    { preferOwn: true, ownOnly: true },
  ),
  contact: s(
    'contact',
    /\b(?:contact|call|book|schedule|get in touch|request|quote)\b/i,
    /\b(?:call|contact|phone|e-?mail|book|schedul\w*|visit|open|hours)\b|\d{3}[-.\s]\d{4}/i,
    1,
    { ownOnly: true },
  ),
  conclusion: s(
    'conclusion',
    /\b(?:conclusion|final (?:thoughts|words|verdict)|bottom line|verdict|summary|wrapping up|takeaways?|in short)\b/i,
    /\b(?:overall|in short|in summary|bottom line|ultimately|in the end|worth)\b/i,
    0.95,
  ),
};

const INTENT_SLOTS: Record<Intent, SlotKey[]> = {
  educate: ['what', 'why', 'how', 'tips'],
  discover: ['options', 'types', 'choose'],
  compete: ['compare', 'best', 'pricing'],
  convert: ['benefits', 'pricing', 'process', 'why_choose', 'contact'],
};

const CONTRACT_SLOTS: Record<PageContract, SlotKey[]> = {
  article: ['conclusion'],
  commercial_service: ['services', 'why_choose', 'pricing', 'process', 'area', 'contact'],
};

/** The slots of a page in priority order: contract sections of a service page first, then the intent's. */
export function slotsFor(intent: Intent, contract: PageContract): Slot[] {
  const keys =
    contract === 'commercial_service'
      ? [...CONTRACT_SLOTS.commercial_service, ...INTENT_SLOTS[intent]]
      : [...INTENT_SLOTS[intent], ...CONTRACT_SLOTS.article];
  return [...new Set(keys)].map((k) => {
    const slot = SLOTS[k];
    return {
      ...slot,
      contract:
        (contract === 'commercial_service' && CONTRACT_SLOTS.commercial_service.includes(k)) ||
        k === 'conclusion' ||
        k === 'contact',
    };
  });
}

type Templates = Record<StyleName, (v: TemplateVars) => string | null>;

const t = (neutral: Templates['neutral'], friendly = neutral, direct = neutral): Templates => ({
  neutral,
  friendly,
  direct,
});
const cap = capitalizeFirst;

/**
 * Headings put the keyword only where any noun phrase reads correctly: before a colon (`{Keyword}: costs`). No
 * template puts it in a verb's slot (`How much does {keyword} cost?`, `How {keyword} works`) or after an article-less
 * preposition (`Types of {keyword}`); the client's name, a proper noun, may follow a verb or preposition.
 */
const HEADINGS: Record<SlotKey, Templates> = {
  what: t((v) => `${cap(v.keyword)}: the basics`),
  why: t((v) => `${cap(v.keyword)}: why it matters`),
  how: t((v) => `${cap(v.keyword)}: how it works`),
  tips: t((v) => `${cap(v.keyword)}: tips`),
  options: t((v) => `${cap(v.keyword)}: options`),
  types: t((v) => `${cap(v.keyword)}: types`),
  choose: t((v) => `${cap(v.keyword)}: how to choose`),
  compare: t((v) => `${cap(v.keyword)}: comparison`),
  best: t((v) => `${cap(v.keyword)}: top picks`),
  pricing: t(
    (v) => `${cap(v.keyword)}: costs`,
    (v) => `${cap(v.keyword)}: what it costs`,
    (v) => `${cap(v.keyword)}: prices`,
  ),
  benefits: t((v) => `${cap(v.keyword)}: benefits`),
  process: t(
    () => 'How the process works',
    () => 'What to expect',
    () => 'How it works',
  ),
  why_choose: t(
    (v) => `Why choose ${v.client}`,
    (v) => `Why people choose ${v.client}`,
    (v) => `Why ${v.client}`,
  ),
  services: t(
    (v) => `Services from ${v.client}`,
    (v) => `How ${v.client} can help`,
    (v) => `What ${v.client} offers`,
  ),
  area: t(
    (v) => (v.area ? `Areas served: ${v.area}` : null),
    (v) => (v.area ? `Serving ${v.area}` : null),
    (v) => (v.area ? `Serving ${v.area}` : null),
  ),
  contact: t(
    (v) => `Contact ${v.client}`,
    (v) => `Get in touch with ${v.client}`,
    (v) => `Talk to ${v.client}`,
  ),
  conclusion: t(
    () => 'Conclusion',
    () => 'Wrapping up',
    () => 'The bottom line',
  ),
};

/** The templated heading of a slot, or null when it cannot be filled (no service area). */
export function slotHeading(key: SlotKey, style: Style, vars: TemplateVars): string | null {
  if (key === 'conclusion' && style.name === 'neutral') {
    return style.tone === 'technical_precise'
      ? 'Summary'
      : style.tone === 'clear_practical'
        ? 'Key takeaways'
        : 'Conclusion';
  }
  return HEADINGS[key][style.name](vars);
}

/**
 * The call-to-action lines (uncited: they name the client and make no claim). They never carry the keyword, so they
 * read correctly whatever it is; the client's name is a proper noun and fits any of them.
 */
export function ctaLines(style: Style, vars: TemplateVars): string[] {
  const line =
    style.name === 'direct'
      ? `Contact ${vars.client} today.`
      : style.name === 'friendly'
        ? `Get in touch with ${vars.client} to talk it through.`
        : `Contact ${vars.client} to discuss your project.`;
  return vars.domain ? [line, `Visit ${vars.domain}.`] : [line];
}

/**
 * The keyword as a noun phrase: a service-area name that ends (or starts) the topic moves behind "in", written as
 * the client writes it (`emergency plumber austin` with area `Austin, TX` -> `emergency plumber in Austin`).
 */
export function keywordPhrase(topic: string, area: string | null): string {
  const words = topic.trim().split(/\s+/).filter(Boolean);
  const place = (area ?? '').split(',')[0]?.trim() ?? '';
  const placeWords = place.split(/\s+/).filter(Boolean);
  const n = placeWords.length;
  if (n === 0 || words.length <= n) return topic.trim();
  const same = (slice: string[]): boolean => slice.join(' ').toLowerCase() === place.toLowerCase();
  const before = words.slice(0, words.length - n);
  if (same(words.slice(words.length - n)) && !/^(?:in|near|around|of)$/i.test(before[before.length - 1] ?? ''))
    return `${before.join(' ')} in ${place}`;
  if (same(words.slice(0, n))) return `${words.slice(n).join(' ')} in ${place}`;
  return topic.trim();
}

/** The title patterns, best first; the writer takes the first that fits in 60 characters. */
export function titlePatterns(
  intent: Intent,
  contract: PageContract,
  vars: TemplateVars & { Topic: string },
): string[] {
  if (contract === 'commercial_service') {
    const where = vars.area && !vars.topicHasArea ? ` in ${vars.area}` : '';
    return [
      `${vars.Topic}${where} | ${vars.client}`,
      `${vars.Topic} | ${vars.client}`,
      `${vars.Topic}${where}`,
      vars.Topic,
    ];
  }
  const byIntent: Record<Intent, string[]> = {
    educate: [`${vars.Topic}: A Practical Guide`, `${vars.Topic} Explained`],
    discover: [`${vars.Topic}: Options and How to Choose`, `${vars.Topic}: Your Options`],
    compete: [`${vars.Topic}: Compared`, `${vars.Topic} Compared`],
    convert: [`${vars.Topic} | ${vars.client}`],
  };
  return [...byIntent[intent], vars.Topic];
}

/** The FAQ section heading in the request's language (English when not listed). */
export function faqHeading(language: string): string {
  const byLanguage: Record<string, string> = {
    de: 'Häufig gestellte Fragen',
    es: 'Preguntas frecuentes',
    fr: 'Questions fréquentes',
    it: 'Domande frequenti',
    nl: 'Veelgestelde vragen',
    pt: 'Perguntas frequentes',
  };
  return byLanguage[language] ?? 'Frequently asked questions';
}

/** The heading of the opening section in the outline (rendered without a heading in the draft). */
export const INTRODUCTION = 'Introduction';
