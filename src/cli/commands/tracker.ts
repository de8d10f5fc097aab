import type { Command } from 'commander';
import type { Config } from '../../config.ts';
import { ApiError } from '../../errors.ts';
import { createProject } from '../../engine/tracker/service.ts';
import { printJson, type CliIo } from '../output.ts';
import { withStore } from '../store.ts';

const list = (v: string | undefined) =>
  (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

interface CreateOptions {
  client: string;
  name: string;
  domain: string;
  keywords?: string;
  prompts?: string;
  platforms?: string;
  brandNames?: string;
  location?: string;
  language?: string;
  json?: boolean;
}

/** `tracker create-project`: a tracker project straight on the database file (API.md section 6). */
export function registerTrackerCommands(program: Command, config: Config, io: CliIo): void {
  program
    .command('tracker')
    .description('manage tracker projects')
    .command('create-project')
    .description('create a tracker project for a client')
    .requiredOption('--client <id>', 'client id')
    .requiredOption('--name <name>', 'project name')
    .requiredOption('--domain <domain>', "the brand's domain, e.g. example.com (subdomains count)")
    .option('--keywords <list>', 'comma-separated keywords to track')
    .option('--prompts <list>', 'comma-separated prompts to ask AI answer platforms (instead of --keywords)')
    .option(
      '--platforms <list>',
      'comma-separated: organic, chatgpt, perplexity, claude, google_ai_overview (default organic)',
    )
    .option('--brand-names <list>', 'comma-separated names that count as a mention (default: the domain)')
    .option('--location <text>', 'e.g. "Austin, Texas, United States"')
    .option('--language <code>', 'language code (default en)')
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
        if (err instanceof ApiError && err.code === 'not_found') throw new Error(`no client ${o.client}`);
        if (err instanceof ApiError) {
          const fields = (err.details?.fields as { path: string; message: string }[] | undefined) ?? [];
          throw new Error([err.message, ...fields.map((f) => `  ${f.path}: ${f.message}`)].join('\n'));
        }
        throw err;
      }
      if (o.json) printJson(io, { project_id: created.project_id });
      else io.out(`tracker project ${created.project_id} created in ${created.org_id}`);
    });
}
