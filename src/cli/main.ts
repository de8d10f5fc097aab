import { Command, CommanderError } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { loadConfig } from '../config.ts';
import { registerAdminCommands } from './commands/admin.ts';
import { registerArchiveCommands } from './commands/archive.ts';
import { registerRunCommands } from './commands/run.ts';
import { registerTrackerCommands } from './commands/tracker.ts';
import { processIo, type CliIo } from './output.ts';
import type * as SafeFetch from '../providers/web/safe-fetch.ts';

let safeFetchModule: typeof SafeFetch | undefined;

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
    .version(pkg.version)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.err(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
  registerRunCommands(program, config, io);
  registerAdminCommands(program, config, io);
  registerTrackerCommands(program, config, io);
  registerArchiveCommands(program, {
    createFetcher: () => {
      const { createSafeFetcher, parseAllowList } = safeFetchModule!;
      return createSafeFetcher({ allow: parseAllowList(config.AGENT_API_TEST_FETCH_ALLOW) });
    },
    stdout: io.out,
    stderr: io.stderr,
  });
  // The fetcher module is only needed by `archive add`; load it before parsing when that is the command.
  if (argv[0] === 'archive') safeFetchModule = await import('../providers/web/safe-fetch.ts');
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
