import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTermAnalyzer } from '../../../src/engine/analysis/terms/index.ts';
import type { TermAnalyzer } from '../../../src/engine/analysis/terms/types.ts';
import {
  createLlmContentWriter,
  countWords,
  estimateTokens,
  PROMPT_TOKEN_BUDGET,
} from '../../../src/engine/content/llm/index.ts';
import { contractGuidance, INTENT_GUIDANCE, TONE_GUIDANCE } from '../../../src/engine/content/llm/guidance.ts';
import { BRIEF_JSON_SCHEMA } from '../../../src/engine/content/llm/schemas.ts';
import type { ContentWriter } from '../../../src/engine/content/types.ts';
import { RetryableError } from '../../../src/engine/runner/types.ts';
import { createOpenAiWriter } from '../../../src/providers/writer/openai.ts';
import { lastUserText, startFakeOpenAi, type ChatBody, type FakeOpenAi } from '../../helpers/fake-providers/openai.ts';
import {
  BRIEF,
  CLIENT,
  CONTEXT,
  CUSTOM_INSTRUCTIONS,
  input,
  pageOf,
  RESEARCH,
  REQUEST,
  source,
  SOURCES,
} from './llm-writer-fixtures.ts';

let fake: FakeOpenAi;
let analyzer: TermAnalyzer;
beforeAll(async () => {
  fake = await startFakeOpenAi();
  analyzer = createTermAnalyzer();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
  fake.setReply(null);
});

function contentWriter(): ContentWriter {
  const w = createOpenAiWriter({
    apiKey: fake.apiKey!,
    baseUrl: fake.baseUrl,
    model: 'gpt-4o-mini',
  });
  return createLlmContentWriter({ writer: w, analyzer });
}

const system = (b: ChatBody) => String(b.messages?.find((m) => m.role === 'system')?.content ?? '');
const keys = () => fake.requests.map((r) => r.headers['idempotency-key']);

/** Replies with each answer in turn (the last one repeats). */
function script(...answers: string[]) {
  let i = 0;
  fake.setReply(() => answers[Math.min(i++, answers.length - 1)]!);
}

const BRIEF_ANSWER = {
  outline: [
    { heading: 'Why taps leak', level: 2, points: ['Worn washers', 'Damaged O-rings'], sources: [1, 2, 7] },
    { heading: 'Ceramic disc cartridges', level: '3', points: ['Same-size replacement'], sources: ['2'] },
    { heading: 'Our hidden fees policy', level: 2, points: ['None'], sources: [] },
    {
      heading: 'Book Acme Plumbing',
      level: 2,
      points: ['Call the Emergency Line', 'Mention Brand X kits'],
      sources: [],
    },
  ],
  seo: {
    title: 'How to Fix a Leaking Tap in Leeds: Washers, O-Rings, Cartridges and When to Call Us',
    metaDescription: `${'A friendly guide to fixing a dripping tap yourself, from the isolation valve to a new washer, and when to call Acme Plumbing in Leeds. '.repeat(2)}`,
    slug: 'Leaking Tap Fix — Leeds!',
    h1: 'Fix a leaking tap in Leeds',
    primaryKeyword: 'leaking tap',
    secondaryKeywords: ['dripping tap', 'Leaking Tap', 'tap washer', 'Brand X washer'],
  },
  faqs: [
    { question: 'Why does my tap drip?', answer: 'A worn washer is the usual cause.', source: 1 },
    { question: 'How long does a repair take?', answer: 'Under 30 minutes.', source: 9 },
    { question: 'Are there hidden fees?', answer: 'No.', source: null },
  ],
};

describe('LLM content writer over the OpenAI-compatible adapter', () => {
  it('puts the client, tone, language, location, intent, contract, knowledge base, exclusions, context and instructions in the system prompt', async () => {
    await contentWriter().brief(input());
    const body = fake.bodies()[0]!;
    const sys = system(body);
    expect(sys).toContain('Acme Plumbing (acme-plumbing.example)');
    expect(sys).toContain(`Brand voice: ${CLIENT.brandVoice}`);
    expect(sys).toContain(TONE_GUIDANCE.friendly_simple.text);
    expect(sys).toContain(`"""\n${CUSTOM_INSTRUCTIONS.trim()}\n"""`);
    expect(sys).toContain('Write everything in English (United Kingdom) (en-GB)');
    expect(sys).toContain('Never mention "hidden fees", "Brand X"');
    expect(sys).toContain(CLIENT.knowledgeBase);
    expect(sys).toContain(INTENT_GUIDANCE.convert);
    expect(sys).toContain(contractGuidance('commercial_service', CLIENT, REQUEST.location));
    expect(sys).toContain('the service area: West Yorkshire');
    expect(sys).toContain('why choose Acme Plumbing');
    expect(sys).toContain('Target location: Leeds, United Kingdom');
    expect(sys).toContain(CONTEXT);
  });

  it('uses the same system prompt for every call and the article contract when asked', async () => {
    const writer = contentWriter();
    await writer.brief(input({}, { pageContract: 'article', intent: 'educate', tone: 'technical_precise' }));
    script(pageOf(300));
    await writer.draft({
      ...input({}, { pageContract: 'article', intent: 'educate', tone: 'technical_precise' }),
      brief: BRIEF,
    });
    const [a, b] = fake.bodies();
    expect(system(a!)).toBe(system(b!));
    expect(system(a!)).toContain(contractGuidance('article', CLIENT, REQUEST.location));
    expect(system(a!)).toContain(INTENT_GUIDANCE.educate);
    expect(system(a!)).toContain(TONE_GUIDANCE.technical_precise.text);
    expect(system(a!)).not.toContain(TONE_GUIDANCE.friendly_simple.text);
  });

  it('names other languages and passes unknown codes on as they are', async () => {
    const writer = contentWriter();
    await writer.brief(input({}, { language: 'de' }));
    await writer.brief(input({ idempotencyKey: 'job2' }, { language: 'ja' }));
    await writer.brief(input({ idempotencyKey: 'job3' }, { language: 'xx-YY' }));
    const sys = fake.bodies().map(system);
    expect(sys[0]).toContain('Write everything in German (de)');
    expect(sys[1]).toContain('Write everything in Japanese (ja)');
    expect(sys[2]).toContain('Write everything in the language "xx-YY"');
  });

  it('sends a strict brief schema and the research with term targets, keyed and bounded', async () => {
    await contentWriter().brief(input());
    const body = fake.bodies()[0]!;
    expect(keys()).toEqual(['job1:brief']);
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'content_brief', schema: BRIEF_JSON_SCHEMA, strict: true },
    });
    const strict = (s: unknown): void => {
      if (!s || typeof s !== 'object') return;
      const o = s as Record<string, unknown>;
      if (o.type === 'object') {
        expect(o.additionalProperties).toBe(false);
        expect([...(o.required as string[])].sort()).toEqual(Object.keys(o.properties as object).sort());
      }
      Object.values(o).forEach(strict);
    };
    strict(BRIEF_JSON_SCHEMA);
    const user = lastUserText(body);
    for (const [i, s] of SOURCES.entries()) {
      expect(user).toContain(`[${i + 1}] ${s.title}\nURL: ${s.url}`);
    }
    expect(user).toContain('Headings: Why taps leak | Replacing the washer');
    expect(user).toContain('5,500 litres');
    expect(user).toMatch(/- "washer" \(term\): used by 3 pages/);
    // Passages naming an excluded topic are not offered to the model.
    expect(user).not.toContain('charge hidden fees');
    expect(user).not.toContain('Brand X sells');
  });

  it('keeps a large research set under the prompt budget', async () => {
    const long = (i: number) =>
      Array.from(
        { length: 150 },
        (_, j) => `Leaking tap fact ${i}-${j}: a worn washer wastes ${j} litres of water every week in a dripping tap.`,
      ).join(' ');
    const sources = Array.from({ length: 8 }, (_, i) =>
      source(i + 1, `https://big${i}.example/tap`, `Big page ${i}`, ['Leaking tap'], [long(i), long(i + 100)]),
    );
    await contentWriter().brief(input({ research: { ...RESEARCH, sources } }));
    const body = fake.bodies()[0]!;
    const tokens = estimateTokens(system(body)) + estimateTokens(lastUserText(body));
    expect(tokens).toBeLessThanOrEqual(PROMPT_TOKEN_BUDGET);
    expect(tokens).toBeGreaterThan(PROMPT_TOKEN_BUDGET * 0.8);
    for (let i = 1; i <= 8; i++) expect(lastUserText(body)).toContain(`[${i}] Big page ${i - 1}`);
  });

  it('parses, validates and clamps the brief, maps FAQ sources to URLs and takes entities from the analysis', async () => {
    script(JSON.stringify(BRIEF_ANSWER));
    const brief = await contentWriter().brief(input());
    expect(brief.outline).toEqual([
      { heading: 'Why taps leak', level: 2, points: ['Worn washers', 'Damaged O-rings'], sources: [1, 2] },
      { heading: 'Ceramic disc cartridges', level: 3, points: ['Same-size replacement'], sources: [2] },
      { heading: 'Book Acme Plumbing', level: 2, points: ['Call the Emergency Line'], sources: [] },
    ]);
    const m = brief.seoMetadata;
    expect(m.title.length).toBeLessThanOrEqual(60);
    expect(BRIEF_ANSWER.seo.title.startsWith(m.title)).toBe(true);
    expect(m.metaDescription.length).toBeLessThanOrEqual(155);
    expect(m.slug).toBe('leaking-tap-fix-leeds');
    expect(m.h1).toBe('Fix a leaking tap in Leeds');
    expect(m.secondaryKeywords).toEqual(['dripping tap', 'tap washer']);
    expect(brief.faqs).toEqual([
      { question: 'Why does my tap drip?', answer: 'A worn washer is the usual cause.', sourceUrl: SOURCES[0]!.url },
      { question: 'How long does a repair take?', answer: 'Under 30 minutes.', sourceUrl: null },
    ]);
    const terms = brief.entities.map((e) => e.term.toLowerCase());
    expect(terms).toContain('washer');
    expect(terms).toContain('isolation valve');
    expect(terms.some((t) => t.includes('brand x') || t.includes('hidden fee'))).toBe(false);
    for (const e of brief.entities) expect(e.range.p25).toBeLessThanOrEqual(e.range.p75);
  });

  it('throws a RetryableError when the brief stays unreadable or has the wrong shape', async () => {
    script('Sure! Here is your brief: outline...');
    const err = await contentWriter()
      .brief(input())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RetryableError);
    expect((err as Error).message).toMatch(/could not be read/);
    expect(keys()).toEqual(['job1:brief', 'job1:brief:json-retry']);

    fake.reset();
    script(JSON.stringify({ outline: 'none', seo: {} }));
    await expect(contentWriter().brief(input({ idempotencyKey: 'job2' }))).rejects.toBeInstanceOf(RetryableError);

    fake.reset();
    script(
      JSON.stringify({
        ...BRIEF_ANSWER,
        outline: [{ heading: 'All about hidden fees', level: 2, points: [], sources: [] }],
      }),
    );
    await expect(contentWriter().brief(input({ idempotencyKey: 'job3' }))).rejects.toThrow(/usable outline/);
  });

  it('asks for a longer draft when the first is short and returns the one in range (2 calls)', async () => {
    script(pageOf(100), pageOf(300));
    const draft = await contentWriter().draft({ ...input(), brief: BRIEF });
    expect(keys()).toEqual(['job1:draft', 'job1:draft-fix-1']);
    expect(draft.wordCount).toBe(countWords(draft.markdown));
    expect(draft.wordCount).toBeGreaterThanOrEqual(255);
    expect(draft.wordCount).toBeLessThanOrEqual(345);
    const [first, fix] = fake.bodies();
    expect(lastUserText(first!)).toContain('Length: about 300 words (between 255 and 345)');
    expect(lastUserText(fix!)).toMatch(/has 99 words; it must have between 255 and 345\. It is too short: expand it/);
    // The fix prompt gets the page without its Sources list.
    expect(lastUserText(fix!)).not.toContain('## Sources');
    expect(system(fix!)).toBe(system(first!));
  });

  it('condenses a long draft, and after two failed fixes returns the closest', async () => {
    script(pageOf(600), pageOf(310));
    const ok = await contentWriter().draft({ ...input(), brief: BRIEF });
    expect(keys()).toEqual(['job1:draft', 'job1:draft-fix-1']);
    expect(lastUserText(fake.bodies()[1]!)).toMatch(/too long: condense it/);
    expect(ok.wordCount).toBeLessThanOrEqual(345);

    fake.reset();
    script(pageOf(100), pageOf(200), pageOf(150));
    const closest = await contentWriter().draft({ ...input({ idempotencyKey: 'job2' }), brief: BRIEF });
    expect(keys()).toEqual(['job2:draft', 'job2:draft-fix-1', 'job2:draft-fix-2']);
    expect(closest.wordCount).toBe(countWords(pageOf(200)));
  });

  it('builds the draft prompt from the brief and the research', async () => {
    script(pageOf(300));
    await contentWriter().draft({ ...input(), brief: BRIEF });
    const user = lastUserText(fake.bodies()[0]!);
    expect(user).toContain('H1: Leaking tap repair in Leeds');
    expect(user).toContain('## Why taps leak [sources: 1, 2]\n  - Worn washers and O-rings');
    expect(user).toContain('- "isolation valve" (term): used by 3 pages, 1 time each');
    expect(user).toContain('Cite every researched fact with [n]');
    expect(user).toContain(`[2] Dripping tap guide\nURL: ${SOURCES[1]!.url}`);
    expect(user).not.toContain('Starting draft');
  });

  it('removes every sentence, item, row and section that mentions an excluded topic', async () => {
    const page = [
      '# Leaking tap repair in Leeds',
      `${pageOf(300).split('\n\n')[1]} Unlike others we charge no Hidden Fees at all. Washers are cheap to replace [1].`,
      '- Isolation valve first [2]\n- Brand X kits fit most taps\n- A new O-ring [3]',
      '| Part | Note |\n|---|---|\n| Washer | common |\n| Brand X cartridge | pricey |',
      '## Hidden fees, explained',
      'Other firms add hidden   fees to the bill. We explain them here.',
      '### More on that',
      'Still about fees.',
      '## Book us',
      'Call the Emergency Line today.',
    ].join('\n\n');
    script(page);
    const draft = await contentWriter().draft({ ...input(), brief: BRIEF });
    expect(draft.markdown).not.toMatch(/hidden\s+fees|brand x/i);
    expect(draft.sentences.some((s) => /hidden|brand x/i.test(s.text))).toBe(false);
    expect(draft.markdown).toContain('Washers are cheap to replace [1].');
    expect(draft.markdown).toContain('- Isolation valve first [2]\n- A new O-ring [3]');
    expect(draft.markdown).toContain('| Washer | common |');
    expect(draft.markdown).not.toContain('Still about fees');
    expect(draft.markdown).toContain('## Book us\n\nCall the Emergency Line today.');
  });

  it('maps citation markers to source URLs and writes the Sources list', async () => {
    const page = [
      '# Leaking tap repair in Leeds',
      'A dripping tap wastes water [1]. Mixer taps use cartridges.[2] We love taps. Bogus claim [9]. Washers and O-rings fail most [1, 3].',
      '## Sources',
      '1. made-up list the model wrote',
    ].join('\n\n');
    script(page);
    const w = createLlmContentWriter({
      writer: createOpenAiWriter({ apiKey: fake.apiKey!, baseUrl: fake.baseUrl, model: 'm' }),
      analyzer,
      maxLengthFixes: 0,
    });
    const draft = await w.draft({ ...input(), brief: BRIEF });
    expect(draft.sentences).toEqual([
      { text: 'A dripping tap wastes water.', section: 'Leaking tap repair in Leeds', sourceUrl: SOURCES[0]!.url },
      { text: 'Mixer taps use cartridges.', section: 'Leaking tap repair in Leeds', sourceUrl: SOURCES[1]!.url },
      { text: 'We love taps.', section: 'Leaking tap repair in Leeds', sourceUrl: null },
      { text: 'Bogus claim.', section: 'Leaking tap repair in Leeds', sourceUrl: null },
      { text: 'Washers and O-rings fail most.', section: 'Leaking tap repair in Leeds', sourceUrl: SOURCES[0]!.url },
    ]);
    expect(draft.markdown).toContain('Washers and O-rings fail most [1][3].');
    expect(draft.markdown).toContain('Mixer taps use cartridges [2]. We love taps.');
    expect(draft.markdown).not.toContain('[9]');
    expect(draft.markdown).not.toContain('made-up list');
    expect(
      draft.markdown
        .trimEnd()
        .endsWith(
          [
            '## Sources',
            '',
            `- [1] [How to fix a leaking tap](${SOURCES[0]!.url})`,
            `- [2] [Dripping tap guide](${SOURCES[1]!.url})`,
            `- [3] [Leaky tap repair](${SOURCES[2]!.url})`,
          ].join('\n'),
        ),
    ).toBe(true);
  });

  it('gives the imported page as the starting draft in optimize mode', async () => {
    const imported = {
      url: 'https://acme-plumbing.example/taps',
      title: 'Tap repairs',
      markdown: '# Tap repairs\n\n## Our tap service\n\nWe fix taps in Leeds.',
      wordCount: 9,
      contentHash: 'sha256:x',
    };
    script(JSON.stringify(BRIEF_ANSWER), pageOf(300));
    const writer = contentWriter();
    const research = { ...RESEARCH, imported };
    await writer.brief(input({ research }, { projectMode: 'optimize', sourceUrl: imported.url }));
    await writer.draft({ ...input({ research }, { projectMode: 'optimize', sourceUrl: imported.url }), brief: BRIEF });
    const [brief, draft] = fake.bodies().map(lastUserText);
    expect(brief).toContain('Existing page to improve (https://acme-plumbing.example/taps, 9 words)');
    expect(brief).toContain('- Our tap service');
    expect(draft).toContain("Starting draft: the client's current page (https://acme-plumbing.example/taps)");
    expect(draft).toContain('keep what is accurate');
    expect(draft).toContain('never published to the live page');
    expect(draft).toContain('We fix taps in Leeds.');
  });

  it('revises with the missing terms, recommendations, score and target, and filters the answer', async () => {
    script(`${pageOf(300)}\n\nBrand X taps are also fine.`);
    const current = { markdown: `${pageOf(300)}\n\n## Sources\n\n- [1] x`, wordCount: 299, sentences: [] };
    const draft = await contentWriter().revise({
      ...input(),
      brief: BRIEF,
      draft: current,
      goals: {
        missingTerms: ['ceramic disc', 'Brand X cartridge'],
        underusedTerms: ['isolation valve'],
        recommendations: ['Add a step-by-step section.'],
        score: 54.5,
        targetScore: 70,
      },
    });
    expect(keys()).toEqual(['job1:revise']);
    const user = lastUserText(fake.bodies()[0]!);
    expect(user).toContain('scores 54.5 out of 100');
    expect(user).toContain('the target is 70');
    expect(user).toContain('## Missing terms (the competitors use them, the draft does not)\n- ceramic disc\n');
    expect(user).toContain('- isolation valve');
    expect(user).toContain('- Add a step-by-step section.');
    expect(user).toContain('## Current draft\n"""\n# Leaking tap repair in Leeds');
    expect(user).not.toMatch(/Brand X cartridge|- \[1\] x/);
    expect(draft.markdown).not.toContain('Brand X');
    expect(draft.wordCount).toBeGreaterThanOrEqual(255);
  });

  it('passes the abort signal to the provider call', async () => {
    fake.hangNext();
    const ac = new AbortController();
    const pending = contentWriter().draft({ ...input({ signal: ac.signal }), brief: BRIEF });
    while (fake.requests.length === 0) await new Promise((r) => setImmediate(r));
    ac.abort();
    await expect(pending).rejects.toThrow();
  });
});
