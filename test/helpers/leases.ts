import type { Db } from '../../src/store/db.ts';

/**
 * Run leases in tests that drive real server processes (kill -9, restart, two processes on one store).
 *
 * A live server renews its leases every third of `AGENT_API_LEASE_MS`; a machine busy enough to stall its event loop
 * for longer than the lease (several suites on two cores) makes it lose one to itself or to another process: the run is
 * claimed again (attempts 2, a second provider call). So live servers get a lease no stall outlives, and the test
 * expires a killed process's leases itself, in the database, once the process is gone: the restarted server claims
 * them at once, as it would after waiting out a real lease. Only tests of expiry itself keep short leases.
 */
export const LONG_LEASE_MS = '600000';

/**
 * Ends every lease still held on a pending run, as if its time had run out: call it after `crash()` of the process
 * that held them (and before another live process holds any). Answers how many leases it ended.
 */
export async function expireLeases(db: Db): Promise<number> {
  const ended = await db
    .updateTable('runs')
    .set({ lease_expires_at: 0 })
    .where('state', '=', 'pending')
    .where('lease_owner', 'is not', null)
    .executeTakeFirst();
  return Number(ended.numUpdatedRows);
}
