import type { Kysely } from 'kysely';

// Frozen: never edit a migration that has shipped; add a new one.

/**
 * OAuth for remote MCP clients (docs/oauth.md): registered and metadata-document clients, authorization codes,
 * grants (one per approval: the token family) and tokens. Secrets, codes and tokens are stored only as SHA-256 hashes.
 * A grant names the API key that approved it by the key's hash, so revoking the key ends every token of the grant.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('oauth_clients')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    // 'registered' (RFC 7591) or 'metadata_document' (a client ID metadata document, cached).
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('secret_hash', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    // For a metadata document: when the cached copy must be fetched again.
    .addColumn('expires_at', 'integer')
    .execute();
  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('revoked_at', 'integer')
    .execute();
  await db.schema
    .createTable('oauth_codes')
    .addColumn('code_hash', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull())
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('org_id', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    .addColumn('used_at', 'integer')
    // The grant the code was exchanged for: a second use of the code revokes it.
    .addColumn('grant_id', 'text')
    .execute();
  await db.schema
    .createTable('oauth_tokens')
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull())
    // 'access' or 'refresh'.
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('created_at', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'integer', (c) => c.notNull())
    // Narrower scopes than the grant's (a refresh that asked for fewer), JSON array; null: the grant's.
    .addColumn('scopes', 'text')
    // A refresh token once rotated: using it again revokes the grant.
    .addColumn('used_at', 'integer')
    .execute();
  await db.schema.createIndex('oauth_tokens_grant').on('oauth_tokens').column('grant_id').execute();
  await db.schema.createIndex('oauth_tokens_expires').on('oauth_tokens').column('expires_at').execute();
  await db.schema.createIndex('oauth_codes_expires').on('oauth_codes').column('expires_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['oauth_tokens', 'oauth_codes', 'oauth_grants', 'oauth_clients'])
    await db.schema.dropTable(t).execute();
}
