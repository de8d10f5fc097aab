/**
 * The supported runtimes: Node 22 and 24. Node 20 is past end of life (April 2026) and still runs agent-api (with
 * better-sqlite3 12.x, src/sqlite-driver.ts), but every command that serves (`start`, `serve`, `mcp`) says so first:
 * one pino warn line on stderr, like the other log lines (stdout belongs to MCP over stdio, and `agent-api mcp`
 * writes nothing but JSON log lines on stderr). Nothing is printed on a supported Node.
 */
import type { DestinationStream } from 'pino';

/** The Node majors agent-api is tested on and supports (CI runs the whole suite on both: .ci/run). */
export const SUPPORTED_NODE_MAJORS = [22, 24] as const;

/** The commands that serve (and run for a long time): the ones that warn on an unsupported Node. */
export const SERVING_COMMANDS: readonly string[] = ['start', 'serve', 'mcp'];

/** When each Node major that is past end of life reached it (older majors than these are past it too). */
const END_OF_LIFE: Readonly<Record<number, string>> = {
  18: 'April 2025',
  19: 'June 2023',
  20: 'April 2026',
  21: 'June 2024',
  23: 'June 2025',
  25: 'June 2026',
};

/**
 * The warning for a Node version (`process.version`, e.g. `v20.20.0`), or null when it needs none: a supported major,
 * or a newer one than this release knows about (not known to be past end of life).
 */
export function unsupportedRuntimeWarning(version: string = process.version): string | null {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (!Number.isInteger(major) || (SUPPORTED_NODE_MAJORS as readonly number[]).includes(major)) return null;
  const since = END_OF_LIFE[major];
  if (!since && major > Math.min(...SUPPORTED_NODE_MAJORS)) return null;
  const supported = SUPPORTED_NODE_MAJORS.join(' and ');
  return `Node ${version} is unsupported (past end of life${since ? ` since ${since}` : ''}); Node ${supported} are supported`;
}

/**
 * Logs the warning for this Node (one pino warn line on stderr at the configured level) when `command` serves and the
 * Node needs one; answers whether it did. The logger is loaded only then: commands on a supported Node pay nothing.
 */
export async function warnIfUnsupportedRuntime(
  command: string,
  level: string,
  options: { version?: string; destination?: DestinationStream } = {},
): Promise<boolean> {
  if (!SERVING_COMMANDS.includes(command)) return false;
  const warning = unsupportedRuntimeWarning(options.version ?? process.version);
  if (!warning) return false;
  const { createLogger } = await import('../logger.ts');
  const logger = createLogger(level, options.destination);
  logger.warn({ node: options.version ?? process.version, supported: SUPPORTED_NODE_MAJORS }, warning);
  return logger.isLevelEnabled('warn');
}
