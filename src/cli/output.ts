/**
 * CLI output. Human and JSON results go to stdout (except under `agent-api mcp`, where stdout is the protocol and
 * nothing else is written there); progress and diagnostics go to stderr.
 */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  stderr: NodeJS.WritableStream;
}

export const processIo: CliIo = {
  out: (line) => void process.stdout.write(`${line}\n`),
  err: (line) => void process.stderr.write(`${line}\n`),
  stderr: process.stderr,
};

export function printJson(io: CliIo, value: unknown): void {
  io.out(JSON.stringify(value));
}
