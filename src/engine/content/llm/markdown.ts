/**
 * Turns the model's Markdown into the Draft: unwraps fences and preambles, normalises citation markers (`[1, 2]`,
 * `[^1]` → `[1][2]`, numbers without a source dropped), removes any Sources list the model wrote, removes every
 * section, sentence, list item and table row that mentions an excluded topic, makes sure the page starts with its
 * H1, appends the `## Sources` list of the sources actually cited, and splits the body into sentences with their
 * section and source URL.
 *
 * The page is read with marked's lexer (CommonMark + GFM): headings (ATX and setext), paragraphs, lists (any bullet,
 * any start number, nested), blockquotes, code (fenced and indented), tables, rules and HTML. Prose is split into
 * sentences with the project's shared splitter over its visible text (link text without the URL, emphasis without
 * its marks); each sentence keeps the Markdown source it came from, so a sentence can be dropped and the rest of
 * the block written back unchanged. Code, tables, rules and HTML are never prose.
 */
import type { MarkedToken, Token, Tokens } from 'marked';
import { splitSentences } from '../../analysis/sentences.ts';
import type { Draft, DraftSentence, ResearchSource } from '../types.ts';
import { countWords } from './length.ts';
import { asMarked, inlinePlain, lex } from '../../rendering/markdown.ts';

/** One sentence of a prose block: its Markdown source and its visible text (both with citation markers). */
interface Piece {
  raw: string;
  /** The splitter's sentences this source covers: one, or none for text that is not prose (a lone image). */
  sentences: string[];
}

interface Item {
  /** Task-list box: null for a plain item. */
  checked: boolean | null;
  blocks: Block[];
}

type Block =
  | { kind: 'heading'; level: number; raw: string; plain: string }
  | { kind: 'text'; pieces: Piece[] }
  | { kind: 'list'; ordered: boolean; start: number; loose: boolean; items: Item[] }
  | { kind: 'quote'; blocks: Block[] }
  | { kind: 'table'; header: Row; rule: string; rows: Row[] }
  | { kind: 'raw'; type: 'code' | 'rule' | 'html'; raw: string };

interface Row {
  raw: string;
  plain: string;
}

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
/** Numeric link reference definitions (`[1]: https://...`): the model's own source list, and they would turn
 * citation markers into links. */
const NUMERIC_DEFINITION = /^ {0,3}\[\^?\d+\]:[ \t]+\S.*$/gm;
/** A preamble before the H1 shorter than this is chatter ("Here is the draft:"); a longer one is content. */
const PREAMBLE_CHARS = 300;

/** The answer without an enclosing ```markdown fence (alone, or after a short preamble). */
function unwrapFence(raw: string): string {
  const md = raw.replace(/\r\n?/g, '\n').trim();
  const tokens = lex(md).map(asMarked);
  const blocks = tokens.filter((t) => t.type !== 'space');
  const last = blocks[blocks.length - 1];
  if (last?.type !== 'code' || last.codeBlockStyle === 'indented') return md;
  const lang = (last.lang ?? '').trim().toLowerCase();
  const alone = blocks.length === 1 && (lang === '' || lang === 'markdown' || lang === 'md');
  const before = blocks.slice(0, -1);
  const afterPreamble =
    (lang === 'markdown' || lang === 'md') &&
    before.every((t) => t.type === 'paragraph') &&
    before.reduce((n, t) => n + t.raw.length, 0) < PREAMBLE_CHARS;
  return alone || afterPreamble ? last.text.trim() : md;
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

/** The page with its citations normalised everywhere but in code blocks, lexed; the preamble before the H1 dropped. */
function tokensOf(md: string, count: number): MarkedToken[] {
  const normalized = lex(md.replace(NUMERIC_DEFINITION, '').trim())
    .map((t) => (t.type === 'code' ? t.raw : normalizeCitations(t.raw, count)))
    .join('');
  const tokens = lex(normalized).map(asMarked);
  const first = tokens.findIndex((t) => t.type === 'heading');
  const offset = tokens.slice(0, Math.max(0, first)).reduce((n, t) => n + t.raw.length, 0);
  const h1 = tokens[first];
  // Chatter before the page ("Here is the draft:") goes; a long first part is content and stays.
  return h1?.type === 'heading' && h1.depth === 1 && offset > 0 && offset < PREAMBLE_CHARS
    ? tokens.slice(first)
    : tokens;
}

/** An inline run: its Markdown source and visible text; `split` when the two are the same text (cuttable). */
interface Segment {
  raw: string;
  plain: string;
  split: boolean;
}

function segments(tokens: readonly Token[]): Segment[] {
  return tokens.flatMap((tok): Segment[] => {
    const t = asMarked(tok);
    if (t.type === 'checkbox') return [];
    const plain = inlinePlain([t]);
    return [{ raw: t.raw, plain, split: t.type === 'text' && !t.tokens?.length && plain === t.raw }];
  });
}

/** Where each sentence starts in `plain`, matching their non-space characters in order; null when they differ. */
function sentenceStarts(plain: string, sentences: readonly string[]): number[] | null {
  const starts: number[] = [];
  const space = (c: string | undefined) => c !== undefined && /\s/.test(c);
  let i = 0;
  for (const s of sentences) {
    let started = false;
    for (let j = 0; j < s.length; j++) {
      if (space(s[j])) continue;
      while (space(plain[i])) i++;
      if (plain[i] !== s[j]) return null;
      if (!started) starts.push(i);
      started = true;
      i++;
    }
  }
  return starts;
}

/** Sentences of inline Markdown, each with the source it came from. */
function piecesOf(tokens: readonly Token[], language: string): Piece[] {
  const segs = segments(tokens);
  const raw = segs.map((s) => s.raw).join('');
  const plain = segs
    .map((s) => s.plain)
    .join('')
    .replace(/\s/g, ' ');
  const sentences = splitSentences(plain, language).filter((s) => s.trim());
  const tidy = (r: string) => r.replace(/(?:\\|[ \t]*)\n[ \t]*/g, ' ').trim();
  const starts = sentences.length > 1 ? sentenceStarts(plain, sentences) : null;
  if (!starts) return tidy(raw) ? [{ raw: tidy(raw), sentences }] : [];

  // A position in the visible text maps into the source: exactly inside plain text; inside a link or emphasis, to
  // its nearer edge (`nearest`, where a piece is cut) or to its start (where a sentence's text is).
  const rawAt = (p: number, nearest: boolean): number => {
    let pAt = 0;
    let rAt = 0;
    for (const s of segs) {
      if (p === pAt) return rAt;
      if (p < pAt + s.plain.length) {
        if (s.split) return rAt + (p - pAt);
        return !nearest || (p - pAt) * 2 < s.plain.length ? rAt : rAt + s.raw.length;
      }
      pAt += s.plain.length;
      rAt += s.raw.length;
    }
    return raw.length;
  };
  const cuts = [...new Set([0, ...starts.slice(1).map((p) => rawAt(p, true)), raw.length])].sort((a, b) => a - b);
  const ranges = cuts
    .slice(0, -1)
    .map((from, i) => ({ from, raw: tidy(raw.slice(from, cuts[i + 1])), sentences: [] as string[] }));
  // Each sentence goes with the piece that holds the start of its text.
  sentences.forEach((s, k) => {
    const at = rawAt(starts[k]!, false);
    const range = ranges.findLast((r) => r.from <= at) ?? ranges[0]!;
    range.sentences.push(s);
  });
  const pieces: Piece[] = [];
  let pending: string[] = [];
  for (const r of ranges) {
    if (!r.raw) {
      pending.push(...r.sentences);
      continue;
    }
    pieces.push({ raw: r.raw, sentences: [...pending, ...r.sentences] });
    pending = [];
  }
  pieces[pieces.length - 1]?.sentences.push(...pending);
  return pieces;
}

const oneLine = (s: string) => s.replace(/\s*\n\s*/g, ' ').trim();

function blocksOf(tokens: readonly Token[], language: string): Block[] {
  const out: Block[] = [];
  for (const tok of tokens) {
    const t = asMarked(tok);
    switch (t.type) {
      case 'heading':
        out.push({ kind: 'heading', level: t.depth, raw: oneLine(t.text), plain: oneLine(inlinePlain(t.tokens)) });
        break;
      case 'paragraph':
        out.push({ kind: 'text', pieces: piecesOf(t.tokens, language) });
        break;
      case 'text':
        // A tight list item's text; its inline tokens, or plain text when marked gave none.
        out.push({
          kind: 'text',
          pieces: piecesOf(t.tokens?.length ? t.tokens : [{ type: 'text', raw: t.raw, text: t.text }], language),
        });
        break;
      case 'list':
        out.push({
          kind: 'list',
          ordered: t.ordered,
          start: typeof t.start === 'number' ? t.start : 1,
          loose: t.loose || t.items.some((i) => i.loose),
          items: t.items.map((i) => ({
            checked: i.task ? Boolean(i.checked) : null,
            blocks: blocksOf(i.tokens, language),
          })),
        });
        break;
      case 'blockquote':
        out.push({ kind: 'quote', blocks: blocksOf(t.tokens, language) });
        break;
      case 'table': {
        const [header = '', rule = '', ...rows] = t.raw.trimEnd().split('\n');
        const cells = (c: readonly Tokens.TableCell[]) => c.map((x) => inlinePlain(x.tokens)).join(' | ');
        const plains = t.rows.length === rows.length ? t.rows.map(cells) : rows;
        out.push({
          kind: 'table',
          header: { raw: header, plain: cells(t.header) },
          rule,
          rows: rows.map((raw, i) => ({ raw, plain: plains[i] ?? raw })),
        });
        break;
      }
      case 'code':
        out.push({ kind: 'raw', type: 'code', raw: t.raw.replace(/\n+$/, '') });
        break;
      case 'hr':
        out.push({ kind: 'raw', type: 'rule', raw: t.raw.trim() });
        break;
      case 'html':
        if (t.raw.trim()) out.push({ kind: 'raw', type: 'html', raw: t.raw.trim() });
        break;
      default:
        // space, def (link definitions), checkbox: nothing to keep.
        break;
    }
  }
  return out;
}

/** Drops every block from a heading to the next heading of the same or a higher level. */
function dropSections(blocks: Block[], drop: (h: { level: number; plain: string; raw: string }) => boolean): Block[] {
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

/** Sentence text without markers, with no space before punctuation. */
function cleanSentence(s: string): string {
  return s
    .replace(MARKER, '')
    .replace(/\s+/g, ' ')
    .replace(/\s+([.,;:!?])/g, '$1')
    .trim();
}

/** The blocks without anything that mentions an excluded topic (an emptied list item, list or quote goes too). */
function filterBlocks(blocks: readonly Block[], bad: (text: string) => boolean): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case 'heading':
        if (!bad(b.plain) && !bad(b.raw)) out.push(b);
        break;
      case 'text': {
        const pieces = b.pieces.filter((p) => !bad(p.raw) && !p.sentences.some((s) => bad(cleanSentence(s))));
        if (pieces.length) out.push({ ...b, pieces });
        break;
      }
      case 'list': {
        const items = b.items.flatMap((item) => {
          const kept = filterBlocks(item.blocks, bad);
          // An item whose own text went takes its nested blocks with it.
          const lead = item.blocks[0];
          if (!kept.length || (lead?.kind === 'text' && kept[0] !== undefined && kept[0].kind !== 'text')) return [];
          return [{ ...item, blocks: kept }];
        });
        if (items.length) out.push({ ...b, items });
        break;
      }
      case 'quote': {
        const kept = filterBlocks(b.blocks, bad);
        if (kept.length) out.push({ ...b, blocks: kept });
        break;
      }
      case 'table':
        if (!bad(b.header.raw) && !bad(b.header.plain))
          out.push({ ...b, rows: b.rows.filter((r) => !bad(r.raw) && !bad(r.plain)) });
        break;
      case 'raw':
        if (!bad(b.raw)) out.push(b);
        break;
    }
  }
  return out;
}

const indent = (text: string, width: number) => text.replace(/\n(?!\n|$)/g, `\n${' '.repeat(width)}`);

function render(blocks: readonly Block[], separator = '\n\n'): string {
  return blocks
    .map((b): string => {
      switch (b.kind) {
        case 'heading':
          return `${'#'.repeat(b.level)} ${b.raw}`;
        case 'text':
          return b.pieces.map((p) => p.raw).join(' ');
        case 'list':
          return b.items
            .map((item, i) => {
              const marker = b.ordered ? `${b.start + i}. ` : '- ';
              const box = item.checked === null ? '' : item.checked ? '[x] ' : '[ ] ';
              return `${marker}${box}${indent(render(item.blocks, b.loose ? '\n\n' : '\n'), marker.length)}`;
            })
            .join(b.loose ? '\n\n' : '\n');
        case 'quote':
          return render(b.blocks)
            .split('\n')
            .map((l) => (l ? `> ${l}` : '>'))
            .join('\n');
        case 'table':
          return [b.header.raw, b.rule, ...b.rows.map((r) => r.raw)].join('\n');
        case 'raw':
          return b.raw;
      }
    })
    .join(separator);
}

function sentencesOf(blocks: readonly Block[], ctx: FinishContext, state: { section: string }): DraftSentence[] {
  const out: DraftSentence[] = [];
  for (const b of blocks) {
    if (b.kind === 'heading') {
      state.section = cleanSentence(b.plain);
    } else if (b.kind === 'text') {
      for (const s of b.pieces.flatMap((p) => p.sentences)) {
        const text = cleanSentence(s);
        if (!text) continue;
        const first = [...s.matchAll(MARKER)][0];
        const url = first ? (ctx.sources[Number(first[1]) - 1]?.url ?? null) : null;
        out.push({ text, section: state.section, sourceUrl: url });
      }
    } else if (b.kind === 'list') {
      for (const item of b.items) out.push(...sentencesOf(item.blocks, ctx, state));
    } else if (b.kind === 'quote') {
      out.push(...sentencesOf(b.blocks, ctx, state));
    }
  }
  return out;
}

/** Citation numbers in the page's text (not in code). */
function cited(blocks: readonly Block[]): number[] {
  const numbers: number[] = [];
  const scan = (text: string) => {
    for (const m of text.replace(/`[^`]*`/g, '').matchAll(MARKER)) numbers.push(Number(m[1]));
  };
  for (const b of blocks) {
    if (b.kind === 'heading') scan(b.raw);
    else if (b.kind === 'text') b.pieces.forEach((p) => scan(p.raw));
    else if (b.kind === 'list') b.items.forEach((i) => numbers.push(...cited(i.blocks)));
    else if (b.kind === 'quote') numbers.push(...cited(b.blocks));
    else if (b.kind === 'table') [b.header, ...b.rows].forEach((r) => scan(r.raw));
    else if (b.type === 'html') scan(b.raw);
  }
  return numbers;
}

function sourcesList(blocks: readonly Block[], sources: readonly ResearchSource[]): string {
  const numbers = [...new Set(cited(blocks))].sort((a, b) => a - b);
  const lines = numbers.flatMap((n) => {
    const s = sources[n - 1];
    return s ? [`- [${n}] [${(s.title || s.url).replace(/[[\]]/g, '')}](${s.url})`] : [];
  });
  return lines.length ? `\n\n## Sources\n\n${lines.join('\n')}` : '';
}

/** The Draft for the model's Markdown answer. */
export function finishDraft(raw: string, ctx: FinishContext): Draft {
  const tokens = tokensOf(unwrapFence(raw), ctx.sources.length);
  let blocks = dropSections(blocksOf(tokens, ctx.language), (h) => SOURCES_HEADINGS.test(cleanSentence(h.plain)));
  const bad = ctx.mentionsExcluded;
  blocks = filterBlocks(
    dropSections(blocks, (h) => h.level > 1 && (bad(h.plain) || bad(h.raw))),
    bad,
  );
  const firstHeading = blocks.find((b) => b.kind === 'heading');
  if (!(firstHeading?.kind === 'heading' && firstHeading.level === 1))
    blocks.unshift({ kind: 'heading', level: 1, raw: ctx.h1, plain: ctx.h1 });
  const h1Block = blocks.find((b) => b.kind === 'heading' && b.level === 1);
  const h1 = h1Block?.kind === 'heading' ? cleanSentence(h1Block.plain) : ctx.h1;
  const markdown = `${render(blocks)}${sourcesList(blocks, ctx.sources)}\n`;
  return {
    markdown,
    wordCount: countWords(markdown, ctx.language),
    sentences: sentencesOf(blocks, ctx, { section: h1 }),
  };
}
