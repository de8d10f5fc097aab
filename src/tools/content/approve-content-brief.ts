import { z } from 'zod';
import { approveBrief } from '../../engine/content/service.ts';
import { jobDetail } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { ContentJobDetail } from './schemas.ts';
import { longText, shortText } from '../common/text.ts';

const OutlineEdit = z.strictObject({
  heading: shortText({ max: 200 }),
  level: z.union([z.literal(2), z.literal(3)]).default(2),
  points: z
    .array(shortText({ max: 300 }))
    .max(20)
    .default([]),
});
const FaqEdit = z.strictObject({
  question: shortText({ max: 300 }),
  answer: longText({ max: 2_000 })
    .optional()
    .describe("Omitted: the brief's answer to the same question, else the writer answers it."),
});
const SeoEdit = z.strictObject({
  title: shortText({ max: 120 }).optional(),
  meta_description: shortText({ max: 320 }).optional(),
  slug: shortText({ max: 120 })
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Use lower-case letters, digits and single hyphens (e.g. emergency-plumbing).')
    .optional(),
});

export const ApproveInput = z.strictObject({
  job_id: shortText({ max: 64, trim: false }),
  outline: z
    .array(OutlineEdit)
    .min(1)
    .max(30)
    .optional()
    .describe('Replaces the outline: the draft follows these headings, in this order.'),
  faqs: z.array(FaqEdit).max(20).optional().describe('Replaces the FAQs.'),
  seo_metadata: SeoEdit.optional().describe('Replaces the given SEO fields.'),
  custom_instructions: longText({ min: 0, max: 4_000 })
    .optional()
    .describe("Replaces the job's custom instructions for the draft."),
  draft_body: longText({ max: 200_000, trim: false })
    .optional()
    .describe(
      'A draft you wrote from the brief (markdown): no writer runs; the job completes with this draft, scored against the researched pages (artifacts.score, with recommendations) and fact-checked against them (artifacts.review).',
    ),
});

export const approveContentBrief = defineOperation({
  name: 'approve_content_brief',
  title: 'Approve a brief',
  description:
    "Approve the brief of a stepped content job at brief_ready: the job moves to generating_draft and the draft is written. Optionally edit the brief first (outline, faqs, seo_metadata, custom_instructions): the draft follows the edited outline heading for heading. Or pass draft_body, a draft you wrote yourself from the brief: no writer runs, and the job completes with your draft, its Optimize score against the job's researched pages and a fact check of its claims (get_content_artifacts). 409 invalid_state unless the job is a stepped job at brief_ready.",
  family: 'copywriter',
  http: { method: 'POST', path: '/copywriter/jobs/:job_id/approve', status: 200 },
  scope: 'copywriter:run',
  subscription: 'plan_required',
  idempotency: 'none',
  input: ApproveInput,
  output: ContentJobDetail,
  errors: ['invalid_input', 'plan_required', 'invalid_state'],
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async (ctx, input) => {
    const { job_id, outline, faqs, seo_metadata, custom_instructions, draft_body } = input;
    const row = await approveBrief(ctx.engine, ctx.db, ctx.principal.orgId, job_id, {
      briefEdits:
        outline || faqs || seo_metadata
          ? {
              outline,
              faqs: faqs?.map((f) => ({ question: f.question, answer: f.answer ?? null })),
              seoMetadata: seo_metadata && {
                title: seo_metadata.title,
                metaDescription: seo_metadata.meta_description,
                slug: seo_metadata.slug,
              },
            }
          : null,
      customInstructions: custom_instructions,
      draftBody: draft_body,
    });
    ctx.afterCommit(() => ctx.engine.runner.notify());
    return jobDetail(row);
  },
});
