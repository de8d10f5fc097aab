import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../../src/providers/types.ts';
import {
  ANTHROPIC_VERSION,
  createAnthropicWriter,
  type AnthropicOptions,
} from '../../../src/providers/writer/anthropic.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../../helpers/fake-providers/anthropic.ts';

let fake: FakeAnthropic;
beforeAll(async () => {
  fake = await startFakeAnthropic();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.setReply(null);
});

function writer(over: Partial<AnthropicOptions> = {}) {
  return {
    w: createAnthropicWriter({
      apiKey: fake.apiKey,
      baseUrl: fake.baseUrl,
      model: 'claude-sonnet-4-5',
      ...over,
    }),
  };
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

const SYSTEM = 'You write for Nordlicht Café. Voice: friendly and concise. Language: sv-SE. Mention the Sunday brunch.';
const PROMPT = 'Draft the FAQ section for "fika i Umeå".';
const SCHEMA = {
  type: 'object',
  properties: {
    faqs: {
      type: 'array',
      items: { type: 'object', properties: { q: { type: 'string' }, a: { type: 'string' } }, required: ['q', 'a'] },
    },
  },
  required: ['faqs'],
};

describe('Anthropic writer', () => {
  it('sends the documented headers, top-level system and the prompt verbatim', async () => {
    const { w } = writer();
    const res = await w.complete({ system: SYSTEM, prompt: PROMPT, temperature: 0.2, idempotencyKey: 'run3:faq' });
    const req = fake.requests[0]!;
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe(fake.apiKey);
    expect(req.headers['anthropic-version']).toBe(ANTHROPIC_VERSION);
    expect(ANTHROPIC_VERSION).toBe('2023-06-01');
    expect(req.headers['idempotency-key']).toBe('run3:faq');
    expect(req.headers).not.toHaveProperty('authorization');
    expect(req.body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: SYSTEM,
      messages: [{ role: 'user', content: PROMPT }],
      temperature: 0.2,
    });
    expect(res).toMatchObject({ text: `Echo: ${PROMPT}`, provider: 'anthropic', model: 'claude-sonnet-4-5' });
    expect(res.usage?.outputTokens).toBeGreaterThan(0);
  });

  it('gets JSON through one forced tool and reads the tool_use input', async () => {
    const { w } = writer();
    const res = await w.complete({
      system: SYSTEM,
      prompt: PROMPT,
      jsonSchema: SCHEMA,
      schemaName: 'faq list',
      maxTokens: 1200,
    });
    const body = fake.bodies()[0]!;
    expect(body.max_tokens).toBe(1200);
    expect(body.tools).toEqual([{ name: 'faq_list', description: expect.any(String), input_schema: SCHEMA }]);
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'faq_list' });
    expect(res.json).toEqual({ faqs: [{ q: 'sample q', a: 'sample a' }] });
    expect(JSON.parse(res.text)).toEqual(res.json);
  });

  it('wraps an array root schema as an object tool input and unwraps it', async () => {
    const { w } = writer();
    const res = await w.complete({
      system: 's',
      prompt: 'p',
      jsonSchema: { type: 'array', items: { type: 'string' } },
    });
    expect(fake.bodies()[0]!.tools?.[0]?.input_schema).toMatchObject({ type: 'object', required: ['result'] });
    expect(res.json).toEqual(['sample result']);
  });

  it('joins text blocks and raises refusals, truncated tool calls and empty text', async () => {
    const { w } = writer();
    fake.setReply(() => ({
      content: [
        { type: 'text', text: 'Hej ' },
        { type: 'text', text: 'världen' },
      ],
    }));
    expect((await w.complete({ system: 's', prompt: 'p' })).text).toBe('Hej världen');

    fake.setReply(() => ({ content: [], stop_reason: 'refusal' }));
    expect((await failure(w.complete({ system: 's', prompt: 'p' }))).retryable).toBe(false);

    fake.setReply(() => ({
      content: [{ type: 'tool_use', id: 't', name: 'output', input: {} }],
      stop_reason: 'max_tokens',
    }));
    expect((await failure(w.complete({ system: 's', prompt: 'p', jsonSchema: SCHEMA }))).message).toMatch(/max_tokens/);

    fake.setReply(() => ({ content: [{ type: 'text', text: '  ' }] }));
    expect((await failure(w.complete({ system: 's', prompt: 'p' }))).message).toMatch(/no text/);
  });

  it('fails a 529 overloaded after one request with its Retry-After in ms, then succeeds; one request per 500; fails at once on 401', async () => {
    const { w } = writer();
    fake.failNext(529, 1, { retryAfter: '4' });
    expect(await failure(w.complete({ system: 's', prompt: 'p' }))).toMatchObject({
      retryable: true,
      status: 529,
      retryAfterMs: 4000,
    });
    expect(fake.requests).toHaveLength(1);
    expect((await w.complete({ system: 's', prompt: 'p' })).text).toBe('Echo: p');
    expect(fake.requests).toHaveLength(2);

    fake.reset();
    fake.failNext(500, 3);
    expect(await failure(w.complete({ system: 's', prompt: 'p' }))).toMatchObject({ retryable: true, status: 500 });
    expect(fake.requests).toHaveLength(1);

    fake.reset();
    expect(await failure(writer({ apiKey: 'sk-ant-wrong' }).w.complete({ system: 's', prompt: 'p' }))).toMatchObject({
      retryable: false,
      status: 401,
    });
    expect(fake.requests).toHaveLength(1);
  });

  it('times out a request that never answers', async () => {
    const { w } = writer({ timeoutMs: 80 });
    fake.hangNext(1);
    expect((await failure(w.complete({ system: 's', prompt: 'p' }))).message).toMatch(/timed out after 80 ms/);
  });
});
