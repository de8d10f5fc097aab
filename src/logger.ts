import { pino, type Logger } from 'pino';

export type { Logger };

/** Paths pino redacts wherever they appear: keys, bearer headers and provider secrets never reach a log line. */
export const REDACT_PATHS = [
  'apiKey',
  'api_key',
  'key',
  'token',
  'authorization',
  'Authorization',
  '*.apiKey',
  '*.api_key',
  '*.token',
  '*.authorization',
  '*.Authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
];

/** Secrets that can hide inside free text (error messages, URLs of provider calls): API keys and key parameters. */
const SECRET_TEXT = [
  /aapi_[0-9A-Za-z]{8,}/g,
  /([?&](?:api_key|apikey|key|token)=)[^&\s"']+/gi,
  /(Bearer\s+)[^\s"']+/gi,
];

/** Removes secrets from a string. */
export function scrubSecrets(text: string): string {
  return SECRET_TEXT.reduce(
    (t, re) => t.replace(re, (m, p1?: string) => (typeof p1 === 'string' ? `${p1}[redacted]` : '[redacted]')),
    text,
  );
}

function scrubDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubSecrets(value);
  if (depth > 4 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubDeep(v, depth + 1)]));
}

/** JSON logs on stderr (fd 2): stdout belongs to the MCP stdio transport. Secrets are redacted by path and by pattern. */
export function createLogger(level = 'info', destination: pino.DestinationStream = pino.destination(2)): Logger {
  return pino(
    {
      level,
      base: { service: 'agent-api' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: {
        err: (err: Error) => scrubDeep(pino.stdSerializers.err(err)) as ReturnType<typeof pino.stdSerializers.err>,
      },
      hooks: {
        logMethod(args, method) {
          const scrubbed = args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a)) as typeof args;
          return method.apply(this, scrubbed);
        },
      },
    },
    destination,
  );
}
