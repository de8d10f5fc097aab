import { z } from 'zod';
import { createAnthropicSearchEngine } from '../answer/anthropic-search.ts';
import { defineProvider, present, required } from '../define.ts';
import { createAnthropicWriter } from '../writer/anthropic.ts';

/** Anthropic's environment variables, read by the writer and the `claude` engine (whose model defaults to the writer's). */
const env = {
  ANTHROPIC_API_KEY: z.string().optional(),
  ANTHROPIC_BASE_URL: z.string().url().default('https://api.anthropic.com'),
  ANTHROPIC_MODEL: z.string().default('claude-sonnet-4-5'),
  ANTHROPIC_SEARCH_MODEL: z.string().optional(),
};

/** LLM_PROVIDER=anthropic: the Anthropic Messages API. */
export const anthropicWriter = defineProvider({
  kind: 'writer',
  name: 'anthropic',
  env,
  settings: z.object({ ANTHROPIC_API_KEY: required(), ANTHROPIC_BASE_URL: z.string(), ANTHROPIC_MODEL: z.string() }),
  needs: ['ANTHROPIC_API_KEY'],
  create: (s, deps) =>
    createAnthropicWriter({
      ...deps.http,
      apiKey: s.ANTHROPIC_API_KEY,
      baseUrl: s.ANTHROPIC_BASE_URL,
      model: s.ANTHROPIC_MODEL,
    }),
});

/** The `claude` answer engine and research platform (Anthropic with web search), whenever ANTHROPIC_API_KEY is set. */
export const claudeAnswers = defineProvider({
  kind: 'answer',
  name: 'claude',
  env,
  settings: z.object({
    ANTHROPIC_API_KEY: required(),
    ANTHROPIC_BASE_URL: z.string(),
    ANTHROPIC_MODEL: z.string(),
    /** Default ANTHROPIC_MODEL; an embedding caller may leave it out. */
    ANTHROPIC_SEARCH_MODEL: z.string().optional(),
  }),
  needs: ['ANTHROPIC_API_KEY'],
  research: true,
  create: (s, deps) =>
    createAnthropicSearchEngine({
      ...deps.http,
      apiKey: s.ANTHROPIC_API_KEY,
      baseUrl: s.ANTHROPIC_BASE_URL,
      model: present(s.ANTHROPIC_SEARCH_MODEL) ? s.ANTHROPIC_SEARCH_MODEL : s.ANTHROPIC_MODEL,
      clock: deps.clock,
    }),
});
