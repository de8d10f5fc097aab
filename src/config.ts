import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import type {
  ProviderDefinition,
  ProviderEnv,
  ProviderEnvOf,
  ProviderKind,
  ProviderNameOf,
} from './providers/define.ts';
// The providers' settings come from their definitions, so their adapters load with the configuration; every command
// group loads them anyway (only --help and --version did not).
import { PROVIDERS } from './providers/definitions/index.ts';
import { TOOLSET_NAMES } from './tools/toolsets.ts';

/** The sample web archive shipped in the repository: the offline web when AGENT_API_WEB_ARCHIVE is unset. */
export const SAMPLE_ARCHIVE_PATH = fileURLToPath(new URL('../web-archive/', import.meta.url));

/** The MCP Apps views the build makes (scripts/build.mjs): one HTML file each. */
export const APPS_PATH = fileURLToPath(new URL('../dist/apps/', import.meta.url));

const bool = z
  .enum(['0', '1', 'true', 'false', ''])
  .optional()
  .transform((v) => v === '1' || v === 'true');

const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

const int = (def: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(def);

/** The server's own settings; the providers' follow, from their definitions (`configSchema`). */
const SERVER_SETTINGS = {
  AGENT_API_DB: z.string().min(1).default('./data/agent-api.db'),
  /** A PostgreSQL URL (`postgres://user:pass@host:5432/db`): the store lives there instead of the SQLite file. */
  AGENT_API_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /** PostgreSQL connections per process. */
  AGENT_API_DATABASE_POOL_SIZE: int(10, 1, 1_000),
  AGENT_API_HOST: z.string().min(1).default('127.0.0.1'),
  AGENT_API_PORT: int(8787, 0, 65535),
  AGENT_API_KEY: z.string().optional(),
  AGENT_API_ALLOWED_HOSTS: list,
  AGENT_API_ALLOWED_ORIGINS: list,
  AGENT_API_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  AGENT_API_WEB_ARCHIVE: z.string().optional(),
  /**
   * Folder for the web archive's index files (SQLite, built once per archive content and reused on later starts);
   * unset: `archive-index` beside AGENT_API_DB, so a read-only archive can still be indexed.
   */
  AGENT_API_ARCHIVE_INDEX_DIR: z.string().min(1).optional(),
  AGENT_API_OFFLINE: bool,
  /** Loopback host:port pairs the SSRF-safe fetcher may reach; for tests and local benches only. */
  AGENT_API_TEST_FETCH_ALLOW: list,
  AGENT_API_RUNNER_CONCURRENCY: int(8, 1, 256),
  AGENT_API_LEASE_MS: int(30_000, 200, 3_600_000),
  AGENT_API_MAX_ATTEMPTS: int(5, 1, 100),
  AGENT_API_RETRY_BASE_MS: int(1_000, 1, 3_600_000),
  AGENT_API_POLL_MS: int(250, 5, 60_000),
  AGENT_API_QUEUE_MAX_DEPTH: int(1_000, 1, 10_000_000),
  /**
   * On SIGTERM, how long requests already received may finish before their connections are closed, then how long
   * steps in flight may finish before they are handed back.
   */
  AGENT_API_SHUTDOWN_GRACE_MS: int(10_000, 0, 600_000),
  /** A connection that has not sent complete request headers within this time gets 408 and is closed. */
  AGENT_API_HEADERS_TIMEOUT_MS: int(10_000, 100, 600_000),
  /** A request (headers and body) must be received within this time, else 408; 0 turns it off. Not the response. */
  AGENT_API_REQUEST_TIMEOUT_MS: int(60_000, 0, 3_600_000),
  /** An idle keep-alive connection is closed after this time. */
  AGENT_API_KEEP_ALIVE_TIMEOUT_MS: int(5_000, 100, 600_000),
  /** Open connections the server accepts; further ones are closed at once. */
  AGENT_API_MAX_CONNECTIONS: int(4_096, 1, 1_000_000),
  /** Open connections from one client address; further ones are closed at once. */
  AGENT_API_MAX_CONNECTIONS_PER_ADDRESS: int(256, 1, 1_000_000),
  AGENT_API_SEARCH_CONCURRENCY: int(4, 1, 256),
  AGENT_API_FETCH_CONCURRENCY: int(16, 1, 256),
  AGENT_API_WRITER_CONCURRENCY: int(4, 1, 256),
  /**
   * Installation-wide caps on provider calls in flight per kind, across every process on one PostgreSQL (0: none,
   * each process keeps only its own limit above). Ignored on SQLite.
   */
  AGENT_API_SEARCH_GLOBAL_CONCURRENCY: int(0, 0, 10_000),
  AGENT_API_FETCH_GLOBAL_CONCURRENCY: int(0, 0, 10_000),
  AGENT_API_WRITER_GLOBAL_CONCURRENCY: int(0, 0, 10_000),
  AGENT_API_ANSWER_GLOBAL_CONCURRENCY: int(0, 0, 10_000),
  AGENT_API_FAILED_AUTH_PER_MINUTE: int(20, 1, 100_000),
  /** Serves GET /metrics (Prometheus) to a caller presenting this Bearer token; unset, there is no /metrics. */
  AGENT_API_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Proxy addresses or CIDRs whose X-Forwarded-For names the client (for the failed-authentication limiter). */
  AGENT_API_TRUSTED_PROXIES: list,
  AGENT_API_MCP_MAX_SESSIONS_PER_KEY: int(16, 1, 10_000),
  AGENT_API_MCP_MAX_SESSIONS: int(4_096, 1, 1_000_000),
  AGENT_API_MCP_SESSION_IDLE_MS: int(600_000, 1_000, 86_400_000),
  AGENT_API_MCP_MAX_BATCH: int(10, 1, 1_000),
  /** MCP toolsets to serve (content, optimize, tracker, prospects, account); unset: every tool the key may use. */
  AGENT_API_TOOLSETS: list.pipe(z.array(z.enum(TOOLSET_NAMES))),
  /** The text of an MCP tool result: a short summary of its structured content (default), or that content as JSON. */
  AGENT_API_MCP_TEXT: z.enum(['summary', 'json']).default('summary'),
  AGENT_API_IDEMPOTENCY_TTL_HOURS: int(24, 24, 24 * 365),
  /**
   * The URL clients reach this server at (behind a TLS proxy: `https://seo.example.com`); it is the OAuth issuer and
   * resource. Unset: `http://<Host header>`, which suits loopback use only.
   */
  AGENT_API_PUBLIC_URL: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u) && !/[?#]/.test(u), 'must be an http(s) URL without query or fragment')
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** OAuth for remote MCP clients: the built-in authorization server, an external issuer's JWTs, or off (keys only). */
  AGENT_API_OAUTH: z.enum(['builtin', 'external', 'off']).optional(),
  AGENT_API_OAUTH_ACCESS_TTL_SECONDS: int(3_600, 60, 86_400),
  AGENT_API_OAUTH_REFRESH_TTL_SECONDS: int(30 * 86_400, 3_600, 365 * 86_400),
  /** External mode: the identity provider's issuer URL; its metadata names the JWKS. */
  AGENT_API_OAUTH_ISSUER: z.string().url().optional(),
  /** External mode: the `aud` the provider's tokens carry for this server; unset: the public URL plus `/mcp`. */
  AGENT_API_OAUTH_AUDIENCE: z.string().min(1).optional(),
  /** External mode: the claim holding the organisation id. */
  AGENT_API_OAUTH_ORG_CLAIM: z.string().min(1).default('agent_api_org'),
  /** External mode: a prefix the provider puts before this server's scope names (`agent-api:`), stripped. */
  AGENT_API_OAUTH_SCOPE_PREFIX: z.string().default(''),
  /** External mode: the JWKS URL, when the issuer's metadata does not name it. */
  AGENT_API_OAUTH_JWKS_URL: z.string().url().optional(),
  /** A PEM file of certificates the SSRF-safe fetcher trusts besides the system's; for loopback tests only. */
  AGENT_API_TEST_FETCH_CA: z.string().min(1).optional(),
};

/** What `configSchema` reads of a provider definition. */
type ProviderSettingsDeclaration = Pick<ProviderDefinition, 'kind' | 'name' | 'env'>;

/**
 * Every setting, from the environment: the server's own, then the providers', each as its definition in
 * `providers/definitions/` declares it (a provider is added there, not here). SERP_PROVIDER and LLM_PROVIDER accept
 * the names of the `serp` and `writer` definitions. Exported for tests that add a provider of their own.
 */
export function configSchema<const D extends readonly ProviderSettingsDeclaration[]>(definitions: D) {
  type Defs = D[number];
  const names = <K extends ProviderKind>(kind: K) =>
    definitions.filter((d) => d.kind === kind).map((d) => d.name as ProviderNameOf<Defs, K>);
  return z.object({
    ...SERVER_SETTINGS,
    SERP_PROVIDER: choice(names('serp'), 'archive', 'SERP_PROVIDER'),
    LLM_PROVIDER: choice(names('writer'), 'extractive', 'LLM_PROVIDER'),
    ...(providerEnv(definitions) as ProviderEnvOf<Defs> & object),
    PROVIDER_TIMEOUT_MS: int(60_000, 100, 600_000),
  });
}

/** A setting that names one provider of a kind, defaulting to the offline one (which the list must hold). */
function choice<N extends string>(names: readonly N[], fallback: string, setting: string) {
  if (!names.includes(fallback as N)) throw new Error(`${setting}: no provider definition named '${fallback}'`);
  return z.enum(names).default(fallback as N);
}

/**
 * The environment variables of every definition, in list order. Providers of one vendor share a key (the OpenAI
 * writer and the `chatgpt` engine read OPENAI_API_KEY) by sharing one declaration; two different declarations of
 * one key would leave its default to the list's order, so that is an error.
 */
function providerEnv(definitions: readonly ProviderSettingsDeclaration[]): ProviderEnv {
  const env: Record<string, z.ZodType> = {};
  for (const d of definitions)
    for (const [key, schema] of Object.entries(d.env)) {
      if (key in env && env[key] !== schema)
        throw new Error(`${key} is declared twice, differently (provider '${d.name}'): share one declaration`);
      env[key] = schema;
    }
  return env;
}

/** Every setting of this server. The README's configuration table documents each one. */
export const ConfigSchema = configSchema(PROVIDERS);

export type Config = Readonly<z.infer<typeof ConfigSchema>>;

/** Parses the environment once; a bad value fails fast with the variable's name. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const c = parsed.data;
  // Node refuses a headers timeout longer than the request timeout; say so with the variables' names.
  if (c.AGENT_API_REQUEST_TIMEOUT_MS > 0 && c.AGENT_API_HEADERS_TIMEOUT_MS > c.AGENT_API_REQUEST_TIMEOUT_MS) {
    throw new Error(
      'Invalid configuration:\n  AGENT_API_HEADERS_TIMEOUT_MS: must not exceed AGENT_API_REQUEST_TIMEOUT_MS (or set that to 0)',
    );
  }
  const oauth = c.AGENT_API_OAUTH ?? (c.AGENT_API_OAUTH_ISSUER ? 'external' : 'builtin');
  if (oauth === 'external' && !c.AGENT_API_OAUTH_ISSUER)
    throw new Error('Invalid configuration:\n  AGENT_API_OAUTH_ISSUER: required when AGENT_API_OAUTH=external');
  if (oauth === 'external' && !c.AGENT_API_OAUTH_AUDIENCE && !c.AGENT_API_PUBLIC_URL)
    throw new Error(
      'Invalid configuration:\n  AGENT_API_OAUTH_AUDIENCE: required in external mode unless AGENT_API_PUBLIC_URL is set',
    );
  return Object.freeze({ ...c, AGENT_API_OAUTH: oauth });
}

/** Which OAuth a configuration serves (loadConfig settles it; a hand-built config defaults the same way). */
export function oauthMode(config: Config): 'builtin' | 'external' | 'off' {
  return config.AGENT_API_OAUTH ?? (config.AGENT_API_OAUTH_ISSUER ? 'external' : 'builtin');
}

/** Where the configured store lives: PostgreSQL when AGENT_API_DATABASE_URL is set, else the SQLite file. */
export function storeLocation(config: Config) {
  return {
    url: config.AGENT_API_DATABASE_URL,
    file: config.AGENT_API_DB,
    poolSize: config.AGENT_API_DATABASE_POOL_SIZE,
  };
}
