import { Command } from 'commander';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { registerTrackerCommands } from '../../src/cli/commands/tracker.ts';
import { openDatabase } from '../../src/store/db.ts';
import { connectHttpClient, structured } from '../helpers/mcp.ts';
import { startTestApp } from '../helpers/app.ts';
import { startFakeOpenAi } from '../helpers/fake-providers/openai.ts';
import { tempDir } from '../helpers/temp.ts';
import {
  createTrackerProject,
  deleteTrackerProject,
  listTrackerProjects,
  updateTrackerProject,
} from '../../src/engine/tracker/projects.ts';
import { cli, failed as failedCli, human, MISSING_ID, oneJson, UUID_RE } from '../cli/helpers.ts';
import { call, project, type Any } from './fixture.ts';

/**
 * `agent-api tracker create-project` (docs/api.md §6), and the "done when": a project created from the
 * command line is scanned from an MCP client on the sample archive and read back with honest coverage.
 */

const temps: Array<() => void> = [];
afterAll(() => temps.forEach((c) => c()));

describe('agent-api tracker create-project', () => {
  it('creates a project from the command line that an MCP client scans on the sample archive and reads back', async () => {
    const tmp = tempDir('agent-api-tracker-cli-');
    temps.push(tmp.cleanup);
    const init = await cli(tmp.dbPath, ['init', '--json']);
    expect(init.code, init.stderr).toBe(0);
    const { client_id: clientId, api_key: apiKey } = JSON.parse(init.stdout) as Any;

    const created = await cli(tmp.dbPath, [
      'tracker',
      'create-project',
      '--client',
      clientId,
      '--name',
      'RapidFlow',
      '--domain',
      'https://www.rapidflowplumbing.com/',
      '--keywords',
      'emergency plumber, water heater repair',
      '--platforms',
      'organic,chatgpt',
      '--brand-names',
      'RapidFlow Plumbing',
      '--location',
      'Austin, Texas, United States',
      '--language',
      'en-US',
      '--json',
    ]);
    expect(created.code, created.stderr).toBe(0);
    // --json: exactly one JSON object on stdout, and nothing else.
    expect(created.stdout).toMatch(/^\{"project_id":"[0-9a-f-]{36}"\}\n$/);
    const { project_id: projectId } = JSON.parse(created.stdout) as { project_id: string };
    expect(projectId).toMatch(UUID_RE);

    const t = await startTestApp({ dbPath: tmp.dbPath });
    const mcp = await connectHttpClient(t.url, apiKey);
    try {
      const project = structured<Any>(
        await mcp.client.callTool({ name: 'get_tracker_project', arguments: { project_id: projectId } }),
      );
      expect(project).toMatchObject({
        client_id: clientId,
        name: 'RapidFlow',
        domain: 'rapidflowplumbing.com',
        brand_names: ['RapidFlow Plumbing'],
        queries: ['emergency plumber', 'water heater repair'],
        platforms: ['organic', 'chatgpt'],
        location: 'Austin, Texas, United States',
        language: 'en-US',
      });
      const scan = await mcp.client.callTool({ name: 'start_tracker_scan', arguments: { project_id: projectId } });
      expect(scan.isError).toBeFalsy();
      expect(structured<Any>(scan)).toMatchObject({ platforms: ['organic'], missing_platforms: ['chatgpt'] });
      await t.engine.runner.runUntilIdle();
      const results = structured<Any>(
        await mcp.client.callTool({ name: 'get_tracker_results', arguments: { project_id: projectId } }),
      );
      expect(results.platforms.map((p: Any) => [p.platform, p.status, p.results.length])).toEqual([
        ['organic', 'complete', 2],
      ]);
      expect(results.coverage).toMatchObject({
        present: ['organic'],
        missing: ['chatgpt'],
        reasons: { chatgpt: 'not_configured' },
      });
      for (const [tool, args] of [
        ['get_tracker_trends', { project_id: projectId, days: 7 }],
        ['get_tracker_summary', {}],
        ['get_brand_summary', { client_id: clientId }],
      ] as const) {
        const res = await mcp.client.callTool({ name: tool, arguments: args });
        expect(res.isError, tool).toBeFalsy();
      }
    } finally {
      await mcp.close();
      await t.stop();
    }
  }, 60_000);

  it('refuses bad input with a message naming the field, and prints nothing on stdout', async () => {
    const t = await startTestApp();
    const { clientId } = await t.tenant();
    await t.stop();
    // In-process: the same command registered on a fresh program, with the config and output injected.
    const run = async (args: string[]) => {
      const out: string[] = [];
      const program = new Command('agent-api').exitOverride();
      registerTrackerCommands(program, loadConfig({ AGENT_API_DB: t.dbPath }), {
        out: (l) => out.push(l),
        err: () => undefined,
        stderr: process.stderr,
      });
      try {
        await program.parseAsync(['tracker', 'create-project', ...args], { from: 'user' });
        return { out, error: null };
      } catch (err) {
        return { out, error: err instanceof Error ? err.message : String(err) };
      }
    };
    const cases: Array<[string[], RegExp]> = [
      [
        ['--client', clientId, '--name', 'X', '--domain', 'a.com', '--keywords', 'a', '--platforms', 'bing'],
        /platforms: .*unknown: bing/,
      ],
      [['--client', clientId, '--name', 'X', '--domain', 'localhost', '--keywords', 'a'], /domain:/],
      [['--client', clientId, '--name', 'X', '--domain', 'a.com'], /exactly one of --keywords or --prompts/],
      [
        ['--client', clientId, '--name', 'X', '--domain', 'a.com', '--keywords', 'a', '--prompts', 'b'],
        /exactly one of --keywords or --prompts/,
      ],
      [['--client', clientId, '--name', 'X', '--domain', 'a.com', '--keywords', ' , '], /queries:/],
      [
        ['--client', clientId, '--name', 'X', '--domain', 'a.com', '--keywords', 'a', '--language', 'english!'],
        /language:/,
      ],
      [
        [
          '--client',
          '00000000-0000-4000-8000-000000000000',
          '--name',
          'X',
          '--domain',
          'a.com',
          '--keywords',
          'a',
          '--json',
        ],
        /no client/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await run(args);
      expect(r.error, args.join(' ')).toMatch(message);
      expect(r.out).toEqual([]);
    }
    const prompts = await run([
      '--client',
      clientId,
      '--name',
      'P',
      '--domain',
      'a.com',
      '--prompts',
      'who fixes burst pipes?,best plumber',
      '--json',
    ]);
    expect(prompts.error).toBeNull();
    const { project_id: id } = JSON.parse(prompts.out[0]!) as { project_id: string };
    const db = openDatabase(t.dbPath);
    try {
      const row = await db.db.selectFrom('tracker_projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({
        client_id: clientId,
        query_kind: 'prompts',
        queries: JSON.stringify(['who fixes burst pipes?', 'best plumber']),
        platforms: '["organic"]',
        brand_names: '["a.com"]',
        language: 'en',
      });
    } finally {
      await db.close();
      t.cleanup();
    }
  });
});

describe('agent-api tracker list-projects, update-project and delete-project', { timeout: 240_000 }, () => {
  /** Rows of a tracker table that belong to the project. */
  function rowsOf(dbPath: string, table: string, projectId: string): number {
    const s = openDatabase(dbPath);
    try {
      return (s.raw.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`).get(projectId) as { n: number })
        .n;
    } finally {
      void s.close();
    }
  }

  it('list-projects filters by client and organisation; update-project revalidates like create-project', async () => {
    const t = await startTestApp();
    const a = await t.tenant();
    const a2 = (await t.client(a.orgId, { name: 'Second client' })).id;
    const b = await t.tenant();
    const p1 = await project(t, a.clientId);
    t.clock.advance(1_000);
    const p2 = await project(t, a2, { name: 'Second', queries: ['leak detection'] });
    t.clock.advance(1_000);
    const p3 = await project(t, b.clientId, { domain: 'example.org', brandNames: [] });
    await t.stop();
    temps.push(t.cleanup);
    const db = t.dbPath;

    const [all, ofClient, ofOrg, table, noClient, noOrg, foreign] = await Promise.all([
      cli(db, ['tracker', 'list-projects', '--json']),
      cli(db, ['tracker', 'list-projects', '--client', a.clientId, '--json']),
      cli(db, ['tracker', 'list-projects', '--org', a.orgId, '--json']),
      cli(db, ['tracker', 'list-projects']),
      cli(db, ['tracker', 'list-projects', '--client', MISSING_ID, '--json']),
      cli(db, ['tracker', 'list-projects', '--org', MISSING_ID]),
      cli(db, ['tracker', 'list-projects', '--client', a.clientId, '--org', b.orgId]),
    ]);
    const projects = oneJson<{ projects: Any[] }>(all).projects;
    expect(projects.map((p) => p.project_id)).toEqual([p1, p2, p3]);
    expect(projects[0]).toEqual({
      project_id: p1,
      org_id: a.orgId,
      client_id: a.clientId,
      name: 'RapidFlow visibility',
      domain: 'rapidflowplumbing.com',
      brand_names: ['RapidFlow Plumbing'],
      query_kind: 'keywords',
      queries: ['emergency plumber', 'water heater repair'],
      query_count: 2,
      platforms: ['organic'],
      location: null,
      language: 'en',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(oneJson<{ projects: Any[] }>(ofClient).projects.map((p) => p.project_id)).toEqual([p1]);
    expect(oneJson<{ projects: Any[] }>(ofOrg).projects.map((p) => p.project_id)).toEqual([p1, p2]);
    const lines = human(table).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PROJECT_ID\s+CLIENT_ID\s+DOMAIN\s+QUERIES\s+PLATFORMS\s+NAME$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${p1}\\s+${a.clientId}\\s+rapidflowplumbing\\.com\\s+2 keywords\\s+organic\\s+RapidFlow visibility$`,
      ),
    );
    expect(lines).toHaveLength(4);
    failedCli(noClient, new RegExp(`no client ${MISSING_ID}`));
    failedCli(noOrg, new RegExp(`no organisation ${MISSING_ID}`));
    failedCli(foreign, new RegExp(`no client ${a.clientId} in organisation ${b.orgId}`));

    const [moved, changed, nothing, both, badPlatforms, noQueries, unknown, badLanguage] = await Promise.all([
      cli(db, ['tracker', 'update-project', p3, '--domain', 'https://www.example.com/', '--json']),
      cli(db, [
        'tracker',
        'update-project',
        p1,
        '--prompts',
        'who fixes burst pipes?, best plumber in austin',
        '--platforms',
        'chatgpt,organic',
        '--location',
        'Austin, Texas, United States',
        '--name',
        'RapidFlow AI visibility',
      ]),
      cli(db, ['tracker', 'update-project', p2]),
      cli(db, ['tracker', 'update-project', p2, '--keywords', 'a', '--prompts', 'b']),
      cli(db, ['tracker', 'update-project', p2, '--platforms', 'organic,bing', '--json']),
      cli(db, ['tracker', 'update-project', p2, '--keywords', ' , ']),
      cli(db, ['tracker', 'update-project', MISSING_ID, '--name', 'X', '--json']),
      cli(db, ['tracker', 'update-project', p2, '--language', 'english!', '--name', '']),
    ]);
    // Brand names that were the default (the domain) follow the new domain.
    expect(oneJson(moved)).toMatchObject({
      project_id: p3,
      org_id: b.orgId,
      domain: 'example.com',
      brand_names: ['example.com'],
      queries: ['emergency plumber', 'water heater repair'],
    });
    expect(human(changed)).toBe(
      `tracker project ${p1} updated: RapidFlow AI visibility, rapidflowplumbing.com, 2 prompts, organic,chatgpt\n`,
    );
    failedCli(nothing, /give at least one setting to change: --name, --domain, --keywords or --prompts/);
    failedCli(both, /give at most one of --keywords or --prompts/);
    failedCli(badPlatforms, /platforms: .*unknown: bing.*\(option --platforms\)/);
    failedCli(noQueries, /queries: 1 to 500 distinct queries\. \(option --keywords\)/);
    failedCli(unknown, new RegExp(`no tracker project ${MISSING_ID}`));
    failedCli(badLanguage, /Invalid input: name, language\./);
    failedCli(badLanguage, /language: .*\(option --language\)/);

    const s = openDatabase(db);
    try {
      const rows = await s.db.selectFrom('tracker_projects').selectAll().orderBy('created_at').execute();
      expect(rows[0]).toMatchObject({
        name: 'RapidFlow AI visibility',
        brand_names: '["RapidFlow Plumbing"]',
        query_kind: 'prompts',
        queries: '["who fixes burst pipes?","best plumber in austin"]',
        query_count: 2,
        platforms: '["organic","chatgpt"]',
        location: 'Austin, Texas, United States',
      });
      // The refused updates changed nothing.
      expect(rows[1]).toMatchObject({
        name: 'Second',
        queries: '["leak detection"]',
        platforms: '["organic"]',
        language: 'en',
      });
    } finally {
      await s.close();
    }
  });

  it('delete-project refuses a project with a scan in flight, then deletes a scanned one with its scans, results and summaries', async () => {
    // The scan asks an answer engine that never answers, so it is still in flight when the app stops, however fast
    // the machine (a scan of the offline web could finish inside the stop's grace period); the next app's engine
    // answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const openai = await startFakeOpenAi();
    const engineAt = (baseUrl: string) => ({ OPENAI_API_KEY: openai.apiKey!, OPENAI_BASE_URL: baseUrl });
    const t = await startTestApp({
      env: engineAt(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`),
    });
    const a = await t.tenant();
    const scanned = await project(t, a.clientId, { platforms: ['chatgpt'] });
    const spare = await project(t, a.clientId, { name: 'Spare' });
    const queued = await call(t, 'POST', `/reporter/projects/${scanned}/scans`, a.key);
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body).toMatchObject({ status: 'queued' });
    await t.stop();
    temps.push(t.cleanup);

    const refused = await cli(t.dbPath, ['tracker', 'delete-project', scanned, '--json']);
    // Queued, or running when the runner picked it up before the app stopped (its run is handed back, still pending).
    failedCli(
      refused,
      new RegExp(`scan (queued|running) \\(${queued.body.run_id as string}\\); delete it once the scan has finished`),
    );
    expect(rowsOf(t.dbPath, 'tracker_scans', scanned)).toBe(1);

    // The scan runs to completion; then the project and everything measured for it can go.
    silent.closeAllConnections();
    silent.close();
    const again = await startTestApp({ dbPath: t.dbPath, env: engineAt(openai.baseUrl) });
    // Past any lease the first app's runner may have taken on the run before it stopped.
    again.clock.advance(10 * 60_000);
    await again.engine.runner.runUntilIdle();
    await again.stop();
    await openai.close();
    expect(rowsOf(t.dbPath, 'tracker_results', scanned)).toBe(2);
    expect(rowsOf(t.dbPath, 'tracker_platform_summaries', scanned)).toBe(1);
    expect(rowsOf(t.dbPath, 'tracker_latest', scanned)).toBe(1);

    const [deleted, deletedHuman, unknown, noId] = await Promise.all([
      cli(t.dbPath, ['tracker', 'delete-project', scanned, '--json']),
      cli(t.dbPath, ['tracker', 'delete-project', spare]),
      cli(t.dbPath, ['tracker', 'delete-project', MISSING_ID, '--json']),
      cli(t.dbPath, ['tracker', 'delete-project']),
    ]);
    expect(oneJson(deleted)).toEqual({ project_id: scanned, deleted: { scans: 1, results: 2, summaries: 1 } });
    expect(human(deletedHuman)).toBe(`tracker project ${spare} deleted (0 scans, 0 results, 0 platform summaries)\n`);
    failedCli(unknown, new RegExp(`no tracker project ${MISSING_ID}`));
    failedCli(noId, /missing required argument 'id'/);
    for (const table of ['tracker_results', 'tracker_platform_summaries', 'tracker_latest', 'tracker_scans'])
      expect(rowsOf(t.dbPath, table, scanned), table).toBe(0);
    const s = openDatabase(t.dbPath);
    try {
      expect(s.raw.prepare('SELECT count(*) AS n FROM tracker_projects').get()).toEqual({ n: 0 });
      // The billing history and the finished run stay.
      expect(s.raw.prepare("SELECT state FROM usage_ledger WHERE resource_kind = 'tracker_scan'").all()).toEqual([
        { state: 'charged' },
      ]);
      expect(s.raw.prepare("SELECT state FROM runs WHERE kind = 'tracker_scan'").all()).toEqual([{ state: 'done' }]);
    } finally {
      await s.close();
    }
  });

  it('the engine functions keep to one organisation and refuse a running scan with its id', async () => {
    const t = await startTestApp();
    temps.push(t.cleanup);
    try {
      const a = await t.tenant();
      const b = await t.tenant();
      const id = await project(t, a.clientId);
      const now = t.clock.now();
      await expect(updateTrackerProject(t.db, b.orgId, id, { name: 'X' }, now)).rejects.toMatchObject({
        code: 'not_found',
      });
      await expect(deleteTrackerProject(t.db, b.orgId, id)).rejects.toMatchObject({ code: 'not_found' });
      await expect(
        createTrackerProject(t.db, b.orgId, { clientId: a.clientId, name: 'X', domain: 'a.com', queries: ['q'] }, now),
      ).rejects.toMatchObject({ code: 'not_found', details: { field: 'client_id' } });
      await expect(updateTrackerProject(t.db, a.orgId, id, {}, now)).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(
        updateTrackerProject(t.db, a.orgId, id, { queries: [], platforms: ['bing'] }, now),
      ).rejects.toMatchObject({
        code: 'invalid_input',
        details: {
          fields: [expect.objectContaining({ path: 'queries' }), expect.objectContaining({ path: 'platforms' })],
        },
      });
      const r = await call(t, 'POST', `/reporter/projects/${id}/scans`, a.key);
      expect(r.status, r.text).toBe(202);
      t.app.database.raw.prepare("UPDATE tracker_scans SET status = 'running' WHERE id = ?").run(r.body.run_id);
      await expect(deleteTrackerProject(t.db, a.orgId, id)).rejects.toMatchObject({
        code: 'invalid_state',
        message: expect.stringMatching(/scan running/),
        details: { active_scans: [{ run_id: r.body.run_id, status: 'running' }] },
      });
      const listed = await listTrackerProjects(t.db, { orgId: a.orgId });
      expect(listed.map((p) => p.id)).toEqual([id]);
    } finally {
      await t.stop();
    }
  });
});
