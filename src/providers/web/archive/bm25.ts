/**
 * BM25F over two fields (title, weighted, and main text) of the archive's HTML pages, with the best matching
 * sentence as snippet. Built once per archive load; a query touches only the postings of its terms.
 */
import { createTermizer, sentences, terms } from './terms.ts';

export interface IndexedDoc {
  url: string;
  title: string;
  text: string;
}

export interface Bm25Options {
  /** Weight of a title occurrence relative to a body one. */
  titleWeight?: number;
  /** Weight of adjacent query-term pairs ("heat pump") relative to single terms. */
  pairWeight?: number;
  k1?: number;
  bTitle?: number;
  bBody?: number;
}

export interface Bm25Hit {
  url: string;
  title: string;
  snippet: string;
  score: number;
}

export interface QueryOptions {
  limit: number;
  /** Extra terms that add a fraction of their score to pages that already match the query (a city name). */
  boostTerms?: readonly string[];
  boostWeight?: number;
}

interface Posting {
  doc: number;
  title: number;
  body: number;
}

interface Sentence {
  text: string;
  terms: Set<string>;
}

interface DocEntry {
  url: string;
  title: string;
  titleLength: number;
  bodyLength: number;
  sentences: Sentence[];
}

export interface Bm25Index {
  readonly size: number;
  query(query: string, options: QueryOptions): Bm25Hit[];
}

const SNIPPET_MAX = 200;

function count(list: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of list) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

/** Adjacent term pairs, keyed with a space (no single term contains one). */
export function pairs(list: string[]): string[] {
  const out: string[] = [];
  for (let i = 1; i < list.length; i++) out.push(`${list[i - 1]} ${list[i]}`);
  return out;
}

/** Cuts a sentence to at most 200 characters at a word boundary, around its first query term when that is late. */
export function clip(sentence: string, anchor: number): string {
  if (sentence.length <= SNIPPET_MAX) return sentence;
  let start = 0;
  if (anchor > SNIPPET_MAX - 60) {
    start = sentence.lastIndexOf(' ', Math.max(0, anchor - 40)) + 1;
  }
  const prefix = start > 0 ? '…' : '';
  const room = SNIPPET_MAX - prefix.length - 1;
  let piece = sentence.slice(start, start + room + 1);
  if (start + room < sentence.length) {
    const cut = piece.lastIndexOf(' ', room);
    piece = piece.slice(0, cut > room / 2 ? cut : room).trimEnd();
    return `${prefix}${piece}…`;
  }
  return `${prefix}${piece}`.slice(0, SNIPPET_MAX);
}

/** Builds the index; documents are taken in the order given (ties in ranking go by URL, not by this order). */
export function buildBm25Index(docs: readonly IndexedDoc[], options: Bm25Options = {}): Bm25Index {
  const titleWeight = options.titleWeight ?? 3;
  const pairWeight = options.pairWeight ?? 0.5;
  const k1 = options.k1 ?? 1.2;
  const bTitle = options.bTitle ?? 0.5;
  const bBody = options.bBody ?? 0.5;

  const termize = createTermizer();
  const entries: DocEntry[] = [];
  const postings = new Map<string, Posting[]>();
  let titleTotal = 0;
  let bodyTotal = 0;

  docs.forEach((doc, i) => {
    const titleTerms = termize(doc.title);
    const bodyTerms = termize(doc.text);
    const titleCounts = count([...titleTerms, ...pairs(titleTerms)]);
    const bodyCounts = count([...bodyTerms, ...pairs(bodyTerms)]);
    for (const term of new Set([...titleCounts.keys(), ...bodyCounts.keys()])) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push({ doc: i, title: titleCounts.get(term) ?? 0, body: bodyCounts.get(term) ?? 0 });
    }
    titleTotal += titleTerms.length;
    bodyTotal += bodyTerms.length;
    entries.push({
      url: doc.url,
      title: doc.title,
      titleLength: titleTerms.length,
      bodyLength: bodyTerms.length,
      sentences: sentences(doc.text).map((text) => ({ text, terms: new Set(termize(text)) })),
    });
  });

  const n = entries.length;
  const avgTitle = n > 0 ? Math.max(titleTotal / n, 1) : 1;
  const avgBody = n > 0 ? Math.max(bodyTotal / n, 1) : 1;
  const idf = (term: string): number => {
    const df = postings.get(term)?.length ?? 0;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };

  const termScores = (term: string, into: Map<number, number>, weight: number): void => {
    const list = postings.get(term);
    if (!list) return;
    const w = idf(term) * weight;
    for (const p of list) {
      const e = entries[p.doc];
      if (!e) continue;
      const tf =
        (titleWeight * p.title) / (1 - bTitle + (bTitle * e.titleLength) / avgTitle) +
        p.body / (1 - bBody + (bBody * e.bodyLength) / avgBody);
      into.set(p.doc, (into.get(p.doc) ?? 0) + (w * tf) / (k1 + tf));
    }
  };

  const snippet = (entry: DocEntry, queryTerms: string[]): string => {
    let best: Sentence | undefined;
    let bestScore = 0;
    for (const s of entry.sentences) {
      let score = 0;
      for (const t of queryTerms) if (s.terms.has(t)) score += idf(t);
      // Headings and labels match well but read badly as snippets; a real sentence of similar match wins.
      if (s.text.length < 40) score *= 0.5;
      score += Math.min(s.text.length, 160) / 1e4;
      if (score > bestScore) {
        best = s;
        bestScore = score;
      }
    }
    const chosen = best ?? entry.sentences[0];
    if (!chosen) return '';
    const lower = chosen.text.toLowerCase();
    let anchor = chosen.text.length;
    for (const word of chosen.text.split(/[^\p{L}\p{N}]+/u)) {
      if (word && queryTerms.includes(terms(word)[0] ?? '')) {
        anchor = Math.min(anchor, lower.indexOf(word.toLowerCase()));
        break;
      }
    }
    return clip(chosen.text, anchor);
  };

  return {
    size: n,
    query(query, queryOptions) {
      const limit = Math.max(0, Math.min(Math.floor(queryOptions.limit), n));
      const queryTerms = [...new Set(terms(query))];
      if (limit === 0 || queryTerms.length === 0) return [];
      const scores = new Map<number, number>();
      for (const term of queryTerms) termScores(term, scores, 1);
      for (const pair of new Set(pairs(terms(query)))) termScores(pair, scores, pairWeight);
      const boostTerms = [...new Set(queryOptions.boostTerms ?? [])].filter((t) => !queryTerms.includes(t));
      if (boostTerms.length > 0) {
        const boost = new Map<number, number>();
        for (const term of boostTerms) termScores(term, boost, queryOptions.boostWeight ?? 0.5);
        for (const [doc, extra] of boost) {
          const base = scores.get(doc);
          if (base !== undefined) scores.set(doc, base + extra);
        }
      }
      const ranked = [...scores.entries()]
        .map(([doc, score]) => ({ entry: entries[doc] as DocEntry, score }))
        .sort((a, b) => b.score - a.score || (a.entry.url < b.entry.url ? -1 : a.entry.url > b.entry.url ? 1 : 0))
        .slice(0, limit);
      return ranked.map(({ entry, score }) => ({
        url: entry.url,
        title: entry.title,
        snippet: snippet(entry, queryTerms),
        score,
      }));
    },
  };
}
