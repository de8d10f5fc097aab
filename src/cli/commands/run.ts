import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { App } from '../../app.ts';
import { oauthMode, type Config } from '../../config.ts';
import { initialise, type InitResult } from '../../engine/accounts/admin.ts';
import { isWellFormedApiKey } from '../../engine/accounts/api-keys.ts';
import { packageRoot } from '../../package-root.ts';
import { host, port } from '../options.ts';
import { printJson, type CliIo } from '../output.ts';
import { withStore } from '../store.ts';

/** Where the store is, for people: the SQLite file, or the PostgreSQL URL without its password. */
function storeName(config: Config): string {
  if (!config.AGENT_API_DATABASE_URL) return resolve(config.AGENT_API_DB);
  const url = new URL(config.AGENT_API_DATABASE_URL);
  if (url.password) url.password = '***';
  return url.toString();
}

/**
 * The Claude Desktop entry (stdio) and the Streamable HTTP entry for this installation. The stdio entry must work as
 * pasted: the client starts it from a folder of its own with a PATH of its own (a desktop app often has no `node` on
 * it), so it names this Node by its absolute path, the launcher of the package this code runs from (found on disk,
 * not by a relative path that differs between src/, dist/ and an installed copy), and every path setting absolute.
 */
export function connectionSnippets(config: Config, apiKey: string, url: string) {
  const absolute = (name: 'AGENT_API_WEB_ARCHIVE' | 'AGENT_API_ARCHIVE_INDEX_DIR') =>
    config[name] ? { [name]: resolve(config[name]) } : {};
  return {
    stdio: {
      mcpServers: {
        'agent-api': {
          command: process.execPath,
          args: [join(packageRoot(), 'bin', 'agent-api.js'), 'mcp'],
          env: {
            AGENT_API_KEY: apiKey,
            ...(config.AGENT_API_DATABASE_URL
              ? { AGENT_API_DATABASE_URL: config.AGENT_API_DATABASE_URL }
              : { AGENT_API_DB: resolve(config.AGENT_API_DB) }),
            // The offline web `start` serves, so the stdio server answers from the same archive and reuses its index.
            ...absolute('AGENT_API_WEB_ARCHIVE'),
            ...absolute('AGENT_API_ARCHIVE_INDEX_DIR'),
          },
        },
      },
    },
    http: {
      mcpServers: { 'agent-api': { type: 'http', url: `${url}/mcp`, headers: { Authorization: `Bearer ${apiKey}` } } },
    },
  };
}

const urlOf = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

function printInit(io: CliIo, config: Config, r: InitResult, url: string): void {
  if (!r.apiKey) {
    io.out(`agent-api is already initialised (organisation ${r.orgId}); no key was created.`);
    io.out(
      'Create another key with: npx agent-api keys create --org <id> --scopes <list>  (or: npx agent-api init --force-new-key)',
    );
    return;
  }
  const s = connectionSnippets(config, r.apiKey, url);
  io.out(`Organisation ${r.orgId}, client ${r.clientId ?? '(none)'}.`);
  io.out(`API key (shown once; store it now):\n\n  ${r.apiKey}\n`);
  io.out('Claude Desktop (claude_desktop_config.json), MCP over stdio:');
  io.out(JSON.stringify(s.stdio, null, 2));
  io.out('\nMCP over Streamable HTTP (while `npm start` runs):');
  io.out(JSON.stringify(s.http, null, 2));
  io.out(`\nREST: curl -H "Authorization: Bearer ${r.apiKey}" ${url}/api/agent/v1/usage\n`);
}

/**
 * Serves until SIGTERM/SIGINT, then shuts down gracefully (runs in flight finish or are handed back). `onListening`
 * runs once the port is bound and background work (the runner, the web archive's index build) has started, before
 * the "serving" line.
 */
export async function serveUntilSignal(
  app: App,
  io: CliIo,
  host: string,
  port: number,
  onListening?: (url: string) => Promise<void> | void,
): Promise<void> {
  const { VERSION } = await import('../../app.ts');
  // The signal handlers are in place before anything is announced: a SIGTERM sent the moment the "serving" line
  // appears must reach them, not Node's default action (which would kill the process without a graceful stop).
  const signalled = new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  let url: string;
  try {
    ({ url } = await app.listen(host, port));
  } catch (err) {
    await app.close(0).catch(() => undefined);
    const reason = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot listen on ${host}:${port} (--host/--port, AGENT_API_HOST/AGENT_API_PORT): ${reason}`, {
      cause: err,
    });
  }
  try {
    // Started first: from the moment the port answers, /readyz reports the index build instead of "ready".
    await app.startBackground();
    await onListening?.(url);
  } catch (err) {
    await app.close(0).catch(() => undefined);
    throw err;
  }
  io.err(
    `agent-api ${VERSION} serving REST at ${url}/api/agent/v1, MCP at ${url}/mcp, health at ${url}/healthz, web console at ${url}/`,
  );
  const oauth = oauthMode(app.config);
  const publicUrl = app.config.AGENT_API_PUBLIC_URL;
  if (oauth !== 'off')
    io.err(
      `remote MCP clients (OAuth, ${oauth}): add ${publicUrl ?? url}/mcp as a custom connector` +
        (publicUrl ? '' : '; set AGENT_API_PUBLIC_URL to the https address they reach (docs/oauth.md)'),
    );
  const signal = await signalled;
  app.engine.logger.info({ signal }, 'shutting down');
  await app.close(app.config.AGENT_API_SHUTDOWN_GRACE_MS);
}

/** `--host` and `--port`, defaulting to AGENT_API_HOST and AGENT_API_PORT, for `serve` and `start`. */
function withListenOptions(command: Command, config: Config): Command {
  return command
    .option('--host <host>', 'address to bind (default AGENT_API_HOST)', host, config.AGENT_API_HOST)
    .option('--port <port>', 'port, 0 for a free one (default AGENT_API_PORT)', port, config.AGENT_API_PORT);
}

export function registerRunCommands(program: Command, config: Config, io: CliIo): void {
  program
    .command('init')
    .description('create the database, a local organisation, a client and an all-scope key (printed once)')
    .option('--json', 'print {"org_id","client_id","api_key"}')
    .option('--force-new-key', 'when already initialised, create a new all-scope key')
    .action(async (o: { json?: boolean; forceNewKey?: boolean }) => {
      const r = await withStore(config, (s) => initialise(s.db, Date.now(), { forceNewKey: o.forceNewKey }));
      if (o.json)
        printJson(io, {
          org_id: r.orgId,
          client_id: r.clientId,
          api_key: r.apiKey,
          ...(r.created ? {} : { already_initialised: true }),
        });
      else printInit(io, config, r, urlOf(config.AGENT_API_HOST, config.AGENT_API_PORT));
    });

  withListenOptions(
    program.command('serve').description('serve REST (/api/agent/v1), MCP Streamable HTTP (/mcp) and /healthz'),
    config,
  ).action(async (o: { host: string; port: number }) => {
    const { createApp } = await import('../../app.ts');
    await serveUntilSignal(await createApp({ config }), io, o.host, o.port);
  });

  withListenOptions(
    program
      .command('start')
      .description(
        'initialise on first start (prints the key and how to connect), say what the offline web covers, then serve',
      ),
    config,
  ).action(async (o: { host: string; port: number }) => {
    const [{ createApp }, { describeOfflineWeb, formatOfflineWeb }] = await Promise.all([
      import('../../app.ts'),
      import('../offline-web.ts'),
    ]);
    const app = await createApp({ config });
    await serveUntilSignal(app, io, o.host, o.port, async (url) => {
      const r = await initialise(app.database.db, Date.now());
      if (r.created) printInit(io, config, r, url);
      else
        io.out(
          `agent-api: using organisation ${r.orgId} in ${storeName(config)} (keys are shown only when created; npx agent-api init --force-new-key makes a new one).`,
        );
      for (const line of formatOfflineWeb(await describeOfflineWeb(config), config)) io.out(line);
    });
  });

  program
    .command('mcp')
    .description('MCP over stdio, acting as the key in AGENT_API_KEY (logs on stderr only)')
    .action(async () => {
      const key = config.AGENT_API_KEY;
      if (!key || !isWellFormedApiKey(key)) {
        io.err('agent-api mcp: set AGENT_API_KEY to a key from `agent-api init` or `agent-api keys create`.');
        process.exitCode = 2;
        return;
      }
      await (await import('./mcp-stdio.ts')).runMcpStdio(config, key, io);
    });
}
