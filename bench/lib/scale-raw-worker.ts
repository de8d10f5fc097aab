/**
 * Bench baseline for `npm run bench -- scale`: one process with BENCH_CONNECTIONS plain node-postgres connections to
 * BENCH_DATABASE_URL, each looping `begin; select … for update skip locked limit 1; update … set state = 'done';
 * commit` on the project's own `runs` table (same indexes, same due-run predicate and order as the runner's claim)
 * until no run is left. No framework, no leases, no fencing, no checkpoints. Prints {"ready":true} once connected;
 * the line `go` on stdin starts the loops; prints {"jobs":n} once every loop found the queue empty, then waits for the
 * next `go`; SIGTERM ends it.
 */
import { createInterface } from 'node:readline';
import pg from 'pg';

const url = process.env.BENCH_DATABASE_URL!;
const connections = Math.max(1, Number(process.env.BENCH_CONNECTIONS ?? 1));
const kind = process.env.BENCH_KIND ?? 'bench';

const CLAIM = `select id from runs
  where state = 'pending' and run_after <= $1 and (lease_expires_at is null or lease_expires_at <= $1) and kind = $2
  order by run_after, created_at limit 1 for update skip locked`;
const DONE = `update runs set state = 'done', updated_at = $2 where id = $1`;

const clients = await Promise.all(
  Array.from({ length: connections }, async () => {
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => undefined);
    await c.connect();
    return c;
  }),
);

async function loop(c: pg.Client): Promise<number> {
  let jobs = 0;
  for (;;) {
    await c.query('begin');
    const r = await c.query<{ id: string }>({ name: 'claim', text: CLAIM, values: [Date.now(), kind] });
    const id = r.rows[0]?.id;
    if (id === undefined) {
      await c.query('commit');
      return jobs;
    }
    await c.query({ name: 'done', text: DONE, values: [id, Date.now()] });
    await c.query('commit');
    jobs++;
  }
}

const lines = createInterface({ input: process.stdin });
let running = false;
lines.on('line', (line) => {
  if (line.trim() !== 'go' || running) return;
  running = true;
  void Promise.all(clients.map(loop)).then((counts) => {
    running = false;
    process.stdout.write(`${JSON.stringify({ jobs: counts.reduce((a, b) => a + b, 0) })}\n`);
  });
});
const close = () => void Promise.all(clients.map((c) => c.end().catch(() => undefined))).then(() => process.exit(0));
lines.on('close', close);
process.once('SIGTERM', close);
process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
