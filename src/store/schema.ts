/**
 * Kysely table types. Timestamps are integer milliseconds since the epoch (UTC); the API renders them as ISO 8601.
 * JSON columns are TEXT holding JSON.
 */

export type Plan = 'starter' | 'pro' | 'agency';
export type SubscriptionStatus = 'active' | 'inactive';

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

export type LedgerState = 'reserved' | 'charged' | 'released';

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

export type OptimizationStatus = 'queued' | 'running' | 'complete' | 'failed';

export interface OptimizationsTable {
  /** `opt_` + 26 ULID characters. */
  id: string;
  org_id: string;
  client_id: string | null;
  url: string;
  keyword: string;
  language: string;
  status: OptimizationStatus;
  /** The pipeline step in progress: searching, fetching, scoring. */
  stage: string | null;
  error: string | null;
  score: number | null;
  source_word_count: number | null;
  competitor_count: number | null;
  duration_ms: number | null;
  /** JSON of the full result. */
  result: string | null;
  /** JSON of the saved evidence: search snapshot, competitor URLs and hashes, the page's extraction summary. */
  evidence: string | null;
  created_at: number;
  started_at: number | null;
  completed_at: number | null;
  updated_at: number;
}

export interface DB {
  organisations: OrganisationsTable;
  clients: ClientsTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  usage_ledger: UsageLedgerTable;
  runs: RunsTable;
  optimizations: OptimizationsTable;
}
