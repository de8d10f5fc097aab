import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { registerTrackerCommands } from '../../src/cli/commands/tracker.ts';
import { openDatabase } from '../../src/store/db.ts';
import { BIN, connectHttpClient, structured } from '../helpers/mcp.ts';
import { startTestApp } from '../helpers/app.ts';
import { tempDir } from '../helpers/temp.ts';
import type { Any } from './fixture.ts';

/**
 * `agent-api tracker create-project` (API.md section 6), and the "done when": a project created from the
 * command line is scanned from an MCP client on the sample archive and read back with honest coverage.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const temps: Array<() => void> = [];
afterAll(() => temps.forEach((c) => c()));

function cli(db: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', AGENT_API_DB: db },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += String(d)));
    child.stderr.on('data', (d: Buffer) => (stderr += String(d)));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

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
