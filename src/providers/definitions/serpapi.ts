import { z } from 'zod';
import { defineProvider, required } from '../define.ts';
import { createSerpApiSearch } from '../search/serpapi.ts';

/** SerpApi's environment variables. */
const env = {
  SERPAPI_API_KEY: z.string().optional(),
  SERPAPI_BASE_URL: z.string().url().default('https://serpapi.com'),
};

/** SERP_PROVIDER=serpapi: Google organic, Google video pack and YouTube search. */
export const serpApiSerp = defineProvider({
  kind: 'serp',
  name: 'serpapi',
  env,
  settings: z.object({ SERPAPI_API_KEY: required(), SERPAPI_BASE_URL: z.string() }),
  needs: ['SERPAPI_API_KEY'],
  research: ['organic', 'google_video_pack', 'youtube_search'],
  create: (s, deps) =>
    createSerpApiSearch({ ...deps.http, apiKey: s.SERPAPI_API_KEY, baseUrl: s.SERPAPI_BASE_URL, clock: deps.clock }),
});
