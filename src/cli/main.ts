import { Command, CommanderError } from 'commander';
import pkg from '../../package.json' with { type: 'json' };
import { loadConfig, type Config } from '../config.ts';
import { processIo, type CliIo } from './output.ts';
import { warnIfUnsupportedRuntime } from './runtime-support.ts';

/**
 * The command groups, each loaded only when its command runs (or for help): `agent-api mcp` must start fast, and
 * the archive commands alone pull in an HTML parser, a WARC library and progress bars.
 */
const GROUPS: Record<string, readonly string[]> = {
  run: ['init', 'serve', 'start', 'mcp'],
  admin: ['orgs', 'clients', 'keys'],
  tracker: ['tracker'],
  archive: ['archive'],
  inspect: ['inspect'],
};

async function registerGroup(name: string, program: Command, config: Config, io: CliIo): Promise<void> {
  if (name === 'run') (await import('./commands/run.ts')).registerRunCommands(program, config, io);
  else if (name === 'admin') (await import('./commands/admin.ts')).registerAdminCommands(program, config, io);
  else if (name === 'tracker') (await import('./commands/tracker.ts')).registerTrackerCommands(program, config, io);
  else if (name === 'inspect') (await import('./commands/inspect.ts')).registerInspectCommand(program, config, io);
  else if (name === 'archive') {
    const [{ registerArchiveCommands }, { createSafeFetcher, parseAllowList }] = await Promise.all([
      import('./commands/archive.ts'),
      import('../providers/web/safe-fetch.ts'),
    ]);
    registerArchiveCommands(program, {
      createFetcher: () => createSafeFetcher({ allow: parseAllowList(config.AGENT_API_TEST_FETCH_ALLOW) }),
      stdout: io.out,
      stderr: io.stderr,
    });
  }
}

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
    .configureOutput({ writeOut: (s) => io.err(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    // Before a command that serves runs (not for its --help or a usage error): one warning on Node past end of life.
    .hook('preAction', async (_, command) => {
      if (command.parent === program) await warnIfUnsupportedRuntime(command.name(), config.AGENT_API_LOG_LEVEL);
    });
  // Only the group of the command given; every group for help, a version or an unknown command (in help's order).
  const group = Object.keys(GROUPS).find((g) => GROUPS[g]!.includes(argv[0] ?? ''));
  for (const name of group ? [group] : Object.keys(GROUPS)) await registerGroup(name, program, config, io);
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
