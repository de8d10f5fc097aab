/** The words the prompts use for each tone, intent and page contract, and language names for language codes. */
import type { ClientContext, Intent, PageContract, Tone } from '../types.ts';

export const TONE_GUIDANCE: Record<Tone, { label: string; text: string }> = {
  clear_practical: {
    label: 'clear and practical',
    text: 'Plain words and short sentences; get to the point; concrete steps, examples and checklists the reader can act on; no filler or hype.',
  },
  expert_detailed: {
    label: 'expert and detailed',
    text: 'Authoritative and thorough; explain the why as well as the what; name specifics (figures, standards, trade-offs, edge cases); write for an interested reader who wants depth.',
  },
  friendly_simple: {
    label: 'friendly and simple',
    text: 'Warm and conversational; everyday words; speak to the reader as "you"; explain any jargon the first time it appears; short paragraphs.',
  },
  technical_precise: {
    label: 'technical and precise',
    text: 'Exact terminology, units and specifications; neutral and unambiguous; define terms; prefer numbers to adjectives; no marketing language.',
  },
  persuasive_direct: {
    label: 'persuasive and direct',
    text: 'Lead with the benefits and outcomes for the reader; confident, active voice; address objections head-on; clear calls to action; never exaggerate or make claims the facts do not support.',
  },
};

export const INTENT_GUIDANCE: Record<Intent, string> = {
  educate:
    'Educate: the reader wants to understand the topic. The outline explains it from the basics up (what it is, how it works, why it matters, how to do it, common mistakes) and answers the main question early.',
  discover:
    'Discover: the reader is exploring options and ideas. The outline surveys the options, types or approaches, says what sets each apart and helps the reader choose.',
  compete:
    'Compete: the reader is comparing alternatives. The outline compares them on clear criteria (pros and cons, who each suits, a comparison table where useful), covers everything the ranking pages cover and more, and ends with a clear recommendation.',
  convert:
    'Convert: the reader is ready to act. The outline speaks to their need, shows benefits and proof, answers objections, explains the next steps and leads to a clear call to action.',
};

/** What each kind of page must contain; the service page names the client and its service area. */
export function contractGuidance(contract: PageContract | null, client: ClientContext, location: string): string {
  if (contract === 'commercial_service') {
    const area = client.serviceArea ?? location;
    return [
      `Commercial service page for ${client.name}. It must have, in this order:`,
      `- an H1 naming the service (and the area, when it reads naturally) and a short value proposition;`,
      `- the services offered, each with what the customer gets;`,
      `- the service area: ${area};`,
      `- why choose ${client.name} (only facts from the knowledge base or the sources: no invented awards, years or guarantees);`,
      `- pricing or the process (how it works step by step, and what affects the cost; never invent prices);`,
      `- FAQs;`,
      `- a closing call to action (contact or book ${client.name}).`,
    ].join('\n');
  }
  return [
    'Article: an informational page. It has an H1, a short introduction that answers the query, H2 sections (H3 subsections where useful) shaped by the search intent, an FAQ section and a short conclusion.',
    `No hard sales pitch: at most one natural mention of ${client.name} near the end.`,
  ].join('\n');
}

const LANGUAGES: Record<string, string> = {
  en: 'English',
  de: 'German',
  fr: 'French',
  es: 'Spanish',
  it: 'Italian',
  nl: 'Dutch',
  pt: 'Portuguese',
  ja: 'Japanese',
  zh: 'Chinese',
  ko: 'Korean',
  ru: 'Russian',
  pl: 'Polish',
  sv: 'Swedish',
  da: 'Danish',
  no: 'Norwegian',
  nb: 'Norwegian Bokmål',
  nn: 'Norwegian Nynorsk',
  fi: 'Finnish',
  tr: 'Turkish',
  ar: 'Arabic',
  he: 'Hebrew',
  hi: 'Hindi',
  id: 'Indonesian',
  ms: 'Malay',
  th: 'Thai',
  vi: 'Vietnamese',
  cs: 'Czech',
  sk: 'Slovak',
  el: 'Greek',
  hu: 'Hungarian',
  ro: 'Romanian',
  uk: 'Ukrainian',
  bg: 'Bulgarian',
  hr: 'Croatian',
  sr: 'Serbian',
  sl: 'Slovenian',
  lt: 'Lithuanian',
  lv: 'Latvian',
  et: 'Estonian',
  ca: 'Catalan',
  tl: 'Tagalog',
  fil: 'Filipino',
  bn: 'Bengali',
  fa: 'Persian',
  ur: 'Urdu',
  ta: 'Tamil',
};

function regionName(region: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' }).of(region.toUpperCase()) ?? region;
  } catch {
    return region;
  }
}

/** `de` → `German`, `en-US` → `English (United States)`; null for a code it does not know. */
export function languageName(code: string): string | null {
  const [lang, ...rest] = code.trim().replace(/_/g, '-').split('-');
  const name = lang ? LANGUAGES[lang.toLowerCase()] : undefined;
  if (!name) return null;
  const region = rest.find((p) => /^[a-z]{2}$|^\d{3}$/i.test(p));
  const script = rest.find((p) => /^[a-z]{4}$/i.test(p));
  const details = [
    script === undefined
      ? null
      : script.toLowerCase() === 'hant'
        ? 'Traditional'
        : script.toLowerCase() === 'hans'
          ? 'Simplified'
          : script,
    region ? regionName(region) : null,
  ].filter(Boolean);
  return details.length ? `${name} (${details.join(', ')})` : name;
}

/** The language line of the system prompt; unknown codes are passed on as they are. */
export function languageInstruction(code: string): string {
  const name = languageName(code);
  const what = 'headings, metadata, FAQs and body text alike';
  return name
    ? `Write everything in ${name} (${code}): ${what}.`
    : `Write everything in the language "${code}": ${what}.`;
}
