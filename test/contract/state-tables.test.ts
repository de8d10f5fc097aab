import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import {
  API_KEY_STATE_VALUES,
  API_KEY_STATES,
  apiKeyState,
  BILLING_STATUSES,
  LEDGER_STATES,
  PLANS,
  SUBSCRIPTION_STATUSES,
} from '../../src/engine/accounts/contract.ts';
import {
  CONTENT_MODES,
  CONTENT_RUN_KINDS,
  CONTENT_STAGE_VALUES,
  CONTENT_STAGES,
  CONTENT_STATUS_VALUES,
  CONTENT_STATUSES,
  CREATION_SOURCES,
  FINAL_STAGE,
  stagesOfKind,
  type ContentRunKind,
} from '../../src/engine/content/states.ts';
import {
  OPTIMIZATION_STAGE_VALUES,
  OPTIMIZATION_STAGES,
  OPTIMIZATION_STATUS_VALUES,
  OPTIMIZATION_STATUSES,
  optimizationProgress,
} from '../../src/engine/optimize/states.ts';
import { OPPORTUNITY_TYPES, PROSPECT_STATUSES } from '../../src/engine/prospects/contract.ts';
import {
  TRACKER_PLATFORMS,
  TRACKER_QUERY_KINDS,
  TRACKER_RESULT_STATUS_VALUES,
  TRACKER_SCAN_STATUS_VALUES,
  TRACKER_SCAN_STATUSES,
} from '../../src/engine/tracker/contract.ts';
import { openDatabase, type OpenedDatabase } from '../../src/store/db.ts';
import { migrateToLatest } from '../../src/store/migrations/index.ts';
import { stagePercent } from '../../src/engine/content/states.ts';
import type {
  ContentJobsTable,
  OptimizationsTable,
  OrganisationsTable,
  ProspectItemsTable,
  TrackerScansTable,
} from '../../src/store/schema.ts';
import { ContentJobDetail } from '../../src/tools/content/schemas.ts';
import { JOB_STATUSES } from '../../src/tools/content/list-content-jobs.ts';
import { OptimizationStage, OptimizationStatus } from '../../src/tools/optimize/schemas.ts';
import { OpportunityType, ProspectStatus } from '../../src/tools/prospects/schemas.ts';
import { Platform, QueryKind, ResultStatus, ScanStatus } from '../../src/tools/tracker/schemas.ts';
import { tempDir } from '../helpers/temp.ts';

/**
 * One state table per family (content and Autopilot, optimize, tracker, prospects, accounts), walked against
 * everything that lists the same states: the database's CHECK constraints (SQLite as migrated, and the PostgreSQL
 * schema's text), the tools' zod enums, the Kysely column types, the progress each stage reports, and the docs that
 * list them. A state added to a table and not to the others fails here.
 */

/** A table's states, as a family's generic table: order, terminal states and allowed moves. */
interface StateTable {
  states: readonly string[];
  terminal: (s: string) => boolean;
  next: (s: string) => readonly string[];
}

const TABLES: Record<string, StateTable> = {
  content: {
    states: CONTENT_STATUS_VALUES,
    terminal: (s) => CONTENT_STATUSES[s as keyof typeof CONTENT_STATUSES].terminal,
    next: (s) => CONTENT_STATUSES[s as keyof typeof CONTENT_STATUSES].next,
  },
  optimize: {
    states: OPTIMIZATION_STATUS_VALUES,
    terminal: (s) => OPTIMIZATION_STATUSES[s as keyof typeof OPTIMIZATION_STATUSES].terminal,
    next: (s) => OPTIMIZATION_STATUSES[s as keyof typeof OPTIMIZATION_STATUSES].next,
  },
  tracker: {
    states: TRACKER_SCAN_STATUS_VALUES,
    terminal: (s) => TRACKER_SCAN_STATUSES[s as keyof typeof TRACKER_SCAN_STATUSES].terminal,
    next: (s) => TRACKER_SCAN_STATUSES[s as keyof typeof TRACKER_SCAN_STATUSES].next,
  },
  prospects: {
    // Any status may follow any other; none is terminal.
    states: PROSPECT_STATUSES,
    terminal: () => false,
    next: () => PROSPECT_STATUSES,
  },
  'api keys': {
    states: API_KEY_STATE_VALUES,
    terminal: (s) => API_KEY_STATES[s as keyof typeof API_KEY_STATES].terminal,
    next: (s) => API_KEY_STATES[s as keyof typeof API_KEY_STATES].next,
  },
};

/** Content statuses that only the web app creates and that nothing here moves (they rest, not end). */
const NEVER_STARTED = new Set(['draft']);

describe('every state table is well formed', () => {
  for (const [family, table] of Object.entries(TABLES)) {
    it(`${family}: moves go to known states, terminal states have none, every other state can end`, () => {
      expect(new Set(table.states).size, family).toBe(table.states.length);
      for (const s of table.states) {
        for (const to of table.next(s)) expect(table.states, `${family}: ${s} → ${to}`).toContain(to);
        if (table.terminal(s)) expect(table.next(s), `${family}: terminal ${s}`).toEqual([]);
      }
      if (family === 'prospects') return;
      // From every state that is not terminal, some path of moves reaches a terminal one.
      for (const start of table.states) {
        if (table.terminal(start) || NEVER_STARTED.has(start)) continue;
        const seen = new Set([start]);
        const queue = [start];
        while (queue.length) {
          for (const to of table.next(queue.shift()!)) {
            if (seen.has(to)) continue;
            seen.add(to);
            queue.push(to);
          }
        }
        expect(
          [...seen].some((s) => table.terminal(s)),
          `${family}: ${start} can end`,
        ).toBe(true);
      }
    });
  }

  it('content: every stage runs under a known status, and each kind’s stages pass its statuses in order', () => {
    for (const stage of CONTENT_STAGE_VALUES) expect(CONTENT_STATUS_VALUES).toContain(CONTENT_STAGES[stage].status);
    for (const kind of CONTENT_RUN_KINDS) {
      const stages = stagesOfKind(kind);
      expect(stages[0]).toBe('queued');
      expect(stages).toContain(FINAL_STAGE[kind]);
      // Status moves along the stages are allowed moves (brief_ready only for stepped jobs, failed from anywhere).
      const walk = stages.filter((s) => s !== 'failed').map((s) => CONTENT_STAGES[s].status);
      for (let i = 1; i < walk.length; i++) {
        const [from, to] = [walk[i - 1]!, walk[i]!];
        if (from === to) continue;
        expect(CONTENT_STATUSES[from].next as readonly string[], `${kind}: ${from} → ${to}`).toContain(to);
      }
    }
  });
});

describe('progress: each stage in order reads higher, never 0 after queued, 100 at the end', () => {
  for (const kind of CONTENT_RUN_KINDS) {
    it(`content ${kind}`, () => {
      const walk = stagesOfKind(kind).filter((s) => s !== 'failed');
      const percents = walk.map(stagePercent);
      expect(percents[0]).toBe(0);
      for (let i = 1; i < walk.length; i++) expect(percents[i]!, walk[i]).toBeGreaterThan(percents[i - 1]!);
      expect(percents.at(-1)).toBe(100);
      expect(stagePercent('failed')).toBe(100);
    });
  }

  it('optimize', () => {
    const read = (p: { progress: number; total: number }) => p.progress / p.total;
    const walk = [
      read(optimizationProgress({ status: 'queued', stage: null })),
      ...OPTIMIZATION_STAGE_VALUES.map((stage) => read(optimizationProgress({ status: 'running', stage }))),
      read(optimizationProgress({ status: 'complete', stage: null })),
    ];
    expect(walk[0]).toBe(0);
    for (let i = 1; i < walk.length; i++) expect(walk[i]!).toBeGreaterThan(walk[i - 1]!);
    expect(walk.at(-1)).toBe(1);
    expect(Object.keys(OPTIMIZATION_STAGES)).toEqual([...OPTIMIZATION_STAGE_VALUES]);
    for (const status of OPTIMIZATION_STATUS_VALUES) {
      if (OPTIMIZATION_STATUSES[status].terminal) expect(read(optimizationProgress({ status, stage: null }))).toBe(1);
    }
  });
});

describe('the tools’ zod enums are the tables’ tuples', () => {
  const cases: [string, { options: readonly string[] }, readonly string[]][] = [
    ['optimization status', OptimizationStatus, OPTIMIZATION_STATUS_VALUES],
    ['optimization stage', OptimizationStage, OPTIMIZATION_STAGE_VALUES],
    ['tracker scan status', ScanStatus, TRACKER_SCAN_STATUS_VALUES],
    ['tracker result status', ResultStatus, TRACKER_RESULT_STATUS_VALUES],
    ['tracker platform', Platform, TRACKER_PLATFORMS],
    ['tracker query kind', QueryKind, TRACKER_QUERY_KINDS],
    ['prospect status', ProspectStatus, PROSPECT_STATUSES],
    ['opportunity type', OpportunityType, OPPORTUNITY_TYPES],
    ['content kind', ContentJobDetail.shape.kind, CONTENT_RUN_KINDS],
    ['content creation source', ContentJobDetail.shape.creation_source, CREATION_SOURCES],
    ['content mode', ContentJobDetail.shape.mode.unwrap(), CONTENT_MODES],
  ];
  for (const [name, schema, tuple] of cases) {
    it(name, () => expect(schema.options).toEqual([...tuple]));
  }

  it('list_content_jobs filters by every content status', () => {
    expect([...JOB_STATUSES]).toEqual([...CONTENT_STATUS_VALUES]);
  });

  it('the Kysely column types are the zod enums’ types', () => {
    expectTypeOf<OptimizationsTable['status']>().toEqualTypeOf<z.infer<typeof OptimizationStatus>>();
    expectTypeOf<NonNullable<OptimizationsTable['stage']>>().toEqualTypeOf<z.infer<typeof OptimizationStage>>();
    expectTypeOf<TrackerScansTable['status']>().toEqualTypeOf<z.infer<typeof ScanStatus>>();
    expectTypeOf<ProspectItemsTable['status']>().toEqualTypeOf<z.infer<typeof ProspectStatus>>();
    expectTypeOf<ContentJobsTable['status']>().toEqualTypeOf<(typeof CONTENT_STATUS_VALUES)[number]>();
    expectTypeOf<ContentJobsTable['stage']>().toEqualTypeOf<(typeof CONTENT_STAGE_VALUES)[number]>();
    expectTypeOf<ContentJobsTable['kind']>().toEqualTypeOf<ContentRunKind>();
    expectTypeOf<OrganisationsTable['plan']>().toEqualTypeOf<(typeof PLANS)[number]>();
  });
});

/** `column in ('a', 'b')` constraints of one CREATE TABLE statement, by column. */
function checksOf(statement: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of statement.matchAll(/"?(\w+)"? in \(([^)]*)\)/g)) {
    out[m[1]!] = [...m[2]!.matchAll(/'([^']*)'/g)].map((v) => v[1]!);
  }
  return out;
}

/** Each constrained column and the tuple its CHECK must list (in any order). */
const CHECKED: [table: string, column: string, values: readonly string[]][] = [
  ['organisations', 'plan', PLANS],
  ['organisations', 'subscription_status', SUBSCRIPTION_STATUSES],
  ['usage_ledger', 'state', LEDGER_STATES],
  ['optimizations', 'status', OPTIMIZATION_STATUS_VALUES],
  ['prospect_items', 'status', PROSPECT_STATUSES],
  ['prospect_items', 'opportunity_type', OPPORTUNITY_TYPES],
  ['prospect_lists', 'opportunity_type', OPPORTUNITY_TYPES],
  ['tracker_projects', 'query_kind', TRACKER_QUERY_KINDS],
  ['tracker_scans', 'status', TRACKER_SCAN_STATUS_VALUES],
  ['tracker_results', 'status', TRACKER_RESULT_STATUS_VALUES],
  ['tracker_results', 'platform', TRACKER_PLATFORMS],
  ['tracker_platform_summaries', 'status', TRACKER_RESULT_STATUS_VALUES],
  ['tracker_platform_summaries', 'platform', TRACKER_PLATFORMS],
  ['tracker_latest', 'platform', TRACKER_PLATFORMS],
  ['content_jobs', 'kind', CONTENT_RUN_KINDS],
  ['content_jobs', 'creation_source', CREATION_SOURCES],
];

describe('the database’s CHECK constraints list exactly the tables’ states', () => {
  const tmp = tempDir('agent-api-states-');
  let opened: OpenedDatabase;
  const sqlite: Record<string, string> = {};
  beforeAll(async () => {
    opened = openDatabase(tmp.dbPath);
    await migrateToLatest(opened.db);
    const rows = opened.raw.prepare(`select name, sql from sqlite_master where type = 'table'`).all() as {
      name: string;
      sql: string;
    }[];
    for (const r of rows) sqlite[r.name] = r.sql;
  });
  afterAll(async () => {
    await opened?.close();
    tmp.cleanup();
  });

  /** The PostgreSQL schema's CREATE TABLE statements, read from the migration's text. */
  const postgres: Record<string, string> = {};
  for (const m of readFileSync(
    new URL('../../src/store/migrations/postgres/0001-schema.ts', import.meta.url),
    'utf8',
  ).matchAll(/create table "(\w+)" \((.*)\)`,/g))
    postgres[m[1]!] = m[2]!;

  it.each(CHECKED)('%s.%s (SQLite, PostgreSQL)', (table, column, values) => {
    expect(checksOf(sqlite[table] ?? '')[column]?.sort(), `SQLite ${table}.${column}`).toEqual([...values].sort());
    expect(checksOf(postgres[table] ?? '')[column]?.sort(), `PostgreSQL ${table}.${column}`).toEqual(
      [...values].sort(),
    );
  });

  it('prospect_lists has one counter column per prospect status, and no other', () => {
    const columns = (opened.raw.prepare(`pragma table_info(prospect_lists)`).all() as { name: string }[])
      .map((c) => c.name)
      .filter((c) => c.startsWith('count_'));
    expect(columns.sort()).toEqual(PROSPECT_STATUSES.map((s) => `count_${s}`).sort());
  });

  it('the content status and stage columns are unconstrained; the Kysely types (from the table) guard them', () => {
    expect(checksOf(sqlite.content_jobs!).status).toBeUndefined();
    expect(checksOf(sqlite.content_jobs!).stage).toBeUndefined();
  });
});

/** The backticked words of `text` between `from` and `to` in a doc. */
function ticked(doc: string, from: string, to: string): string[] {
  const text = readFileSync(new URL(`../../docs/${doc}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const start = text.indexOf(from);
  expect(start, `${doc}: "${from}"`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf(to, start + from.length);
  expect(end, `${doc}: "${to}" after "${from}"`).toBeGreaterThan(start);
  return [...text.slice(start + from.length, end).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!);
}

/** The words of a plain list (`a, b, c or d`, `a | b`) in a doc between `from` and `to`. */
function listed(doc: string, from: string, to: string): string[] {
  const text = readFileSync(new URL(`../../docs/${doc}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const start = text.indexOf(from);
  expect(start, `${doc}: "${from}"`).toBeGreaterThanOrEqual(0);
  const end = text.indexOf(to, start + from.length);
  return text
    .slice(start + from.length, end)
    .split(/,|\bor\b|\|/)
    .map((w) => w.replace(/[`\s\\]/g, ''))
    .filter(Boolean);
}

const statusesOfKind = (kind: ContentRunKind) => [...new Set(stagesOfKind(kind).map((s) => CONTENT_STAGES[s].status))];

describe('the docs list exactly the tables’ states', () => {
  const cases: [string, () => string[], readonly string[]][] = [
    [
      'content.md: a content job’s progress.stage',
      () => ticked('content.md', '`progress.stage` is', 'with a percent'),
      stagesOfKind('job'),
    ],
    [
      'content.md: Autopilot’s stages',
      () => ticked('content.md', "Autopilot's stages:", '; its status is'),
      stagesOfKind('autopilot'),
    ],
    [
      'content.md: Autopilot’s statuses',
      () => ticked('content.md', '; its status is', '`GET /copywriter/autopilot/:id`'),
      statusesOfKind('autopilot'),
    ],
    [
      'api.md §3.1: the status filter',
      () => ticked('api.md', 'It filters by `kind`, `client_id`, `status` (', ') and `mode`'),
      CONTENT_STATUS_VALUES,
    ],
    [
      'api.md §3.1: progress.stage',
      () => ticked('api.md', '`progress.stage` is finer:', '`creation_source`'),
      stagesOfKind('job'),
    ],
    [
      'api.md §3.2: Autopilot stages',
      () => ticked('api.md', '- **Stages**:', ' with `error` set and the usage'),
      stagesOfKind('autopilot'),
    ],
    [
      'api.md §3.2: Autopilot statuses',
      () => ticked('api.md', '`status` moves', 'The draft is read'),
      statusesOfKind('autopilot'),
    ],
    [
      'api.md §3.3: optimization statuses',
      () => listed('api.md', 'optimization_id, status (', ')'),
      OPTIMIZATION_STATUS_VALUES,
    ],
    [
      'api.md §3.3: optimization stages',
      () => listed('api.md', '), stage (', ' while running'),
      OPTIMIZATION_STAGE_VALUES,
    ],
    [
      'api.md §3.5: tracker platforms',
      () => ticked('api.md', '(1 or more of', '; default `["organic"]`'),
      TRACKER_PLATFORMS,
    ],
    [
      'api.md §3.5: tracker query kinds',
      () => ticked('api.md', '`query_kind` (', 'answers)').filter((w) => w !== 'the'),
      TRACKER_QUERY_KINDS,
    ],
    [
      'tracker.md: scan statuses',
      () => ticked('tracker.md', "A scan's `status` moves from", '(the table'),
      TRACKER_SCAN_STATUS_VALUES,
    ],
    [
      'tracker.md: platform statuses',
      () => ticked('tracker.md', 'Status per platform:', '. The scan is'),
      TRACKER_RESULT_STATUS_VALUES,
    ],
    [
      'api.md §3.6: prospect statuses',
      () => ticked('api.md', '`status` one of', ', and any status'),
      PROSPECT_STATUSES,
    ],
    [
      'api.md §3.6: opportunity types',
      () => ticked('api.md', '`opportunity_type` is one of', '; `status` one of'),
      OPPORTUNITY_TYPES,
    ],
    [
      'prospects.md: the status breakdown',
      () => listed('prospects.md', '(counts for', ', zeros included)'),
      PROSPECT_STATUSES,
    ],
    [
      'console.md: the prospect sections',
      () => ticked('console.md', 'in the order', ', each with a form'),
      PROSPECT_STATUSES,
    ],
    ['api.md: plans', () => listed('api.md', '`orgs create --name N [--plan', '] [--subscription'), PLANS],
    ['api.md: billing statuses', () => ticked('api.md', '`billing_status` is', '(a usable'), BILLING_STATUSES],
    [
      'api.md: subscription statuses',
      () => ticked('api.md', "An organisation's subscription is", '(set with'),
      SUBSCRIPTION_STATUSES,
    ],
  ];
  for (const [name, read, states] of cases) {
    it(name, () => expect(read()).toEqual([...states]));
  }
});

describe('accounts: an API key’s state', () => {
  it('reads from its row: revoked over expired over active; only active authenticates', () => {
    expect(apiKeyState({ revoked_at: null, expires_at: null }, 10)).toBe('active');
    expect(apiKeyState({ revoked_at: null, expires_at: 20 }, 10)).toBe('active');
    expect(apiKeyState({ revoked_at: null, expires_at: 10 }, 10)).toBe('expired');
    expect(apiKeyState({ revoked_at: 5, expires_at: 10 }, 10)).toBe('revoked');
    expect(API_KEY_STATE_VALUES.filter((s) => API_KEY_STATES[s].authenticates)).toEqual(['active']);
  });
});
