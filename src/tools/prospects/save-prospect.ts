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
  OpportunityType,
  ProspectStatus,
  SavedProspectRecord,
} from './schemas.ts';

export const saveProspect = defineOperation({
  name: 'save_prospect',
  title: 'Save a prospect',
  description:
    'Save one known prospect to a list: 201 with the new item, or 200 with the existing item, unchanged, when a canonical variant of the URL is already in the list (already_saved: true; change it with update_prospect). The URL is normalised (case, default port, dot segments, fragment, tracking parameters, sorted query; www., scheme and trailing slash ignored for de-duplication); private, local or metadata hosts, credentials and ports other than 80/443 are refused. Records state only: the URL is never fetched and nobody is contacted. Requires an idempotency key.',
  family: 'prospector',
  http: { method: 'POST', path: '/clients/:client_id/prospect-lists/:list_id/items', status: 201 },
  scope: 'prospector:write',
  subscription: null,
  idempotency: 'required',
  input: z.strictObject({
    client_id: ClientIdParam,
    list_id: ListIdParam,
    url: shortText({ max: MAX_PROSPECT_URL_LENGTH }).describe('A public http(s) URL of the target.'),
    target_name: Line(200).nullable().default(null).describe('Who the target is (site, publication or person).'),
    opportunity_type: OpportunityType.nullable().optional().describe("Defaults to the list's opportunity type."),
    status: ProspectStatus.default('identified'),
    notes: FreeText(10_000).nullable().default(null),
    contact_path: Line(500)
      .nullable()
      .default(null)
      .describe('How to reach the target, e.g. a contact page URL or "editor via form".'),
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
