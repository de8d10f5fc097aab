import { z } from 'zod';
import { defineOperation } from '../define.ts';
import { prepareProspectUrl, saveProspect as save } from '../../engine/prospects/service.ts';
import { MAX_PROSPECT_URL_LENGTH } from '../../engine/prospects/normalize-url.ts';
import { shortText } from '../common/text.ts';
import {
  ClientIdParam,
  FreeText,
  Line,
  ListIdParam,
  OPPORTUNITY_TYPES_HELP,
  OpportunityType,
  PROSPECT_STATUSES_HELP,
  ProspectStatus,
  SavedProspectRecord,
} from './schemas.ts';

export const saveProspect = defineOperation({
  name: 'save_prospect',
  title: 'Save a prospect',
  description:
    'Save a prospect URL to a list (201); a canonical variant already there answers it (200, already_saved). Sends nothing.',
  family: 'prospector',
  http: { method: 'POST', path: '/clients/:client_id/prospect-lists/:list_id/items', status: 201 },
  scope: 'prospector:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    client_id: ClientIdParam,
    list_id: ListIdParam,
    url: shortText({ max: MAX_PROSPECT_URL_LENGTH }).describe('Public http(s) URL.'),
    target_name: Line(200).nullable().default(null).describe('Site, publication or person.'),
    opportunity_type: OpportunityType.nullable().optional().describe(`${OPPORTUNITY_TYPES_HELP}; default the list's.`),
    status: ProspectStatus.default('identified').describe(`${PROSPECT_STATUSES_HELP}; default identified.`),
    notes: FreeText(10_000).nullable().default(null).describe('Free-text notes.'),
    contact_path: Line(500).nullable().default(null).describe('How to reach them, e.g. a contact page.'),
  }),
  output: SavedProspectRecord,
  errors: ['invalid_input', 'idempotency_key_required', 'idempotency_key_reused', 'idempotency_key_in_use'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  validate: (ctx, input) => {
    const prepared = prepareProspectUrl(input.url, ctx.engine.providers.checkUrl);
    return prepared.ok ? [] : [{ path: 'url', message: prepared.reason }];
  },
  handler: async (ctx, input) => {
    const { created, item } = await save(ctx.engine, ctx.db, ctx.principal.orgId, input);
    return { status: created ? 201 : 200, body: { ...item, already_saved: !created }, resourceId: item.item_id };
  },
});
