import type { Analysis } from '../analysis/analysis.ts';
import type { AnalyzedPage } from '../analysis/score/types.ts';
import type { Brief, ClientContext, ContentRequest, Draft } from './types.ts';
import { escapeHtml as esc } from '../rendering/html.ts';

const CITATION = /\s*\[\d+(?:\s*,\s*\d+)*\]/g;
const SOURCES_HEADING = /^##\s+(sources|references)\s*$/i;

/** Inline markdown (links, emphasis) to HTML, without citation markers. */
function inline(text: string): string {
  return esc(text.replace(CITATION, ''))
    .replace(/\[([^\]]+)\]\(([^)\s]+)\)/g, (_m, t: string, href: string) => `<a href="${href}">${t}</a>`)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\*([^*]+)\*/g, '<em>$1</em>');
}

/**
 * The markdown the writers produce (headings, paragraphs, bulleted and numbered lists, links) as HTML, without the
 * Sources list and citation markers: the draft is measured exactly as a competitor page would be.
 */
export function markdownToHtml(markdown: string): string {
  const out: string[] = [];
  let list: 'ul' | 'ol' | null = null;
  let para: string[] = [];
  const flushPara = () => {
    if (para.length) out.push(`<p>${inline(para.join(' '))}</p>`);
    para = [];
  };
  const closeList = () => {
    if (list) out.push(`</${list}>`);
    list = null;
  };
  for (const raw of markdown.split('\n')) {
    const line = raw.trim();
    if (SOURCES_HEADING.test(line)) break;
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const bullet = /^[-*+]\s+(.*)$/.exec(line);
    const numbered = /^\d+[.)]\s+(.*)$/.exec(line);
    if (!line) {
      flushPara();
      closeList();
    } else if (heading) {
      flushPara();
      closeList();
      const level = heading[1]!.length;
      out.push(`<h${level}>${inline(heading[2]!)}</h${level}>`);
    } else if (bullet || numbered) {
      flushPara();
      const kind = bullet ? 'ul' : 'ol';
      if (list !== kind) {
        closeList();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${inline((bullet ?? numbered)![1]!)}</li>`);
    } else {
      closeList();
      para.push(line);
    }
  }
  flushPara();
  closeList();
  return out.join('\n');
}

/** The draft as the page it would publish as: its SEO metadata in the head, the article in the body. */
export function draftHtml(draft: Draft, brief: Brief, request: ContentRequest, client: ClientContext): string {
  const seo = brief.seoMetadata;
  const domain = client.domain?.replace(/^https?:\/\//, '').replace(/\/+$/, '');
  const canonical = domain ? `<link rel="canonical" href="https://${esc(domain)}/${esc(seo.slug)}">` : '';
  return `<!doctype html><html lang="${esc(request.language)}"><head><meta charset="utf-8"><title>${esc(seo.title)}</title><meta name="description" content="${esc(seo.metaDescription)}">${canonical}</head><body><main><article>${markdownToHtml(draft.markdown)}</article></main></body></html>`;
}

/** The draft analysed as a page, ready for the Optimize scorer. */
export function draftAsPage(
  analysis: Analysis,
  draft: Draft,
  brief: Brief,
  request: ContentRequest,
  client: ClientContext,
): AnalyzedPage {
  const domain = client.domain?.replace(/^https?:\/\//, '').replace(/\/+$/, '') ?? 'draft.invalid';
  const url = `https://${domain}/${brief.seoMetadata.slug}`;
  return analysis.analyze(url, analysis.extract(draftHtml(draft, brief, request, client), url), request.language);
}
