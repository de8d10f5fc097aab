import { ApiError } from '../../errors.ts';
import type { Db } from '../../store/db.ts';
import type { Plan, SubscriptionStatus } from '../../store/schema.ts';
import { createOrganisation, getOrganisation, listOrganisations } from '../../store/repos/organisations.ts';
import {
  createClient,
  firstClientOf,
  listAllClients,
  updateClient,
  type ClientPatch,
  type ClientRow,
  type NewClient,
} from '../../store/repos/clients.ts';
import { insertApiKey } from '../../store/repos/api-keys.ts';
import { displayPrefix, generateApiKey, hashApiKey } from './api-keys.ts';
import { TONES } from '../content/types.ts';
import { SCOPES, isScope, type Scope } from './scopes.ts';
import { normalizeDomain } from '../tracker/match.ts';
import { immediate } from '../../store/db.ts';
import { JSON_COLUMNS } from '../../store/json-columns.ts';

/** Creates a key; the returned `apiKey` is the only time the key exists in clear. */
export async function issueApiKey(
  db: Db,
  input: { orgId: string; scopes: readonly string[]; name?: string; expiresAt?: number | null },
  now: number,
): Promise<{ keyId: string; apiKey: string; scopes: Scope[] }> {
  const bad = input.scopes.filter((s) => !isScope(s));
  if (bad.length) throw new Error(`unknown scope(s): ${bad.join(', ')} (known: ${SCOPES.join(', ')})`);
  if (input.scopes.length === 0) throw new Error('a key needs at least one scope');
  const apiKey = generateApiKey();
  const row = await insertApiKey(
    db,
    {
      orgId: input.orgId,
      name: input.name ?? 'api key',
      keyHash: hashApiKey(apiKey),
      displayPrefix: displayPrefix(apiKey),
      scopes: [...new Set(input.scopes)],
      expiresAt: input.expiresAt ?? null,
    },
    now,
  );
  return { keyId: row.id, apiKey, scopes: JSON_COLUMNS.api_keys.scopes.read(row.scopes) as Scope[] };
}

export interface InitResult {
  created: boolean;
  orgId: string;
  clientId: string | null;
  apiKey: string | null;
}

/**
 * First-run set-up: a local organisation (agency plan, active), a client and an all-scope key, in one transaction.
 * When an organisation exists it creates nothing, unless `forceNewKey` asks for a fresh key on the first organisation.
 */
export async function initialise(
  db: Db,
  now: number,
  options: { forceNewKey?: boolean; orgName?: string; clientName?: string; client?: Partial<NewClient> } = {},
): Promise<InitResult> {
  return immediate(db, async (trx) => {
    const existing = await listOrganisations(trx);
    if (existing.length > 0) {
      const org = existing[0]!;
      const client = await firstClientOf(trx, org.id);
      if (!options.forceNewKey) return { created: false, orgId: org.id, clientId: client?.id ?? null, apiKey: null };
      const key = await issueApiKey(trx, { orgId: org.id, scopes: SCOPES, name: 'local (init --force-new-key)' }, now);
      return { created: false, orgId: org.id, clientId: client?.id ?? null, apiKey: key.apiKey };
    }
    const org = await createOrganisation(
      trx,
      {
        name: options.orgName ?? 'Local organisation',
        plan: 'agency' satisfies Plan,
        subscription: 'active' satisfies SubscriptionStatus,
      },
      now,
    );
    const client = await createClient(
      trx,
      { name: options.clientName ?? 'Default client', ...options.client, orgId: org.id },
      now,
    );
    const key = await issueApiKey(trx, { orgId: org.id, scopes: SCOPES, name: 'local (init)' }, now);
    return { created: true, orgId: org.id, clientId: client.id, apiKey: key.apiKey };
  });
}

// ---- clients ----

/** Limits on a client's settings. */
export const CLIENT_LIMITS = {
  name: 200,
  domain: 253,
  serviceArea: 200,
  brandVoice: 2_000,
  knowledgeBase: 100_000,
  excludedTopics: 50,
  topicLength: 200,
} as const;

/**
 * A client's settings. Optional text fields take null (or an empty string) for "none"; `lat` and `lng` (the saved
 * service area's coordinates) go together.
 */
export interface ClientInput {
  name: string;
  domain?: string | null;
  serviceArea?: string | null;
  lat?: number | null;
  lng?: number | null;
  defaultTone?: string | null;
  brandVoice?: string | null;
  knowledgeBase?: string | null;
  excludedTopics?: readonly string[];
}

/** What an update may change; absent (undefined) fields keep their value. */
export type ClientChanges = Partial<ClientInput>;

type Field = { path: string; message: string };

/**
 * Validates the given fields and answers the columns to write (only those given); throws ApiError `invalid_input`
 * with `details.fields` naming every bad field (paths: name, domain, service_area, lat, lng, default_tone,
 * brand_voice, knowledge_base, excluded_topics).
 */
export function prepareClientChanges(input: ClientChanges): ClientPatch {
  const bad: Field[] = [];
  const out: ClientPatch = {};
  const text = (value: string | null | undefined, path: string, max: number): string | null | undefined => {
    if (value === undefined) return undefined;
    const v = value?.trim() ?? '';
    if (v.length > max) bad.push({ path, message: `At most ${max} characters.` });
    return v === '' ? null : v;
  };
  if (input.name !== undefined) {
    const name = input.name.trim();
    if (!name || name.length > CLIENT_LIMITS.name)
      bad.push({ path: 'name', message: `1 to ${CLIENT_LIMITS.name} characters.` });
    out.name = name;
  }
  const domain = text(input.domain, 'domain', CLIENT_LIMITS.domain);
  if (domain !== undefined) {
    if (domain !== null && normalizeDomain(domain) === null)
      bad.push({ path: 'domain', message: 'A host name such as example.com.' });
    out.domain = domain;
  }
  const area = text(input.serviceArea, 'service_area', CLIENT_LIMITS.serviceArea);
  if (area !== undefined) out.service_area = area;
  if (input.lat !== undefined || input.lng !== undefined) {
    const coordinate = (value: number | null | undefined, path: 'lat' | 'lng', limit: number) => {
      if (value === undefined) bad.push({ path, message: 'Give lat and lng together.' });
      else if (value !== null && !(Number.isFinite(value) && Math.abs(value) <= limit))
        bad.push({ path, message: `A number from -${limit} to ${limit}.` });
    };
    coordinate(input.lat, 'lat', 90);
    coordinate(input.lng, 'lng', 180);
    if (input.lat !== undefined && input.lng !== undefined && (input.lat === null) !== (input.lng === null))
      bad.push({ path: input.lat === null ? 'lng' : 'lat', message: 'Clear lat and lng together.' });
    out.service_lat = input.lat ?? null;
    out.service_lng = input.lng ?? null;
  }
  const tone = text(input.defaultTone, 'default_tone', 100);
  if (tone !== undefined) {
    if (tone !== null && !(TONES as readonly string[]).includes(tone))
      bad.push({ path: 'default_tone', message: `One of ${TONES.join(', ')}.` });
    out.default_tone = tone;
  }
  const voice = text(input.brandVoice, 'brand_voice', CLIENT_LIMITS.brandVoice);
  if (voice !== undefined) out.brand_voice = voice;
  const knowledge = text(input.knowledgeBase, 'knowledge_base', CLIENT_LIMITS.knowledgeBase);
  if (knowledge !== undefined) out.knowledge_base = knowledge;
  if (input.excludedTopics !== undefined) {
    const topics = [
      ...new Map(
        input.excludedTopics
          .map((t) => t.trim().replace(/\s+/g, ' '))
          .filter(Boolean)
          .map((t) => [t.toLowerCase(), t]),
      ).values(),
    ];
    if (topics.length > CLIENT_LIMITS.excludedTopics || topics.some((t) => t.length > CLIENT_LIMITS.topicLength))
      bad.push({
        path: 'excluded_topics',
        message: `At most ${CLIENT_LIMITS.excludedTopics} topics of up to ${CLIENT_LIMITS.topicLength} characters.`,
      });
    out.excluded_topics = JSON_COLUMNS.clients.excluded_topics.write(topics);
  }
  if (bad.length)
    throw new ApiError('invalid_input', `Invalid input: ${[...new Set(bad.map((b) => b.path))].join(', ')}.`, {
      fields: bad,
    });
  return out;
}

/** Creates a client in the organisation; 404 (`org_id`) when there is no such organisation. */
export async function createOrgClient(db: Db, orgId: string, input: ClientInput, now: number): Promise<ClientRow> {
  // A new client always has a name and a topic list, so both are validated even when left out.
  const c = prepareClientChanges({ ...input, name: input.name ?? '', excludedTopics: input.excludedTopics ?? [] });
  return immediate(db, async (trx) => {
    if (!(await getOrganisation(trx, orgId)))
      throw new ApiError('not_found', 'No such organisation.', { field: 'org_id' });
    return createClient(
      trx,
      {
        orgId,
        name: c.name!,
        domain: c.domain ?? null,
        serviceArea: c.service_area ?? null,
        serviceLat: c.service_lat ?? null,
        serviceLng: c.service_lng ?? null,
        defaultTone: c.default_tone ?? null,
        brandVoice: c.brand_voice ?? null,
        knowledgeBase: c.knowledge_base ?? null,
        excludedTopics: JSON_COLUMNS.clients.excluded_topics.read(c.excluded_topics!),
      },
      now,
    );
  });
}

/** Changes the organisation's client (only the fields given); 404 when it has no such client. */
export async function updateOrgClient(
  db: Db,
  orgId: string,
  clientId: string,
  changes: ClientChanges,
  now: number,
): Promise<ClientRow> {
  const patch = prepareClientChanges(changes);
  if (Object.keys(patch).length === 0) throw new ApiError('invalid_input', 'Nothing to change.', { fields: [] });
  return immediate(db, async (trx) => {
    const updated = await updateClient(trx, orgId, clientId, patch, now);
    if (!updated) throw new ApiError('not_found', 'No such client.', { field: 'client_id' });
    return updated;
  });
}

/** Every client of the organisation, oldest first; 404 (`org_id`) when there is no such organisation. */
export async function listOrgClients(db: Db, orgId: string): Promise<ClientRow[]> {
  if (!(await getOrganisation(db, orgId)))
    throw new ApiError('not_found', 'No such organisation.', { field: 'org_id' });
  return listAllClients(db, orgId);
}
