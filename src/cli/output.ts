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

/** Rows as an aligned text table under a header; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((v, i) => (i === cells.length - 1 ? v : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}
