/**
 * Turns the model's Markdown into the Draft: unwraps fences and preambles, normalises citation markers (`[1, 2]`,
 * `[^1]` → `[1][2]`, numbers without a source dropped), removes any Sources list the model wrote, removes every
 * section, sentence, list item and table row that mentions an excluded topic, makes sure the page starts with its
 * H1, appends the `## Sources` list of the sources actually cited, and splits the body into sentences with their
 * section and source URL.
 */
import type { Draft, DraftSentence, ResearchSource } from '../types.ts';
import { countWords } from './length.ts';
import { splitSentences } from './sentences.ts';

type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'text'; prefix: string; text: string; tight: boolean }
  | { kind: 'raw'; type: 'code' | 'table' | 'rule'; lines: string[] };

export interface FinishContext {
  sources: readonly ResearchSource[];
  /** The brief's H1, used when the model's answer has none. */
  h1: string;
  language: string;
  mentionsExcluded: (text: string) => boolean;
}

const SOURCES_HEADINGS =
  /^(sources?|references?|works cited|bibliography|citations|quellen|quellenangaben|literatur|références|sources et références|fuentes|referencias|fonti|riferimenti|bronnen|fontes|referências|источники|źródła|källor|kilder|lähteet|kaynaklar|出典|参考文献|参考資料|参考资料|来源|출처|참고 문헌)\s*:?$/i;
const MARKER = /\[(\d+)\](?!\()/g;
const LIST_OR_QUOTE = /^(\s*(?:[-*+]|\d+[.)])\s+|\s*>\s?)(.*)$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.+?)\s*#*\s*$/;

function unwrap(raw: string): string {
  let md = raw.replace(/\r\n?/g, '\n').trim();
  const fenced = /^```(?:markdown|md)?[ \t]*\n([\s\S]*?)\n```$/i.exec(md);
  if (fenced) md = fenced[1]!.trim();
  // Chatter before the page ("Here is the draft:") goes; a long first part is content and stays.
  const h1 = /^#[ \t]+\S/m.exec(md);
  if (h1 && h1.index > 0 && h1.index < 300 && !/^#/m.test(md.slice(0, h1.index))) md = md.slice(h1.index);
  return md;
}

function expandList(inner: string, count: number): number[] {
  const out: number[] = [];
  for (const part of inner.split(/\s*[,;]\s*/)) {
    const range = /^(\d+)\s*[–-]\s*(\d+)$/.exec(part);
    const [a, b] = range ? [Number(range[1]), Number(range[2])] : [Number(part), Number(part)];
    for (let n = a; n <= Math.min(b, a + count); n++) out.push(n);
  }
  return out;
}

const NO_SPACE_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}]/u;

/**
 * `[^1]` and `[1, 2]` / `[1-3]` become `[1][2]`...; markers without a researched source are removed; a marker after
 * the full stop moves before it (`fact.[2]` → `fact [2].`), where sentence splitting keeps it with its sentence.
 */
export function normalizeCitations(md: string, count: number): string {
  return md
    .replace(/\[\^(\d+)\]/g, '[$1]')
    .replace(/\[(\d+(?:\s*(?:[,;]|[–-])\s*\d+)+)\](?!\()/g, (_m, inner: string) =>
      expandList(inner, count)
        .map((n) => `[${n}]`)
        .join(''),
    )
    .replace(/[ \t]?\[(\d+)\](?!\()/g, (m, n: string) => (Number(n) >= 1 && Number(n) <= count ? m : ''))
    .replace(
      /([^\s.!?。！？])([.!?。！？]+)[ \t]*((?:\[\d+\])+)(?!\()/gu,
      (_m, prev: string, stop: string, marks: string) => `${prev}${NO_SPACE_CHAR.test(prev) ? '' : ' '}${marks}${stop}`,
    );
}

function parse(md: string): Block[] {
  const lines = md.split('\n');
  const blocks: Block[] = [];
  let blankBefore = true;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const prev = blocks[blocks.length - 1];
    if (!line.trim()) {
      blankBefore = true;
      continue;
    }
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      const body = [line];
      while (++i < lines.length) {
        body.push(lines[i]!);
        if (lines[i]!.trim().startsWith(fence[1]!)) break;
      }
      blocks.push({ kind: 'raw', type: 'code', lines: body });
    } else if (HEADING.test(line)) {
      const m = HEADING.exec(line)!;
      blocks.push({ kind: 'heading', level: m[1]!.length, text: m[2]! });
    } else if (/^\s*\|/.test(line)) {
      const body = [line];
      while (i + 1 < lines.length && /^\s*\|/.test(lines[i + 1]!)) body.push(lines[++i]!);
      blocks.push({ kind: 'raw', type: 'table', lines: body });
    } else if (/^\s{0,3}([-*_])(?:\s*\1){2,}\s*$/.test(line)) {
      blocks.push({ kind: 'raw', type: 'rule', lines: [line] });
    } else if (LIST_OR_QUOTE.test(line)) {
      const m = LIST_OR_QUOTE.exec(line)!;
      const tight = !blankBefore && prev?.kind === 'text' && prev.prefix !== '';
      blocks.push({ kind: 'text', prefix: m[1]!.replace(/\s+$/, ' '), text: m[2]!.trim(), tight });
    } else if (!blankBefore && prev?.kind === 'text') {
      // A soft-wrapped line continues its paragraph or list item.
      prev.text = `${prev.text} ${line.trim()}`;
    } else {
      blocks.push({ kind: 'text', prefix: '', text: line.trim(), tight: false });
    }
    blankBefore = false;
  }
  return blocks;
}

/** Drops every block from a heading to the next heading of the same or a higher level. */
function dropSections(blocks: Block[], drop: (h: { level: number; text: string }) => boolean): Block[] {
  const out: Block[] = [];
  let skipLevel = 0;
  for (const b of blocks) {
    if (b.kind === 'heading') {
      if (skipLevel && b.level > skipLevel) continue;
      skipLevel = 0;
      if (drop(b)) {
        skipLevel = b.level;
        continue;
      }
    } else if (skipLevel) continue;
    out.push(b);
  }
  return out;
}

/** Sentence text without markers and inline Markdown. */
export function cleanSentence(s: string): string {
  return s
    .replace(MARKER, '')
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\*\*|__|`/g, '')
    .replace(/(^|[^\p{L}\p{N}])[*_]([^*_]+)[*_](?![\p{L}\p{N}])/gu, '$1$2')
    .replace(/\s+/g, ' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .trim();
}

function filterExcluded(blocks: Block[], ctx: FinishContext): Block[] {
  const bad = ctx.mentionsExcluded;
  const out: Block[] = [];
  for (const b of dropSections(blocks, (h) => h.level > 1 && bad(h.text))) {
    if (b.kind === 'heading') {
      if (!bad(b.text)) out.push(b);
    } else if (b.kind === 'text') {
      const kept = splitSentences(b.text, ctx.language).filter((s) => !bad(cleanSentence(s)));
      if (kept.length) out.push({ ...b, text: kept.join(' ') });
    } else if (b.type === 'table') {
      const [header, rule, ...rows] = b.lines;
      if (header === undefined || bad(header)) continue;
      const keptRows = rows.filter((r) => !bad(r));
      out.push({ ...b, lines: [header, ...(rule === undefined ? [] : [rule]), ...keptRows] });
    } else if (!b.lines.some(bad)) {
      out.push(b);
    }
  }
  return out;
}

function render(blocks: readonly Block[]): string {
  let md = '';
  let prev: Block | undefined;
  for (const b of blocks) {
    const text =
      b.kind === 'heading'
        ? `${'#'.repeat(b.level)} ${b.text}`
        : b.kind === 'text'
          ? `${b.prefix}${b.text}`
          : b.lines.join('\n');
    const tight = b.kind === 'text' && b.tight && prev?.kind === 'text' && prev.prefix !== '';
    md += prev === undefined ? text : `${tight ? '\n' : '\n\n'}${text}`;
    prev = b;
  }
  return md;
}

function sentencesOf(blocks: readonly Block[], ctx: FinishContext): DraftSentence[] {
  const out: DraftSentence[] = [];
  let section = ctx.h1;
  for (const b of blocks) {
    if (b.kind === 'heading') {
      section = cleanSentence(b.text);
      continue;
    }
    if (b.kind !== 'text') continue;
    for (const s of splitSentences(b.text, ctx.language)) {
      const text = cleanSentence(s);
      if (!text) continue;
      const first = [...s.matchAll(MARKER)][0];
      const url = first ? (ctx.sources[Number(first[1]) - 1]?.url ?? null) : null;
      out.push({ text, section, sourceUrl: url });
    }
  }
  return out;
}

function sourcesList(body: string, sources: readonly ResearchSource[]): string {
  const withoutCode = body.replace(/```[\s\S]*?```/g, '');
  const cited = [...new Set([...withoutCode.matchAll(MARKER)].map((m) => Number(m[1])))].sort((a, b) => a - b);
  const lines = cited.flatMap((n) => {
    const s = sources[n - 1];
    return s ? [`- [${n}] [${(s.title || s.url).replace(/[[\]]/g, '')}](${s.url})`] : [];
  });
  return lines.length ? `\n\n## Sources\n\n${lines.join('\n')}` : '';
}

/** The Draft for the model's Markdown answer. */
export function finishDraft(raw: string, ctx: FinishContext): Draft {
  const md = normalizeCitations(unwrap(raw), ctx.sources.length);
  let blocks = dropSections(parse(md), (h) => SOURCES_HEADINGS.test(cleanSentence(h.text)));
  blocks = filterExcluded(blocks, ctx);
  const firstHeading = blocks.find((b) => b.kind === 'heading');
  if (!(firstHeading?.kind === 'heading' && firstHeading.level === 1))
    blocks.unshift({ kind: 'heading', level: 1, text: ctx.h1 });
  const h1Block = blocks.find((b) => b.kind === 'heading' && b.level === 1);
  const h1 = h1Block?.kind === 'heading' ? cleanSentence(h1Block.text) : ctx.h1;
  const body = render(blocks);
  const markdown = `${body}${sourcesList(body, ctx.sources)}\n`;
  return { markdown, wordCount: countWords(markdown, ctx.language), sentences: sentencesOf(blocks, { ...ctx, h1 }) };
}
