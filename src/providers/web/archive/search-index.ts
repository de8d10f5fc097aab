/**
 * Full-text search over the archive's HTML pages in SQLite FTS5, ranked by its built-in bm25() with the title
 * column weighted over the main text. Pages are tokenised here, by the same termizer as queries (stop words
 * dropped, a light stemmer), and stored as space-separated terms, so FTS5 sees exactly the terms BM25F saw and an
 * adjacent pair ("heat pump") is an FTS5 phrase over them.
 *
 * A page's score is the sum of one bm25() per query term, plus half of one per adjacent query-term pair, plus (for
 * pages that match already) half of one per location term; ties go by URL. The FTS table is contentless: the page
 * text for snippets is stored beside it as sentences with the terms of each, so choosing a snippet needs no
 * tokenising at query time.
 *
 * Length normalisation: bm25() fixes b at 0.75, which over-rewards short pages (a home page that names the topic
 * beat the guide about it); the BM25F it replaces used b = 0.5. bm25() measures a row's length over all its
 * columns, so a third column of weight 0 holding P filler tokens in every row turns its normalisation
 * 0.25 + 0.75 (L + P) / (avg + P) into 0.5 + 0.5 L / avg when P = avg / 2: b = 0.5, exactly.
 */
import Database from '../../../sqlite-driver.ts';
import type { Statement } from 'better-sqlite3';
import type { ExtractText } from './fallback-extract.ts';
import { pageText } from './page-text.ts';
import type { PageInput, PageText, PageTexts } from './page-text.ts';
import type { ArchivedEntry, RecordIndex } from './record-index.ts';
import { bestSnippet, pairs } from './snippet.ts';
import { createTermizer, terms } from './terms.ts';

/** Bumped when the tables or the tokenising change, so older indexes are rebuilt. */
export const SEARCH_INDEX_FORMAT = 2;

export interface SearchRanking {
  /** Weight of the title column relative to the main text (bm25() column weight). */
  titleWeight?: number;
  /** Weight of adjacent query-term pairs relative to single terms. */
  pairWeight?: number;
}

export interface SearchHit {
  url: string;
  title: string;
  snippet: string;
  score: number;
}

export interface SearchQueryOptions {
  limit: number;
  /** Extra terms that add a fraction of their score to pages that already match the query (a city name). */
  boostTerms?: readonly string[];
  boostWeight?: number;
}

/** The search index, open for reading. */
export interface SearchIndex {
  /** Pages indexed. */
  readonly size: number;
  query(query: string, options: SearchQueryOptions): SearchHit[];
  close(): void;
}

/** The filler token: one letter, which the termizer never yields, so no query can match it. */
const PAD_TOKEN = 'a';

/**
 * Lines (sentences, or their terms; neither holds a line break) as one value. Not compressed: inflating the ten
 * pages of an answer cost about 1 ms a query, and these bytes stay on disk, not in memory.
 */
function pack(lines: string[]): string {
  return lines.join('\n');
}

function unpack(value: string): string[] {
  return value === '' ? [] : value.split('\n');
}

/** Pages read from the URL table per batch while building. */
const BATCH = 256;
/** A bound on the phrases OR-ed in one part: a query's first 1,000 distinct terms (and pairs) are ranked. */
const MAX_PHRASES = 1000;

const SCHEMA = `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE pages (
    id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, title TEXT NOT NULL, sentences TEXT NOT NULL, terms TEXT NOT NULL
  );
  CREATE VIRTUAL TABLE terms USING fts5 (title, body, pad, content = '', tokenize = 'unicode61 remove_diacritics 0');
  CREATE TEMP TABLE staged (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL, length INTEGER NOT NULL);
  CREATE VIRTUAL TABLE vocab USING fts5vocab (terms, 'row');
`;

export interface BuildSearchIndexOptions {
  /** The archive's content key, stored to check the pairing on open. */
  key: string;
  extractText: ExtractText;
  /**
   * Where pages' text is made (worker threads: page-text-workers.ts); by default this thread, with `extractText`. A
   * page it fails is made in this thread instead, so the index is the same either way.
   */
  texts?: PageTexts;
  signal?: AbortSignal;
  /** Called once with 0 before the first page, then after each page in index order, for progress. */
  onPage?: (done: number, total: number) => void;
}

/** Pages read ahead of the one being written: enough to keep every worker busy while this thread writes. */
const READ_AHEAD = 16;

/** Extracts and indexes every HTML page with status 200 of `records` into a new database at `target`. */
export async function buildSearchIndex(
  target: string,
  records: RecordIndex,
  options: BuildSearchIndexOptions,
): Promise<{ pages: number }> {
  const db = new Database(target);
  try {
    db.pragma('journal_mode = OFF');
    db.pragma('synchronous = OFF');
    db.exec(SCHEMA);
    const termize = createTermizer();
    const inThread = (page: PageInput) => pageText(page, options.extractText, termize);
    const texts: PageTexts = options.texts ?? (async (page) => inThread(page));
    const addPage = db.prepare('INSERT INTO pages (id, url, title, sentences, terms) VALUES (?, ?, ?, ?, ?)');
    const stage = db.prepare('INSERT INTO staged (id, title, body, length) VALUES (?, ?, ?, ?)');
    const total = records.pageCount();
    options.onPage?.(0, total);
    db.exec('BEGIN');
    let id = 0;
    const write = (entry: ArchivedEntry, text: PageText) => {
      // Ids follow URL order, so ordering by id breaks ties by URL.
      id++;
      addPage.run(id, entry.url, text.title, pack(text.sentences), pack(text.terms));
      // Tokens never span the whitespace sentences are split at, so the sentences' terms are the text's terms.
      const body = text.terms.filter((t) => t !== '').join(' ');
      const length = text.titleTerms.length + (body === '' ? 0 : body.split(' ').length);
      stage.run(id, text.titleTerms.join(' '), body, length);
      options.onPage?.(id, total);
    };
    // Pages are made ahead, possibly out of order elsewhere, and written strictly in URL order.
    const ahead: { entry: ArchivedEntry; text: Promise<PageText> }[] = [];
    const writeOldest = async () => {
      const { entry, text } = ahead.shift()!;
      write(entry, await text);
    };
    try {
      let after: string | null = null;
      for (;;) {
        const batch = records.pages(after, BATCH);
        if (batch.length === 0) break;
        for (const entry of batch) {
          options.signal?.throwIfAborted();
          const page: PageInput = {
            url: entry.url,
            payload: await records.payload(entry),
            contentTypeHeader: entry.headers['content-type'] ?? null,
            contentType: entry.contentType,
          };
          const text = texts(page).catch(() => {
            // Workers closed by an abort are not a failure to make up for.
            options.signal?.throwIfAborted();
            return inThread(page);
          });
          ahead.push({ entry, text });
          if (ahead.length >= READ_AHEAD) await writeOldest();
        }
        after = batch[batch.length - 1]!.url;
      }
      while (ahead.length > 0) {
        options.signal?.throwIfAborted();
        await writeOldest();
      }
    } finally {
      // An abort leaves pages in flight: their answers are not wanted, and must not be unhandled rejections.
      for (const a of ahead) a.text.catch(() => undefined);
    }
    // The filler length needs the average page length, so pages are staged until every one is read.
    const average = (db.prepare('SELECT avg(length) FROM staged').pluck().get() as number | null) ?? 0;
    const pad = Array<string>(Math.round(average / 2))
      .fill(PAD_TOKEN)
      .join(' ');
    db.prepare('INSERT INTO terms (rowid, title, body, pad) SELECT id, title, body, ? FROM staged ORDER BY id').run(
      pad,
    );
    db.exec('DROP TABLE staged');
    db.prepare("INSERT INTO terms (terms) VALUES ('optimize')").run();
    const meta = db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)');
    meta.run('format', String(SEARCH_INDEX_FORMAT));
    meta.run('key', options.key);
    meta.run('pages', String(id));
    db.exec('COMMIT');
    db.pragma('journal_mode = DELETE');
    return { pages: id };
  } finally {
    db.close();
  }
}

/**
 * One ranked part of a query: phrases of equal weight OR-ed in one FTS5 MATCH. bm25() of an OR of phrases is the
 * sum of each phrase's bm25(), so one part scores all the query terms (or all the pairs) in a single pass.
 */
interface QueryPart {
  match: string;
  weight: number;
  /** Whether matching it makes a page a result (terms, pairs) or only lifts one that is (location terms). */
  base: boolean;
}

/** The parts of a query: its distinct terms, its distinct adjacent pairs, then the location terms not among them. */
function queryParts(
  queryTerms: string[],
  allTerms: string[],
  boost: string[],
  pairWeight: number,
  boostWeight: number,
): QueryPart[] {
  const quote = (text: string) => `"${text.replaceAll('"', '""')}"`;
  const or = (list: string[]) => list.slice(0, MAX_PHRASES).map(quote).join(' OR ');
  const pairList = [...new Set(pairs(allTerms))];
  const parts: QueryPart[] = [{ match: or(queryTerms), weight: 1, base: true }];
  if (pairList.length > 0) parts.push({ match: or(pairList), weight: pairWeight, base: true });
  if (boost.length > 0) parts.push({ match: or(boost), weight: boostWeight, base: false });
  return parts;
}

/** Opens a built search index read-only; `key` must be the content key it was built for. */
export function openSearchIndex(path: string, key: string, ranking: SearchRanking = {}): SearchIndex {
  const titleWeight = ranking.titleWeight ?? 3;
  const pairWeight = ranking.pairWeight ?? 0.5;
  if (!Number.isFinite(titleWeight) || !Number.isFinite(pairWeight)) throw new Error('ranking weights must be finite');
  const db = new Database(path, { readonly: true, fileMustExist: true });
  const meta = new Map(
    (db.prepare('SELECT key, value FROM meta').all() as { key: string; value: string }[]).map((r) => [r.key, r.value]),
  );
  if (meta.get('key') !== key || meta.get('format') !== String(SEARCH_INDEX_FORMAT)) {
    db.close();
    throw new Error(`${path} is not the search index of this archive`);
  }
  const size = Number(meta.get('pages') ?? 0);
  const page = db.prepare('SELECT url, title, sentences, terms FROM pages WHERE id = ?');
  const docFrequency = db.prepare('SELECT doc FROM vocab WHERE term = ?').pluck();
  // One statement per number of parts: the shape of the SQL depends on nothing else.
  const statements = new Map<number, Statement>();
  const rankStatement = (count: number): Statement => {
    let statement = statements.get(count);
    if (!statement) {
      const branch = `SELECT rowid AS id, bm25(terms, ${titleWeight}, 1.0, 0.0) * ? AS s, ? AS base, ? AS k FROM terms WHERE terms MATCH ?`;
      // Summing in part order keeps equal pages' scores bit-identical, so ties fall to the URL order.
      // MATERIALIZED: a one-branch CTE would otherwise be flattened into the aggregate, where bm25() cannot run.
      statement = db.prepare(
        `WITH hits AS MATERIALIZED (${Array(count).fill(branch).join(' UNION ALL ')})
         SELECT id, -SUM(s ORDER BY k) AS score FROM hits GROUP BY id HAVING MAX(base) = 1
         ORDER BY score DESC, id LIMIT ?`,
      );
      statements.set(count, statement);
    }
    return statement;
  };
  const idf = (term: string): number => {
    const df = (docFrequency.get(term) as number | undefined) ?? 0;
    return Math.log(1 + (size - df + 0.5) / (df + 0.5));
  };

  return {
    size,
    query(query, options) {
      const limit = Math.max(0, Math.min(Math.floor(options.limit), size));
      const allTerms = terms(query);
      const queryTerms = [...new Set(allTerms)];
      if (limit === 0 || queryTerms.length === 0) return [];
      const boost = [...new Set(options.boostTerms ?? [])].filter((t) => !queryTerms.includes(t));
      const parts = queryParts(queryTerms, allTerms, boost, pairWeight, options.boostWeight ?? 0.5);
      const params: (string | number)[] = [];
      parts.forEach((p, i) => params.push(p.weight, p.base ? 1 : 0, i, p.match));
      const ranked = rankStatement(parts.length).all(...params, limit) as { id: number; score: number }[];
      const idfs = new Map(queryTerms.map((t) => [t, idf(t)]));
      return ranked.map(({ id, score }) => {
        const row = page.get(id) as { url: string; title: string; sentences: string; terms: string };
        const text = { sentences: unpack(row.sentences), terms: unpack(row.terms) };
        return {
          url: row.url,
          title: row.title,
          snippet: bestSnippet(text, queryTerms, (t) => idfs.get(t) ?? 0),
          score,
        };
      });
    },
    close() {
      db.close();
    },
  };
}
