import { describe, expect, it } from 'vitest';
import { cleanText, type CleanKind } from '../src/text-hygiene.ts';
import { textProblem } from '../src/tools/common/text.ts';
import { ACCEPTED_ODDITIES, hostileString, REFUSED_CHARS, seeded } from './helpers/hostile-text.ts';

/**
 * The cleaner and the validator share their character classes (src/text-hygiene.ts): whatever a page carries,
 * cleaned text passes the validator, and clean text is left as it is.
 */

const CASES = 3_000;

/** True when each line of `text` passes as short text and the whole as long text. */
const passesAsLines = (text: string) =>
  text.split('\n').every((line) => textProblem(line, 'short') === null) && textProblem(text, 'long') === null;

describe('cleanText against the validator (seeded)', () => {
  for (const seed of [1, 22, 4242]) {
    it(`seed ${seed}: cleaned text of every kind passes; cleaning is idempotent`, () => {
      const random = seeded(seed);
      for (let i = 0; i < CASES; i++) {
        const s = hostileString(random);
        const where = `seed ${seed}, case ${i}: ${JSON.stringify(s)}`;
        for (const kind of ['short', 'long'] as const) {
          const c = cleanText(s, kind);
          expect(textProblem(c, kind), where).toBeNull();
          expect(cleanText(c, kind), where).toBe(c);
        }
        const lines = cleanText(s, 'lines');
        expect(passesAsLines(lines), where).toBe(true);
        expect(cleanText(lines, 'lines'), where).toBe(lines);
      }
    });
  }

  it('text the validator accepts comes back unchanged, oddities included', () => {
    const ok = `copper ${ACCEPTED_ODDITIES.join(' ')} kettle`;
    for (const kind of ['short', 'long', 'lines'] as CleanKind[]) expect(cleanText(ok, kind)).toBe(ok);
    expect(cleanText('line one\n\tline two\r\n', 'long')).toBe('line one\n\tline two\r\n');
    expect(cleanText('rtl \u202eprose\u202c', 'long')).toBe('rtl \u202eprose\u202c');
  });

  it('every refused character is removed (a lone surrogate becomes U+FFFD); whitespace controls become a space', () => {
    for (const ch of REFUSED_CHARS) {
      const c = cleanText(`a${ch}b`, 'short');
      expect(textProblem(c, 'short'), JSON.stringify(ch)).toBeNull();
      expect(['ab', 'a b', 'a\ufffdb'], JSON.stringify(ch)).toContain(c);
    }
    expect(cleanText('Acme\u0084\u00a2 \u0099 kettle', 'short')).toBe('Acme\u00a2  kettle');
    expect(cleanText('one\ttwo\r\nthree', 'short')).toBe('one two three');
    expect(cleanText('one\ttwo\r\nthree\u202e', 'lines')).toBe('one two \nthree');
    expect(cleanText('pair 😀 kept, half \ud83d gone', 'long')).toBe('pair 😀 kept, half \ufffd gone');
  });
});
