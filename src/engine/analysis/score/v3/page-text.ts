/**
 * A page's main content as the markdown the version-3 checks read (text.ts): the extraction's main text, line by
 * line, with each line marked as what the extraction found it to be — a heading (with its level), a list item, a
 * table cell, a code line (terms/code.ts) — or else a paragraph. One function for every page, the scored page and
 * the competitors alike, whether it came as HTML, markdown or text, so the same words always read the same.
 */
import type { Extraction } from '../../extract/types.ts';
import { isCodeLine } from '../../terms/code.ts';
import { analyzeText, type AnalyzedText } from './text.ts';

/** The extraction's main content as markdown (see the module comment). */
export function extractionMarkdown(e: Extraction): string {
  const headingLevel = new Map<string, number>();
  for (const h of e.headings) if (!headingLevel.has(h.text.trim())) headingLevel.set(h.text.trim(), h.level);
  const items = new Set(e.lists.flatMap((l) => l.items.map((i) => i.trim())));
  const cells = new Set(e.tables.flatMap((t) => [...t.headers, ...t.rows.flat()].map((c) => c.trim())));
  const out: string[] = [];
  let code: string[] = [];
  const flushCode = () => {
    if (code.length) out.push(['```', ...code, '```'].join('\n'));
    code = [];
  };
  for (const raw of e.mainText.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    if (isCodeLine(raw)) {
      code.push(raw);
      continue;
    }
    flushCode();
    const level = headingLevel.get(line);
    // A code fence opened by a paragraph would swallow the rest of the page.
    const safe = line.replace(/^(?:```|~~~)+\s*/, '');
    if (level !== undefined) out.push(`${'#'.repeat(Math.min(6, Math.max(1, level)))} ${line}`);
    else if (items.has(line)) out.push(`- ${line}`);
    else if (cells.has(line)) out.push(`| ${line.replace(/\|/g, '/')} |`);
    else out.push(safe);
  }
  flushCode();
  return out.join('\n\n');
}

/** A page's markdown and its analysis. */
export interface PageText {
  markdown: string;
  analyzed: AnalyzedText;
}

/** Read once per extraction: a run reads each competitor for its model and again when it is scored itself. */
const read = new WeakMap<Extraction, PageText>();

/** The page text of an extraction (cached for the extraction object). */
export function pageText(e: Extraction): PageText {
  let t = read.get(e);
  if (!t) {
    const markdown = extractionMarkdown(e);
    t = { markdown, analyzed: analyzeText(markdown) };
    read.set(e, t);
  }
  return t;
}
