/**
 * Bench baseline: a bare node:http server doing the same indexed SQLite read as GET /usage (the 24-hour and 7-day
 * sums of one organisation's ledger) on the same database file and settings, with no framework, auth or limits.
 */
import { createServer } from 'node:http';
import Database from '../../src/sqlite-driver.ts';

const db = new Database(process.env.AGENT_API_DB!);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.pragma('busy_timeout = 5000');
const orgId = process.env.BENCH_ORG_ID!;
const sums = db.prepare(
  `select coalesce(sum(case when state = 'charged' then units else 0 end), 0) as charged,
          coalesce(sum(case when state = 'reserved' then units else 0 end), 0) as reserved
     from usage_ledger where org_id = ? and created_at > ? and state != 'released'`,
);
const server = createServer((_req, res) => {
  const now = Date.now();
  const day = sums.get(orgId, now - 86_400_000);
  const week = sums.get(orgId, now - 7 * 86_400_000);
  const body = JSON.stringify({ windows: { '24h': day, '7d': week } });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
});
server.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof addr === 'object' && addr ? addr.port : 0 })}\n`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
