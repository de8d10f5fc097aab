import type { z } from 'zod';
import { ApiError } from '../../errors.ts';
import type { EngineServices } from '../../engine/engine.ts';
import type { ContentRequest, PageContract, Tone } from '../../engine/content/types.ts';
import type { ClientRow } from '../../engine/accounts/clients.ts';
import type { CallContext } from '../define.ts';
import { TONES } from '../../engine/content/types.ts';
import type { CreateAutopilotInput, CreateContentJobInput } from './schemas.ts';

/** Words a draft aims at when the request gives no target (documented in the README). */
export const DEFAULT_WORDS: Record<PageContract, number> = { article: 1_200, commercial_service: 800 };
export const GENERIC_LOCATION = 'United States';

const wordsIn = (text: string) => text.split(/\s+/).filter(Boolean).length;

function tone(requested: Tone | undefined, client: ClientRow): Tone {
  if (requested) return requested;
  return (TONES as readonly string[]).includes(client.default_tone ?? '')
    ? (client.default_tone as Tone)
    : 'clear_practical';
}

export function jobRequest(input: z.output<typeof CreateContentJobInput>, client: ClientRow): ContentRequest {
  const contract = input.page_contract ?? null;
  return {
    topic: input.topic,
    intent: input.intent,
    language: input.language,
    location: input.location ?? GENERIC_LOCATION,
    tone: tone(input.tone, client),
    customInstructions: input.custom_instructions ?? null,
    wordCountTarget:
      input.word_count_target ?? (contract ? DEFAULT_WORDS[contract] : Math.max(100, wordsIn(input.draft_body ?? ''))),
    projectMode: input.project_mode,
    pageContract: contract,
    sourceUrl: input.source_url ?? null,
    researchPlatforms: input.research_platforms,
    draftBody: input.draft_body ?? null,
    context: null,
  };
}

export function autopilotRequest(input: z.output<typeof CreateAutopilotInput>, client: ClientRow): ContentRequest {
  return {
    topic: input.topic,
    intent: input.intent,
    language: input.language,
    location: input.location ?? client.service_area ?? GENERIC_LOCATION,
    tone: tone(input.tone, client),
    customInstructions: input.custom_instructions ?? null,
    wordCountTarget: input.word_count_target ?? DEFAULT_WORDS[input.page_contract],
    projectMode: 'new',
    pageContract: input.page_contract,
    sourceUrl: null,
    researchPlatforms: input.research_platforms,
    draftBody: null,
    context: input.context ?? null,
  };
}

/** Research platforms without a configured provider, as field errors naming the setting that enables each. */
export function platformErrors(
  engine: EngineServices,
  platforms: readonly string[],
): { path: string; message: string }[] {
  const out: { path: string; message: string }[] = [];
  for (const p of platforms) {
    try {
      engine.providers.researchProvider(p as never);
    } catch (err) {
      out.push({
        path: 'research_platforms',
        message: err instanceof ApiError ? err.message : `research platform '${p}' is not available`,
      });
    }
  }
  return out;
}

/** The SSRF check of a URL field, as field errors (no DNS, no I/O). */
export function urlErrors(
  ctx: CallContext,
  field: string,
  url: string | undefined,
): { path: string; message: string }[] {
  if (url === undefined) return [];
  const checked = ctx.engine.providers.checkUrl(url);
  return checked.ok ? [] : [{ path: field, message: checked.reason }];
}
