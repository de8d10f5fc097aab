/**
 * Where text leaves the extraction layer, it is cleaned of what operation inputs refuse (src/text-hygiene.ts): a
 * page's title, headings, links and main text end up in briefs, drafts and sources, which a client sends back
 * (score_content's draft, a topic, notes); a C1 character from a mis-decoded page or a planted control or override
 * character must not make the service refuse its own output. Prose fields keep their line feeds, and each of their
 * lines is clean as one-line text (text-hygiene.ts `lines`: a sentence of it may become a brief's point); every
 * other string is one line (short text).
 */
import { cleanText, type CleanKind } from '../../../text-hygiene.ts';
import type { ForumThread } from './thread.ts';
import type { Extraction } from './types.ts';

/**
 * Every string in `value` cleaned; strings under a key named in `prose` (at any depth) as lines of text. What needs no
 * cleaning comes back as the same object (nearly every page), so extraction allocates nothing more for it.
 */
function cleanDeep<T>(value: T, prose: ReadonlySet<string>, kind: CleanKind): T {
  if (typeof value === 'string') return cleanText(value, kind) as T;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    value.forEach((v: unknown, i) => {
      const c = cleanDeep(v, prose, kind);
      if (c !== v) (out ??= [...(value as unknown[])])[i] = c;
    });
    return (out ?? value) as T;
  }
  if (value !== null && typeof value === 'object') {
    let out: Record<string, unknown> | null = null;
    for (const [k, v] of Object.entries(value)) {
      const c = cleanDeep(v, prose, prose.has(k) ? 'lines' : kind);
      if (c !== v) (out ??= { ...(value as Record<string, unknown>) })[k] = c;
    }
    return (out ?? value) as T;
  }
  return value;
}

/** The page's prose: its main text and paragraphs, and FAQ answers. */
const EXTRACTION_PROSE: ReadonlySet<string> = new Set<keyof Extraction | 'answer'>([
  'mainText',
  'paragraphs',
  'answer',
]);

/** An extraction whose every string passes the input validator: prose as lines, the rest as short text. */
export function cleanExtraction(extraction: Extraction): Extraction {
  return cleanDeep(extraction, EXTRACTION_PROSE, 'short');
}

/** A thread's lines are mainText's lines (cleaned the same, so they still align); authors are names. */
const THREAD_PROSE: ReadonlySet<string> = new Set(['lines']);

/** A forum thread cleaned as its extraction is. */
export function cleanThread(thread: ForumThread): ForumThread {
  return cleanDeep(thread, THREAD_PROSE, 'short');
}
