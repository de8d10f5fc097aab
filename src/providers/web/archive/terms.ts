/**
 * Deterministic text to search terms: lower-case, accents folded, stop words dropped, a light English stemmer
 * (Porter's steps 1a and 1b) so "bakes", "baking" and "baked" meet "bake". The same function serves documents and
 * queries, which is all BM25 needs.
 */

const STOP_WORDS = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below between ' +
    'both but by can could did do does doing down during each few for from further had has have having he her ' +
    'here hers herself him himself his how i if in into is it its itself just me more most my myself no nor not ' +
    'now of off on once only or other our ours ourselves out over own same she should so some such than that the ' +
    'their theirs them themselves then there these they this those through to too under until up very was we ' +
    'were what when where which while who whom why will with would you your yours yourself yourselves vs ' +
    's t d ll m re ve'
  ).split(' '),
);

const VOWEL = /[aeiou]/;

function isConsonant(word: string, i: number): boolean {
  const ch = word[i];
  if (ch === undefined) return false;
  if ('aeiou'.includes(ch)) return false;
  if (ch === 'y') return i === 0 || !isConsonant(word, i - 1);
  return true;
}

/** Porter's measure m: the number of vowel-consonant sequences. */
function measure(stem: string): number {
  let m = 0;
  let prevVowel = false;
  for (let i = 0; i < stem.length; i++) {
    const vowel = !isConsonant(stem, i);
    if (prevVowel && !vowel) m++;
    prevVowel = vowel;
  }
  return m;
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true;
  return false;
}

/** Ends consonant-vowel-consonant where the last is not w, x or y (hop, not hoop). */
function endsCvc(word: string): boolean {
  const n = word.length;
  if (n < 3) return false;
  const last = word[n - 1] ?? '';
  return isConsonant(word, n - 3) && !isConsonant(word, n - 2) && isConsonant(word, n - 1) && !'wxy'.includes(last);
}

/** Porter step 5a: a final e goes when the rest is long enough (heate -> heat, but bake stays). */
function dropFinalE(w: string): string {
  if (!w.endsWith('e')) return w;
  const rest = w.slice(0, -1);
  const m = measure(rest);
  return m > 1 || (m === 1 && !endsCvc(rest)) ? rest : w;
}

/** Porter steps 1a, 1b and 5a: plurals, -ed/-ing and a final e. Digits and short words pass through. */
export function stem(word: string): string {
  if (word.length <= 3 || !VOWEL.test(word)) return word;
  return dropFinalE(step1(word));
}

function step1(word: string): string {
  let w = word;
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);

  if (w.endsWith('eed')) {
    if (measure(w.slice(0, -3)) > 0) w = w.slice(0, -1);
    return w;
  }
  let cut: string | null = null;
  if (w.endsWith('ed') && hasVowel(w.slice(0, -2))) cut = w.slice(0, -2);
  else if (w.endsWith('ing') && hasVowel(w.slice(0, -3))) cut = w.slice(0, -3);
  if (cut === null) return w;
  if (cut.endsWith('at') || cut.endsWith('bl') || cut.endsWith('iz')) return `${cut}e`;
  const last = cut[cut.length - 1] ?? '';
  if (cut.length >= 2 && last === cut[cut.length - 2] && isConsonant(cut, cut.length - 1) && !'lsz'.includes(last)) {
    return cut.slice(0, -1);
  }
  if (measure(cut) === 1 && endsCvc(cut)) return `${cut}e`;
  return cut;
}

/** A terms function that remembers each word's stem: indexing a corpus repeats the same words many times. */
export function createTermizer(): (text: string) => string[] {
  const stems = new Map<string, string | null>();
  return (text) => {
    const out: string[] = [];
    const folded = text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/\p{M}+/gu, '');
    for (const match of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
      const word = match[0];
      let term = stems.get(word);
      if (term === undefined) {
        term = STOP_WORDS.has(word) || (word.length === 1 && !/\d/.test(word)) ? null : stem(word);
        stems.set(word, term);
      }
      if (term !== null) out.push(term);
    }
    return out;
  };
}

/** The search terms of a text, in order, with repeats. */
export function terms(text: string): string[] {
  return createTermizer()(text);
}

/** Splits text into sentences at end punctuation followed by a capital or digit, and at line breaks. */
export function sentences(text: string): string[] {
  const out: string[] = [];
  for (const block of text.split(/\n+/)) {
    for (const piece of block.split(/(?<=[.!?])\s+(?=["'“(\p{Lu}\p{N}])/u)) {
      const s = piece.replace(/\s+/g, ' ').trim();
      if (s !== '') out.push(s);
    }
  }
  return out;
}
