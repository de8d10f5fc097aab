import type { Command } from 'commander';
import type { Config } from '../../config.ts';
import {
  createProject,
  deleteTrackerProject,
  listTrackerProjects,
  updateTrackerProject,
  type TrackerProjectChanges,
} from '../../engine/tracker/projects.ts';
import { projectView } from '../../engine/tracker/views.ts';
import { getProjectById, type TrackerProjectRow } from '../../store/repos/tracker.ts';
import { cliError } from '../errors.ts';
import { list } from '../options.ts';
import { printJson, table, type CliIo } from '../output.ts';
import { withStore } from '../store.ts';

interface ProjectOptions {
  name?: string;
  domain?: string;
  keywords?: string;
  prompts?: string;
  platforms?: string;
  brandNames?: string;
  location?: string;
  language?: string;
  json?: boolean;
}

interface CreateOptions extends ProjectOptions {
  client: string;
  name: string;
  domain: string;
}

const PLATFORM_HELP = 'comma-separated: organic, chatgpt, perplexity, claude, google_ai_overview';

/** The option that sets each project field, for error messages (queries: --keywords or --prompts). */
function projectOptions(o: ProjectOptions): Record<string, string> {
  return {
    client_id: '--client',
    org_id: '--org',
    name: '--name',
    domain: '--domain',
    queries: o.prompts !== undefined ? '--prompts' : '--keywords',
    brand_names: '--brand-names',
    platforms: '--platforms',
    location: '--location',
    language: '--language',
  };
}

/** The options `create-project` and `update-project` share (same names, same meaning). */
function withProjectSettings(command: Command, defaults: boolean): Command {
  return command
    .option('--keywords <list>', 'comma-separated keywords to track')
    .option('--prompts <list>', 'comma-separated prompts to ask AI answer platforms (instead of --keywords)')
    .option('--platforms <list>', defaults ? `${PLATFORM_HELP} (default organic)` : PLATFORM_HELP)
    .option(
      '--brand-names <list>',
      defaults
        ? 'comma-separated names that count as a mention (default: the domain)'
        : 'comma-separated names that count as a mention (empty: the domain)',
    )
    .option(
      '--location <text>',
      defaults ? 'e.g. "Austin, Texas, United States"' : 'e.g. "Austin, Texas" (empty: none)',
    )
    .option('--language <code>', defaults ? 'language code (default en)' : 'language code, e.g. en or en-US');
}

function projectJson(row: TrackerProjectRow) {
  const { project_id, ...rest } = projectView(row, true);
  return { project_id, org_id: row.org_id, ...rest };
}

/** `tracker ...`: tracker projects straight on the database file (API.md section 6). */
export function registerTrackerCommands(program: Command, config: Config, io: CliIo): void {
  const tracker = program.command('tracker').description('manage tracker projects');

  withProjectSettings(
    tracker
      .command('create-project')
      .description('create a tracker project for a client')
      .requiredOption('--client <id>', 'client id')
      .requiredOption('--name <name>', 'project name')
      .requiredOption('--domain <domain>', "the brand's domain, e.g. example.com (subdomains count)"),
    true,
  )
    .option('--json', 'print one JSON object: {"project_id"}')
    .action(async (o: CreateOptions) => {
      if ((o.keywords === undefined) === (o.prompts === undefined))
        throw new Error('give exactly one of --keywords or --prompts');
      let created;
      try {
        created = await withStore(config, (s) =>
          createProject(
            s.db,
            {
              clientId: o.client,
              name: o.name,
              domain: o.domain,
              queries: list(o.keywords ?? o.prompts),
              queryKind: o.prompts !== undefined ? 'prompts' : 'keywords',
              ...(o.platforms !== undefined ? { platforms: list(o.platforms) } : {}),
              ...(o.brandNames !== undefined ? { brandNames: list(o.brandNames) } : {}),
              location: o.location ?? null,
              ...(o.language !== undefined ? { language: o.language } : {}),
            },
            Date.now(),
          ),
        );
      } catch (err) {
        throw cliError(err, projectOptions(o), { client_id: `no client ${o.client}` });
      }
      if (o.json) printJson(io, { project_id: created.project_id });
      else io.out(`tracker project ${created.project_id} created in ${created.org_id}`);
    });

  tracker
    .command('list-projects')
    .description("list tracker projects, oldest first (all, or one organisation's or client's)")
    .option('--client <id>', "only this client's projects")
    .option('--org <id>', "only this organisation's projects")
    .option('--json', 'print one JSON object: {"projects": [...]}')
    .action(async (o: { client?: string; org?: string; json?: boolean }) => {
      let rows: TrackerProjectRow[];
      try {
        rows = await withStore(config, (s) => listTrackerProjects(s.db, { orgId: o.org, clientId: o.client }));
      } catch (err) {
        throw cliError(
          err,
          {},
          {
            org_id: `no organisation ${o.org ?? ''}`,
            client_id: o.org ? `no client ${o.client ?? ''} in organisation ${o.org}` : `no client ${o.client ?? ''}`,
          },
        );
      }
      if (o.json) return printJson(io, { projects: rows.map(projectJson) });
      if (rows.length === 0) return io.out('no tracker projects');
      const cells = rows.map((r) => {
        const v = projectView(r, false);
        return [v.project_id, v.client_id, v.domain, `${v.query_count} ${v.query_kind}`, v.platforms.join(','), v.name];
      });
      for (const line of table(['PROJECT_ID', 'CLIENT_ID', 'DOMAIN', 'QUERIES', 'PLATFORMS', 'NAME'], cells))
        io.out(line);
    });

  withProjectSettings(
    tracker
      .command('update-project <id>')
      .description("change a tracker project's configuration (only the options given)")
      .option('--name <name>', 'project name')
      .option('--domain <domain>', "the brand's domain (brand names that were the old domain follow it)"),
    false,
  )
    .option('--json', 'print one JSON object: the project')
    .action(async (id: string, o: ProjectOptions) => {
      if (o.keywords !== undefined && o.prompts !== undefined)
        throw new Error('give at most one of --keywords or --prompts');
      const changes: TrackerProjectChanges = {
        name: o.name,
        domain: o.domain,
        ...(o.keywords !== undefined ? { queries: list(o.keywords), queryKind: 'keywords' as const } : {}),
        ...(o.prompts !== undefined ? { queries: list(o.prompts), queryKind: 'prompts' as const } : {}),
        platforms: o.platforms === undefined ? undefined : list(o.platforms),
        brandNames: o.brandNames === undefined ? undefined : list(o.brandNames),
        location: o.location,
        language: o.language,
      };
      if (Object.values(changes).every((v) => v === undefined))
        throw new Error(
          'give at least one setting to change: --name, --domain, --keywords or --prompts, --platforms, --brand-names, --location or --language',
        );
      let row: TrackerProjectRow;
      try {
        row = await withStore(config, async (s) => {
          const current = await getProjectById(s.db, id);
          if (!current) throw new Error(`no tracker project ${id}`);
          return updateTrackerProject(s.db, current.org_id, id, changes, Date.now());
        });
      } catch (err) {
        throw cliError(err, projectOptions(o), { project_id: `no tracker project ${id}` });
      }
      if (o.json) return printJson(io, projectJson(row));
      const v = projectView(row, false);
      io.out(
        `tracker project ${v.project_id} updated: ${v.name}, ${v.domain}, ${v.query_count} ${v.query_kind}, ${v.platforms.join(',')}`,
      );
    });

  tracker
    .command('delete-project <id>')
    .description('delete a tracker project with its scans and results (refused while a scan is queued or running)')
    .option('--json', 'print one JSON object: {"project_id", "deleted": {"scans", "results", "summaries"}}')
    .action(async (id: string, o: { json?: boolean }) => {
      let out;
      try {
        out = await withStore(config, async (s) => {
          const current = await getProjectById(s.db, id);
          if (!current) throw new Error(`no tracker project ${id}`);
          return deleteTrackerProject(s.db, current.org_id, id);
        });
      } catch (err) {
        throw cliError(err, {}, { project_id: `no tracker project ${id}` });
      }
      if (o.json) return printJson(io, out);
      const d = out.deleted;
      io.out(
        `tracker project ${id} deleted (${d.scans} scan${d.scans === 1 ? '' : 's'}, ${d.results} result${d.results === 1 ? '' : 's'}, ${d.summaries} platform summar${d.summaries === 1 ? 'y' : 'ies'})`,
      );
    });
}
