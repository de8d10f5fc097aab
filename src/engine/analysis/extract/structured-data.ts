/**
 * JSON-LD: schema.org types, FAQ entries, articles and products. Real pages ship broken JSON-LD (trailing commas,
 * raw newlines in strings, HTML comments, several objects in one script), so parsing repairs what it can and skips
 * what it cannot.
 */
import type { ArticleData, FaqEntry, ProductData, StructuredData } from './types.ts';

/** A parsed JSON object; its values are read through narrowing checks, since pages put anything in JSON-LD. */
type JsonObject = { [key: string]: unknown };

const MAX_NODES = 20_000;
const MAX_DEPTH = 40;

/** Reads every JSON-LD block; never throws. */
export function parseStructuredData(scripts: readonly string[]): StructuredData {
  const out: StructuredData = { faq: [], articles: [], products: [], types: [] };
  const seenTypes = new Set<string>();
  const budget = { nodes: 0 };
  for (const script of scripts) {
    for (const value of parseLenient(script)) visit(value, out, seenTypes, budget, 0);
  }
  return out;
}

/** Parses one script body, repairing common breakage; returns the top-level values it could read. */
export function parseLenient(source: string): unknown[] {
  const trimmed = source
    .replace(/^\s*<!--/, '')
    .replace(/-->\s*$/, '')
    .replace(/^\s*\/\/\s*<!\[CDATA\[/, '')
    .replace(/\/\/\s*\]\]>\s*$/, '')
    .trim();
  if (!trimmed) return [];
  const direct = tryParse(trimmed);
  if (direct !== undefined) return [direct];
  const repaired = repair(trimmed);
  const second = tryParse(repaired);
  if (second !== undefined) return [second];
  // Several objects back to back ("{...}{...}" or "{...}\n{...}"): wrap them into one array.
  const joined = tryParse(`[${repaired.replace(/}\s*{/g, '},{')}]`);
  return Array.isArray(joined) ? joined : [];
}

function tryParse(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return value;
  } catch {
    return undefined;
  }
}

/** Escapes raw control characters inside strings and drops trailing commas, scanning string state by hand. */
function repair(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] as string;
    if (inString) {
      if (ch === '\\') {
        out += ch + (text[i + 1] ?? '');
        i++;
      } else if (ch === '"') {
        inString = false;
        out += ch;
      } else if (ch === '\n') out += '\\n';
      else if (ch === '\r') out += '\\r';
      else if (ch === '\t') out += '\\t';
      else if (ch.charCodeAt(0) < 0x20) out += ' ';
      else out += ch;
      continue;
    }
    if (ch === '"') inString = true;
    out += ch;
  }
  return out.replace(/,(\s*[}\]])/g, '$1');
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function typesOf(obj: JsonObject): string[] {
  const t = obj['@type'];
  const list = Array.isArray(t) ? t : [t];
  return list.filter((x): x is string => typeof x === 'string').map((x) => x.replace(/^https?:\/\/schema\.org\//, ''));
}

function visit(value: unknown, out: StructuredData, seen: Set<string>, budget: { nodes: number }, depth: number): void {
  if (depth > MAX_DEPTH || budget.nodes++ > MAX_NODES) return;
  if (Array.isArray(value)) {
    for (const v of value) visit(v, out, seen, budget, depth + 1);
    return;
  }
  if (!isObject(value)) return;
  const types = typesOf(value);
  for (const t of types) {
    if (!seen.has(t)) {
      seen.add(t);
      out.types.push(t);
    }
  }
  if (types.includes('Question')) {
    const entry = faqEntry(value);
    if (entry) out.faq.push(entry);
  }
  if (types.some(isArticleType)) out.articles.push(article(value, types));
  if (types.includes('Product') || types.includes('ProductGroup')) out.products.push(product(value));
  for (const [key, child] of Object.entries(value)) {
    if (key === '@context') continue;
    if (typeof child === 'object' && child !== null) visit(child, out, seen, budget, depth + 1);
  }
}

function isArticleType(t: string): boolean {
  return /Article$/.test(t) || t === 'BlogPosting' || t === 'LiveBlogPosting' || t === 'Report';
}

/** Plain text of a JSON-LD value: strings as is (tags stripped), names of objects, first of arrays. */
function text(value: unknown): string {
  if (typeof value === 'string') return stripTags(value);
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return text(value[0]);
  if (isObject(value)) return text(value['name'] ?? value['@value'] ?? value['text']);
  return '';
}

function stripTags(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#0?39;|&apos;/g, "'")
    .replace(/\s+/g, ' ')
    .trim();
}

function faqEntry(q: JsonObject): FaqEntry | null {
  const question = text(q['name'] ?? q['text']);
  const accepted = q['acceptedAnswer'] ?? q['suggestedAnswer'];
  const first = Array.isArray(accepted) ? accepted[0] : accepted;
  const answer = isObject(first) ? text(first['text'] ?? first['name']) : text(first);
  return question ? { question, answer } : null;
}

function people(value: unknown): string[] {
  const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return list.map((v) => text(v)).filter((s) => s.length > 0);
}

function article(obj: JsonObject, types: string[]): ArticleData {
  return {
    type: types.find(isArticleType) ?? 'Article',
    headline: text(obj['headline'] ?? obj['name']),
    author: people(obj['author']),
    datePublished: text(obj['datePublished']),
    dateModified: text(obj['dateModified']),
    description: text(obj['description']),
  };
}

function product(obj: JsonObject): ProductData {
  const offersRaw = obj['offers'];
  const offer = Array.isArray(offersRaw) ? offersRaw[0] : offersRaw;
  const o = isObject(offer) ? offer : {};
  const rating = isObject(obj['aggregateRating']) ? obj['aggregateRating'] : {};
  return {
    name: text(obj['name']),
    description: text(obj['description']),
    brand: text(obj['brand']),
    sku: text(obj['sku']),
    price: text(o['price'] ?? o['lowPrice']),
    currency: text(o['priceCurrency']),
    availability: text(o['availability']).replace(/^https?:\/\/schema\.org\//, ''),
    ratingValue: text(rating['ratingValue']),
    reviewCount: text(rating['reviewCount'] ?? rating['ratingCount']),
  };
}
