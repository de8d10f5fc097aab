/**
 * The in-memory web archive and BM25F index the server used before the on-disk SQLite FTS5 index: every record
 * and its payload loaded, every page's terms and sentences held in memory, rebuilt at each start. Kept, unchanged
 * in substance, for the archive benchmark to measure the FTS5 index against (bench/lib/archive-scale.ts).
 */
import { performance } from 'node:perf_hooks';
import { decodeText, isHtmlMime } from '../../src/providers/web/archive/body.ts';
import { fallbackExtractText } from '../../src/providers/web/archive/fallback-extract.ts';
import type { ExtractText } from '../../src/providers/web/archive/fallback-extract.ts';
import { readArchiveRecords } from '../../src/providers/web/archive/reader.ts';
import type { ArchivedRecord } from '../../src/providers/web/archive/record.ts';
import { clip, pairs } from '../../src/providers/web/archive/snippet.ts';
import { createTermizer, sentences, terms } from '../../src/providers/web/archive/terms.ts';
import { normalizeArchiveUrl } from '../../src/providers/web/archive/url.ts';

/** A loaded archive. */
export interface ArchiveSnapshot {
  readonly files: readonly string[];
  readonly size: number;
  readonly loadMs: number;
  get(url: string): ArchivedRecord | undefined;
  records(): readonly ArchivedRecord[];
}

/** Fills in revisit records from the response they repeat; a revisit that resolves to nothing is dropped. */
function resolveRevisits(records: ArchivedRecord[]): ArchivedRecord[] {
  const byDigest = new Map<string, ArchivedRecord>();
  const byUrl = new Map<string, ArchivedRecord>();
  for (const r of records) {
    if (r.warcType === 'revisit') continue;
    if (r.payloadDigest) byDigest.set(r.payloadDigest, r);
    byUrl.set(r.url, r);
  }
  const out: ArchivedRecord[] = [];
  for (const r of records) {
    if (r.warcType !== 'revisit') {
      out.push(r);
      continue;
    }
    const refersTo = r.refersTo ? normalizeArchiveUrl(r.refersTo) : null;
    const original =
      (r.payloadDigest ? byDigest.get(r.payloadDigest) : undefined) ?? (refersTo ? byUrl.get(refersTo) : undefined);
    if (!original) continue;
    const ownHeaders = Object.keys(r.headers).length > 0;
    out.push({
      ...r,
      status: ownHeaders ? r.status : original.status,
      statusText: ownHeaders ? r.statusText : original.statusText,
      headers: ownHeaders ? r.headers : original.headers,
      contentType: ownHeaders ? r.contentType : original.contentType,
      payload: original.payload,
    });
  }
  return out;
}

/** Builds the snapshot's URL table from records in read order. */
function indexRecords(files: readonly string[], records: ArchivedRecord[], loadMs: number): ArchiveSnapshot {
  const byUrl = new Map<string, ArchivedRecord>();
  for (const record of resolveRevisits(records)) {
    const current = byUrl.get(record.url);
    if (!current || record.date >= current.date) byUrl.set(record.url, record);
  }
  const sorted = [...byUrl.values()].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : 0));
  return {
    files,
    size: byUrl.size,
    loadMs,
    get(url: string) {
      const key = normalizeArchiveUrl(url);
      return key === null ? undefined : byUrl.get(key);
    },
    records: () => sorted,
  };
}

/** Reads every record of the archive at `path` into memory. */
export async function loadMemoryArchive(path: string): Promise<ArchiveSnapshot> {
  const started = performance.now();
  const loaded = await readArchiveRecords(path);
  return indexRecords(loaded.files, loaded.records, performance.now() - started);
}

/** The searchable documents of an archive: HTML records with status 200, in URL order. */
export function archiveDocuments(snapshot: ArchiveSnapshot, extractText: ExtractText): IndexedDoc[] {
  const docs: IndexedDoc[] = [];
  for (const record of snapshot.records()) {
    if (record.status !== 200 || !isHtmlMime(record.contentType)) continue;
    const html = decodeText(record.payload, record.headers['content-type'] ?? null, record.contentType).text;
    let extracted: { title: string; text: string };
    try {
      extracted = extractText(html, record.url);
    } catch {
      extracted = fallbackExtractText(html, record.url);
    }
    docs.push({ url: record.url, title: extracted.title.trim() || record.url, text: extracted.text });
  }
  return docs;
}

/** The city-level part of a location, as the archive search boosts it. */
export function locationTerms(location: string | undefined): string[] {
  const city = terms(location?.split(',')[0] ?? '');
  return [...city, ...pairs(city)];
}

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

function count(list: string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const t of list) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
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
