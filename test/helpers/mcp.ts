import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';

export const BIN = fileURLToPath(new URL('../../bin/agent-api.js', import.meta.url));

/** A real SDK client over Streamable HTTP to `${baseUrl}/mcp`, authenticated with `key`. */
export async function connectHttpClient(baseUrl: string, key: string | null, headers: Record<string, string> = {}) {
  const client = new Client({ name: 'agent-api-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), {
    requestInit: { headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers } },
  });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** How the tests start `agent-api mcp`: this Node, the launcher, a clean environment plus `env`, stderr piped. */
function stdioServer(env: Record<string, string>) {
  return {
    command: process.execPath,
    args: [BIN, 'mcp'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', AGENT_API_LOG_LEVEL: 'info', ...env },
    stderr: 'pipe' as const,
  };
}

/** Connects an SDK client of either era over stdio and collects the server's stderr. */
async function connectStdio<C extends { connect(t: never): Promise<void>; close(): Promise<void> }, T>(
  client: C,
  transport: T & { stderr?: { on(e: 'data', f: (d: Buffer) => void): unknown } | null },
) {
  const stderr: string[] = [];
  transport.stderr?.on('data', (d: Buffer) => stderr.push(String(d)));
  await client.connect(transport as never);
  return { client, transport, stderr: () => stderr.join(''), close: () => client.close() };
}

/** A real SDK client over stdio to a spawned `agent-api mcp` process. */
export async function connectStdioClient(env: Record<string, string>) {
  return connectStdio(
    new Client({ name: 'agent-api-test', version: '1.0.0' }),
    new StdioClientTransport(stdioServer(env)),
  );
}

/** The structured body of a tool result, success or error. */
export function structured<T = Record<string, unknown>>(result: unknown): T {
  return (result as { structuredContent: T }).structuredContent;
}

/** The 2026-07-28 protocol revision: stateless, no initialize, a `_meta` envelope on every request. */
export const MODERN = '2026-07-28';

/** A real SDK v2 client pinned to the 2026-07-28 era over Streamable HTTP to `${baseUrl}/mcp`. */
export async function connectModernHttpClient(
  baseUrl: string,
  key: string | null,
  headers: Record<string, string> = {},
) {
  const { Client: ModernClient, StreamableHTTPClientTransport: ModernHttp } =
    await import('@modelcontextprotocol/client');
  const client = new ModernClient(
    { name: 'agent-api-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  const transport = new ModernHttp(new URL('/mcp', baseUrl), {
    requestInit: { headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers } },
  });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** A real SDK v2 client pinned to the 2026-07-28 era over stdio to a spawned `agent-api mcp` process. */
export async function connectModernStdioClient(env: Record<string, string>) {
  const [{ Client: ModernClient }, { StdioClientTransport: ModernStdio }] = await Promise.all([
    import('@modelcontextprotocol/client'),
    import('@modelcontextprotocol/client/stdio'),
  ]);
  const client = new ModernClient(
    { name: 'agent-api-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } },
  );
  return connectStdio(client, new ModernStdio(stdioServer(env)));
}
