/**
 * PostgreSQL's LISTEN/NOTIFY as the runner's wake channel (engine/runner/runner.ts `WakeChannel`): accepting work
 * notifies `agent_api_runs`, and every process listening on it looks for due work at once instead of at its next
 * poll. One dedicated connection per process listens; when it drops, it reconnects after a second, and polling covers
 * the gap. A notification carries nothing: the claim is still the database's.
 */
import pg from 'pg';
import type { Logger } from '../logger.ts';
import type { WakeChannel } from '../engine/runner/runner.ts';

const CHANNEL = 'agent_api_runs';
const RECONNECT_MS = 1_000;

export function createPostgresWake(
  url: string,
  pool: pg.Pool,
  logger: Logger,
): WakeChannel & { close(): Promise<void> } {
  const listeners = new Set<() => void>();
  let client: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async () => {
    if (closed || client || listeners.size === 0) return;
    const c = new pg.Client({ connectionString: url });
    client = c;
    c.on('notification', () => listeners.forEach((l) => l()));
    c.on('error', (err) => {
      logger.warn({ err }, 'the wake channel lost its connection; polling until it is back');
      drop(c);
    });
    try {
      await c.connect();
      await c.query(`listen ${CHANNEL}`);
    } catch (err) {
      logger.warn({ err }, 'the wake channel could not listen; polling until it can');
      drop(c);
    }
  };

  const drop = (c: pg.Client) => {
    if (client !== c) return;
    client = null;
    void c.end().catch(() => undefined);
    if (!closed) {
      retry = setTimeout(() => void connect(), RECONNECT_MS);
      retry.unref();
    }
  };

  return {
    publish() {
      pool.query(`select pg_notify('${CHANNEL}', '')`).catch((err: unknown) => {
        logger.warn({ err }, 'the wake channel could not announce new work; other processes will poll');
      });
    },
    subscribe(onWake) {
      listeners.add(onWake);
      void connect();
      return () => listeners.delete(onWake);
    },
    async close() {
      closed = true;
      clearTimeout(retry);
      const c = client;
      client = null;
      await c?.end().catch(() => undefined);
    },
  };
}
