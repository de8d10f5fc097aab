import { sql, type Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * The PostgreSQL store's first schema: the SQLite schema after its migrations 0001 to 0014, in PostgreSQL's words.
 * Milliseconds and counters are `bigint`, fractions `double precision`; the hourly usage rollup that SQLite keeps
 * with three triggers is one PL/pgSQL trigger function here. Later changes get a migration in both dialects.
 */
const STATEMENTS = [
  `create table "organisations" ("id" text primary key, "name" text not null, "plan" text not null check (plan in ('starter', 'pro', 'agency')), "subscription_status" text not null check (subscription_status in ('active', 'inactive')), "created_at" bigint not null, "updated_at" bigint not null)`,
  `create table "clients" ("id" text primary key, "org_id" text not null references "organisations" ("id") on delete cascade, "name" text not null, "domain" text, "service_area" text, "service_lat" double precision, "service_lng" double precision, "default_tone" text, "brand_voice" text, "knowledge_base" text, "excluded_topics" text default '[]' not null, "created_at" bigint not null, "updated_at" bigint not null)`,
  `create index "clients_org_created" on "clients" ("org_id", "created_at")`,
  `create table "api_keys" ("id" text primary key, "org_id" text not null references "organisations" ("id") on delete cascade, "name" text not null, "key_hash" text not null unique, "display_prefix" text not null, "scopes" text not null, "created_at" bigint not null, "expires_at" bigint, "revoked_at" bigint)`,
  `create index "api_keys_org" on "api_keys" ("org_id")`,
  `create table "idempotency_keys" ("org_id" text not null references "organisations" ("id") on delete cascade, "key" text not null, "operation" text not null, "request_hash" text not null, "status_code" bigint not null, "response" text not null, "resource_id" text, "created_at" bigint not null, "expires_at" bigint not null, constraint "idempotency_keys_pk" primary key ("org_id", "key"))`,
  `create index "idempotency_keys_expiry" on "idempotency_keys" ("expires_at")`,
  `create table "usage_ledger" ("id" text primary key, "org_id" text not null references "organisations" ("id") on delete cascade, "operation" text not null, "resource_kind" text not null, "resource_id" text not null, "units" bigint not null check (units > 0), "state" text not null check (state in ('reserved', 'charged', 'released')), "created_at" bigint not null, "settled_at" bigint, constraint "usage_ledger_resource" unique ("resource_kind", "resource_id"))`,
  `create index "usage_ledger_state_time" on "usage_ledger" ("state", "created_at")`,
  `create table "runs" ("id" text primary key, "kind" text not null, "resource_id" text not null, "org_id" text not null references "organisations" ("id") on delete cascade, "state" text not null check (state in ('pending', 'waiting', 'done', 'failed')), "step" bigint default 0 not null, "attempts" bigint default 0 not null, "max_attempts" bigint not null, "run_after" bigint not null, "lease_owner" text, "lease_expires_at" bigint, "lease_token" bigint default 0 not null, "checkpoint" text default '{}' not null, "last_error" text, "created_at" bigint not null, "updated_at" bigint not null, constraint "runs_kind_resource" unique ("kind", "resource_id"))`,
  `create index "runs_due" on "runs" ("state", "run_after")`,
  `create table "optimizations" ("id" text primary key, "org_id" text not null references "organisations" ("id") on delete cascade, "client_id" text references "clients" ("id") on delete set null, "url" text not null, "keyword" text not null, "language" text not null, "status" text not null check (status in ('queued', 'running', 'complete', 'failed')), "stage" text, "error" text, "score" double precision, "source_word_count" bigint, "competitor_count" bigint, "duration_ms" bigint, "result" text, "evidence" text, "created_at" bigint not null, "started_at" bigint, "completed_at" bigint, "updated_at" bigint not null, "scoring_model" text, "summary_extras" text)`,
  `create index "optimizations_org_created" on "optimizations" ("org_id", "created_at", "id")`,
  `create index "optimizations_org_client_created" on "optimizations" ("org_id", "client_id", "created_at")`,
  `create index "optimizations_org_status_created" on "optimizations" ("org_id", "status", "created_at")`,
  `create table "prospect_lists" ("id" text primary key, "org_id" text not null references "organisations" ("id") on delete cascade, "client_id" text not null references "clients" ("id") on delete cascade, "name" text not null, "opportunity_type" text check (opportunity_type is null or opportunity_type in ('guest_post', 'link_insertion', 'resource_page', 'broken_link', 'unlinked_mention', 'digital_pr', 'partnership', 'other')), "count_identified" bigint default 0 not null check ("count_identified" >= 0), "count_contacted" bigint default 0 not null check ("count_contacted" >= 0), "count_in_discussion" bigint default 0 not null check ("count_in_discussion" >= 0), "count_won" bigint default 0 not null check ("count_won" >= 0), "count_passed" bigint default 0 not null check ("count_passed" >= 0), "created_at" bigint not null, "updated_at" bigint not null)`,
  `create index "prospect_lists_client_updated" on "prospect_lists" ("org_id", "client_id", "updated_at", "id")`,
  `create table "prospect_items" ("id" text primary key, "list_id" text not null references "prospect_lists" ("id") on delete cascade, "org_id" text not null references "organisations" ("id") on delete cascade, "client_id" text not null references "clients" ("id") on delete cascade, "url" text not null, "dedupe_key" text not null, "target_name" text, "opportunity_type" text check (opportunity_type is null or opportunity_type in ('guest_post', 'link_insertion', 'resource_page', 'broken_link', 'unlinked_mention', 'digital_pr', 'partnership', 'other')), "status" text not null check (status in ('identified', 'contacted', 'in_discussion', 'won', 'passed')), "notes" text, "contact_path" text, "created_at" bigint not null, "updated_at" bigint not null, constraint "prospect_items_list_dedupe" unique ("list_id", "dedupe_key"))`,
  `create index "prospect_items_list_created" on "prospect_items" ("list_id", "created_at", "id")`,
  `create index "prospect_items_list_status_created" on "prospect_items" ("list_id", "status", "created_at", "id")`,
  `create table "content_jobs" ("id" text primary key, "org_id" text not null references "organisations" ("id") on delete cascade, "client_id" text not null references "clients" ("id") on delete cascade, "kind" text not null check (kind in ('job', 'autopilot')), "creation_source" text not null check (creation_source in ('agent_api', 'web_app')), "mode" text, "status" text not null, "stage" text not null, "topic" text not null, "content_type" text, "request" text not null, "usage_units" bigint not null, "usage_level" text not null, "optimize_passes" bigint default 0 not null, "optimize_pass_cap" bigint default 0 not null, "error" text, "created_at" bigint not null, "started_at" bigint, "completed_at" bigint, "updated_at" bigint not null, "error_code" text)`,
  `create index "content_jobs_org_kind_created" on "content_jobs" ("org_id", "kind", "created_at")`,
  `create index "content_jobs_org_client_created" on "content_jobs" ("org_id", "client_id", "created_at")`,
  `create table "content_artifacts" ("job_id" text primary key references "content_jobs" ("id") on delete cascade, "writer" text, "research" text, "outline" text, "seo_metadata" text, "entities" text, "faqs" text, "draft" text, "citations" text, "review" text, "updated_at" bigint not null, "score" text)`,
  `create table "tracker_projects" ("id" text primary key, "org_id" text not null references "organisations" ("id") on delete cascade, "client_id" text not null references "clients" ("id") on delete cascade, "name" text not null, "domain" text not null, "brand_names" text not null, "query_kind" text not null check (query_kind in ('keywords', 'prompts')), "queries" text not null, "query_count" bigint not null check (query_count > 0), "platforms" text not null, "location" text, "language" text not null, "created_at" bigint not null, "updated_at" bigint not null)`,
  `create index "tracker_projects_org_created" on "tracker_projects" ("org_id", "created_at", "id")`,
  `create index "tracker_projects_org_client_created" on "tracker_projects" ("org_id", "client_id", "created_at", "id")`,
  `create table "tracker_scans" ("id" text primary key, "project_id" text not null references "tracker_projects" ("id") on delete cascade, "org_id" text not null references "organisations" ("id") on delete cascade, "client_id" text not null, "status" text not null check (status in ('queued', 'running', 'complete', 'partial', 'failed')), "platforms" text not null, "missing_platforms" text not null, "query_count" bigint not null, "units" bigint not null, "spi" double precision, "platform_scores" text, "error" text, "created_at" bigint not null, "started_at" bigint, "completed_at" bigint, "updated_at" bigint not null)`,
  `create index "tracker_scans_project_created" on "tracker_scans" ("project_id", "created_at", "id")`,
  `create index "tracker_scans_project_completed" on "tracker_scans" ("project_id", "completed_at", "id")`,
  `create table "tracker_results" ("run_id" text not null references "tracker_scans" ("id") on delete cascade, "platform" text not null check (platform in ('organic', 'chatgpt', 'perplexity', 'claude', 'google_ai_overview')), "query_index" bigint not null, "project_id" text not null, "query" text not null, "status" text not null check (status in ('complete', 'partial', 'failed')), "position" bigint, "brand_mentioned" bigint not null, "brand_cited" bigint not null, "cited_urls" text not null, "measured_at" bigint not null, "error" text, constraint "tracker_results_pk" primary key ("run_id", "platform", "query_index"))`,
  `create table "tracker_platform_summaries" ("run_id" text not null references "tracker_scans" ("id") on delete cascade, "platform" text not null check (platform in ('organic', 'chatgpt', 'perplexity', 'claude', 'google_ai_overview')), "project_id" text not null, "status" text not null check (status in ('complete', 'partial', 'failed')), "provider" text, "queries_total" bigint not null, "measured" bigint not null, "failed" bigint not null, "present" bigint not null, "mentioned" bigint not null, "cited" bigint not null, "ranked" bigint not null, "position_sum" bigint not null, "weight_sum" double precision not null, "spi" double precision, "top_cited" text not null, "measured_at" bigint not null, "error" text, constraint "tracker_platform_summaries_pk" primary key ("run_id", "platform"))`,
  `create table "tracker_latest" ("project_id" text not null references "tracker_projects" ("id") on delete cascade, "platform" text not null check (platform in ('organic', 'chatgpt', 'perplexity', 'claude', 'google_ai_overview')), "run_id" text not null, "measured_at" bigint not null, constraint "tracker_latest_pk" primary key ("project_id", "platform"))`,
  `create table "mcp_tasks" ("task_id" text primary key, "org_id" text not null references "organisations" ("id") on delete cascade, "tool" text not null, "resource_kind" text not null, "resource_id" text not null, "cancelled_at" bigint, "ttl_ms" bigint, "poll_ms" bigint not null, "created_at" bigint not null, "read_scope" text default 'copywriter:read' not null, "run_scope" text default 'copywriter:run' not null)`,
  `create index "mcp_tasks_org_created" on "mcp_tasks" ("org_id", "created_at")`,
  `create index "usage_ledger_org_time_cover" on "usage_ledger" ("org_id", "created_at", "state", "units")`,
  `create table "usage_hourly" ("org_id" text not null references "organisations" ("id") on delete cascade, "hour" bigint not null, "charged" bigint default 0 not null, "reserved" bigint default 0 not null, constraint "usage_hourly_pk" primary key ("org_id", "hour"))`,
  `create table "console_sessions" ("id_hash" text primary key, "key_hash" text not null, "created_at" bigint not null, "expires_at" bigint not null)`,
  `create index "console_sessions_expires" on "console_sessions" ("expires_at")`,
  `create table "oauth_clients" ("client_id" text primary key, "kind" text not null, "secret_hash" text, "metadata" text not null, "created_at" bigint not null, "expires_at" bigint)`,
  `create table "oauth_grants" ("id" text primary key, "client_id" text not null, "key_hash" text not null, "org_id" text not null, "scopes" text not null, "resource" text not null, "created_at" bigint not null, "revoked_at" bigint)`,
  `create table "oauth_codes" ("code_hash" text primary key, "client_id" text not null, "redirect_uri" text not null, "code_challenge" text not null, "key_hash" text not null, "org_id" text not null, "scopes" text not null, "resource" text not null, "created_at" bigint not null, "expires_at" bigint not null, "used_at" bigint, "grant_id" text)`,
  `create table "oauth_tokens" ("token_hash" text primary key, "grant_id" text not null, "kind" text not null, "created_at" bigint not null, "expires_at" bigint not null, "scopes" text, "used_at" bigint)`,
  `create index "oauth_tokens_grant" on "oauth_tokens" ("grant_id")`,
  `create index "oauth_tokens_expires" on "oauth_tokens" ("expires_at")`,
  `create index "oauth_codes_expires" on "oauth_codes" ("expires_at")`,
  `create function usage_hourly_apply() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    insert into usage_hourly (org_id, hour, charged, reserved)
    values (old.org_id, old.created_at / 3600000,
            -(case when old.state = 'charged' then old.units else 0 end),
            -(case when old.state = 'reserved' then old.units else 0 end))
    on conflict (org_id, hour) do update
      set charged = usage_hourly.charged + excluded.charged, reserved = usage_hourly.reserved + excluded.reserved;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    insert into usage_hourly (org_id, hour, charged, reserved)
    values (new.org_id, new.created_at / 3600000,
            (case when new.state = 'charged' then new.units else 0 end),
            (case when new.state = 'reserved' then new.units else 0 end))
    on conflict (org_id, hour) do update
      set charged = usage_hourly.charged + excluded.charged, reserved = usage_hourly.reserved + excluded.reserved;
  end if;
  return null;
end
$$`,
  `create trigger usage_hourly_on_insert after insert on usage_ledger for each row execute function usage_hourly_apply()`,
  `create trigger usage_hourly_on_update after update of state, units, created_at, org_id on usage_ledger for each row execute function usage_hourly_apply()`,
  `create trigger usage_hourly_on_delete after delete on usage_ledger for each row execute function usage_hourly_apply()`,
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const statement of STATEMENTS) await sql.raw(statement).execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql.raw('drop schema public cascade; create schema public').execute(db);
}
