/**
 * The draft view (MCP Apps), linked from get_content_artifacts: the draft's markdown laid out as headings,
 * paragraphs and lists (built as DOM text: nothing in a draft becomes markup), with its citations listed below.
 */
import { lexer, type Token, type Tokens } from 'marked';
import { h, list, obj, str } from './dom.ts';
import type { ViewBody } from './outputs.ts';
import { defineView } from './view.ts';

/** The plain text of inline tokens (links, emphasis and code become their text). */
function inline(tokens: Token[] | undefined, fallback: string): string {
  if (!tokens) return fallback;
  return tokens
    .map((t) =>
      'tokens' in t && t.tokens
        ? inline(t.tokens, str((t as { text?: string }).text))
        : str((t as { text?: string }).text) || t.raw,
    )
    .join('');
}

function blocks(tokens: Token[]): Node[] {
  const out: Node[] = [];
  for (const t of tokens) {
    if (t.type === 'heading') {
      const hd = t as Tokens.Heading;
      out.push(h(`h${Math.min(6, Math.max(2, hd.depth))}`, {}, inline(hd.tokens, hd.text)));
    } else if (t.type === 'paragraph')
      out.push(h('p', {}, inline((t as Tokens.Paragraph).tokens, (t as Tokens.Paragraph).text)));
    else if (t.type === 'list') {
      const l = t as Tokens.List;
      out.push(h(l.ordered ? 'ol' : 'ul', {}, ...l.items.map((i) => h('li', {}, inline(i.tokens, i.text)))));
    } else if (t.type === 'blockquote') out.push(h('blockquote', {}, ...blocks((t as Tokens.Blockquote).tokens)));
    else if (t.type === 'code') out.push(h('pre', {}, (t as Tokens.Code).text));
    else if (t.type !== 'space' && 'text' in t) out.push(h('p', {}, str((t as { text?: string }).text)));
  }
  return out;
}

export function renderDraft(body: ViewBody<'get_content_artifacts'>): Node {
  const draft = obj(body.draft);
  const content = str(draft.content) || str(body.content);
  const sources = list(body.sources);
  return h(
    'article',
    {},
    str(body.notice) ? h('p', { class: 'notice', role: 'note' }, str(body.notice)) : null,
    content
      ? h('div', { class: 'draft' }, ...blocks(lexer(content)))
      : h('p', {}, `No draft yet (status ${str(body.status)}).`),
    sources.length ? h('h2', {}, 'Sources') : null,
    sources.length
      ? h('ol', {}, ...sources.map((s) => h('li', {}, `[${String(s.id ?? '')}] ${str(s.title)} (${str(s.url)})`)))
      : null,
  );
}

export const view = defineView(['get_content_artifacts'], renderDraft);
