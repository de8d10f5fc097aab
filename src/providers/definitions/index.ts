import { anthropicWriter, claudeAnswers } from './anthropic.ts';
import { archiveSerp } from './archive.ts';
import { dataForSeoAiOverview, dataForSeoSerp } from './dataforseo.ts';
import { extractiveWriter } from './extractive.ts';
import { chatGptAnswers, openAiWriter } from './openai.ts';
import { perplexityAnswers } from './perplexity.ts';
import { serpApiSerp } from './serpapi.ts';

/**
 * Every provider the server can build, one line each. `createProviderRegistry` walks this list: a SERP provider or a
 * writer is built when its kind's setting names it, an answer engine whenever its settings are present. The order is
 * the order of startup errors and of answer engines. A new provider is one file in this folder and one line here
 * (docs/extending.md).
 */
export const PROVIDERS = [
  archiveSerp,
  dataForSeoSerp,
  serpApiSerp,
  extractiveWriter,
  openAiWriter,
  anthropicWriter,
  chatGptAnswers,
  claudeAnswers,
  perplexityAnswers,
  dataForSeoAiOverview,
] as const;
