/**
 * The parts and formats of get_content_artifacts' answer, in a module of constants only: the answer's schema
 * (src/tools/content/artifacts-schema.ts) names them without importing the shaping (artifacts-view.ts, which reads
 * the store), so the MCP Apps views can take their type from that schema (src/ui/apps/outputs.ts).
 */

/** The whole parts `include` can name; job_id, status, writer, notice and sources are always answered. */
export const ARTIFACT_PARTS = [
  'outline',
  'seo_metadata',
  'entities',
  'faqs',
  'draft',
  'citations',
  'review',
  'score',
] as const;
export type ArtifactPart = (typeof ARTIFACT_PARTS)[number];

/** What `include` takes: a whole part, `brief` (the brief in short form) or `all` (every whole part). */
export const ARTIFACT_INCLUDES = [...ARTIFACT_PARTS, 'brief', 'all'] as const;
export type ArtifactInclude = (typeof ARTIFACT_INCLUDES)[number];

/** Terms the short brief names, most important first. */
export const BRIEF_TERMS = 10;

export const ARTIFACT_FORMATS = ['json', 'markdown', 'html'] as const;
export type ArtifactFormat = (typeof ARTIFACT_FORMATS)[number];
