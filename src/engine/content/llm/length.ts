/**
 * Word counting for the LLM writer's length control. The body is the page without its `## Sources` list; citation
 * markers, link targets and Markdown syntax are not words. Scripts written without spaces (Chinese, Japanese, Thai,
 * ...) are counted with Intl.Segmenter's word-like segments, everything else by letter/number runs, so `don't`,
 * `e-mail` and `3.5` each count once.
 */

/** Share of the target the draft may miss by: 15 percent either way (docs/llm-writer.md). */
export const LENGTH_TOLERANCE = 0.15;

const SOURCES_HEADING = /^#{1,6}[ \t]+sources[ \t]*#*[ \t]*$/gim;
const CITATION = /\[\d+(?:\s*[,;–-]\s*\d+)*\](?!\()/g;
const NO_SPACE_SCRIPTS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD = /[\p{L}\p{N}]+(?:['’._-][\p{L}\p{N}]+)*/gu;

/** The page without its trailing `## Sources` section (the last such heading and everything after it). */
export function bodyOf(markdown: string): string {
  let cut = -1;
  for (const m of markdown.matchAll(SOURCES_HEADING)) cut = m.index;
  return cut >= 0 ? markdown.slice(0, cut) : markdown;
}

/** Visible text of Markdown, roughly: no images, link targets, citation markers, table rules or syntax marks. */
export function plainText(markdown: string): string {
  return markdown
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(CITATION, ' ')
    .replace(/^\s*\|?[\s:|-]*-{3,}[\s:|-]*$/gm, ' ')
    .replace(/[#*_`>|~]/g, ' ');
}

/** Words of the page body (headings included), excluding the Sources list and citation markers. */
export function countWords(markdown: string, language = 'en'): number {
  const text = plainText(bodyOf(markdown));
  if (!NO_SPACE_SCRIPTS.test(text)) return (text.match(WORD) ?? []).length;
  let segmenter: Intl.Segmenter;
  try {
    segmenter = new Intl.Segmenter(language, { granularity: 'word' });
  } catch {
    segmenter = new Intl.Segmenter('en', { granularity: 'word' });
  }
  let n = 0;
  for (const s of segmenter.segment(text)) if (s.isWordLike) n++;
  return n;
}

/** The accepted word counts for a target: within LENGTH_TOLERANCE of it. */
export function lengthWindow(target: number): { min: number; max: number } {
  return { min: Math.ceil(target * (1 - LENGTH_TOLERANCE)), max: Math.floor(target * (1 + LENGTH_TOLERANCE)) };
}

/** Whether `words` is inside the window of `target`. */
export function withinTarget(words: number, target: number): boolean {
  const { min, max } = lengthWindow(target);
  return words >= min && words <= max;
}
