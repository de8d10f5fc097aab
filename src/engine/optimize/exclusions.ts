/**
 * Every reason a ranking page is not a competitor (docs/scoring.md, "Which pages are competitors"): data only, so
 * the contract (contract.ts) and the console's typed views read it without the selection code.
 */
export const EXCLUSION_REASONS = [
  'same_site',
  'excluded_domain',
  'domain_cap',
  'off_topic',
  'unfetchable',
  'not_html',
  'page_type_mismatch',
] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];
