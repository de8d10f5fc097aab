import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths pino redacts wherever they appear: keys, bearer headers and provider secrets never reach a log line. */
export const REDACT_PATHS = [
  'apiKey', 'api_key', 'key', 'token', 'authorization', 'Authorization',
  '*.apiKey', '*.api_key', '*.token', '*.authorization', '*.Authorization',
  'headers.authorization', 'req.headers.authorization', '*.headers.authorization',
  'headers["x-api-key"]', '*.headers["x-api-key"]',
];

/** JSON logs on stderr (fd 2): stdout belongs to the MCP stdio transport. */
export function createLogger(level = 'info', destination: pino.DestinationStream = pino.destination(2)): Logger {
  return pino(
    { level, base: { service: 'agent-api' }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    destination,
  );
}
