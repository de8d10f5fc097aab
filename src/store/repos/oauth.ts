import type { Db, TxDb } from '../db.ts';
import { JSON_COLUMNS } from '../json-columns.ts';
import type { OAuthClientsTable, OAuthCodesTable, OAuthGrantsTable, OAuthTokensTable } from '../schema.ts';

export type OAuthClientRow = OAuthClientsTable;
export type OAuthCodeRow = OAuthCodesTable;
export type OAuthGrantRow = OAuthGrantsTable;

export async function findOAuthClient(db: Db, clientId: string): Promise<OAuthClientRow | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

export async function insertOAuthClient(db: Db, row: OAuthClientRow): Promise<void> {
  await db.insertInto('oauth_clients').values(row).execute();
}

/** Stores (or refreshes) the cached copy of a client ID metadata document. */
export async function saveMetadataDocumentClient(db: Db, row: OAuthClientRow): Promise<void> {
  await db
    .insertInto('oauth_clients')
    .values(row)
    .onConflict((oc) => oc.column('client_id').doUpdateSet({ metadata: row.metadata, expires_at: row.expires_at }))
    .execute();
}

export async function insertOAuthCode(db: Db, row: OAuthCodeRow): Promise<void> {
  await db.insertInto('oauth_codes').values(row).execute();
}

export async function findOAuthCode(db: Db, codeHash: string): Promise<OAuthCodeRow | undefined> {
  return db.selectFrom('oauth_codes').selectAll().where('code_hash', '=', codeHash).executeTakeFirst();
}

/** Marks a code used, once: answers false when it was already used (a replay). */
export async function useOAuthCode(trx: TxDb, codeHash: string, grantId: string, now: number): Promise<boolean> {
  const r = await trx
    .updateTable('oauth_codes')
    .set({ used_at: now, grant_id: grantId })
    .where('code_hash', '=', codeHash)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

export async function insertOAuthGrant(trx: TxDb, row: OAuthGrantRow): Promise<void> {
  await trx.insertInto('oauth_grants').values(row).execute();
}

export async function revokeOAuthGrant(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('oauth_grants')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}

export async function insertOAuthToken(trx: TxDb, row: OAuthTokensTable): Promise<void> {
  await trx.insertInto('oauth_tokens').values(row).execute();
}

/**
 * A token with its grant, by the token's hash (expired, used and revoked ones too: the caller decides). `scopes` are
 * the token's own when a refresh narrowed them (`narrowed`), else the grant's.
 */
export async function findOAuthToken(db: Db, tokenHash: string) {
  const row = await db
    .selectFrom('oauth_tokens as t')
    .innerJoin('oauth_grants as g', 'g.id', 't.grant_id')
    .select([
      't.token_hash',
      't.kind',
      't.expires_at',
      't.used_at',
      't.scopes as token_scopes',
      'g.id as grant_id',
      'g.client_id',
      'g.key_hash',
      'g.org_id',
      'g.scopes',
      'g.resource',
      'g.revoked_at',
    ])
    .where('t.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row) return undefined;
  const { token_scopes, scopes, ...rest } = row;
  return {
    ...rest,
    scopes:
      token_scopes === null
        ? JSON_COLUMNS.oauth_grants.scopes.read(scopes)
        : JSON_COLUMNS.oauth_tokens.scopes.read(token_scopes),
    narrowed: token_scopes !== null,
  };
}

export type OAuthTokenWithGrant = NonNullable<Awaited<ReturnType<typeof findOAuthToken>>>;

/** Marks a refresh token rotated, once: answers false when it already was (a replay). */
export async function useRefreshToken(trx: TxDb, tokenHash: string, now: number): Promise<boolean> {
  const r = await trx
    .updateTable('oauth_tokens')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'refresh')
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Ends one access token (RFC 7009 revocation of an access token). */
export async function expireOAuthToken(db: Db, tokenHash: string, now: number): Promise<void> {
  await db.updateTable('oauth_tokens').set({ expires_at: now }).where('token_hash', '=', tokenHash).execute();
}

/** Removes codes and tokens past their expiry (a used refresh token is kept until it expires: replays are detected). */
export async function deleteExpiredOAuthRows(db: Db, now: number): Promise<void> {
  await db.deleteFrom('oauth_codes').where('expires_at', '<=', now).execute();
  await db.deleteFrom('oauth_tokens').where('expires_at', '<=', now).execute();
}
