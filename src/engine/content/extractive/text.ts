/**
 * Text primitives of the extractive writer: word tokens, a light English stemmer, stop words, the word-count rule
 * and small string helpers. Everything here is pure and locale-independent (code-unit comparisons only).
 */
import { createHash } from 'node:crypto';
import { contentStems, stemEn, tokenize, type Token } from '../../analysis/words.ts';

export { contentStems, stemEn, tokenize, type Token };

// The counting rule (docs/extractive-writer.md): letters and digits, joined by inner apostrophes, hyphens and dots.
const COUNT_WORD = /[\p{L}\p{N}]+(?:['’.\-‐][\p{L}\p{N}]+)*/gu;

/** The primary subtag of a language tag, lower case; `en` when absent or unusable. */
export function primaryLanguage(tag: string | null | undefined): string {
  const primary = (tag ?? '').trim().split(/[-_]/)[0]?.toLowerCase() ?? '';
  return /^[a-z]{2,8}$/.test(primary) ? primary : 'en';
}

/** Jaccard similarity of two sets. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 0;
  let shared = 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  for (const x of small) if (large.has(x)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/** How many members of `want` are in `have`. */
export function overlap(have: ReadonlySet<string>, want: readonly string[] | ReadonlySet<string>): number {
  let n = 0;
  for (const x of want) if (have.has(x)) n += 1;
  return n;
}

/** Words of plain text under the counting rule. */
export function countText(text: string): number {
  return text.match(COUNT_WORD)?.length ?? 0;
}

/** How a research-gap note starts: `[research gap: the sources say nothing about …]`. */
export const RESEARCH_GAP = '[research gap:';

/**
 * Words of a markdown draft: everything but the `## Sources` section, citation markers (`[3]`), research-gap notes,
 * link targets, images, HTML comments and markdown syntax (heading hashes, list markers, emphasis, table rules).
 */
export function countWords(markdown: string): number {
  let words = 0;
  let inSources = false;
  let inFence = false;
  for (const raw of markdown.replace(/<!--[\s\S]*?-->/g, '').split('\n')) {
    const heading = /^(#{1,6})\s+(.*)$/.exec(raw);
    if (!inFence && heading && (heading[1]?.length ?? 0) <= 2) inSources = /^sources\s*$/i.test(heading[2] ?? '');
    if (/^\s*(```|~~~)/.test(raw)) {
      inFence = !inFence;
      continue;
    }
    if (inSources) continue;
    const line = raw
      .replace(/\[research gap:[^\]]*\]/g, ' ')
      .replace(/^\s*#{1,6}\s+/, '')
      .replace(/^\s*(?:[-*+]|\d+[.)])\s+/, '')
      .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[\d+(?:\s*,\s*\d+)*\]/g, ' ');
    words += countText(line);
  }
  return words;
}

/** Collapses whitespace and trims. */
export function normalizeSpace(text: string): string {
  return text.replace(/[\s\u00a0\u200b]+/g, ' ').trim();
}

/** Upper-cases the first letter. */
export function capitalizeFirst(text: string): string {
  return text.replace(/^\p{Ll}/u, (c) => c.toUpperCase());
}

const SMALL_WORDS = new Set('a an and as at but by for from in into nor of on or per the to vs via with'.split(' '));

/** Title case for titles: small words stay lower case, words with capitals or digits stay as written. */
export function titleCase(text: string): string {
  return normalizeSpace(text)
    .split(' ')
    .map((w, i) => (i > 0 && SMALL_WORDS.has(w) ? w : /[\p{Lu}\d]/u.test(w) ? w : capitalizeFirst(w)))
    .join(' ');
}

/** The first 12 hex digits of the SHA-256 of a text: a stable short id. */
export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/** Code-unit string order, the documented locale-independent tie-break. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Trims text to at most `max` characters at a word boundary, adding an ellipsis when it cut. */
export function trimAtWord(text: string, max: number): string {
  const t = normalizeSpace(text);
  if (t.length <= max) return t;
  const cut = t.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  const head = (space > max * 0.5 ? cut.slice(0, space) : cut).replace(/[\s,;:.\-–—(]+$/u, '');
  return `${head}…`;
}
