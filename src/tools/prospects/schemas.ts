import { Uuid } from '../common/schemas.ts';
import { longText, shortText } from '../common/text.ts';
import {
  joinOr,
  OPPORTUNITY_TYPES,
  PROSPECT_STATUS_MEANING,
  PROSPECT_STATUSES,
} from '../../engine/prospects/contract.ts';

export { OpportunityType, ProspectStatus } from '../../engine/prospects/contract.ts';

/** One line of text: trimmed, 1 to `max` characters, no control, bidirectional override or lone surrogate. */
export const Line = (max: number) => shortText({ max });

/** Free text (notes): up to `max` characters; line breaks and tabs allowed, other control characters not. */
export const FreeText = (max: number) => longText({ min: 0, max, trim: false });

export { ClientId as ClientIdParam } from '../common/schemas.ts';
export const ListIdParam = Uuid.describe('List id.');

/** The values of the input enums, with what each means (each tool's field description starts from these). */
export const OPPORTUNITY_TYPES_HELP = joinOr(OPPORTUNITY_TYPES);
export const PROSPECT_STATUSES_HELP = joinOr(
  PROSPECT_STATUSES.map((s) => {
    const meaning: string | null = PROSPECT_STATUS_MEANING[s];
    return meaning === null ? s : `${s} (${meaning})`;
  }),
);

export { ProspectItemRecord, ProspectListRecord, SavedProspectRecord } from '../../engine/prospects/contract.ts';
