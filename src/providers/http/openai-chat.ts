import { z } from 'zod';

/**
 * The answer of an OpenAI chat completion, as the OpenAI writer and the OpenAI search engine read it: loose objects
 * (the API adds fields), every field optional. `message` adds fields to the message (the search model's URL
 * citations).
 */
export function chatCompletionSchema<M extends z.ZodRawShape>(message: M) {
  return z.looseObject({
    model: z.string().optional(),
    choices: z
      .array(
        z.looseObject({
          // null from some OpenAI-compatible servers: read as absent.
          finish_reason: z
            .string()
            .nullish()
            .transform((v) => v ?? undefined),
          message: z
            .looseObject({ content: z.string().nullable().optional(), refusal: z.string().nullable().optional() })
            .extend(message)
            .optional(),
        }),
      )
      .optional(),
    usage: z.looseObject({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() }).optional(),
  });
}
