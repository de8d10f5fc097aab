/**
 * Kysely table types. Timestamps are integer milliseconds since the epoch (UTC); the API renders them as ISO 8601.
 * JSON columns are TEXT holding JSON.
 */
import type { LedgerState, Plan, SubscriptionStatus } from '../engine/accounts/contract.ts';
import type { UsageLevel } from '../engine/platform/usage.ts';
import type {
  ContentMode,
  ContentRunKind,
  ContentStage,
  ContentStatus,
  CreationSource,
} from '../engine/content/states.ts';
import type { OptimizationStage, OptimizationStatus } from '../engine/optimize/states.ts';
import type { OpportunityType, ProspectStatus } from '../engine/prospects/contract.ts';
import type {
  TrackerPlatform,
  TrackerQueryKind,
  TrackerResultStatus,
  TrackerScanStatus,
} from '../engine/tracker/contract.ts';

// The state unions come from each family's state table (src/engine/<family>/states.ts or contract.ts).
export type {
  ContentStage,
  ContentStatus,
  OpportunityType,
  OptimizationStage,
  OptimizationStatus,
  Plan,
  ProspectStatus,
  SubscriptionStatus,
  TrackerPlatform,
  TrackerResultStatus,
  TrackerScanStatus,
};

export interface OrganisationsTable {
  id: string;
  name: string;
  plan: Plan;
  subscription_status: SubscriptionStatus;
  created_at: number;
  updated_at: number;
}

export interface ClientsTable {
  id: string;
  org_id: string;
  name: string;
  domain: string | null;
  service_area: string | null;
  service_lat: number | null;
  service_lng: number | null;
  default_tone: string | null;
  brand_voice: string | null;
  knowledge_base: string | null;
  /** JSON array of strings. */
  excluded_topics: string;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  org_id: string;
  name: string;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, to recognise it in listings. */
  display_prefix: string;
  /** JSON array of scope strings. */
  scopes: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
}

export interface IdempotencyKeysTable {
  org_id: string;
  key: string;
  operation: string;
  request_hash: string;
  status_code: number;
  /** JSON of the first response body. */
  response: string;
  resource_id: string | null;
  created_at: number;
  expires_at: number;
}

export type { LedgerState } from '../engine/accounts/contract.ts';

export interface UsageLedgerTable {
  id: string;
  org_id: string;
  operation: string;
  resource_kind: string;
  resource_id: string;
  units: number;
  state: LedgerState;
  /** When the work was accepted: the time the windows count it at. */
  created_at: number;
  settled_at: number | null;
}

/** pending: claimable when due; waiting: paused for a person (approval); done and failed are final. */
export type RunState = 'pending' | 'waiting' | 'done' | 'failed';

export interface RunsTable {
  id: string;
  kind: string;
  resource_id: string;
  org_id: string;
  state: RunState;
  /** Index of the next step to run. */
  step: number;
  /** Attempts at the current step. */
  attempts: number;
  max_attempts: number;
  run_after: number;
  lease_owner: string | null;
  lease_expires_at: number | null;
  /** Incremented at every claim; write-backs must present the value they claimed with (fencing). */
  lease_token: number;
  /** JSON object: the outputs of the finished steps, by step name. */
  checkpoint: string;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

export interface OptimizationsTable {
  /** `opt_` + 26 ULID characters. */
  id: string;
  org_id: string;
  client_id: string | null;
  url: string;
  keyword: string;
  language: string;
  status: OptimizationStatus;
  /** The pipeline step in progress. */
  stage: OptimizationStage | null;
  error: string | null;
  score: number | null;
  source_word_count: number | null;
  competitor_count: number | null;
  duration_ms: number | null;
  /** JSON of the full result. */
  result: string | null;
  /** JSON of the saved evidence: search snapshot, competitor URLs and hashes, the page's extraction summary. */
  evidence: string | null;
  /** JSON of the competitor model the run scored against (score_content scores drafts against it). */
  scoring_model: string | null;
  /** JSON of what the summary view adds: the top recommendations, confidence and warnings. */
  summary_extras: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  updated_at: number;
}

/**
 * An outreach list of one client. The per-status item counts are kept on the row, in the same transaction as every
 * item change, so `status_breakdown` is a single-row read however large the list is.
 */
/** One counter column per prospect status (`count_<status>`), made from the state table. */
export type ProspectCounters = { [S in ProspectStatus as `count_${S}`]: number };

export interface ProspectListsTable extends ProspectCounters {
  id: string;
  org_id: string;
  client_id: string;
  name: string;
  opportunity_type: OpportunityType | null;
  created_at: number;
  /** Moves on every item saved, updated or deleted: lists are listed newest-updated first. */
  updated_at: number;
}

export interface ProspectItemsTable {
  id: string;
  list_id: string;
  org_id: string;
  client_id: string;
  /** The canonical URL (engine/prospects/normalize-url.ts). */
  url: string;
  /** Unique per list: canonical variants of one target share it. */
  dedupe_key: string;
  target_name: string | null;
  opportunity_type: OpportunityType | null;
  status: ProspectStatus;
  notes: string | null;
  contact_path: string | null;
  created_at: number;
  updated_at: number;
}

export interface ContentJobsTable {
  id: string;
  org_id: string;
  client_id: string;
  /** `job` (content job) or `autopilot`. */
  kind: ContentRunKind;
  creation_source: CreationSource;
  /** `auto` or `stepped` for agent_api jobs; null for web-app projects and Autopilot. */
  mode: ContentMode | null;
  /** The content state table (engine/content/states.ts) lists every status and stage. */
  status: ContentStatus;
  stage: ContentStage;
  topic: string;
  content_type: string | null;
  /** JSON of the validated request, defaults applied. */
  request: string;
  usage_units: number;
  usage_level: UsageLevel;
  optimize_passes: number;
  optimize_pass_cap: number;
  error: string | null;
  /** Why it failed, machine-readable, when the failing step said (`insufficient_research`). */
  error_code: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  updated_at: number;
}

/** The outputs of a content job, each JSON (draft too: markdown plus its sentence sources). Null until produced. */
export interface ContentArtifactsTable {
  job_id: string;
  writer: string | null;
  research: string | null;
  outline: string | null;
  seo_metadata: string | null;
  entities: string | null;
  faqs: string | null;
  draft: string | null;
  citations: string | null;
  review: string | null;
  /** A content job's draft scored against its research (null before the scoring stage, and for Autopilot). */
  score: string | null;
  updated_at: number;
}

export interface McpTasksTable {
  task_id: string;
  org_id: string;
  tool: string;
  /** `optimization`, `content_job` or `autopilot`. */
  resource_kind: string;
  resource_id: string;
  /** Set when the client cancelled the task (it stops following the work). */
  cancelled_at: number | null;
  ttl_ms: number | null;
  poll_ms: number;
  /** The scope that reads the task (tasks/get, tasks/result, tasks/list) and the one that cancels it. */
  read_scope: string;
  run_scope: string;
  created_at: number;
}

/** A tracked domain and brand with its queries (keywords or prompts) and the platforms it is measured on. */
export interface TrackerProjectsTable {
  id: string;
  org_id: string;
  client_id: string;
  name: string;
  /** Registrable host without scheme or `www.`, lower-case (engine/tracker/match.ts). */
  domain: string;
  /** JSON array of strings. */
  brand_names: string;
  query_kind: TrackerQueryKind;
  /** JSON array of strings, in the order given. */
  queries: string;
  query_count: number;
  /** JSON array of TrackerPlatform. */
  platforms: string;
  location: string | null;
  language: string;
  created_at: number;
  updated_at: number;
}

/** One scan of a project (the API's run record). */
export interface TrackerScansTable {
  id: string;
  project_id: string;
  org_id: string;
  client_id: string;
  status: TrackerScanStatus;
  /** JSON array: the platforms this scan measures (configured when it was accepted). */
  platforms: string;
  /** JSON array: the project's platforms with no configured provider when the scan was accepted. */
  missing_platforms: string;
  query_count: number;
  units: number;
  /** Overall SPI of this scan's usable platforms; null until finalized or when none is usable. */
  spi: number | null;
  /** JSON: per-platform status, SPI and denominators, written when the scan is finalized. */
  platform_scores: string | null;
  error: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  updated_at: number;
}

/** One query on one platform in one scan. */
export interface TrackerResultsTable {
  run_id: string;
  platform: TrackerPlatform;
  query_index: number;
  project_id: string;
  query: string;
  status: TrackerResultStatus;
  /** 1-based rank of the brand's domain (organic result or AI citation); null when absent. */
  position: number | null;
  brand_mentioned: number;
  brand_cited: number;
  /** JSON array of URLs. */
  cited_urls: string;
  measured_at: number;
  error: string | null;
}

/** The per-(scan, platform) aggregate written when the platform finishes, so reads never scan raw rows. */
export interface TrackerPlatformSummariesTable {
  run_id: string;
  platform: TrackerPlatform;
  project_id: string;
  status: TrackerResultStatus;
  provider: string | null;
  queries_total: number;
  measured: number;
  failed: number;
  present: number;
  mentioned: number;
  cited: number;
  /** Queries where the domain has a position, and the sum of those positions (average position). */
  ranked: number;
  position_sum: number;
  weight_sum: number;
  spi: number | null;
  /** JSON array of [url, count] pairs, most cited first, at most 100. */
  top_cited: string;
  measured_at: number;
  error: string | null;
}

/** The newest usable summary of each (project, platform): the latest_per_platform snapshot in one indexed read. */
export interface TrackerLatestTable {
  project_id: string;
  platform: TrackerPlatform;
  run_id: string;
  measured_at: number;
}

/** Hourly totals of the ledger's live (charged, reserved) units per organisation; `hour` is epoch ms / 3,600,000. */
export interface UsageHourlyTable {
  org_id: string;
  hour: number;
  charged: number;
  reserved: number;
}

/** A web console session (docs/console.md): only hashes are stored. */
export interface ConsoleSessionsTable {
  /** SHA-256 of the session id the cookie carries, hex. */
  id_hash: string;
  /** The signed-in key's hash (api_keys.key_hash): the key's revocation and expiry end the session. */
  key_hash: string;
  created_at: number;
  expires_at: number;
}

/** An OAuth client (docs/oauth.md): registered (RFC 7591) or a cached client ID metadata document. */
export interface OAuthClientsTable {
  client_id: string;
  kind: 'registered' | 'metadata_document';
  /** SHA-256 of a registered confidential client's secret, hex; null for public clients. */
  secret_hash: string | null;
  /** The client's metadata (redirect_uris, client_name, token_endpoint_auth_method, ...), JSON. */
  metadata: string;
  created_at: number;
  /** A metadata document's cache expiry; null for registered clients. */
  expires_at: number | null;
}

/** One approval at the consent page: the family of every token issued from it. */
export interface OAuthGrantsTable {
  id: string;
  client_id: string;
  /** The approving key's hash: its revocation or expiry ends the grant's tokens. */
  key_hash: string;
  org_id: string;
  /** The granted scopes, JSON array. */
  scopes: string;
  /** The resource (audience) the tokens are for. */
  resource: string;
  created_at: number;
  revoked_at: number | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  client_id: string;
  /** The redirect URI the authorization request sent; '' when it sent none (the client registered only one). */
  redirect_uri: string;
  /** The PKCE S256 challenge. */
  code_challenge: string;
  key_hash: string;
  org_id: string;
  scopes: string;
  resource: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  grant_id: string | null;
}

export interface OAuthTokensTable {
  token_hash: string;
  grant_id: string;
  kind: 'access' | 'refresh';
  created_at: number;
  expires_at: number;
  /** Narrower scopes than the grant's, JSON array; null: the grant's. */
  scopes: string | null;
  used_at: number | null;
}

/** The last draft score of an optimization (score_content), for the next score's `delta`. */
export interface DraftScoresTable {
  optimization_id: string;
  scored_at: number;
  rankability_score: number;
  /** JSON: `{categoryScores, recommendations: id[]}` of that score. */
  figures: string;
}

export interface DB {
  organisations: OrganisationsTable;
  clients: ClientsTable;
  api_keys: ApiKeysTable;
  console_sessions: ConsoleSessionsTable;
  oauth_clients: OAuthClientsTable;
  oauth_grants: OAuthGrantsTable;
  oauth_codes: OAuthCodesTable;
  oauth_tokens: OAuthTokensTable;
  idempotency_keys: IdempotencyKeysTable;
  usage_ledger: UsageLedgerTable;
  runs: RunsTable;
  optimizations: OptimizationsTable;
  draft_scores: DraftScoresTable;
  prospect_lists: ProspectListsTable;
  prospect_items: ProspectItemsTable;
  tracker_projects: TrackerProjectsTable;
  tracker_scans: TrackerScansTable;
  tracker_results: TrackerResultsTable;
  tracker_platform_summaries: TrackerPlatformSummariesTable;
  tracker_latest: TrackerLatestTable;
  content_jobs: ContentJobsTable;
  content_artifacts: ContentArtifactsTable;
  mcp_tasks: McpTasksTable;
  usage_hourly: UsageHourlyTable;
}
