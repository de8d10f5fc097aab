/** Shared inputs of the LLM writer tests: a client with every kind of context, researched sources, a brief. */
import type { Extraction } from '../../../src/engine/analysis/extract/types.ts';
import type {
  Brief,
  ClientContext,
  ContentRequest,
  Research,
  ResearchSource,
  WritingInput,
} from '../../../src/engine/content/types.ts';

export const CLIENT: ClientContext = {
  name: 'Acme Plumbing',
  domain: 'acme-plumbing.example',
  serviceArea: 'West Yorkshire',
  brandVoice: 'Warm and plain-spoken, like a neighbour who happens to be a plumber.',
  knowledgeBase: 'Acme Plumbing has served Leeds since 1998. The call-out fee is waived for pensioners.',
  excludedTopics: ['hidden fees', 'Brand X'],
};

export const CUSTOM_INSTRUCTIONS = `Mention our 24/7 "Emergency Line" in the intro;\n  avoid the word 'cheap' <b>ever</b>.`;
export const CONTEXT = 'Spring 2025 campaign: landlords with rental flats in Leeds.';

export const REQUEST: ContentRequest = {
  topic: 'how to fix a leaking tap',
  intent: 'convert',
  language: 'en-GB',
  location: 'Leeds, United Kingdom',
  tone: 'friendly_simple',
  customInstructions: CUSTOM_INSTRUCTIONS,
  wordCountTarget: 300,
  projectMode: 'new',
  pageContract: 'commercial_service',
  sourceUrl: null,
  researchPlatforms: ['organic'],
  draftBody: null,
  context: CONTEXT,
};

function extraction(title: string, headings: string[], paragraphs: string[]): Extraction {
  const mainText = headings
    .flatMap((h, i) => [h, paragraphs[i] ?? ''])
    .concat(paragraphs.slice(headings.length))
    .join('\n');
  return {
    title,
    metaDescription: '',
    siteName: '',
    canonical: '',
    lang: 'en',
    h1: title,
    headings: headings.map((text) => ({ level: 2, text })),
    mainText,
    wordCount: (mainText.match(/[\p{L}\p{N}_]+/gu) ?? []).length,
    paragraphs,
    lists: [],
    tables: [],
    images: [],
    links: [],
    structuredData: { faq: [], articles: [], products: [], types: [] },
  };
}

/** A researched page; its citation number is its position in the list. */
export function source(
  id: number,
  url: string,
  title: string,
  headings: string[],
  paragraphs: string[],
): ResearchSource {
  const e = extraction(title, headings, paragraphs);
  return {
    id,
    url,
    title,
    platform: 'organic',
    position: id,
    contentHash: `sha256:${id}`,
    wordCount: e.wordCount,
    extraction: e,
  };
}

export const SOURCES: ResearchSource[] = [
  source(
    1,
    'https://taps.example/fix-leaking-tap',
    'How to fix a leaking tap',
    ['Why taps leak', 'Replacing the washer'],
    [
      'A leaking tap is usually caused by a worn washer or a damaged O-ring. A tap dripping once a second wastes about 5,500 litres of water a year. Turn off the isolation valve before you start.',
      'Unscrew the tap head with an adjustable spanner and replace the rubber washer. A new washer costs less than a pound at most hardware shops. Some firms charge hidden fees for call-outs.',
    ],
  ),
  source(
    2,
    'https://water.example/dripping-tap-guide',
    'Dripping tap guide',
    ['Ceramic disc taps', 'When to call a plumber'],
    [
      'Modern mixer taps use a ceramic disc cartridge instead of a washer. A faulty cartridge must be replaced with one of the same size. Always turn off the isolation valve and open the tap to drain it.',
      'Call a plumber if the tap body is cracked or the leak comes from the pipe. A worn washer and a damaged O-ring are the most common faults.',
    ],
  ),
  source(
    3,
    'https://diy.example/leaky-tap',
    'Leaky tap repair',
    ['Tools you need'],
    [
      'You need an adjustable spanner, a screwdriver, a replacement washer and a new O-ring. Most repairs take under 30 minutes. Brand X sells washer kits in every size.',
      'If the tap still drips after a new washer, the valve seat may be worn and need regrinding. The isolation valve is usually under the sink.',
    ],
  ),
];

export const RESEARCH: Research = { query: REQUEST.topic, searches: [], sources: SOURCES, skipped: [], imported: null };

export function input(over: Partial<WritingInput> = {}, request: Partial<ContentRequest> = {}): WritingInput {
  return { request: { ...REQUEST, ...request }, client: CLIENT, research: RESEARCH, idempotencyKey: 'job1', ...over };
}

export const BRIEF: Brief = {
  outline: [
    { heading: 'Why taps leak', level: 2, points: ['Worn washers and O-rings'], sources: [1, 2] },
    {
      heading: 'Fixing it yourself',
      level: 2,
      points: ['Isolation valve first', 'Replace the washer'],
      sources: [1, 3],
    },
    {
      heading: 'When to call Acme Plumbing',
      level: 2,
      points: ['Cracked tap bodies', 'Our service area'],
      sources: [2],
    },
  ],
  seoMetadata: {
    title: 'Leaking tap repair in Leeds',
    metaDescription: 'Fix a leaking tap fast.',
    slug: 'leaking-tap-repair-leeds',
    h1: 'Leaking tap repair in Leeds',
    primaryKeyword: 'leaking tap',
    secondaryKeywords: ['dripping tap'],
  },
  entities: [
    { term: 'washer', kind: 'term', importance: 0.9, sources: 3, range: { p25: 2, median: 3, p75: 4 } },
    { term: 'isolation valve', kind: 'term', importance: 0.7, sources: 3, range: { p25: 1, median: 1, p75: 1 } },
  ],
  faqs: [{ question: 'Why does my tap drip?', answer: 'Usually a worn washer.', sourceUrl: SOURCES[0]!.url }],
};

const FILLER = ['Our', 'team', 'fixes', 'dripping', 'taps', 'across', 'Leeds', 'every', 'single', 'day'];

/** A sentence of exactly `n` words (n >= 2), ending with a full stop. */
export function sentenceOf(n: number, cite = ''): string {
  const words = Array.from({ length: n }, (_, i) => FILLER[i % FILLER.length]!);
  return `${words.join(' ')}${cite}.`;
}

/** A page of about `words` words: H1, intro, two sections, FAQ; 10-word sentences. */
export function pageOf(words: number): string {
  const per = Math.max(1, Math.round((words - 16) / 40));
  const para = (cite: string) => Array.from({ length: per }, (_, i) => sentenceOf(10, i === 0 ? cite : '')).join(' ');
  return [
    '# Leaking tap repair in Leeds',
    para(' [1]'),
    '## Why taps leak',
    para(' [2]'),
    '## Fixing it yourself',
    para(''),
    '## Frequently asked questions',
    '### Why does my tap drip?',
    para(' [3]'),
  ].join('\n\n');
}
