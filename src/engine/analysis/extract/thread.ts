/**
 * The posts of a forum thread. `extract()` keeps every post of a page it takes for a forum (the broad route, with
 * comment sections kept) but flattens them into one text; `readThread()` reads the same page again the same way and
 * says, for each line of that text, which post it belongs to, whether it is the post's byline (author name, date)
 * and whether it is nothing but a link (tags, "Share", "#2"). Nothing here changes what `extract()` answers.
 *
 * A post is an element marked up as one (schema.org Comment, Answer, Question, DiscussionForumPosting,
 * SocialMediaPosting microdata) or, on pages without such markup, an element whose class or id names a post
 * ("post", "message", "comment", "reply", "answer", "question", "post-123", "p4410", old Reddit's "thing"). Each
 * line belongs to its innermost post, so nested replies are posts of their own. Authors are read from the whole
 * post, furniture included (author panels are furniture), and are returned as the page wrote them: hostile text.
 */
import type { Block } from './blocks.ts';
import { type DomElement, normalizeSpace, parseDocument, textOf, walkElements } from './dom.ts';
import { findMainContent } from './main-content.ts';
import { readMetadata } from './metadata.ts';
import { guessPageKind } from './page-type.ts';
import { profileFor } from './profile.ts';
import { parseStructuredData } from './structured-data.ts';
import { type TNode, buildTree } from './tree.ts';
import { cleanThread } from './clean.ts';
import type { ExtractOptions } from './types.ts';
import { resolveHref } from './urls.ts';

export interface ThreadPost {
  /** The author's name as the page gives it ('' when unknown); untrusted text. */
  author: string;
}

export interface ThreadLine {
  /** The block's text: line `i` of the extraction's `mainText` (its non-empty lines, in order). */
  text: string;
  /** Index into `posts`; -1 outside every post (thread header, pagination, share bars...). */
  post: number;
  /** The post's byline: its author's name, alone or with a date ("by Gareth » Mon Jan 08, 2024"). */
  byline: boolean;
  /** The whole line is link text. */
  linkOnly: boolean;
}

export interface ForumThread {
  /** In the order of their first line: the first is the opening post (the question). */
  posts: ThreadPost[];
  lines: ThreadLine[];
}

const POST_TYPE = /schema\.org\/(?:Comment|Answer|Question|DiscussionForumPosting|SocialMediaPosting)$/i;
const POST_CLASS =
  /^(?:[a-z0-9]+(?:-|_|--))?(?:post|message|comment|reply|answer|question|postbit|postcontainer|cpost|ipscomment|thing)(?:(?:-|_|--)(?:post|item|\d+))?$/;
const POST_ID = /^(?:[a-z]+[-_])?(?:p|post|message|msg|comment|answer|reply)[-_]?\d+$|^question$/;
const AUTHOR_CLASS =
  /^(?:username|user-name|author|author-name|authorname|post-author|comment-author|message-author|poster|postername|poster-name|message-name|creator|display-name|fn)$/;
const AUTHOR_DATA = ['data-author', 'data-username', 'data-user-name', 'data-poster'];
const MAX_AUTHOR = 120;
/** Words besides the author's name a byline may hold (dates, "by", points, reply counts). */
const BYLINE_WORDS = 12;

/**
 * The thread's posts and, per line of `extract(html, options).mainText`, its post; null when the page is not taken
 * for a forum (the extractor's own page-kind guess) or fewer than two posts are found.
 */
export function readThread(html: string, options: ExtractOptions = {}): ForumThread | null {
  try {
    const thread = readThreadUnsafe(typeof html === 'string' ? html : '', options);
    // Cleaned as extract() cleans mainText, so its lines still match that text line for line.
    return thread && cleanThread(thread);
  } catch {
    return null;
  }
}

function readThreadUnsafe(html: string, options: ExtractOptions): ForumThread | null {
  // The same steps as extract(), so the blocks are the ones its mainText was joined from.
  const doc = parseDocument(html);
  if (!doc) return null;
  const meta = readMetadata(doc);
  const types = parseStructuredData(meta.jsonLd).types;
  const pageUrl = resolveHref(options.url ?? '', null);
  const canonical = meta.canonical ? (resolveHref(meta.canonical, pageUrl) ?? meta.canonical) : '';
  const docUrl = pageUrl ?? resolveHref(canonical, null);
  const { root, nodes } = buildTree(doc);
  if (guessPageKind(meta, types, docUrl ?? '') !== 'forum') return null;
  const main = findMainContent(doc, root, profileFor('forum'), nodes);
  if (main.route !== 'broad') return null;

  const inContainer = (n: TNode): boolean => {
    for (let p = n.parent; p; p = p.parent) if (p === main.container) return true;
    return false;
  };
  const marked = nodes.filter((n) => inContainer(n) && markedAsPost(n));
  const candidates = new Set(marked.length >= 2 ? marked : nodes.filter((n) => inContainer(n) && namedAsPost(n)));
  const byEl = new Map<DomElement, TNode>(nodes.map((n) => [n.el, n]));

  const posts: (ThreadPost & { node: TNode; bylines: TNode[] })[] = [];
  const index = new Map<TNode, number>();
  const postOf = (block: Block): number => {
    for (let n: TNode | null = block.owner; n && n !== main.container; n = n.parent) {
      if (!candidates.has(n)) continue;
      let i = index.get(n);
      if (i === undefined) {
        i = posts.length;
        index.set(n, i);
        const post = readPost(n, candidates, byEl);
        // A body element named like a post inside the real one ("post > message") takes the outer post's author.
        for (let a = n.parent; a && !post.author && a !== main.container; a = a.parent) {
          if (candidates.has(a)) post.author = readPost(a, candidates, byEl).author;
        }
        posts.push(post);
      }
      return i;
    }
    return -1;
  };
  const lines: ThreadLine[] = main.blocks.map((b) => {
    const post = postOf(b);
    return { text: b.text, post, byline: post >= 0 && isByline(b, posts[post]), linkOnly: b.linkChars >= b.chars };
  });
  if (posts.length < 2) return null;
  return { posts: posts.map((p) => ({ author: p.author })), lines };
}

function markedAsPost(n: TNode): boolean {
  return POST_TYPE.test((n.el.getAttribute('itemtype') ?? '').trim());
}

function namedAsPost(n: TNode): boolean {
  if (n.chars === 0 || n.tag === 'a' || n.tag === 'span') return false;
  if (markedAsPost(n)) return true;
  for (const token of n.attrs.split(/\s+/)) if (POST_CLASS.test(token) || POST_ID.test(token)) return true;
  return false;
}

/**
 * The post's author (a data attribute, else the schema.org author, else the first author-named element) and the
 * tree nodes that hold that name: its byline.
 */
function readPost(
  node: TNode,
  candidates: ReadonlySet<TNode>,
  byEl: ReadonlyMap<DomElement, TNode>,
): ThreadPost & { node: TNode; bylines: TNode[] } {
  let author = '';
  for (const name of AUTHOR_DATA) {
    author = normalizeSpace(node.el.getAttribute(name) ?? '');
    if (author) break;
  }
  const named: { node: TNode | undefined; name: string; schema: boolean }[] = [];
  walkElements(node.el, (el) => {
    const inner = byEl.get(el);
    // A nested post has its own author.
    if (inner && inner !== node && candidates.has(inner)) return false;
    if (!isAuthor(el)) return;
    const schema = hasToken(el, 'itemprop', 'author');
    named.push({ node: inner, name: schema ? schemaName(el) : innermostAuthor(el), schema });
    return false;
  });
  author ||= named.find((n) => n.schema && n.name)?.name ?? named.find((n) => n.name)?.name ?? '';
  author = author.slice(0, MAX_AUTHOR);
  const bylines = named
    .filter((n) => n.node && author && n.name.toLowerCase() === author.toLowerCase())
    .map((n) => n.node as TNode);
  return { author, node, bylines };
}

function hasToken(el: DomElement, attr: string, token: string): boolean {
  return (el.getAttribute(attr) ?? '').toLowerCase().split(/\s+/).includes(token);
}

function isAuthor(el: DomElement): boolean {
  if (hasToken(el, 'itemprop', 'author') || hasToken(el, 'rel', 'author')) return true;
  return (el.getAttribute('class') ?? '')
    .toLowerCase()
    .split(/\s+/)
    .some((c) => AUTHOR_CLASS.test(c));
}

/** The text of the innermost author-named element: "Ann" from a comment-author box with an avatar and "Ann says:". */
function innermostAuthor(el: DomElement): string {
  const found: DomElement[] = [];
  walkElements(el, (k) => {
    if (found.length === 0 && isAuthor(k)) found.push(k);
    return found.length === 0;
  });
  return found[0] ? innermostAuthor(found[0]) : textOf(el);
}

/**
 * The name of a schema.org author: its itemprop=name (often a hidden span), else its first link (the profile link,
 * without the reputation and badges beside it), else its text.
 */
function schemaName(el: DomElement): string {
  let name = '';
  let link = '';
  walkElements(el, (k) => {
    if (!name && hasToken(k, 'itemprop', 'name')) name = textOf(k);
    if (!link && k.localName.toLowerCase() === 'a') link = textOf(k);
    return !name;
  });
  return name || link || textOf(el);
}

/**
 * The author's name alone, or a short line holding the element that names the author ("by Gareth » Mon Jan 08,
 * 2024 9:12 pm"), or a line inside it (the author panel's "Messages: 4"). A mention of someone else is not a byline.
 */
function isByline(block: Block, post: { author: string; bylines: TNode[] } | undefined): boolean {
  if (!post?.author) return false;
  if (block.text.toLowerCase() === post.author.toLowerCase()) return true;
  const rest = block.text.split(post.author).join(' ');
  if ((rest.match(/[\p{L}\p{N}]+/gu) ?? []).length > BYLINE_WORDS) return false;
  return post.bylines.some((a) => contains(block.owner, a) || contains(a, block.owner));
}

function contains(outer: TNode, inner: TNode): boolean {
  for (let n: TNode | null = inner; n; n = n.parent) if (n === outer) return true;
  return false;
}
