import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTermAnalyzer } from '../../../src/engine/analysis/terms/index.ts';
import type { TermAnalyzer } from '../../../src/engine/analysis/terms/types.ts';
import { createLlmContentWriter } from '../../../src/engine/content/llm/index.ts';
import { INTENT_GUIDANCE, TONE_GUIDANCE } from '../../../src/engine/content/llm/guidance.ts';
import { BRIEF_JSON_SCHEMA } from '../../../src/engine/content/llm/schemas.ts';
import type { ContentWriter } from '../../../src/engine/content/types.ts';
import { RetryableError } from '../../../src/engine/runner/types.ts';
import { createAnthropicWriter } from '../../../src/providers/writer/anthropic.ts';
import {
  startFakeAnthropic,
  type FakeAnthropic,
  type MessagesBody,
  type MessagesReply,
} from '../../helpers/fake-providers/anthropic.ts';
import { BRIEF, CLIENT, CONTEXT, CUSTOM_INSTRUCTIONS, input, pageOf, SOURCES } from './llm-writer-fixtures.ts';

let fake: FakeAnthropic;
let analyzer: TermAnalyzer;
beforeAll(async () => {
  fake = await startFakeAnthropic();
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
  const w = createAnthropicWriter({
    apiKey: fake.apiKey,
    baseUrl: fake.baseUrl,
    model: 'claude-sonnet-4-5',
  });
  return createLlmContentWriter({ writer: w, analyzer });
}

const userText = (b: MessagesBody) => String(b.messages?.[0]?.content ?? '');
const keys = () => fake.requests.map((r) => r.headers['idempotency-key']);

function script(...replies: MessagesReply[]) {
  let i = 0;
  fake.setReply(() => replies[Math.min(i++, replies.length - 1)]!);
}
const text = (t: string): MessagesReply => ({ stop_reason: 'end_turn', content: [{ type: 'text', text: t }] });
const tool = (input: unknown): MessagesReply => ({
  stop_reason: 'tool_use',
  content: [{ type: 'tool_use', id: 'toolu_1', name: 'content_brief', input }],
});

describe('LLM content writer over the Anthropic adapter', () => {
  it('asks for the brief through one forced tool, with the client context in the top-level system prompt', async () => {
    script(
      tool({
        outline: [{ heading: 'Why taps leak', level: 2, points: ['Washers'], sources: [2] }],
        seo: {
          title: 'Leaking tap repair',
          metaDescription: 'Fix it.',
          slug: 'leaking-tap',
          h1: 'Leaking tap repair',
          primaryKeyword: 'leaking tap',
          secondaryKeywords: [],
        },
        faqs: [{ question: 'Why?', answer: 'A worn washer.', source: 3 }],
      }),
    );
    const brief = await contentWriter().brief(input());
    const body = fake.bodies()[0]!;
    expect(body.tools).toEqual([
      { name: 'content_brief', description: expect.any(String), input_schema: BRIEF_JSON_SCHEMA },
    ]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'content_brief' });
    const sys = String(body.system);
    for (const part of [
      CLIENT.brandVoice!,
      CLIENT.knowledgeBase!,
      CUSTOM_INSTRUCTIONS.trim(),
      CONTEXT,
      TONE_GUIDANCE.friendly_simple.text,
      INTENT_GUIDANCE.convert,
    ]) {
      expect(sys).toContain(part);
    }
    expect(sys).toContain('Write everything in English (United Kingdom) (en-GB)');
    expect(sys).toContain('Never mention "hidden fees", "Brand X"');
    expect(sys).toContain('Target location: Leeds, United Kingdom');
    expect(userText(body)).toContain(`[1] ${SOURCES[0]!.title}\nURL: ${SOURCES[0]!.url}`);
    expect(keys()).toEqual(['job1:brief']);
    expect(brief.outline).toEqual([{ heading: 'Why taps leak', level: 2, points: ['Washers'], sources: [2] }]);
    expect(brief.faqs[0]!.sourceUrl).toBe(SOURCES[2]!.url);
    expect(brief.entities.length).toBeGreaterThan(0);
  });

  it('turns an invalid tool input into a RetryableError', async () => {
    script(tool({ outline: [], seo: { title: 'x', metaDescription: 'y' } }));
    await expect(contentWriter().brief(input())).rejects.toBeInstanceOf(RetryableError);
    fake.reset();
    script({ stop_reason: 'max_tokens', content: [{ type: 'tool_use', id: 't', name: 'content_brief', input: {} }] });
    await expect(contentWriter().brief(input({ idempotencyKey: 'job2' }))).rejects.toThrow(/could not be read/);
  });

  it('drafts in Markdown with length control: a short first answer, then one in range', async () => {
    script(text(pageOf(100)), text(pageOf(300)));
    const draft = await contentWriter().draft({ ...input(), brief: BRIEF });
    expect(keys()).toEqual(['job1:draft', 'job1:draft-fix-1']);
    const [first, fix] = fake.bodies();
    expect(first!.tools).toBeUndefined();
    expect(String(first!.system)).toBe(String(fix!.system));
    expect(userText(fix!)).toMatch(/too short: expand it/);
    expect(draft.wordCount).toBeGreaterThanOrEqual(255);
    expect(draft.wordCount).toBeLessThanOrEqual(345);
    expect(draft.markdown.startsWith('# Leaking tap repair in Leeds\n')).toBe(true);
    expect(draft.sentences.find((s) => s.section === 'Why taps leak')?.sourceUrl).toBe(SOURCES[1]!.url);
    expect(draft.markdown).toContain(`- [3] [Leaky tap repair](${SOURCES[2]!.url})`);
  });
});
