import { z } from 'zod';
import { createPerplexityEngine } from '../answer/perplexity.ts';
import { defineProvider, present, required } from '../define.ts';

export const DEFAULT_PERPLEXITY_MODEL = 'sonar';

/** Perplexity's environment variables. */
const env = {
  PERPLEXITY_API_KEY: z.string().optional(),
  PERPLEXITY_BASE_URL: z.string().url().default('https://api.perplexity.ai'),
  PERPLEXITY_MODEL: z.string().default(DEFAULT_PERPLEXITY_MODEL),
};

/** The `perplexity` answer engine (Sonar), whenever PERPLEXITY_API_KEY is set. */
export const perplexityAnswers = defineProvider({
  kind: 'answer',
  name: 'perplexity',
  env,
  settings: z.object({
    PERPLEXITY_API_KEY: required(),
    PERPLEXITY_BASE_URL: z.string(),
    /** Default sonar; an embedding caller may leave it out. */
    PERPLEXITY_MODEL: z.string().optional(),
  }),
  needs: ['PERPLEXITY_API_KEY'],
  create: (s, deps) =>
    createPerplexityEngine({
      ...deps.http,
      apiKey: s.PERPLEXITY_API_KEY,
      baseUrl: s.PERPLEXITY_BASE_URL,
      model: present(s.PERPLEXITY_MODEL) ? s.PERPLEXITY_MODEL : DEFAULT_PERPLEXITY_MODEL,
      clock: deps.clock,
    }),
});
