import { z } from 'zod';
import { createOpenAiSearchEngine } from '../answer/openai-search.ts';
import { defineProvider, isOpenAiHost, present, required } from '../define.ts';
import { createOpenAiWriter } from '../writer/openai.ts';

export const DEFAULT_OPENAI_SEARCH_MODEL = 'gpt-4o-search-preview';

/** OpenAI's environment variables (or an OpenAI-compatible server's), read by the writer and the `chatgpt` engine. */
const env = {
  OPENAI_API_KEY: z.string().optional(),
  OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1'),
  OPENAI_MODEL: z.string().default('gpt-4o-mini'),
  OPENAI_SEARCH_MODEL: z.string().default(DEFAULT_OPENAI_SEARCH_MODEL),
};

/**
 * LLM_PROVIDER=openai: any OpenAI-compatible chat API. A server other than OpenAI's may need no key (Ollama); the
 * writer then calls itself `openai-compatible`.
 */
export const openAiWriter = defineProvider({
  kind: 'writer',
  name: 'openai',
  env,
  settings: z
    .object({ OPENAI_API_KEY: z.string().optional(), OPENAI_BASE_URL: z.string(), OPENAI_MODEL: z.string() })
    .refine((s) => present(s.OPENAI_API_KEY) || !isOpenAiHost(s.OPENAI_BASE_URL)),
  needs: ['OPENAI_API_KEY'],
  hint: 'or OPENAI_BASE_URL pointing at a server that needs no key, such as Ollama',
  create: (s, deps) =>
    createOpenAiWriter({
      ...deps.http,
      ...(present(s.OPENAI_API_KEY) ? { apiKey: s.OPENAI_API_KEY } : {}),
      baseUrl: s.OPENAI_BASE_URL,
      model: s.OPENAI_MODEL,
      name: isOpenAiHost(s.OPENAI_BASE_URL) ? 'openai' : 'openai-compatible',
    }),
});

/** The `chatgpt` answer engine and research platform (OpenAI with web search), whenever OPENAI_API_KEY is set. */
export const chatGptAnswers = defineProvider({
  kind: 'answer',
  name: 'chatgpt',
  env,
  settings: z.object({
    OPENAI_API_KEY: required(),
    OPENAI_BASE_URL: z.string(),
    /** Default gpt-4o-search-preview; an embedding caller may leave it out. */
    OPENAI_SEARCH_MODEL: z.string().optional(),
  }),
  needs: ['OPENAI_API_KEY'],
  research: true,
  create: (s, deps) =>
    createOpenAiSearchEngine({
      ...deps.http,
      apiKey: s.OPENAI_API_KEY,
      baseUrl: s.OPENAI_BASE_URL,
      model: present(s.OPENAI_SEARCH_MODEL) ? s.OPENAI_SEARCH_MODEL : DEFAULT_OPENAI_SEARCH_MODEL,
      clock: deps.clock,
    }),
});
