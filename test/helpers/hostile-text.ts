/**
 * Seeded hostile text for the text-hygiene property tests: what pages carry that operation inputs refuse (C0 and C1
 * controls, DEL, lone surrogates, bidirectional overrides and isolates) mixed with what they accept and a cleaner
 * must keep (U+FFFE/U+FFFF, zero-width characters, marks, right-to-left and astral letters, tabs and line breaks).
 * A seeded generator rather than fast-check: the cases are reproducible from the seed in a failure message, and no
 * dependency is added for one property.
 */

/** mulberry32: a small, fast, seeded PRNG (0 <= x < 1). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const range = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i));

/** Characters the validator refuses somewhere (short, long or both). */
export const REFUSED_CHARS: readonly string[] = [
  ...range(0x00, 0x1f),
  '\u007f',
  ...range(0x80, 0x9f),
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  ...range(0x202a, 0x202e),
  ...range(0x2066, 0x2069),
];

/** Characters every text may hold: a cleaner must keep each of them. */
export const ACCEPTED_ODDITIES: readonly string[] = [
  '\ufffe',
  '\uffff',
  '\u200b',
  '\u200c',
  '\u200d',
  '\u2060',
  '\u200e',
  '\u200f',
  '\u00ad',
  '\u0301',
  'ש',
  'ل',
  '中',
  '😀',
  '𝔸',
  '™',
  '€',
  'â',
  '\ufffd',
];

const WORDS = ['copper', 'kettle', 'descaling', 'guide', 'vinegar', 'lemon', 'rinse', 'steam', 'limescale'];

/** A hostile string of up to `max` pieces: words, spaces and line breaks, refused and accepted oddities. */
export function hostileString(random: () => number, max = 24): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const n = 1 + Math.floor(random() * max);
  let out = '';
  for (let i = 0; i < n; i++) {
    const r = random();
    if (r < 0.35) out += pick(WORDS);
    else if (r < 0.5) out += ' ';
    else if (r < 0.75) out += pick(REFUSED_CHARS);
    else out += pick(ACCEPTED_ODDITIES);
  }
  return out;
}

/** Sprinkles refused and accepted oddities into `text` (after some of its words). */
export function sprinkle(random: () => number, text: string, rate = 0.3): string {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  return text
    .split(' ')
    .map((w) => (random() < rate ? `${w}${pick(random() < 0.7 ? REFUSED_CHARS : ACCEPTED_ODDITIES)}` : w))
    .join(' ');
}
