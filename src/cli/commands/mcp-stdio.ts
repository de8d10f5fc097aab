/**
 * `agent-api mcp`: MCP over stdio, acting as one key. Claude Desktop and Claude Code start it for every session, so
 * it answers the opening exchange (`initialize` or `server/discover`) and `tools/list` first, from what those need
 * (the database to check the key, and the operations' schemas), and loads the engine (providers, pipelines, the
 * runner and its background loop) right after, or as soon as a call needs it. Logs go to stderr only.
 */
import type { App } from '../../app.ts';
import { storeLocation, type Config } from '../../config.ts';
import type { Engine } from '../../engine/engine.ts';
import type { CliIo } from '../output.ts';
import pkg from '../../../package.json' with { type: 'json' };

/**
 * The engine starts loading just after the first `tools/list` is answered (loading it blocks the process for a
 * moment, which must not delay the handshake), or this long after start when no list comes, or at the first call.
 */
const ENGINE_AFTER_LIST_MS = 20;
const ENGINE_AT_THE_LATEST_MS = 2_000;

export async function runMcpStdio(config: Config, key: string, io: CliIo): Promise<void> {
  const [
    { openStore },
    { migrateToLatest },
    { authenticate },
    { systemClock },
    { createRateLimiter },
    { OPERATIONS },
    { buildMcpServer },
    { GuardedTransport, isMetered, malformedCall, rateRefusal },
    { rateLimitError },
    { serveStdio, StdioServerTransport },
  ] = await Promise.all([
    import('../../store/db.ts'),
    import('../../store/migrations/index.ts'),
    import('../../engine/accounts/auth.ts'),
    import('../../clock.ts'),
    import('../../engine/platform/rate-limit.ts'),
    import('../../tools/registry.ts'),
    import('../../transport/mcp/server.ts'),
    import('../../transport/mcp/message-guard.ts'),
    import('../../tools/invoke.ts'),
    import('@modelcontextprotocol/server/stdio'),
  ]);
  const database = openStore(storeLocation(config));
  await migrateToLatest(database.db);
  const acting = () => authenticate(database.db, systemClock, key);
  let principal: Awaited<ReturnType<typeof acting>>;
  try {
    principal = await acting();
  } catch {
    io.err(
      'agent-api mcp: AGENT_API_KEY is not a valid, active key for this database (AGENT_API_DB or AGENT_API_DATABASE_URL).',
    );
    await database.close();
    process.exitCode = 2;
    return;
  }
  // One limiter from the first message on: the engine takes it over when it loads.
  const rateLimiter = createRateLimiter(systemClock);

  let loading: Promise<App> | null = null;
  const app = () =>
    (loading ??= import('../../app.ts').then(async ({ createApp }) => {
      const a = await createApp({ config, clock: systemClock, rateLimiter });
      await a.startBackground();
      return a;
    }));
  let closing = false;
  const timers = new Set<NodeJS.Timeout>();
  const later = (ms: number) => timers.add(setTimeout(loadEngine, ms));
  function loadEngine() {
    if (!closing) void app().catch((err: unknown) => io.err(`agent-api mcp: ${String(err)}`));
  }
  /** The engine, loaded on the first await (a thenable, so nothing loads until a handler needs it). */
  const engine: PromiseLike<Engine> = {
    then: (ok, fail) =>
      app()
        .then((a) => a.engine)
        .then(ok, fail),
  };

  await new Promise<void>((done) => {
    const shutdown = () => {
      if (closing) return;
      closing = true;
      // Nothing loads after the client went away; a load already under way is closed when it is done.
      for (const timer of timers) clearTimeout(timer);
      const stopped = loading
        ? loading.then((a) => a.close(config.AGENT_API_SHUTDOWN_GRACE_MS)).catch(() => undefined)
        : Promise.resolve();
      void stopped.then(() => database.close()).finally(done);
    };
    // Malformed tool calls answer -32602 with one sentence; every other message counts against the key's rate limit
    // (tool calls are metered by the operation), as over HTTP.
    const transport = new GuardedTransport(
      new StdioServerTransport(),
      (m) => {
        const malformed = malformedCall(m);
        if (malformed) return malformed;
        if (m.method === 'tools/list') later(ENGINE_AFTER_LIST_MS);
        // The in-process limiter answers at once: the check stays synchronous, so messages keep their order.
        const over = isMetered(m) ? rateLimitError(rateLimiter.take(principal.keyId, principal.ratePerMinute)) : null;
        return over ? rateRefusal(m, over) : null;
      },
      shutdown,
    );
    // The opening exchange decides the connection's era: initialize (2025-11-25) or server/discover (2026-07-28).
    serveStdio(
      ({ era }) =>
        buildMcpServer({
          engine,
          operations: OPERATIONS,
          version: pkg.version,
          era,
          toolsets: config.AGENT_API_TOOLSETS,
          textMode: config.AGENT_API_MCP_TEXT,
          resolvePrincipal: acting,
          taskPrincipal: acting,
        }),
      { transport },
    );
    // Work queued by earlier sessions resumes once the engine runs.
    later(ENGINE_AT_THE_LATEST_MS);
    process.stdin.once('end', shutdown);
    process.once('SIGTERM', shutdown);
    process.once('SIGINT', shutdown);
  });
}
