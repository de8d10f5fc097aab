import { defineProvider, noSettings } from '../define.ts';

/** SERP_PROVIDER=archive (the default): organic research over the web archive's pages, offline and keyless. */
export const archiveSerp = defineProvider({
  kind: 'serp',
  name: 'archive',
  env: {},
  settings: noSettings(),
  needs: [],
  research: ['organic'],
  create: (_settings, deps) => deps.archiveSearch,
});
