import { z } from 'zod';
import { createDataForSeoAiOverviewEngine } from '../answer/dataforseo-ai-overview.ts';
import { defineProvider, present, required } from '../define.ts';
import { createDataForSeoSearch } from '../search/dataforseo.ts';

/** DataForSEO's environment variables, read by its SERP provider and its AI Overview engine. */
const env = {
  DATAFORSEO_LOGIN: z.string().optional(),
  DATAFORSEO_PASSWORD: z.string().optional(),
  DATAFORSEO_BASE_URL: z.string().url().default('https://api.dataforseo.com'),
};

/** DataForSEO's login, password and base URL; configured only when both credentials are set. */
const credentials = z
  .object({ DATAFORSEO_LOGIN: required(), DATAFORSEO_PASSWORD: required(), DATAFORSEO_BASE_URL: z.string() })
  .transform((s) => ({ login: s.DATAFORSEO_LOGIN, password: s.DATAFORSEO_PASSWORD, baseUrl: s.DATAFORSEO_BASE_URL }));

/** SERP_PROVIDER=dataforseo: Google organic, Google video pack and YouTube search. */
export const dataForSeoSerp = defineProvider({
  kind: 'serp',
  name: 'dataforseo',
  env,
  settings: credentials,
  needs: ['DATAFORSEO_LOGIN', 'DATAFORSEO_PASSWORD'],
  research: ['organic', 'google_video_pack', 'youtube_search'],
  // One credential without the other is a mistake whether or not DataForSEO is the SERP provider (the AI Overview
  // engine uses them too), so this check runs either way.
  check: (s, chosen) => {
    const login = present(s.DATAFORSEO_LOGIN);
    const password = present(s.DATAFORSEO_PASSWORD);
    if (chosen && !login && !password)
      return ['SERP_PROVIDER=dataforseo needs DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD'];
    if (login !== password)
      return [
        `${login ? 'DATAFORSEO_PASSWORD' : 'DATAFORSEO_LOGIN'} is missing (DataForSEO needs both DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD)`,
      ];
    return [];
  },
  create: (s, deps) => createDataForSeoSearch({ ...deps.http, ...s, clock: deps.clock }),
});

/** The `google_ai_overview` answer engine, whenever DataForSEO credentials are set (whatever SERP_PROVIDER says). */
export const dataForSeoAiOverview = defineProvider({
  kind: 'answer',
  name: 'google_ai_overview',
  env,
  settings: credentials,
  needs: ['DATAFORSEO_LOGIN', 'DATAFORSEO_PASSWORD'],
  create: (s, deps) => createDataForSeoAiOverviewEngine({ ...deps.http, ...s, clock: deps.clock }),
});
