/** Page-level metadata: title, description, canonical, language, base URL and the JSON-LD sources. */
import { type DomDocument, type DomElement, normalizeSpace, tagOf, textOf, walkElements } from './dom.ts';

export interface PageMetadata {
  title: string;
  metaDescription: string;
  canonical: string;
  lang: string;
  /** href of <base>, as written. */
  baseHref: string;
  ogTitle: string;
  ogType: string;
  /** og:site_name, else application-name: the site's own name for itself. */
  siteName: string;
  generator: string;
  jsonLd: string[];
}

/**
 * Reads the metadata in one pass over the document; <svg> titles and body text are skipped. `onOther` sees every
 * other element of that pass (the page-type signals count form controls there, so the DOM is walked once).
 */
export function readMetadata(doc: DomDocument, onOther?: (el: DomElement, tag: string) => void): PageMetadata {
  const meta: PageMetadata = {
    title: '',
    metaDescription: '',
    canonical: '',
    lang: '',
    baseHref: '',
    ogTitle: '',
    ogType: '',
    siteName: '',
    generator: '',
    jsonLd: [],
  };
  let ogDescription = '';
  let contentLanguage = '';
  const root = doc.documentElement;
  if (root) meta.lang = (root.getAttribute('lang') ?? root.getAttribute('xml:lang') ?? '').trim();
  walkElements(doc, (el: DomElement) => {
    const tag = tagOf(el);
    switch (tag) {
      case 'svg':
      case 'math':
        return false;
      case 'title':
        if (!meta.title) meta.title = textOf(el);
        return false;
      case 'meta': {
        const key = (el.getAttribute('name') ?? el.getAttribute('property') ?? '').trim().toLowerCase();
        const content = normalizeSpace(el.getAttribute('content') ?? '');
        if (key === 'description' && !meta.metaDescription) meta.metaDescription = content;
        else if (key === 'og:description' && !ogDescription) ogDescription = content;
        else if (key === 'og:title' && !meta.ogTitle) meta.ogTitle = content;
        else if (key === 'og:type' && !meta.ogType) meta.ogType = content.toLowerCase();
        else if (key === 'generator' && !meta.generator) meta.generator = content;
        else if (key === 'og:site_name' && content) meta.siteName = content;
        else if (key === 'application-name' && !meta.siteName) meta.siteName = content;
        const equiv = (el.getAttribute('http-equiv') ?? '').toLowerCase();
        if (equiv === 'content-language' && !contentLanguage) contentLanguage = content;
        return false;
      }
      case 'link': {
        const rel = (el.getAttribute('rel') ?? '').toLowerCase().split(/\s+/);
        if (rel.includes('canonical') && !meta.canonical) meta.canonical = (el.getAttribute('href') ?? '').trim();
        return false;
      }
      case 'base':
        if (!meta.baseHref) meta.baseHref = (el.getAttribute('href') ?? '').trim();
        return false;
      case 'script': {
        const type = (el.getAttribute('type') ?? '').toLowerCase();
        if (type.includes('ld+json')) meta.jsonLd.push(rawText(el));
        return false;
      }
      case 'style':
      case 'template':
      case 'noscript':
        return false;
      default:
        onOther?.(el, tag);
        return true;
    }
  });
  if (!meta.metaDescription) meta.metaDescription = ogDescription;
  if (!meta.lang) meta.lang = contentLanguage.split(',')[0]?.trim() ?? '';
  return meta;
}

function rawText(el: DomElement): string {
  let out = '';
  for (let c = el.firstChild; c; c = c.nextSibling) out += c.nodeValue ?? '';
  return out;
}
