import type { Db } from '../db.ts';

/** One cheap read that proves the database answers (health checks). */
export async function pingDatabase(db: Db): Promise<void> {
  await db.selectFrom('organisations').select('id').limit(1).execute();
}
