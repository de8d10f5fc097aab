/**
 * The provider interfaces: the only things the engine knows about the outside world.
 * Offline defaults (web archive, BM25 search, extractive writer) and real adapters implement the same shapes.
 */

/** A fetched page, live or from the web archive. Header names are lower-case. */
export interface FetchedPage {
  /** The URL asked for. */
  requestedUrl: string;
  /** The URL the body came from, after redirects. */
  url: string;
  status: number;
  headers: Record<string, string>;
  /** MIME type without parameters, lower-case, or null when absent. */
  contentType: string | null;
  /** The charset the body was decoded with. */
  charset: string;
  /** The decoded body for text types; empty for binary types. */
  body: string;
  /** Size of the (decompressed) body in bytes. */
  bytes: number;
  fetchedAt: string;
  source: 'live' | 'archive';
}

export type FetchErrorCode =
  | 'blocked' // the URL or an address it resolves to is not public
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'network'
  | 'not_archived'; // offline mode and the URL is not in the archive

/** Why a fetch failed. `message` is safe to show a client; it never carries secrets. */
export class FetchError extends Error {
  readonly code: FetchErrorCode;
  readonly url: string;
  constructor(code: FetchErrorCode, url: string, message: string) {
    super(message);
    this.name = 'FetchError';
    this.code = code;
    this.url = url;
  }
}

export interface FetchOptions {
  signal?: AbortSignal;
}

/** Fetches one page. The live implementation is the SSRF-safe fetcher; the offline one reads the web archive. */
export interface PageFetcher {
  fetch(url: string, options?: FetchOptions): Promise<FetchedPage>;
}

/** Where research and tracking look. */
export const RESEARCH_PLATFORMS = ['organic', 'google_video_pack', 'youtube_search', 'chatgpt', 'claude'] as const;
export type ResearchPlatform = (typeof RESEARCH_PLATFORMS)[number];

export interface SearchOptions {
  platform: ResearchPlatform;
  location?: string;
  language?: string;
  /** At most this many results (providers cap it at 10 unless documented otherwise). */
  limit?: number;
  signal?: AbortSignal;
  /** Derived from run id and step; adapters pass it on where the provider supports it. */
  idempotencyKey?: string;
}

export interface SearchResult {
  /** 1-based rank. */
  position: number;
  url: string;
  title: string;
  snippet: string;
}

export interface SearchResponse {
  provider: string;
  platform: ResearchPlatform;
  query: string;
  location: string | null;
  language: string | null;
  fetchedAt: string;
  results: SearchResult[];
}

export interface SearchProvider {
  readonly name: string;
  /** The platforms this provider answers. */
  readonly platforms: readonly ResearchPlatform[];
  search(query: string, options: SearchOptions): Promise<SearchResponse>;
}

/** Raised by adapters for upstream failures; `retryable` tells the runner whether backoff may help. */
export class ProviderError extends Error {
  readonly provider: string;
  readonly retryable: boolean;
  readonly status: number | undefined;
  /** How long the provider asked to be left alone (its Retry-After), when it said. */
  readonly retryAfterMs: number | undefined;
  constructor(
    provider: string,
    message: string,
    options: { retryable: boolean; status?: number; retryAfterMs?: number; cause?: unknown },
  ) {
    super(message, { cause: options.cause });
    this.name = 'ProviderError';
    this.provider = provider;
    this.retryable = options.retryable;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A request to a language model. `jsonSchema` asks for structured JSON output matching it. */
export interface WriterRequest {
  system: string;
  prompt: string;
  /** JSON Schema of the expected output; adapters use the provider's structured-output feature. */
  jsonSchema?: Record<string, unknown>;
  /** Name of the schema, where the provider wants one. */
  schemaName?: string;
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** Derived from run id and step; passed on where the provider supports it. */
  idempotencyKey?: string;
}

export interface WriterResponse {
  /** The model's text (the JSON text when jsonSchema was given). */
  text: string;
  /** Parsed JSON when jsonSchema was given. */
  json?: unknown;
  provider: string;
  model: string;
  usage?: { inputTokens: number; outputTokens: number };
}

/** A language model behind a chat API. */
export interface Writer {
  readonly name: string;
  complete(request: WriterRequest): Promise<WriterResponse>;
}

/** AI-answer platforms the tracker measures. */
export const ANSWER_PLATFORMS = ['chatgpt', 'perplexity', 'claude', 'google_ai_overview'] as const;
export type AnswerPlatform = (typeof ANSWER_PLATFORMS)[number];

export interface AnswerCitation {
  url: string;
  title: string | null;
}

export interface Answer {
  provider: string;
  platform: AnswerPlatform;
  model: string | null;
  text: string;
  citations: AnswerCitation[];
  fetchedAt: string;
}

export interface AnswerOptions {
  location?: string;
  language?: string;
  signal?: AbortSignal;
  idempotencyKey?: string;
}

/** An AI answer engine: asked a prompt, answers text with the URLs it cites. */
export interface AnswerEngine {
  readonly name: string;
  readonly platforms: readonly AnswerPlatform[];
  ask(prompt: string, platform: AnswerPlatform, options?: AnswerOptions): Promise<Answer>;
}
