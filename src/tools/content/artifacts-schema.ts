import { z } from 'zod';
import { ARTIFACT_FORMATS, ARTIFACT_INCLUDES, BRIEF_TERMS } from '../../engine/content/artifact-parts.ts';

/**
 * get_content_artifacts' input and answer: `include` picks the parts of the JSON answer, `format` answers JSON or the
 * draft rendered as one markdown or HTML document (src/engine/content/artifacts-view.ts has the exact rules).
 */

const PART_LIST = ARTIFACT_INCLUDES.join(', ');

/**
 * The parts to answer: an array of names (MCP, or a repeated REST query parameter), each of which may also be a
 * comma-separated list (`?include=draft,review`). Unknown names are one field error on `include`.
 */
export const Include = z
  .preprocess(
    (value, ctx) => {
      const list = typeof value === 'string' ? [value] : value;
      if (!Array.isArray(list) || !list.every((v) => typeof v === 'string')) return value;
      const names = list
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter(Boolean);
      const unknown = names.filter((n) => !(ARTIFACT_INCLUDES as readonly string[]).includes(n));
      if (unknown.length > 0) {
        const shown = unknown.slice(0, 5).map((n) => JSON.stringify(n.slice(0, 40)));
        ctx.addIssue({
          code: 'custom',
          message: `Unknown artifact part(s): ${shown.join(', ')}. Use any of: ${PART_LIST}.`,
        });
        return value;
      }
      return [...new Set(names)];
    },
    z.array(z.enum(ARTIFACT_INCLUDES)),
  )
  .optional()
  .describe(
    'Parts (format json): brief (short: SEO fields, headings, FAQ questions, top terms), all, or outline, seo_metadata, entities, faqs, draft, citations, review, score. Default: draft,brief over MCP, all over REST.',
  );

export const Format = z
  .enum(ARTIFACT_FORMATS)
  .default('json')
  .describe('json (default), or the draft as one markdown or html document.');

const Notice = z
  .string()
  .nullable()
  .describe(
    'What the writer produced: for the offline (extractive) writer "quoted research draft: ..." (sentences quoted from the sources; rewrite before publishing); null for model writers.',
  );

const Writer = z.string().nullable().describe('extractive, or the model provider that wrote the text.');

const Sources = z
  .array(z.object({ id: z.number().int(), url: z.string(), title: z.string(), platform: z.string() }))
  .nullable();

export const ArtifactDraft = z
  .looseObject({
    format: z.string(),
    content: z.string().describe('The draft as markdown; every sentence ends with its source marker [n].'),
    word_count: z.number().int().optional(),
    word_count_target: z.number().int().optional(),
    within_tolerance: z.boolean().optional(),
  })
  .describe('The draft without its per-sentence list: each sentence is in content once; citations point into it.');

export const ArtifactCitation = z
  .looseObject({
    at: z
      .tuple([z.number().int(), z.number().int()])
      .optional()
      .describe(
        'Where the claim is in draft.content: draft.content.slice(start, end), in UTF-16 code units (JavaScript string indices). Present when the claim occurs there word for word and the answer includes the draft.',
      ),
    claim: z.string().optional().describe('The claim, when it has no `at`.'),
    source_url: z.string(),
    quote: z
      .string()
      .optional()
      .describe("The source's words, only when the claim is not in them word for word (a verbatim quote is omitted)."),
    quote_at: z
      .tuple([z.number().int(), z.number().int()])
      .optional()
      .describe('Instead of `quote` when those words are themselves in draft.content: where, as for `at`.'),
  })
  .describe(
    "One cited sentence: `at` or `claim`, its source, and the source's words when the claim is not a verbatim quote.",
  );

export const ShortBrief = z
  .object({
    title: z.string().nullable(),
    meta_description: z.string().nullable(),
    slug: z.string().nullable(),
    outline: z.array(z.string()).describe('Each heading as markdown: "## " a section, "### " a subsection.'),
    faqs: z.array(z.string()).describe('The questions.'),
    terms: z.array(z.string()).describe(`The ${BRIEF_TERMS} most important terms.`),
  })
  .nullable()
  .describe('The brief in short form (include brief, and the MCP default); null before research wrote one.');

/** The JSON answer; parts not asked for with `include` are absent. */
export const ArtifactsJson = z.object({
  job_id: z.string(),
  status: z.string(),
  writer: Writer,
  notice: Notice,
  brief: ShortBrief.optional(),
  outline: z.array(z.unknown()).nullable().optional(),
  seo_metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  entities: z.array(z.unknown()).nullable().optional(),
  faqs: z.array(z.unknown()).nullable().optional(),
  draft: ArtifactDraft.nullable().optional(),
  citations: z.array(ArtifactCitation).nullable().optional(),
  sources: Sources,
  review: z.record(z.string(), z.unknown()).nullable().optional(),
  score: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .describe(
      "A content job's draft scored with the Optimize formula against its researched pages: rankabilityScore, categoryScores and recommendations (most points first). Null until the scoring stage, and for Autopilot (its review carries scores).",
    ),
});

/** The answer for format markdown or html: the rendered draft (REST sends `content` itself as the body). */
export const ArtifactsDocument = z.object({
  job_id: z.string(),
  status: z.string(),
  writer: Writer,
  notice: Notice,
  format: z.enum(['markdown', 'html']),
  content: z.string().describe('The draft rendered as one document, its citations as footnotes.'),
});

export const ArtifactsAnswer = z.union([ArtifactsJson, ArtifactsDocument]);
