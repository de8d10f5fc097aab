import { defineProvider, noSettings } from '../define.ts';

/**
 * LLM_PROVIDER=extractive (the default): no language model. The registry's writer is null and the engine writes
 * from the researched sources with the extractive writer (docs/extractive-writer.md).
 */
export const extractiveWriter = defineProvider({
  kind: 'writer',
  name: 'extractive',
  env: {},
  settings: noSettings(),
  needs: [],
  create: () => null,
});
