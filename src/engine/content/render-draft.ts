/**
 * A draft as one document with its citations as footnotes (get_content_artifacts `format`): markdown with `[^n]`
 * references and a definitions list giving each source's title and URL (and the source's words when they differ
 * from the sentence), and HTML rendered from that markdown with `marked`.
 *
 * Everything scraped is hostile: source titles and quotes are backslash-escaped in the markdown, and the HTML
 * renderer shows raw HTML as text, keeps only http(s), mailto and fragment links, and never loads images.
 */
import { Marked, type Tokens } from 'marked';
import { escapeHtml as esc } from '../rendering/html.ts';
import { escapeMarkdown } from '../rendering/markdown.ts';

/** A researched page as the artifacts list it. */
export interface DraftSource {
  id: number;
  url: string;
  title: string;
}

/** A citation of the draft: where its claim ends in the text (null when it is not there word for word). */
export interface FootnoteCitation {
  at: [number, number] | null;
  sourceUrl: string;
  /** The source's words, only when the sentence is not quoted from them word for word. */
  quote?: string;
}

export interface DraftDocumentInput {
  /** The draft's markdown as stored: `[n]` markers and a closing `## Sources` list. */
  content: string;
  citations: readonly FootnoteCitation[];
  sources: readonly DraftSource[];
  /** Said at the top of the document (the offline writer's "quoted research draft"), or null. */
  notice: string | null;
}

interface Note {
  label: number;
  url: string;
  title: string;
  quote?: string;
}

const SOURCES_HEADING = /^##[ \t]+(?:sources|references)[ \t]*$/gim;
// A citation marker group after a sentence: ` [3]`, ` [1, 2]`, `[1][2]`; never link text (`[1](url)`) or a definition.
const MARKER = /[ \t]*\[(\d+(?:\s*,\s*\d+)*)\](?![(:])/g;
const MARKERS_AT_START = /^(?:[ \t]*\[\d+(?:\s*,\s*\d+)*\](?![(:]))*/;
// A Sources list line: `3. [Title](url)` (offline writer) or `- [3] [Title](url)` (model writers).
const LIST_LINE = /^\s*(?:(\d+)[.)]|[-*+]\s+\[(\d+)\])\s+\[((?:\\.|[^\]\\])*)\]\((<[^>]*>|[^)\s]+)\)/;

/** A URL as a markdown autolink when it is http(s), else as escaped text. */
function markdownUrl(url: string): string {
  if (!/^https?:\/\//i.test(url)) return escapeMarkdown(url);
  return `<${url.replace(/[\s<>]/g, (ch) => encodeURIComponent(ch))}>`;
}

/** The draft's body and its closing Sources section (empty when it has none). */
function splitSources(content: string): { body: string; list: string } {
  let at = -1;
  for (const m of content.matchAll(SOURCES_HEADING)) at = m.index;
  return at < 0 ? { body: content, list: '' } : { body: content.slice(0, at), list: content.slice(at) };
}

/** Marker number -> source, from the draft's own Sources list, else the researched source with that id. */
function markerSources(list: string, sources: readonly DraftSource[]): Map<number, { url: string; title: string }> {
  const map = new Map<number, { url: string; title: string }>(sources.map((s) => [s.id, s]));
  for (const line of list.split('\n')) {
    const m = LIST_LINE.exec(line);
    if (!m) continue;
    const url = m[4]!.replace(/^<|>$/g, '');
    map.set(Number(m[1] ?? m[2]), { url, title: m[3]!.replace(/\\(.)/g, '$1') });
  }
  return map;
}

/** The draft as markdown with footnotes, the notice under its title. */
export function renderDraftMarkdown(input: DraftDocumentInput): string {
  const { body, list } = splitSources(input.content);
  const byMarker = markerSources(list, input.sources);
  const titleOf = new Map(input.sources.map((s) => [s.url, s.title]));
  for (const s of byMarker.values()) if (!titleOf.has(s.url)) titleOf.set(s.url, s.title);

  const notes = new Map<string, Note>();
  const ref = (url: string, quote?: string): string => {
    const key = `${url}\u0000${quote ?? ''}`;
    let note = notes.get(key);
    if (!note) {
      note = { label: notes.size + 1, url, title: titleOf.get(url) || url, ...(quote ? { quote } : {}) };
      notes.set(key, note);
    }
    return `[^${note.label}]`;
  };
  const convertMarkers = (text: string) =>
    text.replace(MARKER, (whole, numbers: string) => {
      const found = numbers.split(',').flatMap((n) => {
        const s = byMarker.get(Number(n.trim()));
        return s ? [s] : [];
      });
      return found.length ? [...new Set(found.map((s) => ref(s.url)))].join('') : whole;
    });

  // Citations with a place in the body put their footnotes where their sentence ends, replacing its markers.
  const ends = new Map<number, FootnoteCitation[]>();
  for (const c of input.citations) {
    if (c.at && c.at[1] <= body.length) ends.set(c.at[1], [...(ends.get(c.at[1]) ?? []), c]);
  }
  let out = '';
  let pos = 0;
  for (const end of [...ends.keys()].sort((a, b) => a - b)) {
    const at = Math.max(end, pos);
    out += convertMarkers(body.slice(pos, at));
    const markers = MARKERS_AT_START.exec(body.slice(at))![0];
    out += [...new Set(ends.get(end)!.map((c) => ref(c.sourceUrl, c.quote)))].join('');
    pos = at + markers.length;
  }
  out += convertMarkers(body.slice(pos));

  let text = out.trim();
  if (input.notice) {
    const quoted = `> ${escapeMarkdown(input.notice)}`;
    const h1 = /^#[ \t][^\n]*\n/.exec(text);
    text = h1 ? `${h1[0]}\n${quoted}\n${text.slice(h1[0].length)}` : `${quoted}\n\n${text}`;
  }
  const definitions = [...notes.values()].map((n) => {
    const title = n.title === n.url ? '' : `${escapeMarkdown(n.title)}, `;
    const quote = n.quote ? ` Quote: “${escapeMarkdown(n.quote)}”` : '';
    return `[^${n.label}]: ${title}${markdownUrl(n.url)}${quote}`;
  });
  return definitions.length ? `${text}\n\n${definitions.join('\n')}\n` : `${text}\n`;
}

interface FootnotesToken extends Tokens.Generic {
  type: 'footnotes';
  items: { label: string; tokens: Tokens.Generic[] }[];
}

const FOOTNOTE_RUN = /^(?:\[\^[\w-]+\]:[^\n]*(?:\n|$))+/;
const FOOTNOTE_LINE = /^\[\^([\w-]+)\]:[ \t]*(.*)$/;

/**
 * One parser for drafts: GitHub-flavoured markdown plus footnotes, with raw HTML shown as text, links other than
 * http(s), mailto and fragments reduced to their text, and images reduced to their alt text.
 */
const draftParser = new Marked(
  { gfm: true, async: false },
  {
    renderer: {
      html({ text }) {
        return esc(text);
      },
      link({ href, title, tokens }) {
        const text = this.parser.parseInline(tokens);
        if (!/^(?:https?:\/\/|mailto:|#)/i.test(href)) return text;
        return `<a href="${esc(href)}"${title ? ` title="${esc(title)}"` : ''} rel="nofollow noopener">${text}</a>`;
      },
      image({ text }) {
        return esc(text);
      },
    },
    extensions: [
      {
        name: 'footnoteRef',
        level: 'inline',
        start: (src) => {
          const i = src.indexOf('[^');
          return i < 0 ? undefined : i;
        },
        tokenizer(src) {
          const m = /^\[\^([\w-]+)\](?!:)/.exec(src);
          return m ? { type: 'footnoteRef', raw: m[0], label: m[1] } : undefined;
        },
        renderer: (token) => {
          const label = esc(String(token.label));
          return `<sup class="footnote-ref"><a href="#fn-${label}">${label}</a></sup>`;
        },
      },
      {
        name: 'footnotes',
        level: 'block',
        start: (src) => /^\[\^[\w-]+\]:/m.exec(src)?.index,
        tokenizer(src) {
          const run = FOOTNOTE_RUN.exec(src);
          if (!run) return undefined;
          const items = run[0]
            .split('\n')
            .map((line) => FOOTNOTE_LINE.exec(line))
            .filter((m): m is RegExpExecArray => m !== null)
            .map((m) => ({ label: m[1]!, tokens: this.lexer.inlineTokens(m[2]!) as Tokens.Generic[] }));
          return { type: 'footnotes', raw: run[0], items } satisfies FootnotesToken;
        },
        renderer(token) {
          const items = (token as FootnotesToken).items.map(
            (i) => `<li id="fn-${esc(i.label)}">${this.parser.parseInline(i.tokens)}</li>`,
          );
          return `<section class="footnotes"><ol>\n${items.join('\n')}\n</ol></section>\n`;
        },
      },
    ],
  },
);

/** The document's title: the given one, else the markdown's first H1 as text. */
function documentTitle(markdown: string, title: string | null): string {
  if (title) return title;
  const h1 = /^#[ \t]+(.*)$/m.exec(markdown);
  return h1 ? h1[1]!.replace(/\\(.)/g, '$1').trim() : 'Draft';
}

/** The draft's footnoted markdown as an HTML page; `title` (the SEO title) names it, else its H1. */
export function renderDraftHtml(markdown: string, title: string | null): string {
  const body = draftParser.parse(markdown) as string;
  return `<!doctype html>\n<html><head><meta charset="utf-8"><title>${esc(documentTitle(markdown, title))}</title></head>\n<body><article>\n${body}</article></body></html>\n`;
}
