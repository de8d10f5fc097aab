import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/** One `mcpServers` entry of a Claude Desktop configuration: what the client spawns. */
export interface StdioEntry {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The stdio entry that `init` or `start` printed for Claude Desktop: the JSON object after the "MCP over stdio:"
 * line, up to its closing brace at the start of a line (how JSON.stringify(…, null, 2) ends an object).
 */
export function printedStdioEntry(stdout: string): StdioEntry {
  const lines = stdout.split('\n');
  const from = lines.findIndex((l) => l.includes('MCP over stdio:')) + 1;
  if (from === 0) throw new Error(`no "MCP over stdio:" line in:\n${stdout}`);
  const to = lines.findIndex((l, i) => i > from && l === '}');
  if (to === -1) throw new Error(`the stdio snippet does not close in:\n${stdout}`);
  const config = JSON.parse(lines.slice(from, to + 1).join('\n')) as { mcpServers: Record<string, StdioEntry> };
  const entry = config.mcpServers['agent-api'];
  if (!entry) throw new Error(`no agent-api server in ${JSON.stringify(config)}`);
  return entry;
}

/**
 * Starts exactly what a client would from `entry` (its command, its args and its env, on top of the few variables an
 * MCP client passes on by default, from `cwd`) and answers the tool names of a real SDK client's tools/list.
 */
export async function listToolsAs(entry: StdioEntry, cwd: string): Promise<string[]> {
  const transport = new StdioClientTransport({
    command: entry.command,
    args: entry.args,
    env: entry.env,
    cwd,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += String(d)));
  const client = new Client({ name: 'agent-api-snippet-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    return (await client.listTools()).tools.map((t) => t.name);
  } catch (err) {
    throw new Error(`${entry.command} ${entry.args.join(' ')} failed: ${String(err)}\n${stderr}`, { cause: err });
  } finally {
    await client.close();
  }
}

export { runBin, type Ran } from './run-bin.ts';
