import type { Command } from 'commander';
import type { Config } from '../../config.ts';
import {
  createOrgClient,
  issueApiKey,
  listOrgClients,
  updateOrgClient,
  type ClientChanges,
} from '../../engine/accounts/admin.ts';
import { TONES } from '../../engine/content/types.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';
import { listApiKeys, revokeApiKey } from '../../store/repos/api-keys.ts';
import { getClient, type ClientRow } from '../../store/repos/clients.ts';
import {
  createOrganisation,
  getOrganisation,
  listOrganisations,
  updateOrganisation,
  type OrganisationRow,
} from '../../store/repos/organisations.ts';
import type { Plan, SubscriptionStatus } from '../../store/schema.ts';
import { iso } from '../../clock.ts';
import { cliError } from '../errors.ts';
import { instant, list, number, plan, subscription, tone } from '../options.ts';
import { printJson, table, type CliIo } from '../output.ts';
import { withStore } from '../store.ts';

/** The option that sets each client field, for error messages. */
const CLIENT_OPTIONS: Record<string, string> = {
  org_id: '--org',
  name: '--name',
  domain: '--domain',
  service_area: '--service-area',
  lat: '--lat',
  lng: '--lng',
  default_tone: '--tone',
  brand_voice: '--brand-voice',
  knowledge_base: '--knowledge-base',
  excluded_topics: '--excluded-topics',
};

/** The option of each engine input key, for `clients update`'s summary line. */
const CLIENT_OPTION_OF: Record<string, string> = {
  name: '--name',
  domain: '--domain',
  serviceArea: '--service-area',
  lat: '--lat',
  lng: '--lng',
  defaultTone: '--tone',
  brandVoice: '--brand-voice',
  knowledgeBase: '--knowledge-base',
  excludedTopics: '--excluded-topics',
};

interface ClientOptions {
  name?: string;
  domain?: string;
  serviceArea?: string;
  lat?: number;
  lng?: number;
  tone?: string;
  brandVoice?: string;
  knowledgeBase?: string;
  excludedTopics?: string;
  json?: boolean;
}

/** The settings options `clients create` and `clients update` share (same names, same parsing). */
function withClientSettings(command: Command): Command {
  return command
    .option('--domain <domain>', "the client's website domain")
    .option('--service-area <text>', 'saved service area, e.g. "Austin, TX"')
    .option('--lat <number>', 'service area latitude (with --lng)', number)
    .option('--lng <number>', 'service area longitude (with --lat)', number)
    .option('--tone <tone>', `default tone: ${TONES.join(', ')}`, tone)
    .option('--brand-voice <text>', 'brand voice description')
    .option('--knowledge-base <text>', 'facts about the business the writer may use')
    .option('--excluded-topics <list>', 'comma-separated topics never to write about')
    .option('--json', 'print one JSON object');
}

/** The engine's input from the options given (absent options stay undefined). */
function clientChanges(o: ClientOptions): ClientChanges {
  return {
    name: o.name,
    domain: o.domain,
    serviceArea: o.serviceArea,
    lat: o.lat,
    lng: o.lng,
    defaultTone: o.tone,
    brandVoice: o.brandVoice,
    knowledgeBase: o.knowledgeBase,
    excludedTopics: o.excludedTopics === undefined ? undefined : list(o.excludedTopics),
  };
}

function latLngTogether(o: ClientOptions): void {
  if ((o.lat === undefined) !== (o.lng === undefined)) throw new Error('give --lat and --lng together');
}

function orgJson(org: OrganisationRow) {
  return {
    org_id: org.id,
    name: org.name,
    plan: org.plan,
    subscription: org.subscription_status,
    created_at: iso(org.created_at),
  };
}

function clientJson(c: ClientRow) {
  return {
    client_id: c.id,
    org_id: c.org_id,
    name: c.name,
    domain: c.domain,
    service_area: c.service_area,
    lat: c.service_lat,
    lng: c.service_lng,
    default_tone: c.default_tone,
    created_at: iso(c.created_at),
  };
}

/** `orgs`, `clients` and `keys`: administration straight on the database file (API.md section 6). */
export function registerAdminCommands(program: Command, config: Config, io: CliIo): void {
  registerOrgCommands(program.command('orgs').description('manage organisations'), config, io);
  registerClientCommands(program.command('clients').description('manage clients'), config, io);
  registerKeyCommands(program.command('keys').description('manage API keys'), config, io);
}

/** `orgs create`, `orgs update` and `orgs list`. */
function registerOrgCommands(orgs: Command, config: Config, io: CliIo): void {
  orgs
    .command('create')
    .description('create an organisation')
    .requiredOption('--name <name>', 'organisation name')
    .option('--plan <plan>', 'starter, pro or agency', plan, 'starter' as Plan)
    .option('--subscription <status>', 'active or inactive', subscription, 'active' as SubscriptionStatus)
    .option('--json', 'print one JSON object')
    .action(async (o: { name: string; plan: Plan; subscription: SubscriptionStatus; json?: boolean }) => {
      const org = await withStore(config, (s) => createOrganisation(s.db, o, Date.now()));
      const out = { org_id: org.id, name: org.name, plan: org.plan, subscription: org.subscription_status };
      if (o.json) printJson(io, out);
      else io.out(`organisation ${out.org_id} created (${out.plan}, ${out.subscription})`);
    });
  orgs
    .command('update <id>')
    .description("change an organisation's plan or subscription")
    .option('--plan <plan>', 'starter, pro or agency', plan)
    .option('--subscription <status>', 'active or inactive', subscription)
    .option('--json', 'print one JSON object')
    .action(async (id: string, o: { plan?: Plan; subscription?: SubscriptionStatus; json?: boolean }) => {
      const org = await withStore(config, (s) => updateOrganisation(s.db, id, o, Date.now()));
      if (!org) throw new Error(`no organisation ${id}`);
      const out = { org_id: org.id, name: org.name, plan: org.plan, subscription: org.subscription_status };
      if (o.json) printJson(io, out);
      else io.out(`organisation ${out.org_id}: ${out.plan}, ${out.subscription}`);
    });
  orgs
    .command('list')
    .description('list the organisations, oldest first')
    .option('--json', 'print one JSON object: {"organisations": [...]}')
    .action(async (o: { json?: boolean }) => {
      const rows = (await withStore(config, (s) => listOrganisations(s.db))).map(orgJson);
      if (o.json) return printJson(io, { organisations: rows });
      if (rows.length === 0) return io.out('no organisations (create one with: agent-api orgs create --name N)');
      const cells = rows.map((r) => [r.org_id, r.plan, r.subscription, r.created_at, r.name]);
      for (const line of table(['ORG_ID', 'PLAN', 'SUBSCRIPTION', 'CREATED', 'NAME'], cells)) io.out(line);
    });
}

/** `clients create`, `clients list` and `clients update`. */
function registerClientCommands(clients: Command, config: Config, io: CliIo): void {
  withClientSettings(
    clients
      .command('create')
      .description('create a client workspace')
      .requiredOption('--org <id>', 'organisation id')
      .requiredOption('--name <name>', 'client name'),
  ).action(async (o: ClientOptions & { org: string; name: string }) => {
    latLngTogether(o);
    let client: ClientRow;
    try {
      client = await withStore(config, (s) =>
        createOrgClient(s.db, o.org, { ...clientChanges(o), name: o.name }, Date.now()),
      );
    } catch (err) {
      throw cliError(err, CLIENT_OPTIONS, { org_id: `no organisation ${o.org}` });
    }
    const out = { client_id: client.id, org_id: client.org_id, name: client.name };
    if (o.json) printJson(io, out);
    else io.out(`client ${out.client_id} created in ${out.org_id}`);
  });
  clients
    .command('list')
    .description("list an organisation's clients, oldest first")
    .requiredOption('--org <id>', 'organisation id')
    .option('--json', 'print one JSON object: {"clients": [...]}')
    .action(async (o: { org: string; json?: boolean }) => {
      let rows: ClientRow[];
      try {
        rows = await withStore(config, (s) => listOrgClients(s.db, o.org));
      } catch (err) {
        throw cliError(err, CLIENT_OPTIONS, { org_id: `no organisation ${o.org}` });
      }
      const views = rows.map(clientJson);
      if (o.json) return printJson(io, { clients: views });
      if (views.length === 0) return io.out(`no clients in ${o.org}`);
      const cells = views.map((c) => [
        c.client_id,
        c.domain ?? '-',
        c.service_area ?? '-',
        c.default_tone ?? '-',
        c.created_at,
        c.name,
      ]);
      for (const line of table(['CLIENT_ID', 'DOMAIN', 'SERVICE_AREA', 'TONE', 'CREATED', 'NAME'], cells)) io.out(line);
    });
  withClientSettings(
    clients
      .command('update <id>')
      .description("change a client's settings (only the options given; an empty value clears a text setting)")
      .option('--name <name>', 'client name'),
  ).action(async (id: string, o: ClientOptions) => {
    const changes = clientChanges(o);
    const given = Object.entries(changes)
      .filter(([, v]) => v !== undefined)
      .map(([k]) => k);
    if (given.length === 0)
      throw new Error(
        'give at least one setting to change: --name, --domain, --service-area, --lat/--lng, --tone, --brand-voice, --knowledge-base or --excluded-topics',
      );
    latLngTogether(o);
    let client: ClientRow;
    try {
      client = await withStore(config, async (s) => {
        const current = await getClient(s.db, id);
        if (!current) throw new Error(`no client ${id}`);
        return updateOrgClient(s.db, current.org_id, id, changes, Date.now());
      });
    } catch (err) {
      throw cliError(err, CLIENT_OPTIONS, { client_id: `no client ${id}` });
    }
    if (o.json)
      return printJson(io, {
        ...clientJson(client),
        brand_voice: client.brand_voice,
        knowledge_base: client.knowledge_base,
        excluded_topics: JSON_COLUMNS.clients.excluded_topics.read(client.excluded_topics),
        updated_at: iso(client.updated_at),
      });
    io.out(`client ${client.id} updated (${given.map((k) => CLIENT_OPTION_OF[k]).join(', ')})`);
  });
}

/** `keys create`, `keys revoke` and `keys list` (never the keys themselves). */
function registerKeyCommands(keys: Command, config: Config, io: CliIo): void {
  keys
    .command('create')
    .description('create an API key (printed once)')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--scopes <list>', 'comma-separated scopes')
    .option('--name <name>', 'a label for the key')
    .option('--expires-at <iso>', 'expiry time (ISO 8601)', instant)
    .option('--json', 'print one JSON object')
    .action(async (o: { org: string; scopes: string; name?: string; expiresAt?: number; json?: boolean }) => {
      const key = await withStore(config, async (s) => {
        if (!(await getOrganisation(s.db, o.org))) throw new Error(`no organisation ${o.org}`);
        return issueApiKey(
          s.db,
          { orgId: o.org, scopes: list(o.scopes), name: o.name, expiresAt: o.expiresAt ?? null },
          Date.now(),
        );
      });
      if (o.json) printJson(io, { key_id: key.keyId, api_key: key.apiKey, scopes: key.scopes });
      else io.out(`key ${key.keyId} (${key.scopes.join(', ')}):\n${key.apiKey}\nStore it now: it is not shown again.`);
    });
  keys
    .command('revoke <id>')
    .description('revoke an API key (takes effect on the next request)')
    .option('--json', 'print one JSON object: {"key_id", "revoked": true}')
    .action(async (id: string, o: { json?: boolean }) => {
      const done = await withStore(config, (s) => revokeApiKey(s.db, id, Date.now()));
      if (!done) throw new Error(`no active key ${id}`);
      if (o.json) printJson(io, { key_id: id, revoked: true });
      else io.out(`key ${id} revoked`);
    });
  keys
    .command('list')
    .description("list an organisation's keys (never the keys themselves)")
    .requiredOption('--org <id>', 'organisation id')
    .option('--json', 'print one JSON object: {"org_id", "keys": [...]}')
    .action(async (o: { org: string; json?: boolean }) => {
      const rows = await withStore(config, async (s) => {
        if (!(await getOrganisation(s.db, o.org))) throw new Error(`no organisation ${o.org}`);
        return listApiKeys(s.db, o.org);
      });
      const views = rows.map((r) => ({
        key_id: r.id,
        name: r.name,
        prefix: r.display_prefix,
        scopes: JSON_COLUMNS.api_keys.scopes.read(r.scopes),
        created_at: iso(r.created_at),
        expires_at: r.expires_at === null ? null : iso(r.expires_at),
        revoked_at: r.revoked_at === null ? null : iso(r.revoked_at),
      }));
      // --json prints one object, like every other command, so callers can parse stdout in one go.
      if (o.json) return printJson(io, { org_id: o.org, keys: views });
      for (const view of views) {
        io.out(
          `${view.key_id}  ${view.prefix}…  ${view.scopes.join(',')}  ${view.revoked_at ? 'revoked' : view.expires_at ? `expires ${view.expires_at}` : 'active'}  ${view.name}`,
        );
      }
    });
}
