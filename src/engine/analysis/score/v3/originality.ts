/**
 * Originality (score version 3): how much of a text is copied from the competitors.
 *
 * The model is the set of the competitors' word shingles: every run of `k` (8) consecutive normalised words of
 * their main texts (lower case, diacritics and punctuation dropped), each kept as a 32-bit FNV-1a hash with the
 * index of the first page that has it. That is 6 bytes per shingle, and a page has about one shingle per word, so
 * about 6 KB per 1,000 competitor words (8 KB as the base64 of `serializeOriginalityModel`), small enough to save
 * with the run. A text's word is copied when it lies inside one of its shingles that the model holds; copied words
 * next to each other form a passage, listed with the page it came from so a writer can rewrite it.
 *
 * A text can also copy itself: a keyword salad says "how to descale a kettle" forty times and copies no competitor.
 * Words inside a 4-word phrase the text already used (earlier, in any line) are repeated; the score counts a
 * word that is copied or repeated once (`unoriginalShare`). Prose repeats some 4-word phrases too ("the top of
 * the"), a few percent of its words.
 *
 * Eight words: shorter runs match stock phrases every page on a topic shares ("how to descale a kettle with"),
 * longer ones miss lightly edited copies. A 32-bit hash collides for about one shingle in 10^5 against a model of
 * 40,000 shingles; a lone collision never makes a passage longer than k words.
 */

export const SHINGLE_WORDS = 8;
/** Words of the phrases a text repeats from itself (`selfRepeatShare`). */
export const SELF_REPEAT_WORDS = 4;

export interface OriginalityModel {
  /** Words per shingle. */
  k: number;
  /** The competitor pages, in the order given. */
  urls: string[];
  /** Shingle hashes, ascending, unique. */
  hashes: Uint32Array;
  /** Per hash: index in `urls` of the first page that has it. */
  sources: Uint16Array;
  /** Words of the competitors' texts the model was built from. */
  words: number;
}

export interface CopiedPassage {
  /** The text's words from the first to the last copied word, as written. */
  text: string;
  words: number;
  /** The competitor page it came from (the first page, in the model's order, that has its shingles). */
  url: string;
  /** Position of its first word among the text's words. */
  start: number;
  /** Its characters in the text: from the first copied word's first character to the last one's end. */
  from: number;
  to: number;
}

export interface OriginalityResult {
  /** 0-100: 100 for no copied or repeated words, falling with their share (see `originalityScore`). */
  score: number;
  words: number;
  copiedWords: number;
  /** Copied words / words (0 for an empty text). */
  copiedShare: number;
  /** Words inside a 4-word phrase the text used before / words. */
  selfRepeatShare: number;
  /** Words copied from a competitor or repeated from the text itself / words: what the score reads. */
  unoriginalShare: number;
  /** The text's most repeated 4-word phrases (at least 3 uses), most uses first, at most 10. */
  repeatedPhrases: { phrase: string; uses: number }[];
  /** Merged runs of copied words, longest first. */
  passages: CopiedPassage[];
  /** Copied words per source page, most first. */
  bySource: { url: string; words: number }[];
}

interface WordAt {
  norm: string;
  start: number;
  end: number;
  /** Index of its line: a shingle never spans two lines (two blocks, table rows or list items). */
  line: number;
}

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;

/** The normalised words of a text with their character positions (lower case, no diacritics, `’` as `'`). */
export function shingleWords(text: string): WordAt[] {
  const out: WordAt[] = [];
  let line = 0;
  let at = 0;
  for (const m of text.matchAll(WORD)) {
    for (; at < m.index; at += 1) if (text.charCodeAt(at) === 10) line += 1;
    const norm = m[0].normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/’/g, "'");
    out.push({ norm, start: m.index, end: m.index + m[0].length, line });
  }
  return out;
}

/** FNV-1a (32-bit) of the k words from `i`, separated by a space; -1 when they span two lines. */
function hashAt(words: readonly WordAt[], i: number, k: number): number {
  if (words[i]!.line !== words[i + k - 1]!.line) return -1;
  let h = 0x811c9dc5;
  for (let w = i; w < i + k; w += 1) {
    const s = words[w]!.norm;
    for (let c = 0; c < s.length; c += 1) {
      h ^= s.charCodeAt(c);
      h = Math.imul(h, 0x01000193);
    }
    h ^= 0x20;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** One text's shingle hashes, in order (shingles that span two lines left out), and its word count. */
export interface TextShingles {
  hashes: number[];
  words: number;
}

export function textShingles(text: string, k = SHINGLE_WORDS): TextShingles {
  const w = shingleWords(text);
  const hashes: number[] = [];
  for (let i = 0; i + k <= w.length; i += 1) {
    const h = hashAt(w, i, k);
    if (h >= 0) hashes.push(h);
  }
  return { hashes, words: w.length };
}

/**
 * The shingle model of the competitors' main texts (`text`: plain or markdown; or their shingles, `textShingles`,
 * when a caller builds several models of the same pages).
 */
export function buildOriginalityModel(
  pages: readonly ({ url: string; text: string } | { url: string; shingles: TextShingles })[],
  k = SHINGLE_WORDS,
): OriginalityModel {
  const first = new Map<number, number>();
  let words = 0;
  pages.forEach((p, source) => {
    const s = 'shingles' in p ? p.shingles : textShingles(p.text, k);
    words += s.words;
    for (const h of s.hashes) if (!first.has(h)) first.set(h, source);
  });
  const hashes = Uint32Array.from(first.keys()).sort();
  const sources = new Uint16Array(hashes.length);
  hashes.forEach((h, i) => (sources[i] = first.get(h)!));
  return { k, urls: pages.map((p) => p.url), hashes, sources, words };
}

/** Index of `h` in the sorted hashes, or -1. */
function find(hashes: Uint32Array, h: number): number {
  let lo = 0;
  let hi = hashes.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = hashes[mid]!;
    if (v === h) return mid;
    if (v < h) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * The score of an unoriginal share: 100 at 0, 0 at 60% and above, 100 * (1 - share / 0.6)^1.25
 * (5% -> 90, 10% -> 80, 20% -> 60, 40% -> 25).
 */
export function originalityScore(unoriginalShare: number): number {
  const x = Math.max(0, 1 - unoriginalShare / 0.6);
  return Math.round(100 * x ** 1.25 * 10) / 10;
}

/** How much of `text` the model's pages already say, and where. */
export function originality(text: string, model: OriginalityModel): OriginalityResult {
  const w = shingleWords(text);
  const k = model.k;
  // Per word: the source of the first of the model's shingles that covers it (-1: not copied). A passage is a run of
  // copied words from one source, so sentences stitched from several pages come out as one passage per page.
  const source = new Int32Array(w.length).fill(-1);
  for (let i = 0; i + k <= w.length; i += 1) {
    const h = hashAt(w, i, k);
    const at = h < 0 ? -1 : find(model.hashes, h);
    if (at < 0) continue;
    const src = model.sources[at]!;
    for (let j = i; j < i + k; j += 1) if (source[j] === -1) source[j] = src;
  }
  const passages: CopiedPassage[] = [];
  const bySource = new Map<number, number>();
  let copiedWords = 0;
  for (let i = 0; i < w.length;) {
    const src = source[i]!;
    if (src < 0) {
      i += 1;
      continue;
    }
    let j = i;
    while (j < w.length && source[j] === src) j += 1;
    const n = j - i;
    copiedWords += n;
    bySource.set(src, (bySource.get(src) ?? 0) + n);
    passages.push({
      text: text
        .slice(w[i]!.start, w[j - 1]!.end)
        .replace(/(^|\n)\s*(?:#{1,6}|[-*+]|\d+[.)])\s+/g, '$1')
        .replace(/\*\*|__|`/g, '')
        .replace(/\s+/g, ' '),
      words: n,
      url: model.urls[src]!,
      start: i,
      from: w[i]!.start,
      to: w[j - 1]!.end,
    });
    i = j;
  }
  // The text's own repeats: words inside a SELF_REPEAT_WORDS phrase it has used before.
  const r = SELF_REPEAT_WORDS;
  const seen = new Map<number, number>();
  const repeated = new Uint8Array(w.length);
  const firstAt = new Map<number, number>();
  for (let i = 0; i + r <= w.length; i += 1) {
    const h = hashAt(w, i, r);
    if (h < 0) continue;
    const uses = (seen.get(h) ?? 0) + 1;
    seen.set(h, uses);
    if (uses === 1) firstAt.set(h, i);
    else for (let j = i; j < i + r; j += 1) repeated[j] = 1;
  }
  let repeatedWords = 0;
  let unoriginal = 0;
  for (let i = 0; i < w.length; i += 1) {
    if (repeated[i]) repeatedWords += 1;
    if (repeated[i] || source[i]! >= 0) unoriginal += 1;
  }
  const repeatedPhrases = [...seen]
    .filter(([, uses]) => uses >= 3)
    .sort((a, b) => b[1] - a[1] || firstAt.get(a[0])! - firstAt.get(b[0])!)
    .slice(0, 10)
    .map(([h, uses]) => {
      const i = firstAt.get(h)!;
      return {
        phrase: w
          .slice(i, i + r)
          .map((x) => x.norm)
          .join(' '),
        uses,
      };
    });
  const share = (n: number) => (w.length ? n / w.length : 0);
  return {
    score: originalityScore(share(unoriginal)),
    words: w.length,
    copiedWords,
    copiedShare: share(copiedWords),
    selfRepeatShare: share(repeatedWords),
    unoriginalShare: share(unoriginal),
    repeatedPhrases,
    passages: passages.sort((a, b) => b.words - a.words || a.start - b.start),
    bySource: [...bySource]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .map(([s, words]) => ({ url: model.urls[s]!, words })),
  };
}

/** The model as JSON-safe data (base64 arrays), for saving with a run. */
export interface SerializedOriginalityModel {
  k: number;
  urls: string[];
  words: number;
  hashes: string;
  sources: string;
}

export function serializeOriginalityModel(model: OriginalityModel): SerializedOriginalityModel {
  const b64 = (a: Uint32Array | Uint16Array) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('base64');
  return {
    k: model.k,
    urls: [...model.urls],
    words: model.words,
    hashes: b64(model.hashes),
    sources: b64(model.sources),
  };
}

export function deserializeOriginalityModel(data: SerializedOriginalityModel): OriginalityModel {
  const bytes = (s: string) => {
    const b = Buffer.from(s, 'base64');
    // A copy: the typed arrays need an aligned buffer of their own.
    return new Uint8Array(b).buffer;
  };
  return {
    k: data.k,
    urls: [...data.urls],
    words: data.words,
    hashes: new Uint32Array(bytes(data.hashes)),
    sources: new Uint16Array(bytes(data.sources)),
  };
}

/** Bytes of the model's arrays (what it costs to keep, before base64). */
export function modelBytes(model: OriginalityModel): number {
  return model.hashes.byteLength + model.sources.byteLength;
}
