/**
 * The human view of `agent-api inspect`: one block of labelled sections per page, for reading in a terminal. The
 * main text is cut at a word near MAIN_TEXT_SHOWN characters with a note of its full length (`--json` has it all);
 * headings past HEADINGS_SHOWN are counted, not listed.
 */
import type { InspectedPage } from './inspect-page.ts';
import type { InspectFailureCode } from './inspect-source.ts';

export const MAIN_TEXT_SHOWN = 800;
export const HEADINGS_SHOWN = 40;

const grouped = (n: number) => n.toLocaleString('en-US');
const fixed = (n: number) => n.toFixed(2);

/**
 * The first `max` characters or so of a text, ending at a word (a word longer than half of `max` is cut), with the
 * paragraphs kept; the whole text when shorter. `kept` is how many characters of the text are shown.
 */
export function shorten(text: string, max: number): { shown: string; kept: number; cut: boolean } {
  if (text.length <= max) return { shown: text, kept: text.length, cut: false };
  const head = text.slice(0, max);
  const space = head.search(/\s\S*$/);
  const kept = (space > max / 2 ? head.slice(0, space) : head).trimEnd();
  return { shown: `${kept} …`, kept: kept.length, cut: true };
}

const indent = (text: string, by = '  ') =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => `${by}${l}`);

function whereFrom(p: InspectedPage): string {
  if (p.source === 'file') return `file ${p.input}`;
  const redirected = p.finalUrl !== null && p.finalUrl !== p.url ? `, redirected to ${p.finalUrl}` : '';
  return `${p.source === 'archive' ? 'the web archive' : 'fetched live'}, ${p.fetchedAt ?? ''}${redirected}`;
}

function headerLines(p: InspectedPage): string[] {
  const others = Object.entries(p.pageType.scores)
    .filter(([t]) => t !== p.pageType.type)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([t, s]) => `${t} ${fixed(s)}`)
    .join(', ');
  const language = {
    option: `${p.language.code} (from --language)`,
    page: `${p.language.code} (the page declares ${JSON.stringify(p.language.declared)})`,
    default: `${p.language.code} (the page declares none; the analysis default)`,
  }[p.language.from];
  return [
    `== ${p.input}`,
    `URL:          ${p.finalUrl ?? p.url ?? '(the file names no URL)'}`,
    `From:         ${whereFrom(p)}`,
    `Page type:    ${p.pageType.type} (confidence ${fixed(p.pageType.confidence)}; next: ${others})`,
    `Language:     ${language}`,
    `Title:        ${p.title || '(none)'}`,
    `H1:           ${p.h1 || '(none)'}`,
    `Description:  ${p.metaDescription || '(none)'}`,
    ...(p.canonical ? [`Canonical:    ${p.canonical}`] : []),
    `Words:        ${grouped(p.wordCount)} in the main text`,
  ];
}

function headingLines(p: InspectedPage): string[] {
  const lines = [`Headings (${p.headings.length}):`];
  if (p.headings.length === 0) lines.push('  (none)');
  for (const h of p.headings.slice(0, HEADINGS_SHOWN))
    lines.push(`${'  '.repeat(Math.max(1, h.level - 1))}h${h.level} ${h.text}`);
  if (p.headings.length > HEADINGS_SHOWN) lines.push(`  … ${p.headings.length - HEADINGS_SHOWN} more (--json)`);
  return lines;
}

function mainTextLines(p: InspectedPage): string[] {
  const { shown, kept, cut } = shorten(p.mainText, MAIN_TEXT_SHOWN);
  const note = cut
    ? `the first ${grouped(kept)} of ${grouped(p.mainText.length)} characters; --json has it all`
    : `${grouped(p.mainText.length)} characters, all shown`;
  return [`Main text (${note}):`, ...(shown.trim() === '' ? ['  (empty)'] : indent(shown))];
}

function termLines(p: InspectedPage): string[] {
  const lines = [
    `Terms (top ${p.terms.length} of ${grouped(p.found.terms)} by weight; uses in text / headings / title):`,
  ];
  if (p.terms.length === 0) lines.push('  (none)');
  const width = Math.max(0, ...p.terms.map((t) => t.term.length));
  for (const t of p.terms)
    lines.push(`  ${fixed(t.weight)}  ${t.term.padEnd(width)}  ${t.count} / ${t.headingCount} / ${t.titleCount}`);
  lines.push(
    `Names and other entities (top ${p.entities.length} of ${grouped(p.found.entities)} by weight; kind, type, uses):`,
  );
  if (p.entities.length === 0) lines.push('  (none)');
  const nameWidth = Math.max(0, ...p.entities.map((e) => e.name.length));
  for (const e of p.entities) {
    const what = e.kind === 'name' ? e.type : e.kind;
    lines.push(
      `  ${fixed(e.weight)}  ${e.name.padEnd(nameWidth)}  ${what}, ${e.count} / ${e.headingCount} / ${e.titleCount}`,
    );
  }
  return lines;
}

/** One page's block of lines, ending with an empty line. */
export function formatPage(p: InspectedPage): string[] {
  return [...headerLines(p), ...headingLines(p), ...mainTextLines(p), ...termLines(p), ''];
}

/** The line a page that could not be inspected gets in the human view, in its place among the others. */
export function formatFailure(input: string, error: { code: InspectFailureCode; message: string }): string[] {
  return [`== ${input}`, `Error:        ${error.code}: ${input}: ${error.message}`, ''];
}
