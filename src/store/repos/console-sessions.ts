import type { Db } from '../db.ts';
import type { ConsoleSessionsTable } from '../schema.ts';

export async function insertConsoleSession(db: Db, row: ConsoleSessionsTable): Promise<void> {
  await db.insertInto('console_sessions').values(row).execute();
}

/** A live session by the hash of its id, or undefined (an expired one is not answered). */
export async function findConsoleSession(db: Db, idHash: string, now: number) {
  return db
    .selectFrom('console_sessions')
    .selectAll()
    .where('id_hash', '=', idHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteConsoleSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('console_sessions').where('id_hash', '=', idHash).execute();
}

/** Removes expired sessions; answers how many. */
export async function deleteExpiredConsoleSessions(db: Db, now: number): Promise<number> {
  const r = await db.deleteFrom('console_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows);
}
