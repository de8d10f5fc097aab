import { z } from 'zod';
import { approveBrief } from '../../engine/content/service.ts';
import { jobDetail } from '../../engine/content/views.ts';
import { defineOperation } from '../define.ts';
import { ContentJobDetail } from './schemas.ts';
import { longText, shortText } from '../common/text.ts';

const OutlineEdit = z.strictObject({
  heading: shortText({ max: 200 }).describe('Section heading.'),
  level: z
    .union([z.literal(2), z.literal(3)])
    .default(2)
    .describe('2 (default): H2; 3: H3 under the H2 before.'),
  points: z
    .array(shortText({ max: 300 }))
    .max(20)
    .default([])
    .describe('Points to cover, ≤ 20 (default none).'),
});
const FaqEdit = z.strictObject({
  question: shortText({ max: 300 }).describe('Question.'),
  answer: longText({ max: 2_000 }).optional().describe("Default: the brief's answer, else the writer's."),
});
const SeoEdit = z.strictObject({
  title: shortText({ max: 120 }).optional().describe('Title tag.'),
  meta_description: shortText({ max: 320 }).optional().describe('Meta description.'),
  slug: shortText({ max: 120 })
    .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'Use lower-case letters, digits and single hyphens (e.g. emergency-plumbing).')
    .optional()
    .describe('lower-case-words-with-hyphens.'),
});

export const ApproveInput = z.strictObject({
  job_id: shortText({ max: 64, trim: false }).describe('Job id (stepped, at brief_ready).'),
  outline: z.array(OutlineEdit).min(1).max(30).optional().describe('1-30 headings the draft follows, in order.'),
  faqs: z.array(FaqEdit).max(20).optional().describe('FAQs, ≤ 20.'),
  seo_metadata: SeoEdit.optional().describe('Replaces the fields given.'),
  custom_instructions: longText({ min: 0, max: 4_000 }).optional().describe('Replaces the custom instructions.'),
  draft_body: longText({ max: 200_000, trim: false })
    .optional()
    .describe('Your markdown draft: scored, fact-checked, not rewritten.'),
});

export const approveContentBrief = defineOperation({
  name: 'approve_content_brief',
  title: 'Approve a brief',
  description:
    "Approve a stepped job's brief at brief_ready, optionally edited or with your own draft_body. Poll get_content_job.",
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
