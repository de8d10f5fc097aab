/**
 * Word counting for the LLM writer's length control. The body is the page without its `## Sources` list; citation
 * markers, link targets and Markdown syntax are not words. Scripts written without spaces (Chinese, Japanese, Thai,
 * ...) are counted with Intl.Segmenter's word-like segments, everything else by letter/number runs, so `don't`,
 * `e-mail` and `3.5` each count once. The page is read with marked's lexer (src/engine/rendering/markdown.ts).
 */
import type { Token } from 'marked';
import { asMarked, decodeEntities, inlinePlain, lex } from '../../rendering/markdown.ts';

/** Share of the target the draft may miss by: 15 percent either way (docs/llm-writer.md). */
export const LENGTH_TOLERANCE = 0.15;

const CITATION = /\[\d+(?:\s*[,;–-]\s*\d+)*\](?!\()/g;
const NO_SPACE_SCRIPTS =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD = /[\p{L}\p{N}]+(?:['’._-][\p{L}\p{N}]+)*/gu;
const SOURCES = /^sources\s*$/i;

/** The page's block tokens and the index of its last `Sources` heading (the tokens' length when there is none). */
function sourcesCut(markdown: string): { tokens: Token[]; cut: number } {
  const tokens = lex(markdown);
  let cut = tokens.length;
  tokens.forEach((t, i) => {
    const m = asMarked(t);
    if (m.type === 'heading' && SOURCES.test(inlinePlain(m.tokens).trim())) cut = i;
  });
  return { tokens, cut };
}

/** The page without its trailing `## Sources` section (the last such heading and everything after it). */
export function bodyOf(markdown: string): string {
  const { tokens, cut } = sourcesCut(markdown);
  const heading = tokens[cut];
  if (!heading) return markdown;
  const at = markdown.lastIndexOf(heading.raw.trimEnd());
  return at >= 0 ? markdown.slice(0, at) : markdown;
}

/** Visible text of block tokens: headings, prose, list items, quotes, table cells and code; no images, link
 * targets, HTML tags or syntax. */
export function plainText(tokens: readonly Token[]): string {
  const parts: string[] = [];
  for (const tok of tokens) {
    const t = asMarked(tok);
    switch (t.type) {
      case 'heading':
      case 'paragraph':
      case 'text':
        parts.push(t.tokens?.length ? inlinePlain(t.tokens) : t.text);
        break;
      case 'list':
        for (const item of t.items) parts.push(plainText(item.tokens));
        break;
      case 'blockquote':
        parts.push(plainText(t.tokens));
        break;
      case 'table':
        for (const row of [t.header, ...t.rows]) parts.push(row.map((c) => inlinePlain(c.tokens)).join(' \n '));
        break;
      case 'code':
        parts.push(t.text);
        break;
      case 'html':
        parts.push(decodeEntities(t.raw.replace(/<!--[\s\S]*?-->/g, ' ').replace(/<[^>]*>/g, ' ')));
        break;
      default:
        break;
    }
  }
  return parts.join('\n');
}

/** Words of the page body (headings included), excluding the Sources list and citation markers. */
export function countWords(markdown: string, language = 'en'): number {
  const { tokens, cut } = sourcesCut(markdown);
  const text = plainText(tokens.slice(0, cut)).replace(CITATION, ' ');
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
