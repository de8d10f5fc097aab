import { Command, CommanderError } from 'commander';
import { VERSION } from '../app.ts';
import { loadConfig } from '../config.ts';
import { registerAdminCommands } from './commands/admin.ts';
import { registerRunCommands } from './commands/run.ts';
import { processIo, type CliIo } from './output.ts';

/** The `agent-api` command line (API.md section 6). */
export async function main(argv: string[], io: CliIo = processIo): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    io.err(err instanceof Error ? err.message : String(err));
    process.exitCode = 2;
    return;
  }
  const program = new Command('agent-api')
    .description('Self-hostable MCP server and REST API for SEO content work.')
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.err(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  registerRunCommands(program, config, io);
  registerAdminCommands(program, config, io);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.exitCode !== 0) process.exitCode = err.exitCode;
      return;
    }
    io.err(`agent-api: ${err instanceof Error ? err.message : String(err)}`);
    process.exitCode = 1;
  }
}
