import { z } from 'zod';
import { LONE_SURROGATE, REFUSED, type TextKind } from '../../text-hygiene.ts';

/**
 * Text hygiene for every text field of every operation input (docs/reliability.md, Hardening (I)).
 *
 * - Every text field refuses lone surrogates (not well-formed Unicode) and control characters: C0 (U+0000-U+001F),
 *   DEL (U+007F) and C1 (U+0080-U+009F).
 * - Long text (notes, instructions, drafts, context) keeps tab, line feed and carriage return, and bidirectional
 *   formatting characters, which prose in right-to-left scripts legitimately uses.
 * - Short identifiers (names, keywords, topics, locations, urls, ids) refuse every control character, tab and line
 *   breaks included, and the bidirectional override and isolate characters (U+202A-U+202E, U+2066-U+2069), which
 *   can make a name display as something else.
 *
 * The character classes live in src/text-hygiene.ts, shared with the cleaning of text taken from pages, so what the
 * service writes passes these checks. The checks are zod refinements, so the operation schemas stay the single source for REST, MCP and OpenAPI, and
 * each failure is a field error naming the field and the offending character.
 */

export type { TextKind };

const codePoint = (ch: string) => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** What is wrong with `s` as text of `kind`, or null when it is clean. */
export function textProblem(s: string, kind: TextKind): string | null {
  const lone = LONE_SURROGATE.exec(s);
  if (lone) return `Must be well-formed Unicode (found a lone surrogate ${codePoint(lone[0])}).`;
  const control = REFUSED[kind].control.exec(s);
  if (control) {
    return kind === 'short'
      ? `Must not contain control characters, tabs or line breaks (found ${codePoint(control[0])}).`
      : `Must not contain control characters other than tabs and line breaks (found ${codePoint(control[0])}).`;
  }
  const bidi = REFUSED[kind].bidi?.exec(s);
  if (bidi) return `Must not contain bidirectional override or isolate characters (found ${codePoint(bidi[0])}).`;
  return null;
}

const refinement = (kind: TextKind) => (s: string, ctx: z.RefinementCtx) => {
  const problem = textProblem(s, kind);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
};

const checkShort = refinement('short');
const checkLong = refinement('long');

/** Adds the short-identifier rules to a string schema (after its trim, so surrounding whitespace is still trimmed). */
export function identifier<T extends z.ZodString>(schema: T): T {
  return schema.superRefine(checkShort);
}

/** Adds the long-text rules to a string schema: tabs, line breaks and bidirectional characters are kept. */
export function prose<T extends z.ZodString>(schema: T): T {
  return schema.superRefine(checkLong);
}

export interface TextOptions {
  /** Fewest characters after trimming (default 1). */
  min?: number;
  max: number;
  /** Trim surrounding whitespace first (default true). */
  trim?: boolean;
}

function base({ min = 1, max, trim = true }: TextOptions): z.ZodString {
  let s = z.string();
  if (trim) s = s.trim();
  if (min > 0) s = s.min(min);
  return s.max(max);
}

/** A short identifier: a name, keyword, topic, location, URL or id; one line, `min` to `max` characters. */
export const shortText = (options: TextOptions) => identifier(base(options));

/** Long free text (notes, instructions, drafts, context): up to `max` characters, multi-line. */
export const longText = (options: TextOptions) => prose(base(options));
