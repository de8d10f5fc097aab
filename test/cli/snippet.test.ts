import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, SAMPLE_ARCHIVE_PATH } from '../../src/config.ts';
import { BIN } from '../helpers/mcp.ts';
import { listToolsAs, printedStdioEntry, runBin, type StdioEntry } from '../helpers/snippet.ts';
import { tempDir } from '../helpers/temp.ts';
import { ROOT } from './helpers.ts';

/**
 * The Claude Desktop snippet that `init` (and `start`) print works as printed: a test starts exactly the command,
 * arguments and environment it names, from another folder, and completes tools/list with a real MCP client. The
 * installed package's snippet is tested in package.test.ts; the example mcp.json at the repository root here too.
 */

const temps: Array<() => void> = [];
afterAll(() => temps.forEach((c) => c()));

function folder(prefix: string): string {
  const t = tempDir(prefix);
  temps.push(t.cleanup);
  return t.dir;
}

/** `init` through bin/agent-api.js from a folder of its own, with the database and the archive named relatively. */
async function initFromElsewhere(extraEnv: Record<string, string>) {
  const cwd = folder('agent-api-snippet-');
  mkdirSync(join(cwd, 'web'));
  copyFileSync(join(SAMPLE_ARCHIVE_PATH, 'sample.warc.gz'), join(cwd, 'web', 'sample.warc.gz'));
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    AGENT_API_LOG_LEVEL: 'warn',
    AGENT_API_DB: 'state/agent-api.db',
    AGENT_API_WEB_ARCHIVE: 'web',
    ...extraEnv,
  };
  const r = await runBin(BIN, ['init'], cwd, env);
  expect(r.code, r.stderr).toBe(0);
  return { cwd, entry: printedStdioEntry(r.stdout), stdout: r.stdout };
}

/** Every path the entry names exists, and nothing in it is relative to the folder `init` ran in. */
function expectAbsoluteAndPresent(entry: StdioEntry, cwd: string): void {
  expect(entry.command).toBe(process.execPath);
  expect(existsSync(entry.command)).toBe(true);
  expect(entry.args).toEqual([join(ROOT, 'bin', 'agent-api.js'), 'mcp']);
  expect(existsSync(entry.args[0]!)).toBe(true);
  expect(entry.env).toEqual({
    AGENT_API_KEY: expect.stringMatching(/^aapi_[0-9A-Za-z]{36}$/) as unknown,
    AGENT_API_DB: join(cwd, 'state', 'agent-api.db'),
    AGENT_API_WEB_ARCHIVE: join(cwd, 'web'),
  });
  expect(existsSync(entry.env.AGENT_API_DB!)).toBe(true);
}

describe.concurrent('the printed Claude Desktop snippet', { timeout: 120_000 }, () => {
  it('from the sources (tsx): the printed command, args and env serve tools/list from another folder', async () => {
    const { cwd, entry } = await initFromElsewhere({ AGENT_API_FROM_SOURCE: '1' });
    expectAbsoluteAndPresent(entry, cwd);
    const tools = await listToolsAs(entry, folder('agent-api-client-'));
    expect(tools).toContain('start_optimization');
    expect(tools).toContain('get_usage');
  });

  it("as the launcher picks (dist/ when it is built, as npm test's build leaves it): the same", async () => {
    const { cwd, entry } = await initFromElsewhere({});
    expectAbsoluteAndPresent(entry, cwd);
    expect(await listToolsAs(entry, folder('agent-api-client-'))).toContain('start_optimization');
  });

  it('mcp.json (the example) names the launcher and the database npm start makes, and serves once filled in', async () => {
    const example = JSON.parse(readFileSync(join(ROOT, 'mcp.json'), 'utf8')) as {
      mcpServers: Record<string, StdioEntry>;
    };
    expect(Object.keys(example.mcpServers)).toEqual(['agent-api']);
    const entry = example.mcpServers['agent-api']!;
    const PLACEHOLDER = '/path/to/agent-api';
    const fill = (s: string) => s.replace(PLACEHOLDER, ROOT.replace(/\/$/, ''));
    expect(entry.command).toBe('node');
    expect(entry.args.map(fill)).toEqual([join(ROOT, 'bin', 'agent-api.js'), 'mcp']);
    expect(Object.keys(entry.env).sort()).toEqual(['AGENT_API_DB', 'AGENT_API_KEY']);
    // `npm start` from the checkout keeps its database at the default path, relative to the checkout.
    expect(fill(entry.env.AGENT_API_DB!)).toBe(resolve(ROOT, loadConfig({}).AGENT_API_DB));

    // Filled in with a real key and database, the example starts and serves.
    const { entry: printed } = await initFromElsewhere({ AGENT_API_FROM_SOURCE: '1' });
    const filled: StdioEntry = {
      command: entry.command,
      args: entry.args.map(fill),
      env: { AGENT_API_KEY: printed.env.AGENT_API_KEY!, AGENT_API_DB: printed.env.AGENT_API_DB! },
    };
    expect(await listToolsAs(filled, folder('agent-api-client-'))).toContain('start_optimization');
  });
});
