/**
 * The client's own page (`project_mode: optimize`) as the starting draft's markdown.
 *
 * Only the extractor's main content is used: its `mainText` gives the order (one line per block), its headings,
 * lists, paragraphs and tables say what each line is. On top of the extractor's furniture removal, lines that are
 * page chrome by their text alone are dropped (cookie and consent notices, newsletter boxes, pagination, "Reply" /
 * "Share" / "Report" links, breadcrumbs, "Skip to content"), and no block is written twice: a paragraph, heading,
 * list item or table equal to an earlier one once whitespace, case and closing punctuation are ignored is left out
 * (values without a letter, such as prices and scores, may repeat).
 *
 * The page's H1 (else its title) is the only H1; other H1s become H2, deeper headings keep their level up to H3.
 * List items stay items (`- ` or `1. `), tables become GFM tables. Page text is escaped so it cannot become markup
 * (raw HTML, links, images, block markers).
 *
 * Forum threads (the extractor's own forum guess: DiscussionForumPosting/QAPage JSON-LD, forum software, forum
 * URLs), when the page's HTML is given: every post is its own section, in page order, so the question (the opening
 * post) comes first: `## Question by <author>`, then `## Reply <n> by <author>` per reply, numbered from 1 (`## Question` / `## Reply <n>`
 * without a known author). Author names are untrusted: they are reduced to plain text (letters, digits, spaces and
 * a little punctuation) before they are written. Inside posts, bylines, dates, post numbers, short link-only lines
 * (tags, "#2"), scores, author panels and quote captions ("Bob said:") are dropped, and a quoted block is not
 * repeated. Text outside every post (counts, pagination, share bars, notices) is dropped unless it holds a passage
 * (paragraphs of 8 words or more, 12 words in all; before the first post, only after the thread's title): then it
 * is a post of its own, so a post the thread reader did not recognise (say, an opening post with unusual markup) is
 * not lost.
 */
import { normalizeSpace } from '../analysis/extract/dom.ts';
import { type ForumThread, readThread } from '../analysis/extract/thread.ts';
import type { Extraction, Table } from '../analysis/extract/types.ts';
import { escapeInline, escapeText } from '../rendering/markdown.ts';

/** The page the extraction was made from: needed to split a forum thread into its posts. */
export interface ImportSource {
  html: string;
  url?: string;
}

type Kind = 'heading' | 'paragraph' | 'item';

interface Line {
  text: string;
  kind: Kind;
  level: number;
  ordered: boolean;
  /** Index into the extraction's tables when the line is one of its cells. */
  table: number;
  /** From the thread reader: the line's post (-1 outside every post), byline and link-only flags. */
  post: number;
  byline: boolean;
  linkOnly: boolean;
}

type Out =
  | { kind: 'heading'; text: string; level: number }
  | { kind: 'paragraph'; text: string }
  | { kind: 'item'; text: string; ordered: boolean }
  | { kind: 'table'; table: Table }
  | { kind: 'post'; text: string };

/** Words of a passage that stands as a post of its own when found outside every post of a thread. */
const OUTSIDE_POST_WORDS = 12;
const MAX_AUTHOR_CHARS = 60;

/** The imported page as markdown; `source` (the page's HTML and URL) lets a forum thread keep its posts apart. */
export function importedMarkdown(extraction: Extraction, source?: ImportSource): string {
  const lines = readLines(extraction);
  const thread = source ? alignThread(readThread(source.html, { url: source.url }), lines) : null;
  const title = pageTitle(extraction, lines);
  const ctx: Context = {
    titleKey: key(title),
    forum: thread !== null,
    consent: lines.some((l) => isConsent(l.text)),
  };
  const out = new Writer(key(title));
  if (title) out.push({ kind: 'heading', text: title, level: 1 });
  if (thread) writeThread(out, lines, thread, extraction, ctx);
  else writeLines(out, lines, extraction, ctx, false);
  return out.render();
}

interface Context {
  titleKey: string;
  forum: boolean;
  /** The page shows a cookie notice: its buttons' words ("Accept", "Learn more") are chrome too. */
  consent: boolean;
}

const TITLE_SEPARATOR = /(\s+[|·•»:–—-]\s+)/;

/**
 * The H1: the page's H1, else its title. An H1 that is the site's name (a logo in an <h1>, outside the main
 * content) gives way to the other part of the title when that part heads the main content ("Boiler pressure drops
 * overnight - Heating Talk"); a title used for want of an H1 loses the site's name.
 */
function pageTitle(e: Extraction, lines: readonly Line[]): string {
  const h1 = normalizeSpace(e.h1);
  const title = normalizeSpace(e.title);
  const site = normalizeSpace(e.siteName);
  // Parts and the separators between them: "A", " - ", "B".
  const parts = title.split(TITLE_SEPARATOR);
  const first = parts.length >= 3 ? (parts[0] ?? '') : '';
  const last = parts.length >= 3 ? (parts[parts.length - 1] ?? '') : '';
  const besides = (name: string): string | null => {
    if (!name || !first) return null;
    if (key(last) === key(name)) return parts.slice(0, -2).join('');
    if (key(first) === key(name)) return parts.slice(2).join('');
    return null;
  };
  if (!h1) return besides(site) ?? title;
  if (lines.some((l) => key(l.text) === key(h1))) return h1;
  const other = besides(h1);
  if (other && (key(h1) === key(site) || lines.some((l) => l.kind === 'heading' && key(l.text) === key(other))))
    return other;
  return h1;
}

/** Dedup key: whitespace, case and closing punctuation ignored. */
function key(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.!?…:;,]+$/u, '');
}

function words(text: string): number {
  return (text.match(/[\p{L}\p{N}]+/gu) ?? []).length;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading the extraction into classified lines.

function readLines(e: Extraction): Line[] {
  const headingLevel = new Map<string, number>();
  for (const h of e.headings) if (!headingLevel.has(key(h.text))) headingLevel.set(key(h.text), h.level);
  const items = new Map<string, boolean>();
  for (const l of e.lists) for (const i of l.items) if (!items.has(key(i))) items.set(key(i), l.ordered);
  const paragraphs = new Set(e.paragraphs.map(key));
  const lines: Line[] = [];
  // Blocks are joined with a blank line, list items, table cells and definition items with a single newline.
  for (const group of e.mainText.split('\n\n')) {
    group.split('\n').forEach((raw, i) => {
      const text = normalizeSpace(raw);
      if (!text) return;
      const k = key(text);
      const level = headingLevel.get(k);
      let kind: Kind = 'paragraph';
      if (level !== undefined) kind = 'heading';
      else if (items.has(k)) kind = 'item';
      else if (!paragraphs.has(k) && i > 0) kind = 'item';
      const base = { text, level: level ?? 0, table: -1, post: -1, byline: false, linkOnly: false };
      lines.push({ ...base, kind, ordered: kind === 'item' && (items.get(k) ?? false) });
    });
  }
  markTables(lines, e.tables);
  return lines;
}

/** Marks the runs of lines that are the cells of the extraction's tables, in order. */
function markTables(lines: Line[], tables: readonly Table[]): void {
  let from = 0;
  tables.forEach((t, ti) => {
    const cells = [...t.headers, ...t.rows.flat()].map(normalizeSpace).filter(Boolean);
    if (cells.length === 0) return;
    for (let i = from; i + cells.length <= lines.length; i++) {
      if (cells.every((c, j) => lines[i + j]?.text === c && lines[i + j]?.kind !== 'heading')) {
        for (let j = 0; j < cells.length; j++) (lines[i + j] as Line).table = ti;
        from = i + cells.length;
        return;
      }
    }
  });
}

/** The thread's lines must be the extraction's lines one for one; otherwise the page was not read the same way. */
function alignThread(thread: ForumThread | null, lines: Line[]): ForumThread | null {
  if (!thread || thread.lines.length !== lines.length) return null;
  if (!thread.lines.every((t, i) => normalizeSpace(t.text) === lines[i]?.text)) return null;
  thread.lines.forEach((t, i) =>
    Object.assign(lines[i] as Line, { post: t.post, byline: t.byline, linkOnly: t.linkOnly }),
  );
  return thread;
}

// ---------------------------------------------------------------------------------------------------------------
// Writing.

class Writer {
  readonly blocks: Out[] = [];
  private readonly seen = new Set<string>();
  private pendingPost: string | null = null;

  constructor(titleKey: string) {
    if (titleKey) this.seen.add(titleKey);
  }

  /** A post's header, written only once the post has a block of its own; null ends the post. */
  startPost(header: string | null): void {
    this.pendingPost = header;
  }

  /**
   * Adds a block unless an equal one was written before (the page's H1 counts as written). Blocks without a letter
   * (prices, scores, ranks: "$11.99", "7.9") are values, not passages, and may repeat.
   */
  push(block: Exclude<Out, { kind: 'post' }>): void {
    const value = block.kind !== 'table' && !/\p{L}/u.test(block.text);
    if (!(block.kind === 'heading' && block.level === 1) && !value) {
      const k = block.kind === 'table' ? key(JSON.stringify(block.table)) : key(block.text);
      if (!k || this.seen.has(k)) return;
      this.seen.add(k);
    }
    if (this.pendingPost !== null) {
      this.blocks.push({ kind: 'post', text: this.pendingPost });
      this.pendingPost = null;
    }
    this.blocks.push(block);
  }

  render(): string {
    let md = '';
    let number = 0;
    let prev: Out | undefined;
    for (const b of this.blocks) {
      const continuesList = prev?.kind === 'item' && b.kind === 'item' && prev.ordered === b.ordered;
      if (md) md += continuesList ? '\n' : '\n\n';
      if (b.kind === 'item') {
        number = continuesList ? number + 1 : 1;
        md += `${b.ordered ? `${number}.` : '-'} ${escapeText(b.text)}`;
      } else if (b.kind === 'heading') md += `${'#'.repeat(b.level)} ${escapeHeading(b.text)}`;
      else if (b.kind === 'post') md += `## ${b.text}`;
      else if (b.kind === 'table') md += renderTable(b.table);
      else md += escapeText(b.text);
      prev = b;
    }
    return md;
  }
}

/** Writes lines in order; inside a forum post (`inPost`), headings sit below the post's own H2. */
function writeLines(out: Writer, lines: readonly Line[], e: Extraction, ctx: Context, inPost: boolean): void {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as Line;
    if (line.table >= 0) {
      const t = line.table;
      while (lines[i + 1]?.table === t) i++;
      const table = e.tables[t];
      if (table) out.push({ kind: 'table', table });
      continue;
    }
    if (isChrome(line, ctx)) continue;
    if (line.kind === 'heading') {
      if (key(line.text) === ctx.titleKey) continue;
      out.push({ kind: 'heading', text: line.text, level: inPost ? 3 : Math.min(3, Math.max(2, line.level)) });
    } else if (line.kind === 'item') out.push({ kind: 'item', text: line.text, ordered: line.ordered });
    else out.push({ kind: 'paragraph', text: line.text });
  }
}

function writeThread(out: Writer, lines: readonly Line[], thread: ForumThread, e: Extraction, ctx: Context): void {
  const header = (author: string): string => {
    const name = plainName(author);
    // The first post written is the question; a post left empty (all chrome or repeats) takes no header.
    // Replies are numbered so that two posts by one author never share a heading.
    const posts = out.blocks.filter((b) => b.kind === 'post').length;
    const label = posts > 0 ? `Reply ${posts}` : 'Question';
    return name ? `${label} by ${name}` : label;
  };
  const started = new Set<number>();
  for (let i = 0; i < lines.length;) {
    const post = (lines[i] as Line).post;
    let end = i + 1;
    while (end < lines.length && (lines[end] as Line).post === post) end++;
    let run = lines.slice(i, end);
    i = end;
    if (post < 0) {
      // Text outside every post is chrome (counts, pagination, notices, ads), unless it holds a passage: then it is a
      // post the reader did not recognise. Before the first post, only what follows the thread's title counts.
      if (started.size === 0) {
        const titleAt = run.findLastIndex((l) => key(l.text) === ctx.titleKey);
        run = run.slice(titleAt + 1);
      }
      const passage = run.filter((l) => l.kind === 'paragraph' && !l.linkOnly && words(l.text) >= 8);
      if (passage.filter((l) => !isChrome(l, ctx)).reduce((n, l) => n + words(l.text), 0) < OUTSIDE_POST_WORDS) {
        continue;
      }
      out.startPost(header(''));
    } else if (!started.has(post)) {
      started.add(post);
      out.startPost(header(thread.posts[post]?.author ?? ''));
    }
    // A post that resumes after a nested reply goes on without a header of its own.
    const body = run.filter((l) => !l.byline && !isLinkChrome(l));
    writeLines(out, body, e, ctx, true);
    out.startPost(null);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Chrome: lines that are page furniture by their text alone.

const WE_USE_COOKIES =
  /\b(?:we|this (?:web)?site|our (?:web)?site|(?:web)?site)\b[^.]{0,60}?\b(?:use|uses|using|store|stores|set|sets|place|places|serve|serves)\b[^.]{0,40}?\bcookies\b/i;
const CONSENT_VOCABULARY =
  /\b(?:accept|consent|agree|reject|preferences|settings|privacy|cookie policy|personali[sz]|experience|analytics|advertis|partners|third[- ]part|tracking|traffic|browsing)/i;
const CONSENT_BUTTON =
  /^(?:accept|accept all|accept (?:all )?cookies|allow|allow all|allow (?:all )?cookies|reject|reject all|decline|deny|got it|i agree|agree|ok|okay|i understand|manage (?:cookies|preferences|options|settings)|cookie (?:settings|preferences|policy)|privacy (?:settings|preferences)|necessary only|only necessary|customi[sz]e|learn more|more info(?:rmation)?|read more)[\s.!…]*$/i;
const NEWSLETTER =
  /\b(?:subscribe|sign up|join|get)\b.{0,30}\bour\b.{0,20}\b(?:newsletter|mailing list|e-?mails?|updates)\b|\bjoin [\d,.]+k?\+? (?:subscribers|readers|others)\b|^enter your e-?mail/i;
const PAGINATION = /\bpage\s+\d+\s+(?:of|\/)\s+\d+\b/i;
const PAGE_RUN = /^(?:(?:«|‹|<|>|›|»|←|→|…|\.\.\.|first|last|prev(?:ious)?|next|page|go to page|\d{1,4})(?:\s+|$))+$/i;
const SITE_CHROME =
  /^(?:skip to (?:main )?content|skip navigation|back to top|scroll to top|log ?in|sign ?in|sign up|register|log in or (?:sign up|register)|you must (?:be )?log(?:ged)? in\b.*|click to (?:expand|shrink)[\s.…]*|loading[\s.…]*|advertisement|sponsored)$/i;
const SHARE_LINE =
  /^share(?: this)?(?: post| page| article| thread| story)?\s*:?\s*(?:(?:on\s+)?(?:facebook|twitter|x|\(twitter\)|linkedin|pinterest|reddit|whatsapp|e-?mail|telegram|copy link|print|tumblr|bluesky|mastodon|threads|messenger|flipboard)(?:[\s,|·•]+|$))*$/i;
const ACTIONS = [
  'reply with quote',
  'improve this question',
  'improve this answer',
  'add a comment',
  'report post',
  'report abuse',
  'share this post',
  'share this',
  'link to post',
  'copy link',
  'mark as solution',
  'accept answer',
  'quick reply',
  'post reply',
  'reply to thread',
  'multi-quote',
  'multiquote',
  'reply',
  'replies',
  'quote',
  'share',
  'report',
  'like',
  'likes',
  'unlike',
  'react',
  'reactions',
  'permalink',
  'flag',
  'edit',
  'delete',
  'upvote',
  'downvote',
  'vote',
  'votes',
  'follow',
  'unfollow',
  'bookmark',
  'save',
  'print',
  'email',
  'tweet',
];
const ACTION_RUN = new RegExp(`^(?:(?:${ACTIONS.map((a) => a.replace('-', '\\-')).join('|')})(?:\\s+|$))+$`);
const BREADCRUMB_HOME = /^(?:home|start|index|forums?|board index|community|startseite|accueil|inicio)$/i;
// Forum threads only: post meta that is chrome inside a post.
const MONTH = '(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\\.?';
const DATE = new RegExp(
  [
    `\\b${MONTH}\\s+\\d{1,2}(?:st|nd|rd|th)?,?(?:\\s+\\d{4})?\\b`,
    `\\b\\d{1,2}(?:st|nd|rd|th)?\\.?\\s+${MONTH},?(?:\\s+\\d{4})?\\b`,
    '\\b\\d{4}-\\d{2}-\\d{2}(?:[t ]\\d{2}:\\d{2}(?::\\d{2})?(?:z|[+-]\\d{2}:?\\d{2})?)?\\b',
    '\\b\\d{1,2}[./]\\d{1,2}[./]\\d{2,4}\\b',
    '\\b(?:yesterday|today)\\b',
    '\\b\\d+\\s*(?:seconds?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?)\\s+ago\\b',
  ].join('|'),
  'gi',
);
const TIME = /\b\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?(?=\s|$|[,.;)])/gi;
const WEEKDAY =
  /\b(?:mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?|sat(?:urday)?|sun(?:day)?)\b\.?/gi;
const META_WORDS =
  /\bby\s+\S+|\b(?:on|at|in|posted|submitted|published|written|asked|answered|edited|modified|updated|last|replied|joined|created)\b|[»|•·,–—-]/gi;
const QUOTE_CAPTION =
  /^(?:.{1,60}\s(?:said|wrote|writes|schrieb|a écrit|escribió)\s*:?|quote(?:\s+(?:from|originally posted by)\s+.{1,60})?\s*:?|originally posted by\s+.{1,60})$/i;
const COUNT_LINE =
  /^(?:(?:view |show |see )?all\s+)?\d[\d,.]*k?\s+(?:answers?|replies|reply|comments?|posts?|messages?|votes?|views?|likes?|reactions?|participants?|followers?)(?:\s*[•·|,]\s*\d[\d,.]*k?\s+\p{L}+)*$/iu;
const THREAD_META =
  /^(?:thread starter|started by|discussion in|original poster|tags?:|status:|not open for further replies|sort(?:ed)? by\b)/i;
/** A poster's statistics from the author panel ("Messages: 4", "Trophy Points:"). */
const USER_STAT =
  /^(?:messages|posts|likes(?: received)?|best answers|trophy points|reputation|reaction score|points|joined|location|solutions|karma)\s*:?\s*[\d.,]*k?$/i;
/** A vote or score count, or a post number, alone on its line. */
const SCORE = /^(?:[+\-−]?\d[\d.,]*k?|#\d+)$/i;
const HEADING_CHROME =
  /^(?:share(?: this)?(?: post| article| page)?|leave a (?:reply|comment)|post a (?:reply|comment)|add a comment|your answer|post your answer|reply to this (?:thread|topic))\s*:?$/i;

/** A cookie or consent notice: the site saying it uses cookies, and what for or what to do about it. */
function isConsent(text: string): boolean {
  return words(text) <= 80 && WE_USE_COOKIES.test(text) && CONSENT_VOCABULARY.test(text);
}

function isChrome(line: Line, ctx: Context): boolean {
  const t = line.text;
  const n = words(t);
  if (line.kind === 'heading') {
    if (HEADING_CHROME.test(t) || COUNT_LINE.test(t)) return true;
    const re = /^re:\s*(.+)$/i.exec(t);
    return ctx.forum && re !== null && key(re[1] ?? '') === ctx.titleKey;
  }
  if (isConsent(t) || (ctx.consent && CONSENT_BUTTON.test(t))) return true;
  if (n <= 30 && NEWSLETTER.test(t)) return true;
  if (n <= 12 && PAGINATION.test(t)) return true;
  if (PAGE_RUN.test(t) && (/[a-z]/i.test(t) || n >= 2)) return true;
  if (SITE_CHROME.test(t) || SHARE_LINE.test(t)) return true;
  if (n <= 10 && isActionRun(t)) return true;
  if (n <= 20 && isBreadcrumb(t)) return true;
  if (ctx.forum && n <= 20) {
    return (
      isDateLine(t) ||
      QUOTE_CAPTION.test(t) ||
      COUNT_LINE.test(t) ||
      THREAD_META.test(t) ||
      SCORE.test(t) ||
      USER_STAT.test(t)
    );
  }
  return false;
}

/** Nothing but post and page actions: "Reply | Quote | Report", "Like (3)", "Share". */
function isActionRun(text: string): boolean {
  const rest = text.toLowerCase().replace(/[|·•/,()#+]|\d+/g, ' ');
  return ACTION_RUN.test(normalizeSpace(rest));
}

/** "Home › Forums › Plumbing": three or more short parts between separators. */
function isBreadcrumb(text: string): boolean {
  const t = text.replace(/^you are here:\s*/i, '');
  const strong = /[›»→]/.test(t);
  const parts = t.split(strong ? /\s*[›»→]\s*/ : /\s+[>/|]\s+/);
  if (parts.length < 3 || parts.some((p) => !p || words(p) > 6)) return false;
  return strong || BREADCRUMB_HOME.test(parts[0] ?? '');
}

/** A date, alone or with its time, weekday and "posted on"-style words. */
function isDateLine(text: string): boolean {
  const rest = text.replace(DATE, ' ');
  if (rest === text) return false;
  return !/[\p{L}\p{N}]/u.test(rest.replace(TIME, ' ').replace(WEEKDAY, ' ').replace(META_WORDS, ' '));
}

/** A short line that is nothing but a link inside a post: tags, "#2", the post's date. URLs stay. */
function isLinkChrome(line: Line): boolean {
  return line.linkOnly && words(line.text) <= 4 && !/https?:\/\/|www\./i.test(line.text);
}

// ---------------------------------------------------------------------------------------------------------------
// Escaping: page text is text, never markup.

/** An author's name as plain text: letters, digits, spaces and a little punctuation; at most 60 characters. */
export function plainName(raw: string): string {
  let s = raw.normalize('NFKC').replace(/<[^>]*>/g, ' ');
  s = s.replace(/[^\p{L}\p{M}\p{N}\s.'’&+_-]/gu, ' ');
  // Underscores only inside a word (where they cannot start emphasis); no "www." for autolinks to catch.
  s = s.replace(/(^|[^\p{L}\p{N}])_+/gu, '$1 ').replace(/_+(?=[^\p{L}\p{N}]|$)/gu, ' ');
  s = s.replace(/\bwww\./gi, 'www ');
  s = normalizeSpace(s).replace(/^[\s.'’&+-]+|[\s.&+-]+$/gu, '');
  if (s.length <= MAX_AUTHOR_CHARS) return s;
  const cut = s.slice(0, MAX_AUTHOR_CHARS);
  const space = cut.lastIndexOf(' ');
  return (space > 20 ? cut.slice(0, space) : cut).trim();
}

function escapeHeading(text: string): string {
  return escapeInline(text).replace(/(\s)(#+)\s*$/, '$1\\$2');
}

function renderTable(t: Table): string {
  const rows = t.headers.length > 0 ? [t.headers, ...t.rows] : t.rows;
  const width = Math.max(1, ...rows.map((r) => r.length));
  const cell = (c: string): string => escapeInline(normalizeSpace(c)).replace(/\|/g, '\\|');
  const row = (r: readonly string[]): string =>
    `| ${Array.from({ length: width }, (_, i) => cell(r[i] ?? '')).join(' | ')} |`;
  const [head = [], ...body] = rows;
  return [row(head), `|${' --- |'.repeat(width)}`, ...body.map(row)].join('\n');
}
