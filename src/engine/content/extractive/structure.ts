/**
 * Reading a page into ordered blocks (heading, paragraph, list item): from an Extraction (its main text in
 * document order, classified with its headings, lists, paragraphs and tables) or from markdown (the imported page
 * and the knowledge base). Order matters: a sentence's section is the heading above it.
 */
import type { Extraction } from '../../analysis/extract/types.ts';
import { countText, normalizeSpace } from './text.ts';

export interface Block {
  kind: 'heading' | 'paragraph' | 'item' | 'raw';
  text: string;
  /** Heading level (1-6); 0 for other blocks. */
  level: number;
  /** Items of one list share a list number; -1 for other blocks. */
  list: number;
  ordered: boolean;
}

const key = (s: string): string => normalizeSpace(s).toLowerCase();

/** Looks like a heading line when the extractor gave no headings: short, capitalised, no closing punctuation. */
function headingLike(line: string): boolean {
  const words = countText(line);
  return (
    words >= 1 && words <= 14 && /^[\p{Lu}\p{N}]/u.test(line) && !/[.!,;:…"”)\]]$/u.test(line) && /\p{L}/u.test(line)
  );
}

const CODE_SIGNALS: readonly RegExp[] = [
  /\b[A-Za-z_][\w.]*\([^)]*\)/, // a call: f(x), asyncio.Queue(maxsize=10)
  /\w=[\w"'[({]/, // an assignment or keyword argument without spaces: maxsize=10
  /\s[=:]\s?[\w"'[({]|\s==?\s/, // an assignment with spaces: stop = asyncio.Event()
  /\b[a-z]+_[a-z_]+\b/, // snake_case names
  /[{};]|=>|->/, // braces, semicolons, arrows
  /(?:^|\s)(?:def|async def|await|import|from \S+ import|return|const|let|function|class|for \w+ in)\s/,
];

/**
 * A line of code (from a `<pre>` block: the extraction's text keeps no markup). Only lines the extraction did not
 * classify as a paragraph, list item or heading are tested, and it takes three different signals, so prose that
 * names `asyncio.gather()` is kept.
 */
export function looksLikeCode(line: string): boolean {
  return CODE_SIGNALS.filter((r) => r.test(line)).length >= 3;
}

/**
 * Blocks of an extraction. `mainText` gives the order (blocks separated by blank lines, list items, table cells and
 * line breaks by single newlines); the extraction's headings, lists, paragraphs and tables classify the lines.
 * When the extractor filled none of those, headings are guessed by shape (docs/extractive-writer.md section 1).
 */
export function readExtraction(ex: Extraction): Block[] {
  const headingLevel = new Map<string, number>();
  for (const h of ex.headings) if (!headingLevel.has(key(h.text))) headingLevel.set(key(h.text), h.level);
  if (ex.h1 && !headingLevel.has(key(ex.h1))) headingLevel.set(key(ex.h1), 1);
  const items = new Map<string, boolean>();
  for (const l of ex.lists) for (const i of l.items) items.set(key(i), l.ordered);
  const paragraphs = new Set(ex.paragraphs.map(key));
  const cells = new Set<string>();
  for (const t of ex.tables) for (const c of [...t.headers, ...t.rows.flat()]) cells.add(key(c));
  const structured = ex.headings.length > 0 || ex.paragraphs.length > 0 || ex.lists.length > 0;

  const out: Block[] = [];
  let list = -1;
  let lists = 0;
  const groups = ex.mainText.split(/\n\s*\n/);
  groups.forEach((group, g) => {
    let lines = group.split('\n').map(normalizeSpace).filter(Boolean);
    if (!structured && lines.length > 1) {
      // Without the extractor's tables, a run of short unpunctuated lines is a table: keep only its caption.
      const cells = lines.filter((l) => countText(l) <= 6 && !/[.!?]$/.test(l)).length;
      if (lines.length >= 5 && cells / lines.length >= 0.6)
        lines = headingLike(lines[0] ?? '') ? lines.slice(0, 1) : [];
      if (lines.length === 0) return;
    }
    lines.forEach((line, i) => {
      const k = key(line);
      const level = headingLevel.get(k);
      let block: Block;
      if (level !== undefined) block = { kind: 'heading', text: line, level, list: -1, ordered: false };
      else if (cells.has(k) && !items.has(k) && !paragraphs.has(k)) return;
      else if (structured && !items.has(k) && !paragraphs.has(k) && looksLikeCode(line)) return;
      else if (items.has(k)) block = { kind: 'item', text: line, level: 0, list: 0, ordered: items.get(k) ?? false };
      else if (paragraphs.has(k)) block = { kind: 'paragraph', text: line, level: 0, list: -1, ordered: false };
      else if (i > 0) block = { kind: 'item', text: line, level: 0, list: 0, ordered: false };
      else if (!structured && i === 0 && g < groups.length - 1 && headingLike(line) && !/:$/.test(line)) {
        block = { kind: 'heading', text: line, level: out.length === 0 ? 1 : 2, list: -1, ordered: false };
      } else block = { kind: 'paragraph', text: line, level: 0, list: -1, ordered: false };
      if (block.kind === 'item') {
        const prev = out[out.length - 1];
        if (prev?.kind !== 'item') list = lists++;
        block.list = list;
      }
      out.push(block);
    });
  });
  return out;
}

const MD_HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const MD_ITEM = /^\s*([-*+]|\d+[.)])\s+(.*)$/;

/** Blocks of markdown: ATX headings, list items (with continuation lines), paragraphs; tables and code as raw. */
export function readMarkdown(markdown: string): Block[] {
  const out: Block[] = [];
  let para: string[] = [];
  let lists = 0;
  let inList = false;
  let fence: string[] | null = null;
  const flush = (): void => {
    if (para.length > 0)
      out.push({ kind: 'paragraph', text: normalizeSpace(para.join(' ')), level: 0, list: -1, ordered: false });
    para = [];
  };
  for (const line of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    if (fence) {
      fence.push(line);
      if (/^\s*(```|~~~)/.test(line)) {
        out.push({ kind: 'raw', text: fence.join('\n'), level: 0, list: -1, ordered: false });
        fence = null;
      }
      continue;
    }
    if (/^\s*(```|~~~)/.test(line)) {
      flush();
      inList = false;
      fence = [line];
      continue;
    }
    const heading = MD_HEADING.exec(line);
    const item = MD_ITEM.exec(line);
    if (!line.trim()) {
      flush();
      continue;
    }
    if (heading) {
      flush();
      inList = false;
      out.push({
        kind: 'heading',
        text: normalizeSpace(heading[2] ?? ''),
        level: heading[1]?.length ?? 2,
        list: -1,
        ordered: false,
      });
    } else if (
      /^\s*\|/.test(line) ||
      /^\s*([-*_])(\s*\1){2,}\s*$/.test(line) ||
      /^\s*!\[[^\]]*\]\([^)]*\)\s*$/.test(line)
    ) {
      flush();
      inList = false;
      const prev = out[out.length - 1];
      if (prev?.kind === 'raw' && /^\s*\|/.test(line) && prev.text.trimStart().startsWith('|'))
        prev.text += `\n${line}`;
      else out.push({ kind: 'raw', text: line, level: 0, list: -1, ordered: false });
    } else if (item) {
      flush();
      if (!inList) lists += 1;
      inList = true;
      out.push({
        kind: 'item',
        text: normalizeSpace(item[2] ?? ''),
        level: 0,
        list: lists - 1,
        ordered: /\d/.test(item[1] ?? ''),
      });
    } else if (inList && /^\s+\S/.test(line) && out[out.length - 1]?.kind === 'item') {
      const prev = out[out.length - 1];
      if (prev) prev.text = normalizeSpace(`${prev.text} ${line}`);
    } else {
      inList = false;
      para.push(line.replace(/^\s*>\s?/, ''));
    }
  }
  if (fence) out.push({ kind: 'raw', text: fence.join('\n'), level: 0, list: -1, ordered: false });
  flush();
  return out;
}
