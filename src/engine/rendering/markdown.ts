/**
 * Markdown in one place: the reader (the LLM writer's drafts, supplied drafts in the fact check, the bench: marked's
 * lexer, CommonMark + GFM, a private instance so that global `marked.use()` calls elsewhere change nothing here), the
 * visible text of inline tokens, and the escaping of hostile text written into Markdown.
 */
import { Marked, type MarkedToken, type Token } from 'marked';

const reader = new Marked({ gfm: true, async: false });

/** The block tokens of a Markdown page. */
export function lex(markdown: string): Token[] {
  return reader.lexer(markdown);
}

/** marked's token union includes a generic token type; every token it produces itself is a MarkedToken. */
export const asMarked = (t: Token): MarkedToken => t as MarkedToken;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Text with the common HTML character references resolved. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#\d{1,7}|#x[\da-f]{1,6}|[a-z]+);/gi, (m, ref: string) => {
    if (ref[0] !== '#') return ENTITIES[ref.toLowerCase()] ?? m;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : m;
  });
}

/**
 * What a reader sees of inline tokens: text, link and emphasis text without their syntax, code spans' code; no
 * images, HTML tags, link targets or task boxes. Citation markers (`[2]`) are text and stay.
 */
export function inlinePlain(tokens: readonly Token[] | undefined): string {
  let out = '';
  for (const tok of tokens ?? []) {
    const t = asMarked(tok);
    switch (t.type) {
      case 'text':
        out += t.tokens?.length ? inlinePlain(t.tokens) : t.escaped ? t.text : decodeEntities(t.text);
        break;
      case 'escape':
        out += t.text;
        break;
      case 'codespan':
        out += decodeEntities(t.text);
        break;
      case 'br':
        out += ' ';
        break;
      case 'strong':
      case 'em':
      case 'del':
        out += inlinePlain(t.tokens);
        break;
      case 'link':
        out += t.autolink ? t.text : inlinePlain(t.tokens);
        break;
      case 'image':
      case 'html':
      case 'checkbox':
        break;
      default:
        out += 'text' in t && typeof t.text === 'string' ? t.text : '';
    }
  }
  return out;
}

/*
 * Writing hostile text into Markdown. Two strengths: `escapeMarkdown` for short strings shown as they are (source
 * titles and quotes in footnotes: every character that could start markup is escaped), and `escapeText` /
 * `escapeInline` for prose that writers go on to quote (an imported page: only what would become markup is escaped,
 * so the text stays readable).
 */

/** Text as literal markdown: punctuation that could start markup is backslash-escaped; line breaks become spaces. */
export function escapeMarkdown(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\\`*_[\]<>|~&!#]/g, '\\$&');
}

/** Escapes what inside a line could become markup: raw HTML and autolinks, inline links and images, backslashes. */
export function escapeInline(text: string): string {
  return text
    .replace(/\\(?=[!-/:-@[-`{-~])/g, '\\\\')
    .replace(/<(?=[A-Za-z/!?])/g, '\\<')
    .replace(/\]\(/g, ']\\(');
}

/** Escapes a block's text, including markers at its start that would make it a heading, list, quote or table. */
export function escapeText(text: string): string {
  const s = escapeInline(text);
  const ordered = /^(\d{1,9})([.)])(?=\s|$)/.exec(s);
  if (ordered) return `${ordered[1]}\\${s.slice((ordered[1] ?? '').length)}`;
  if (/^(?:#{1,6}(?:\s|$)|>|[-+*](?:\s|$)|`{3}|~{3}|[-_*](?:\s*[-_*]){2,}\s*$|\||\[[^\]]*\]:)/.test(s)) return `\\${s}`;
  return s;
}
