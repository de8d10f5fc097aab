import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.ts';

/** A real pino logger writing into memory, so tests can read exactly what would reach stderr. */
export function captureLogger(level = 'info'): { logger: Logger; lines: () => string[]; text: () => string } {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(String(chunk));
      cb();
    },
  });
  const logger = createLogger(level, sink);
  return { logger, lines: () => chunks.join('').split('\n').filter(Boolean), text: () => chunks.join('') };
}
