import { InvalidArgumentError, type Command } from 'commander';
import type { Config } from '../../config.ts';
import { issueApiKey } from '../../engine/admin.ts';
import { isPlan, PLANS } from '../../engine/plans.ts';
import { listApiKeys, revokeApiKey } from '../../store/repos/api-keys.ts';
import { createClient } from '../../store/repos/clients.ts';
import { createOrganisation, getOrganisation, updateOrganisation } from '../../store/repos/organisations.ts';
import type { Plan, SubscriptionStatus } from '../../store/schema.ts';
import { iso } from '../../clock.ts';
import { printJson, type CliIo } from '../output.ts';
import { withStore } from '../store.ts';

const TONES = ['clear_practical', 'expert_detailed', 'friendly_simple', 'technical_precise', 'persuasive_direct'];

function plan(v: string): Plan {
  if (!isPlan(v)) throw new InvalidArgumentError(`expected one of ${PLANS.join(', ')}`);
  return v;
}
function subscription(v: string): SubscriptionStatus {
  if (v !== 'active' && v !== 'inactive') throw new InvalidArgumentError('expected active or inactive');
  return v;
}
function tone(v: string): string {
  if (!TONES.includes(v)) throw new InvalidArgumentError(`expected one of ${TONES.join(', ')}`);
  return v;
}
function number(v: string): number {
  const n = Number(v);
  if (!Number.isFinite(n)) throw new InvalidArgumentError('expected a number');
  return n;
}
function instant(v: string): number {
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw new InvalidArgumentError('expected an ISO 8601 date-time');
  return t;
}

/** `orgs`, `clients` and `keys`: administration straight on the database file (API.md section 6). */
export function registerAdminCommands(program: Command, config: Config, io: CliIo): void {
  const orgs = program.command('orgs').description('manage organisations');
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

  program
    .command('clients')
    .description('manage clients')
    .command('create')
    .description('create a client workspace')
    .requiredOption('--org <id>', 'organisation id')
    .requiredOption('--name <name>', 'client name')
    .option('--domain <domain>', "the client's website domain")
    .option('--service-area <text>', 'saved service area, e.g. "Austin, TX"')
    .option('--lat <number>', 'service area latitude', number)
    .option('--lng <number>', 'service area longitude', number)
    .option('--tone <tone>', `default tone: ${TONES.join(', ')}`, tone)
    .option('--brand-voice <text>', 'brand voice description')
    .option('--knowledge-base <text>', 'facts about the business the writer may use')
    .option('--excluded-topics <list>', 'comma-separated topics never to write about')
    .option('--json', 'print one JSON object')
    .action(async (o: Record<string, string | number | boolean | undefined>) => {
      const client = await withStore(config, async (s) => {
        if (!(await getOrganisation(s.db, String(o.org)))) throw new Error(`no organisation ${String(o.org)}`);
        return createClient(
          s.db,
          {
            orgId: String(o.org),
            name: String(o.name),
            domain: (o.domain as string | undefined) ?? null,
            serviceArea: (o.serviceArea as string | undefined) ?? null,
            serviceLat: (o.lat as number | undefined) ?? null,
            serviceLng: (o.lng as number | undefined) ?? null,
            defaultTone: (o.tone as string | undefined) ?? null,
            brandVoice: (o.brandVoice as string | undefined) ?? null,
            knowledgeBase: (o.knowledgeBase as string | undefined) ?? null,
            excludedTopics: String(o.excludedTopics ?? '')
              .split(',')
              .map((t) => t.trim())
              .filter(Boolean),
          },
          Date.now(),
        );
      });
      const out = { client_id: client.id, org_id: client.org_id, name: client.name };
      if (o.json) printJson(io, out);
      else io.out(`client ${out.client_id} created in ${out.org_id}`);
    });

  const keys = program.command('keys').description('manage API keys');
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
        const scopes = o.scopes
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
        return issueApiKey(s.db, { orgId: o.org, scopes, name: o.name, expiresAt: o.expiresAt ?? null }, Date.now());
      });
      if (o.json) printJson(io, { key_id: key.keyId, api_key: key.apiKey, scopes: key.scopes });
      else io.out(`key ${key.keyId} (${key.scopes.join(', ')}):\n${key.apiKey}\nStore it now: it is not shown again.`);
    });
  keys
    .command('revoke <id>')
    .description('revoke an API key (takes effect on the next request)')
    .action(async (id: string) => {
      const done = await withStore(config, (s) => revokeApiKey(s.db, id, Date.now()));
      if (!done) throw new Error(`no active key ${id}`);
      io.out(`key ${id} revoked`);
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
        scopes: JSON.parse(r.scopes) as string[],
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
