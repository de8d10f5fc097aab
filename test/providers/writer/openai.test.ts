import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../../src/providers/types.ts';
import {
  createOpenAiWriter,
  JSON_REMINDER,
  objectRootSchema,
  parseJsonText,
  type OpenAiWriterOptions,
} from '../../../src/providers/writer/openai.ts';
import { lastUserText, startFakeOpenAi, type FakeOpenAi } from '../../helpers/fake-providers/openai.ts';

let fake: FakeOpenAi;
let keyless: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi();
  keyless = await startFakeOpenAi({ apiKey: null });
});
afterAll(async () => {
  await fake.close();
  await keyless.close();
});
beforeEach(() => {
  fake.reset();
  fake.setReply(null);
  keyless.reset();
});

function writer(over: Partial<OpenAiWriterOptions> = {}) {
  return {
    w: createOpenAiWriter({
      apiKey: fake.apiKey!,
      baseUrl: fake.baseUrl,
      model: 'gpt-4o-mini',
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

const SYSTEM =
  'You write for Acme Plumbing. Voice: warm, plain. Tone: reassuring. Language: de-DE. Never mention prices.';
const PROMPT = 'Write the introduction for "Rohrbruch was tun". Sources: [1] https://a.example/x';

const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, sections: { type: 'array', items: { type: 'string' } } },
  required: ['title', 'sections'],
  additionalProperties: false,
};

describe('OpenAI-compatible writer', () => {
  it('puts the system text and prompt on the wire verbatim, with auth, model, tokens, temperature and key', async () => {
    const { w } = writer();
    const res = await w.complete({
      system: SYSTEM,
      prompt: PROMPT,
      maxTokens: 900,
      temperature: 0.3,
      idempotencyKey: 'run1:draft',
    });
    const req = fake.requests[0]!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe(`Bearer ${fake.apiKey}`);
    expect(req.headers['idempotency-key']).toBe('run1:draft');
    expect(req.body).toEqual({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: PROMPT },
      ],
      max_tokens: 900,
      temperature: 0.3,
    });
    expect(res.text).toBe(`Echo: ${PROMPT}`);
    expect(res).toMatchObject({ provider: 'openai', model: 'gpt-4o-mini-2025-03-11' });
    expect(res.usage?.inputTokens).toBeGreaterThan(0);
    expect(res.json).toBeUndefined();
  });

  it('uses max_completion_tokens against api.openai.com and a default token budget', async () => {
    const { w } = writer({ tokenParameter: 'max_completion_tokens' });
    await w.complete({ system: 's', prompt: 'p' });
    expect(fake.bodies()[0]).toMatchObject({ max_completion_tokens: 4096 });
    expect(fake.bodies()[0]).not.toHaveProperty('max_tokens');
    expect(fake.bodies()[0]).not.toHaveProperty('temperature');
  });

  it('asks for strict json_schema output and parses it', async () => {
    const { w } = writer();
    const res = await w.complete({ system: SYSTEM, prompt: PROMPT, jsonSchema: SCHEMA, schemaName: 'brief outline' });
    expect(fake.bodies()[0]!.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'brief_outline', schema: SCHEMA, strict: true },
    });
    expect(res.json).toEqual({ title: 'sample title', sections: ['sample sections'] });
    expect(JSON.parse(res.text)).toEqual(res.json);
  });

  it('wraps a non-object root schema for the provider and unwraps the answer', async () => {
    const { w } = writer();
    const res = await w.complete({
      system: 's',
      prompt: 'p',
      jsonSchema: { type: 'array', items: { type: 'string' } },
    });
    expect(fake.bodies()[0]!.response_format?.json_schema?.schema).toMatchObject({
      type: 'object',
      required: ['result'],
    });
    expect(res.json).toEqual(['sample result']);
  });

  it('retries once with a reminder under a distinct key when the JSON does not parse', async () => {
    const { w } = writer();
    fake.setReply((body) =>
      lastUserText(body) === JSON_REMINDER
        ? '```json\n{"title":"ok","sections":[]}\n```'
        : 'Sure! Here is your outline: title ok',
    );
    const res = await w.complete({ system: SYSTEM, prompt: PROMPT, jsonSchema: SCHEMA, idempotencyKey: 'run2:brief' });
    expect(res.json).toEqual({ title: 'ok', sections: [] });
    const [, second] = fake.bodies();
    expect(second!.messages).toEqual([
      { role: 'system', content: SYSTEM },
      { role: 'user', content: PROMPT },
      { role: 'assistant', content: 'Sure! Here is your outline: title ok' },
      { role: 'user', content: JSON_REMINDER },
    ]);
    expect(fake.requests.map((r) => r.headers['idempotency-key'])).toEqual(['run2:brief', 'run2:brief:json-retry']);
  });

  it('gives up after the reminder with a non-retryable error', async () => {
    const { w } = writer();
    fake.setReply(() => 'still not json');
    const err = await failure(w.complete({ system: 's', prompt: 'p', jsonSchema: SCHEMA }));
    expect(err.retryable).toBe(false);
    expect(err.message).toMatch(/valid JSON/);
    expect(fake.requests).toHaveLength(2);
  });

  it('raises refusals and empty content as ProviderErrors', async () => {
    const { w } = writer();
    fake.setReply(() => ({ content: null, refusal: "I can't help with that." }));
    const refused = await failure(w.complete({ system: 's', prompt: 'p' }));
    expect(refused.retryable).toBe(false);
    expect(refused.message).toContain("can't help");
    fake.setReply(() => ({ content: '', finish_reason: 'content_filter' }));
    expect((await failure(w.complete({ system: 's', prompt: 'p' }))).message).toContain('content_filter');
  });

  it('works without a key against an Ollama-style server, with max_tokens', async () => {
    const w = createOpenAiWriter({ baseUrl: keyless.baseUrl, model: 'llama3.1:8b', name: 'ollama' });
    const res = await w.complete({ system: 'sys', prompt: 'hello', maxTokens: 50 });
    expect(keyless.requests[0]!.headers).not.toHaveProperty('authorization');
    expect(keyless.bodies()[0]).toMatchObject({ model: 'llama3.1:8b', max_tokens: 50 });
    expect(res.provider).toBe('ollama');
  });

  it('fails each 429 after one request with its Retry-After in ms until a later call succeeds; one request per 500; fails at once on 401', async () => {
    const { w } = writer();
    fake.failNext(429, 2, { retryAfter: '1' });
    for (let n = 1; n <= 2; n++) {
      expect(await failure(w.complete({ system: 's', prompt: 'p' }))).toMatchObject({
        retryable: true,
        status: 429,
        retryAfterMs: 1000,
      });
      expect(fake.requests).toHaveLength(n);
    }
    expect((await w.complete({ system: 's', prompt: 'p' })).text).toBe('Echo: p');
    expect(fake.requests).toHaveLength(3);

    fake.reset();
    fake.failNext(500, 3);
    expect(await failure(w.complete({ system: 's', prompt: 'p' }))).toMatchObject({ retryable: true, status: 500 });
    expect(fake.requests).toHaveLength(1);

    fake.reset();
    const bad = writer({ apiKey: 'sk-wrong' }).w;
    expect(await failure(bad.complete({ system: 's', prompt: 'p' }))).toMatchObject({ retryable: false, status: 401 });
    expect(fake.requests).toHaveLength(1);
  });

  it('times out a request that never answers', async () => {
    const { w } = writer({ timeoutMs: 80 });
    fake.hangNext(1);
    expect((await failure(w.complete({ system: 's', prompt: 'p' }))).message).toMatch(/timed out after 80 ms/);
  });
});

describe('writer JSON helpers', () => {
  it('parses fenced and bare JSON, and rejects prose', () => {
    expect(parseJsonText('{"a":1}')).toEqual({ a: 1 });
    expect(parseJsonText('```json\n[1,2]\n```')).toEqual([1, 2]);
    expect(parseJsonText('Here you go: {"a":1}')).toBeUndefined();
  });

  it('keeps object roots as they are', () => {
    const rooted = objectRootSchema(SCHEMA);
    expect(rooted.schema).toBe(SCHEMA);
    expect(rooted.unwrap({ x: 1 })).toEqual({ x: 1 });
  });
});
