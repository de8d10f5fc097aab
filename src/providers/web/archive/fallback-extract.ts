/**
 * FALLBACK main-text extractor for archive search, used only when no real extractor is passed in (the analysis
 * extractor in src/engine is the one to use). It drops obvious chrome and keeps the text of the rest.
 */
import { parseHTML } from 'linkedom';

/** The signature archive search takes for main-text extraction. */
export type ExtractText = (html: string, url: string) => { title: string; text: string };

const CHROME =
  'script, style, noscript, template, svg, iframe, form, nav, header, footer, aside, ' +
  '[role="navigation"], [role="banner"], [role="contentinfo"], [aria-hidden="true"], ' +
  '[class*="cookie"], [id*="cookie"], [class*="newsletter"], [class*="advert"], [class*="sidebar"]';

const BLOCKS = new Set([
  'P',
  'DIV',
  'SECTION',
  'ARTICLE',
  'MAIN',
  'LI',
  'UL',
  'OL',
  'TABLE',
  'TR',
  'TD',
  'TH',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'BLOCKQUOTE',
  'PRE',
  'DT',
  'DD',
  'BR',
  'FIGCAPTION',
  'DETAILS',
  'SUMMARY',
]);

interface TextNodeLike {
  nodeType: number;
  nodeName: string;
  textContent: string | null;
  childNodes: ArrayLike<TextNodeLike>;
}

function collect(node: TextNodeLike, out: string[]): void {
  if (node.nodeType === 3) {
    out.push(node.textContent ?? '');
    return;
  }
  const block = BLOCKS.has(node.nodeName);
  if (block) out.push('\n');
  for (let i = 0; i < node.childNodes.length; i++) {
    const child = node.childNodes[i];
    if (child) collect(child, out);
  }
  if (block) out.push('\n');
}

/** FALLBACK extractor: the title and the text outside scripts, navigation, headers, footers and sidebars. */
export const fallbackExtractText: ExtractText = (html) => {
  const { document } = parseHTML(html);
  const title = (document.querySelector('title')?.textContent ?? '').replace(/\s+/g, ' ').trim();
  for (const el of document.querySelectorAll(CHROME)) el.remove();
  const root = (document.querySelector('main') ?? document.body ?? document.documentElement) as unknown as TextNodeLike;
  const parts: string[] = [];
  if (root) collect(root, parts);
  const text = parts
    .join('')
    .split('\n')
    .map((line) => line.replace(/\s+/g, ' ').trim())
    .filter((line) => line !== '')
    .join('\n');
  return { title, text };
};
