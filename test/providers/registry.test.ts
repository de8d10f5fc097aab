import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/errors.ts';
import { z } from 'zod';
import { ConfigSchema, configSchema } from '../../src/config.ts';
import { defineProvider, PROVIDER_KINDS, required, type ProviderKind } from '../../src/providers/define.ts';
import { PROVIDERS } from '../../src/providers/definitions/index.ts';
import {
  checkProviderSettings,
  createProviderRegistry,
  type ProviderDefinitions,
  type ProviderSettings,
} from '../../src/providers/registry.ts';
import { RESEARCH_PLATFORMS, type SearchProvider } from '../../src/providers/types.ts';
import { startFakeAnthropic, type FakeAnthropic } from '../helpers/fake-providers/anthropic.ts';
import { startFakeDataForSeo, type FakeDataForSeo } from '../helpers/fake-providers/dataforseo.ts';
import { startFakeOpenAi, type FakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { startFakePerplexity, type FakePerplexity } from '../helpers/fake-providers/perplexity.ts';
import { startFakeSerpApi, type FakeSerpApi } from '../helpers/fake-providers/serpapi.ts';
import { fixedClock, type FakeApi, type FakeServer } from '../helpers/fake-providers/server.ts';

const BASE: ProviderSettings = {
  SERP_PROVIDER: 'archive',
  DATAFORSEO_LOGIN: undefined,
  DATAFORSEO_PASSWORD: undefined,
  DATAFORSEO_BASE_URL: 'https://api.dataforseo.com',
  SERPAPI_API_KEY: undefined,
  SERPAPI_BASE_URL: 'https://serpapi.com',
  LLM_PROVIDER: 'extractive',
  OPENAI_API_KEY: undefined,
  OPENAI_BASE_URL: 'https://api.openai.com/v1',
  OPENAI_MODEL: 'gpt-4o-mini',
  ANTHROPIC_API_KEY: undefined,
  ANTHROPIC_BASE_URL: 'https://api.anthropic.com',
  ANTHROPIC_MODEL: 'claude-sonnet-4-5',
  PERPLEXITY_API_KEY: undefined,
  PERPLEXITY_BASE_URL: 'https://api.perplexity.ai',
  PROVIDER_TIMEOUT_MS: 60_000,
};

const archiveSearch: SearchProvider = {
  name: 'archive',
  platforms: ['organic'],
  search: async (query, o) => ({
    provider: 'archive',
    platform: o.platform,
    query,
    location: null,
    language: null,
    fetchedAt: 'x',
    results: [],
  }),
};

const deps = { archiveSearch, clock: fixedClock };

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

describe('provider registry: offline defaults', () => {
  const reg = createProviderRegistry(BASE, deps);

  it('serves organic research from the archive and nothing else', () => {
    expect(reg.researchProviderFor('organic')).toBe(archiveSearch);
    expect(reg.researchPlatforms).toEqual(['organic']);
    expect(reg.writer).toBeNull();
    expect(reg.answerEngines).toEqual({});
  });

  it('names the platform and the setting that enables it', () => {
    const yt = apiError(() => reg.researchProviderFor('youtube_search'));
    expect(yt.code).toBe('invalid_input');
    expect(yt.status).toBe(400);
    expect(yt.message).toBe(
      "research platform 'youtube_search' needs SERP_PROVIDER=dataforseo or serpapi with credentials (DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD or SERPAPI_API_KEY)",
    );
    expect(yt.details).toMatchObject({ platforms: ['youtube_search'] });
    expect(apiError(() => reg.researchProviderFor('chatgpt')).message).toBe(
      "research platform 'chatgpt' needs OPENAI_API_KEY",
    );
    expect(apiError(() => reg.researchProviderFor('claude')).message).toBe(
      "research platform 'claude' needs ANTHROPIC_API_KEY",
    );
  });

  it('checks a whole request before paid work, listing every missing platform', () => {
    const err = apiError(() => reg.resolveResearch(['organic', 'google_video_pack', 'chatgpt', 'organic']));
    expect(err.details).toMatchObject({ platforms: ['google_video_pack', 'chatgpt'] });
    expect(err.message).toContain("'google_video_pack'");
    expect(err.message).toContain("'chatgpt' needs OPENAI_API_KEY");
    expect([...reg.resolveResearch(['organic', 'organic']).keys()]).toEqual(['organic']);
  });
});

describe('provider registry: startup configuration errors', () => {
  const cases: Array<[Partial<ProviderSettings>, RegExp]> = [
    [{ SERP_PROVIDER: 'serpapi' }, /SERP_PROVIDER=serpapi needs SERPAPI_API_KEY/],
    [{ SERP_PROVIDER: 'dataforseo' }, /SERP_PROVIDER=dataforseo needs DATAFORSEO_LOGIN and DATAFORSEO_PASSWORD/],
    [{ SERP_PROVIDER: 'dataforseo', DATAFORSEO_LOGIN: 'me' }, /DATAFORSEO_PASSWORD is missing/],
    [{ DATAFORSEO_PASSWORD: 'pw' }, /DATAFORSEO_LOGIN is missing/],
    [{ LLM_PROVIDER: 'openai' }, /LLM_PROVIDER=openai needs OPENAI_API_KEY/],
    [{ LLM_PROVIDER: 'openai', OPENAI_API_KEY: '  ' }, /LLM_PROVIDER=openai needs OPENAI_API_KEY/],
    [{ LLM_PROVIDER: 'anthropic' }, /LLM_PROVIDER=anthropic needs ANTHROPIC_API_KEY/],
  ];
  it.each(cases)('%o fails naming the variable', (over, message) => {
    expect(() => createProviderRegistry({ ...BASE, ...over }, deps)).toThrow(message);
    expect(() => checkProviderSettings({ ...BASE, ...over })).toThrow(message);
  });

  it('accepts an OpenAI-compatible server without a key (Ollama)', () => {
    const reg = createProviderRegistry(
      { ...BASE, LLM_PROVIDER: 'openai', OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1', OPENAI_MODEL: 'llama3.1' },
      deps,
    );
    expect(reg.writer?.name).toBe('openai-compatible');
    // No key: no chatgpt engine, even though the writer exists.
    expect(reg.answerEngines.chatgpt).toBeUndefined();
  });
});

describe('provider registry over loopback fakes', () => {
  let dfs: FakeDataForSeo;
  let serp: FakeSerpApi;
  let openai: FakeOpenAi;
  let anthropic: FakeAnthropic;
  let pplx: FakePerplexity;
  beforeAll(async () => {
    [dfs, serp, openai, anthropic, pplx] = await Promise.all([
      startFakeDataForSeo(),
      startFakeSerpApi(),
      startFakeOpenAi(),
      startFakeAnthropic(),
      startFakePerplexity(),
    ]);
  });
  afterAll(() => Promise.all([dfs, serp, openai, anthropic, pplx].map((f) => f.close())));

  const keys = () => ({
    DATAFORSEO_LOGIN: dfs.login,
    DATAFORSEO_PASSWORD: dfs.password,
    DATAFORSEO_BASE_URL: dfs.baseUrl,
    OPENAI_API_KEY: openai.apiKey!,
    OPENAI_BASE_URL: openai.baseUrl,
    ANTHROPIC_API_KEY: anthropic.apiKey,
    ANTHROPIC_BASE_URL: anthropic.baseUrl,
    PERPLEXITY_API_KEY: pplx.apiKey,
    PERPLEXITY_BASE_URL: pplx.baseUrl,
  });

  it('builds every platform from DataForSEO, OpenAI, Anthropic and Perplexity settings', async () => {
    const reg = createProviderRegistry(
      { ...BASE, ...keys(), SERP_PROVIDER: 'dataforseo', LLM_PROVIDER: 'anthropic', PERPLEXITY_MODEL: 'sonar-pro' },
      deps,
    );
    expect(reg.researchPlatforms).toEqual(['organic', 'google_video_pack', 'youtube_search', 'chatgpt', 'claude']);
    expect(Object.keys(reg.answerEngines).sort()).toEqual(['chatgpt', 'claude', 'google_ai_overview', 'perplexity']);
    expect(reg.writer?.name).toBe('anthropic');

    const yt = await reg.researchProviderFor('youtube_search').search('knot tying', { platform: 'youtube_search' });
    expect(yt.provider).toBe('dataforseo');
    expect(yt.results).toHaveLength(3);

    const gpt = await reg.researchProviderFor('chatgpt').search('best crm', { platform: 'chatgpt' });
    expect(openai.bodies().at(-1)).toMatchObject({ model: 'gpt-4o-search-preview' });
    expect(gpt.results.map((r) => r.url)).toEqual([
      'https://alpha.example/answer?utm_source=openai',
      'https://beta.example/guide',
    ]);

    const claude = await reg.researchProviderFor('claude').search('best crm', { platform: 'claude' });
    expect(claude.results.map((r) => r.position)).toEqual([1, 2]);

    const written = await reg.writer!.complete({ system: 'Voice: dry wit.', prompt: 'Say hi.' });
    expect(written.text).toBe('Echo: Say hi.');
    expect(anthropic.bodies().at(-1)).toMatchObject({ system: 'Voice: dry wit.', model: 'claude-sonnet-4-5' });

    const p = await reg.answerEngines.perplexity!.ask('q', 'perplexity');
    expect(p.model).toBe('sonar-pro');
    const aio = await reg.answerEngines.google_ai_overview!.ask('q', 'google_ai_overview');
    expect(aio.citations.length).toBeGreaterThan(0);
  });

  it('uses SerpApi for SERP platforms and the OpenAI writer, and applies PROVIDER_TIMEOUT_MS', async () => {
    const reg = createProviderRegistry(
      {
        ...BASE,
        SERP_PROVIDER: 'serpapi',
        SERPAPI_API_KEY: serp.apiKey,
        SERPAPI_BASE_URL: serp.baseUrl,
        LLM_PROVIDER: 'openai',
        OPENAI_API_KEY: openai.apiKey!,
        OPENAI_BASE_URL: openai.baseUrl,
        PROVIDER_TIMEOUT_MS: 100,
      },
      deps,
    );
    expect(reg.researchPlatforms).toEqual(['organic', 'google_video_pack', 'youtube_search', 'chatgpt']);
    expect(reg.researchProviderFor('organic').name).toBe('serpapi');
    expect(reg.answerEngines.google_ai_overview).toBeUndefined();
    expect(reg.writer?.name).toBe('openai-compatible');
    expect((await reg.writer!.complete({ system: 's', prompt: 'p' })).text).toBe('Echo: p');

    serp.hangNext(1);
    await expect(reg.researchProviderFor('organic').search('q', { platform: 'organic' })).rejects.toThrow(
      /timed out after 100 ms/,
    );
  });
});

describe('provider definitions', () => {
  it('are the SERP_PROVIDER and LLM_PROVIDER values src/config.ts accepts, and add their keys to it', () => {
    const names = (kind: string) => PROVIDERS.filter((d) => d.kind === kind).map((d) => d.name);
    expect(names('serp')).toEqual([...ConfigSchema.shape.SERP_PROVIDER.unwrap().options]);
    expect(names('writer')).toEqual([...ConfigSchema.shape.LLM_PROVIDER.unwrap().options]);
    expect(names('answer').sort()).toEqual(['chatgpt', 'claude', 'google_ai_overview', 'perplexity']);
    for (const d of PROVIDERS)
      for (const [key, schema] of Object.entries(d.env))
        expect(ConfigSchema.shape[key as keyof typeof ConfigSchema.shape], key).toBe(schema);
    // The offline defaults, whatever the list's order.
    expect(ConfigSchema.parse({})).toMatchObject({ SERP_PROVIDER: 'archive', LLM_PROVIDER: 'extractive' });
  });

  it('declare a key two of them read once: a second, different declaration is refused', () => {
    const again = defineProvider({
      kind: 'answer',
      name: 'chatgpt-again',
      env: { OPENAI_API_KEY: z.string().optional() },
      settings: z.object({ OPENAI_API_KEY: required() }),
      needs: ['OPENAI_API_KEY'],
      create: () => {
        throw new Error('not built');
      },
    });
    expect(() => configSchema([...PROVIDERS, again])).toThrow(
      "OPENAI_API_KEY is declared twice, differently (provider 'chatgpt-again'): share one declaration",
    );
    expect(() => configSchema(PROVIDERS.slice(1))).toThrow("SERP_PROVIDER: no provider definition named 'archive'");
  });

  it('serve a SERP provider only on the platforms its definition declares', () => {
    const wide: SearchProvider = { ...archiveSearch, platforms: ['organic', 'youtube_search'] };
    const reg = createProviderRegistry(BASE, { ...deps, archiveSearch: wide });
    expect(reg.researchPlatforms).toEqual(['organic']);
  });

  it('say what enables each research platform, derived from the SERP providers and answer engines that serve it', () => {
    const serp =
      'SERP_PROVIDER=dataforseo or serpapi with credentials (DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD or SERPAPI_API_KEY)';
    const offline = createProviderRegistry(BASE, deps);
    expect(apiError(() => offline.resolveResearch(RESEARCH_PLATFORMS)).details).toEqual({
      platforms: ['google_video_pack', 'youtube_search', 'chatgpt', 'claude'],
      settings: {
        google_video_pack: serp,
        youtube_search: serp,
        chatgpt: 'OPENAI_API_KEY',
        claude: 'ANTHROPIC_API_KEY',
      },
    });
    // Without the archive's definition, organic is served by the keyed SERP providers only.
    const keyedOnly = createProviderRegistry(BASE, { ...deps, definitions: PROVIDERS.slice(1) });
    expect(apiError(() => keyedOnly.researchProviderFor('organic')).message).toBe(
      `research platform 'organic' needs ${serp}`,
    );
    const nothing = createProviderRegistry(BASE, { ...deps, definitions: [] });
    expect(apiError(() => nothing.researchProviderFor('organic')).message).toBe(
      "research platform 'organic' needs a provider that serves it",
    );
  });
});

/** The folder of test directories for each kind's adapter tests. */
const ADAPTER_TESTS: Record<ProviderKind, string> = { serp: 'search', writer: 'writer', answer: 'answer' };
const FAKES = join(import.meta.dirname, '../helpers/fake-providers');

describe('every provider that calls an API has a loopback fake and adapter tests', () => {
  // A provider calls an API when its settings hold a base URL (how tests point it at a fake): those need a fake in
  // test/helpers/fake-providers/ whose `fakeApi` sets that base URL, and adapter tests that use the fake.
  const calling = PROVIDERS.flatMap((d) => {
    const baseUrl = Object.keys(d.env).find((k) => k.endsWith('_BASE_URL'));
    return baseUrl ? [{ def: d, baseUrl }] : [];
  });
  const fakes: Array<{ file: string; server: FakeServer; settings: Readonly<Record<string, string>> }> = [];
  beforeAll(async () => {
    for (const file of readdirSync(FAKES).filter((f) => f.endsWith('.ts') && f !== 'server.ts')) {
      const { fakeApi } = (await import(pathToFileURL(join(FAKES, file)).href)) as { fakeApi?: FakeApi };
      expect(fakeApi, `${file} exports no fakeApi`).toBeDefined();
      fakes.push({ file, ...(await fakeApi!.start()) });
    }
  });
  afterAll(() => Promise.all(fakes.map((f) => f.server.close())));

  it('covers every provider but the offline ones', () => {
    expect(PROVIDERS.filter((d) => !calling.some((c) => c.def === d)).map((d) => d.name)).toEqual([
      'archive',
      'extractive',
    ]);
  });

  it.each(calling.map((c) => [c.def.name, c] as const))(
    '%s answers through its fake',
    async (_name, { def, baseUrl }) => {
      const fake = fakes.find((f) => baseUrl in f.settings);
      expect(fake, `no fakeApi in test/helpers/fake-providers/ sets ${baseUrl}`).toBeDefined();
      const { server, settings, file } = fake!;
      const selector = PROVIDER_KINDS[def.kind];
      const reg = createProviderRegistry(
        { ...BASE, ...settings, ...(selector ? { [selector]: def.name } : {}) } as ProviderSettings,
        { ...deps, definitions: [def] },
      );
      const before = server.requests.length;
      if (def.kind === 'serp') {
        const platform = def.research[0]!;
        expect((await reg.researchProviderFor(platform).search('knot tying', { platform })).provider).toBe(def.name);
      } else if (def.kind === 'writer') {
        expect((await reg.writer!.complete({ system: 's', prompt: 'Say hi.' })).text).not.toBe('');
      } else {
        const engine = reg.answerEngines[def.name as keyof typeof reg.answerEngines];
        expect((await engine!.ask('best crm', def.name as never)).citations.length).toBeGreaterThan(0);
      }
      expect(server.requests.length).toBeGreaterThan(before);

      // Its adapter's own tests run against the same fake.
      const dir = join(import.meta.dirname, ADAPTER_TESTS[def.kind]);
      const users = readdirSync(dir).filter((f) =>
        readFileSync(join(dir, f), 'utf8').includes(`helpers/fake-providers/${file}'`),
      );
      expect(users, `no test in test/providers/${ADAPTER_TESTS[def.kind]}/ uses ${file}`).not.toEqual([]);
    },
  );
});

describe('a provider added in one place', () => {
  // Everything a new provider needs, in one definition: its kind and name, its environment variables, its settings,
  // its startup message, its factory. Listing it (here: the lists given to configSchema and to the registry; in the
  // server: providers/definitions/index.ts, which both read) is all.
  const fakeSerp = defineProvider({
    kind: 'serp',
    name: 'fake-serp',
    env: {
      FAKE_SERP_KEY: z.string().optional(),
      FAKE_SERP_BASE_URL: z.string().url().default('https://fake-serp.example'),
    },
    settings: z.object({ FAKE_SERP_KEY: required(), FAKE_SERP_BASE_URL: z.string() }),
    needs: ['FAKE_SERP_KEY'],
    research: ['organic', 'youtube_search'],
    create: (s): SearchProvider => ({
      name: 'fake-serp',
      platforms: ['organic', 'youtube_search'],
      search: async (query, o) => ({
        provider: 'fake-serp',
        platform: o.platform,
        query,
        location: null,
        language: null,
        fetchedAt: 'x',
        results: [{ position: 1, url: `${s.FAKE_SERP_BASE_URL}/${s.FAKE_SERP_KEY}`, title: query, snippet: '' }],
      }),
    }),
  });
  const fakeWriter = defineProvider({
    kind: 'writer',
    name: 'fake-writer',
    env: { FAKE_WRITER_VOICE: z.string().optional() },
    settings: z.object({ FAKE_WRITER_VOICE: required() }),
    needs: ['FAKE_WRITER_VOICE'],
    create: (s) => ({
      name: 'fake-writer',
      complete: async (r) => ({ text: `${s.FAKE_WRITER_VOICE}: ${r.prompt}`, provider: 'fake-writer', model: 'fake' }),
    }),
  });
  const list = [...PROVIDERS, fakeSerp, fakeWriter] as const;
  /** The server's configuration schema, had the fakes been listed in providers/definitions/index.ts. */
  const schema = configSchema(list);
  // The registry is typed for the server's list (ProviderSettings); a test's own list is handed to it with casts.
  const definitions = list as unknown as ProviderDefinitions;
  /** The environment parsed as the server parses it, for the registry. */
  const parse = (env: Record<string, string>) => schema.parse(env) as unknown as ProviderSettings;
  const chosen = { SERP_PROVIDER: 'fake-serp', LLM_PROVIDER: 'fake-writer' };

  it('adds its environment variables, with their defaults, and its name to the setting that chooses it', () => {
    const config = schema.parse({ ...chosen, FAKE_SERP_KEY: 'k1' });
    const serp: 'archive' | 'dataforseo' | 'serpapi' | 'fake-serp' = config.SERP_PROVIDER;
    expect(serp).toBe('fake-serp');
    expect(config.FAKE_SERP_KEY).toBe('k1');
    expect(config.FAKE_SERP_BASE_URL).toBe('https://fake-serp.example');
    expect(config.FAKE_WRITER_VOICE).toBeUndefined();
    expect(config.OPENAI_MODEL).toBe('gpt-4o-mini');

    const bad = schema.safeParse({ SERP_PROVIDER: 'fake-serpp', FAKE_SERP_BASE_URL: 'not a url' });
    expect(bad.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([
      'SERP_PROVIDER: Invalid option: expected one of "archive"|"dataforseo"|"serpapi"|"fake-serp"',
      'FAKE_SERP_BASE_URL: Invalid URL',
    ]);
    // Unlisted, it is no value of SERP_PROVIDER.
    expect(ConfigSchema.safeParse(chosen).success).toBe(false);
  });

  it('is chosen by its setting and serves its platforms and writing through the registry', async () => {
    const reg = createProviderRegistry(parse({ ...chosen, FAKE_SERP_KEY: 'k1', FAKE_WRITER_VOICE: 'Dry' }), {
      ...deps,
      definitions,
    });
    expect(reg.researchPlatforms).toEqual(['organic', 'youtube_search']);
    const found = await reg.researchProviderFor('youtube_search').search('q', { platform: 'youtube_search' });
    expect(found.results[0]!.url).toBe('https://fake-serp.example/k1');
    expect((await reg.writer!.complete({ system: 's', prompt: 'hi' })).text).toBe('Dry: hi');
  });

  it('without its settings fails at startup naming its keys, and is named in research errors', () => {
    expect(() => createProviderRegistry(parse(chosen), { ...deps, definitions })).toThrow(
      'Invalid provider configuration:\n  SERP_PROVIDER=fake-serp needs FAKE_SERP_KEY\n  LLM_PROVIDER=fake-writer needs FAKE_WRITER_VOICE',
    );
    const reg = createProviderRegistry(parse({}), { ...deps, definitions });
    expect(reg.researchProviderFor('organic')).toBe(archiveSearch);
    expect(apiError(() => reg.researchProviderFor('youtube_search')).message).toBe(
      "research platform 'youtube_search' needs SERP_PROVIDER=dataforseo or serpapi or fake-serp with credentials (DATAFORSEO_LOGIN/DATAFORSEO_PASSWORD or SERPAPI_API_KEY or FAKE_SERP_KEY)",
    );
  });
});
