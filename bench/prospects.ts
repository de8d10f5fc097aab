/**
 * `npm run bench -- prospects [--items N] [--saves N] [--reads N]`: outreach lists at size, measured side by side.
 *  1. Items saved per second into one list that already holds 100,000 items, through the save_prospect operation
 *     (scope, validation and URL check, BEGIN IMMEDIATE, idempotency record, insert, counters, fsync'd commit),
 *     against the same saves into an empty list.
 *  2. p99 of list_prospect_lists (every row carries status_breakdown) for the client whose list holds the 100,000
 *     items, as a ratio to the same read for a client whose one list is fresh. Goal: at most 3x (the read is indexed).
 *  Also shown: a page of list_prospects filtered by status on both lists (20 rows against none), and what the breakdown would cost as a
 *  GROUP BY over the covering (list_id, status) index instead of the counters kept on the list row.
 * The 100,000 rows are written straight into the tables in one transaction (setup, not measured).
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import type { Principal } from '../src/engine/accounts/auth.ts';
import { expandScopes } from '../src/engine/accounts/scopes.ts';
import { normalizeProspectUrl } from '../src/engine/prospects/normalize-url.ts';
import { createClient } from '../src/store/repos/clients.ts';
import { createOrganisation } from '../src/store/repos/organisations.ts';
import { PROSPECT_STATUSES } from '../src/store/repos/prospects.ts';
import type { AnyOperation } from '../src/tools/define.ts';
import { invokeOperation } from '../src/tools/invoke.ts';
import { createProspectList } from '../src/tools/prospects/create-prospect-list.ts';
import { listProspectLists } from '../src/tools/prospects/list-prospect-lists.ts';
import { listProspects } from '../src/tools/prospects/list-prospects.ts';
import { saveProspect } from '../src/tools/prospects/save-prospect.ts';
import { tempDir } from '../test/helpers/temp.ts';
import { table } from './lib/harness.ts';

function option(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
}

/** Times `fn` alternately on two subjects (so drift and GC hit both), after a warm-up; answers sorted ms per call. */
async function timeAlternating(
  n: number,
  a: () => unknown,
  b: () => unknown,
  warmup = 200,
): Promise<{ a: number[]; b: number[] }> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const ta: number[] = [];
  const tb: number[] = [];
  for (let i = 0; i < n; i++) {
    let t0 = performance.now();
    await a();
    ta.push(performance.now() - t0);
    t0 = performance.now();
    await b();
    tb.push(performance.now() - t0);
  }
  return { a: ta.sort((x, y) => x - y), b: tb.sort((x, y) => x - y) };
}

export async function run(args: string[]): Promise<void> {
  const itemCount = option(args, 'items', 100_000);
  const saves = option(args, 'saves', 500);
  const reads = option(args, 'reads', 2_000);
  const tmp = tempDir('agent-api-bench-');
  const config = loadConfig({ AGENT_API_DB: tmp.dbPath, AGENT_API_LOG_LEVEL: 'silent', AGENT_API_OFFLINE: '1' });
  const app = await createApp({ config, logger: createLogger('silent') });
  try {
    const { engine } = app;
    const db = app.database.db;
    const raw = app.database.raw;
    const now = Date.now();
    const org = await createOrganisation(db, { name: 'bench', plan: 'agency', subscription: 'active' }, now);
    const principal: Principal = {
      orgId: org.id,
      keyId: 'bench',
      scopes: expandScopes(['prospector:write']),
      plan: 'agency',
      subscriptionActive: true,
      ratePerMinute: 120,
    };
    const call = async (op: AnyOperation, input: Record<string, unknown>, key = true) => {
      const r = await invokeOperation(engine, op, {
        principal,
        input,
        idempotencyKeys: key ? [randomUUID()] : null,
        requestId: 'bench',
      });
      if (r.status >= 300) throw new Error(`${op.name} answered ${r.status}: ${JSON.stringify(r.body)}`);
      return r.body as Record<string, string>;
    };
    const clients = { big: '', fresh: '', empty: '' };
    const lists = { big: '', fresh: '', empty: '' };
    for (const k of Object.keys(clients) as (keyof typeof clients)[]) {
      clients[k] = (await createClient(db, { orgId: org.id, name: k }, now)).id;
      lists[k] = (await call(createProspectList, { client_id: clients[k], name: `${k} list` })).list_id!;
    }

    // Setup: the big list's items straight into the table, counters set to match, in one transaction.
    const t0 = performance.now();
    const counts = new Map<string, number>(PROSPECT_STATUSES.map((s) => [s, 0]));
    raw.transaction(() => {
      const ins = raw.prepare(
        'INSERT INTO prospect_items (id, list_id, org_id, client_id, url, dedupe_key, target_name, opportunity_type, status, notes, contact_path, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?, NULL, NULL, ?, ?)',
      );
      for (let i = 0; i < itemCount; i++) {
        const status = PROSPECT_STATUSES[i % 5]!;
        counts.set(status, counts.get(status)! + 1);
        const n = normalizeProspectUrl(`https://site${i}.example.com/page`);
        if (!n.ok) throw new Error(n.reason);
        ins.run(
          randomUUID(),
          lists.big,
          org.id,
          clients.big,
          n.value.canonical,
          n.value.dedupeKey,
          status,
          now - itemCount + i,
          now - itemCount + i,
        );
      }
      const set = PROSPECT_STATUSES.map((s) => `count_${s} = ${counts.get(s)}`).join(', ');
      raw.prepare(`UPDATE prospect_lists SET ${set} WHERE id = ?`).run(lists.big);
    })();
    raw.exec('ANALYZE');
    const setupS = (performance.now() - t0) / 1000;

    // 1. Saves through the operation: into the 100,000-item list, and into an empty one.
    const saveRun = async (client: string, list: string, tag: string) => {
      const start = performance.now();
      for (let i = 0; i < saves; i++) {
        await call(saveProspect, {
          client_id: client,
          list_id: list,
          url: `https://www.new-${tag}-${i}.example.org/post/?utm_source=bench&id=${i}`,
          notes: 'bench',
        });
      }
      return saves / ((performance.now() - start) / 1000);
    };
    const bigSaves = await saveRun(clients.big, lists.big, 'big');
    const emptySaves = await saveRun(clients.empty, lists.empty, 'empty');
    const dup = await invokeOperation(engine, saveProspect, {
      principal,
      input: { client_id: clients.big, list_id: lists.big, url: 'http://site7.example.com/page/' },
      idempotencyKeys: [randomUUID()],
      requestId: 'bench',
    });
    if (dup.status !== 200) throw new Error(`a canonical variant answered ${dup.status}`);

    // 2. Reads: the lists of each client (with status_breakdown), a status-filtered items page, and the GROUP BY option.
    const listRead = await timeAlternating(
      reads,
      () => call(listProspectLists, { client_id: clients.big }, false),
      () => call(listProspectLists, { client_id: clients.fresh }, false),
    );
    const bigBody = (await call(listProspectLists, { client_id: clients.big }, false)) as unknown as {
      data: { item_count: number }[];
    };
    const itemsRead = await timeAlternating(
      reads,
      () => call(listProspects, { client_id: clients.big, list_id: lists.big, status: 'won', limit: 20 }, false),
      () => call(listProspects, { client_id: clients.fresh, list_id: lists.fresh, status: 'won', limit: 20 }, false),
    );
    const groupBy = raw.prepare('SELECT status, count(*) AS n FROM prospect_items WHERE list_id = ? GROUP BY status');
    // Few rounds: at 100,000 items each GROUP BY takes tens of milliseconds.
    const groupRead = await timeAlternating(
      100,
      () => groupBy.all(lists.big),
      () => groupBy.all(lists.fresh),
      10,
    );

    const ms = (v: number) => v.toFixed(3);
    const ratio = (x: { a: number[]; b: number[] }) => percentile(x.a, 99) / percentile(x.b, 99);
    const rows = [
      ['items in the big list', String(bigBody.data[0]?.item_count ?? '?'), '', '', `(setup ${setupS.toFixed(1)} s)`],
      [
        'save_prospect saves/s',
        bigSaves.toFixed(0),
        emptySaves.toFixed(0),
        (bigSaves / emptySaves).toFixed(2),
        '(big / empty list)',
      ],
      [
        'list_prospect_lists p50 ms',
        ms(percentile(listRead.a, 50)),
        ms(percentile(listRead.b, 50)),
        (percentile(listRead.a, 50) / percentile(listRead.b, 50)).toFixed(2),
        '',
      ],
      [
        'list_prospect_lists p99 ms',
        ms(percentile(listRead.a, 99)),
        ms(percentile(listRead.b, 99)),
        ratio(listRead).toFixed(2),
        '<= 3',
      ],
      [
        'list_prospects status=won p50 ms',
        ms(percentile(itemsRead.a, 50)),
        ms(percentile(itemsRead.b, 50)),
        (percentile(itemsRead.a, 50) / percentile(itemsRead.b, 50)).toFixed(2),
        '(info)',
      ],
      [
        'list_prospects status=won p99 ms',
        ms(percentile(itemsRead.a, 99)),
        ms(percentile(itemsRead.b, 99)),
        ratio(itemsRead).toFixed(2),
        '(info)',
      ],
      [
        'GROUP BY (list_id, status) p50 ms',
        ms(percentile(groupRead.a, 50)),
        ms(percentile(groupRead.b, 50)),
        (percentile(groupRead.a, 50) / percentile(groupRead.b, 50)).toFixed(2),
        '(not used)',
      ],
      [
        'GROUP BY (list_id, status) p99 ms',
        ms(percentile(groupRead.a, 99)),
        ms(percentile(groupRead.b, 99)),
        ratio(groupRead).toFixed(2),
        '(not used)',
      ],
    ];
    process.stdout.write(table(['measure', `${itemCount} items`, 'fresh list', 'ratio', 'goal'], rows));
  } finally {
    await app.close(1_000);
    tmp.cleanup();
  }
}
