/**
 * Terms a practitioner would write into a brief : noun phrases and names only, no code, no
 * duplicates, generic English weighed little.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createTermAnalyzer } from '../../../src/engine/analysis/terms/index.ts';
import type { DocumentTerms, TermAnalyzer } from '../../../src/engine/analysis/terms/index.ts';
import { isCodeLine, stripCode } from '../../../src/engine/analysis/terms/code.ts';
import { specificity, zipf } from '../../../src/engine/analysis/terms/frequency.ts';

let analyzer: TermAnalyzer;
beforeAll(() => {
  analyzer = createTermAnalyzer();
});

const keys = (d: DocumentTerms) => d.terms.map((t) => t.key);
const names = (d: DocumentTerms) => d.entities.filter((e) => e.kind === 'name').map((e) => e.key);

// Verbs, adjectives and adverbs the issue quotes, in the sentences competitor pages write them in.
const FILLER_PAGES = [
  'Our experts ensure every espresso machine is highly reliable. The combined picks are designed for unique needs. ' +
    'We carefully tested each espresso machine and quickly ranked the best ones.',
  'These machines ensure great shots. The combined list is highly rated and designed to last. Each espresso ' +
    'machine we tested works quickly, and the unique needs of beginners are covered.',
  'To ensure consistency we tested every espresso machine twice. Highly rated picks were combined into one list, ' +
    'designed for unique needs and carefully checked.',
];
const LONE_WORDS = ['ensure', 'highly', 'combined', 'designed', 'unique', 'carefully', 'quickly', 'tested', 'test'];

describe('noun phrases only', () => {
  it('never makes a term of a lone verb, adjective or adverb', () => {
    for (const text of FILLER_PAGES) {
      const d = analyzer.analyzeDocument({ text });
      for (const w of LONE_WORDS) expect(keys(d), w).not.toContain(w);
      expect(keys(d)).toContain('espresso machine');
    }
    const stats = analyzer.analyzeCompetitors(FILLER_PAGES.map((text) => analyzer.analyzeDocument({ text })));
    const recommended = stats.terms.map((t) => t.key);
    for (const w of LONE_WORDS) expect(recommended, w).not.toContain(w);
    expect(recommended[0]).toBe('espresso machine');
    // A phrase ends in its noun: `highly rated`, `designed for` and `tested espresso` are not terms.
    for (const t of stats.terms) expect(t.key).not.toMatch(/\b(?:highly|rated|tested|ensure)$/);
    expect(recommended).not.toContain('tested espresso machine');
  });

  it('keeps modifiers in front of their noun (adjectives, participles, -ing forms and misread nouns)', () => {
    const d = analyzer.analyzeDocument({
      text: 'A clogged drain needs a plumber. Fix frozen pipes fast. Buy a burr grinder and new running shoes.',
    });
    expect(keys(d)).toEqual(expect.arrayContaining(['clogged drain', 'frozen pipe', 'burr grinder', 'running shoe']));
    expect(keys(d)).not.toContain('clogged');
    expect(keys(d)).not.toContain('burr');
  });
});

describe('code is never a term', () => {
  const page =
    'Python logging starts with a logger. Call logging.getLogger(__name__) once per module, and asyncio.Queue() ' +
    'holds the jobs for each worker.\n' +
    'import logging\n' +
    'logger = logging.getLogger(__name__)\n' +
    'if result is None:\n' +
    '    return False\n' +
    'queue = asyncio.Queue(maxsize=10)\n' +
    'The handler returns None when the queue is empty, and True once a worker is done.';

  it('recognises code lines by their shape, not prose that mentions code', () => {
    expect(isCodeLine('logger = logging.getLogger(__name__)')).toBe(true);
    expect(isCodeLine('    return False')).toBe(true);
    expect(isCodeLine('if result is None:')).toBe(true);
    expect(isCodeLine('for example:')).toBe(false);
    expect(isCodeLine('import logging')).toBe(true);
    expect(isCodeLine('Call asyncio.Queue() to make a queue for the workers you start.')).toBe(false);
    expect(isCodeLine('The price is $500 (about €450) for the machine.')).toBe(false);
    const { prose, codeWords } = stripCode(page);
    expect(prose).not.toContain('maxsize');
    expect(prose.split('\n')).toHaveLength(page.split('\n').length);
    expect(codeWords.has('None')).toBe(true);
  });

  it('keeps identifiers, literals and keywords out of terms and names, and names each API once', () => {
    const d = analyzer.analyzeDocument({ text: page });
    for (const k of keys(d)) {
      expect(k, k).not.toMatch(/[._()]|getlogger|maxsize/);
      expect(['none', 'true', 'false', 'import', 'def', 'maxsize'], k).not.toContain(k);
    }
    const n = names(d);
    for (const literal of ['none', 'true', 'false']) expect(n).not.toContain(literal);
    expect(n).toEqual(expect.arrayContaining(['logging.getlogger', 'asyncio.queue']));
    expect(n.filter((k) => k === 'asyncio.queue')).toHaveLength(1);
    expect(keys(d)).toEqual(expect.arrayContaining(['logger', 'worker', 'queue']));
  });
});

describe('no duplicates', () => {
  it('merges a term by lemma and case, and drops a term that is also a name', () => {
    const pages = [
      'Sennheiser earbuds sound great. Sennheiser makes Earbuds for runners.\nBest Earbuds For Running',
      'We like Sennheiser earbuds. These earbuds from Sennheiser fit well.',
      'Sennheiser earbuds and Sony earbuds compared. Sennheiser wins on comfort.',
    ];
    const docs = pages.map((text) => analyzer.analyzeDocument({ text }));
    expect(keys(docs[0]!)).toContain('earbud');
    expect(keys(docs[0]!)).not.toContain('earbuds');
    const stats = analyzer.analyzeCompetitors(docs);
    expect(stats.entities.map((e) => e.key)).toContain('sennheiser');
    expect(stats.terms.map((t) => t.key)).not.toContain('sennheiser');
    const nameKeys = new Set(stats.entities.map((e) => e.key.replace(/s$/, '')));
    for (const t of stats.terms) expect(nameKeys.has(t.key.replace(/s$/, '')), t.key).toBe(false);
  });

  it('folds a lone model or surname into the one longer name that ends with it, and drops lone labels', () => {
    const d = analyzer.analyzeDocument({
      text:
        'The Breville Bambino heats in three seconds. We liked the Bambino for its steam wand.\n' +
        'Product Details\nThe details matter: check the Color options, since color varies.',
    });
    expect(names(d)).toContain('breville bambino');
    expect(names(d)).not.toContain('bambino');
    expect(names(d)).not.toContain('details');
    expect(names(d)).not.toContain('color');
  });
});

describe('generic English weighs little', () => {
  it('weights by SUBTLEX-US frequency, not a typed list', () => {
    expect(zipf('the')).toBeGreaterThan(6);
    expect(zipf('espresso')).toBeLessThan(3.8);
    expect(zipf('qwzxv')).toBe(0);
    expect(specificity('espresso machine')).toBe(1);
    expect(specificity('machine')).toBe(0.25);
    expect(specificity('water')).toBe(0.25);
    expect(specificity('unique need')).toBeLessThan(0.7);
    expect(specificity('heat pump')).toBeGreaterThan(0.9);
  });

  it('ranks a topical term above a generic one the same pages use as much', () => {
    const pages = [
      'The portafilter and the time matter. A good portafilter saves time.',
      'Time your shot; the portafilter should be warm. Time is everything.',
      'Lock the portafilter in. Give it time.',
    ];
    const stats = analyzer.analyzeCompetitors(pages.map((text) => analyzer.analyzeDocument({ text })));
    const imp = (k: string) => stats.terms.find((t) => t.key === k)?.importance ?? 0;
    expect(imp('portafilter')).toBeGreaterThan(0);
    expect(imp('time')).toBeLessThan(imp('portafilter') / 2);
  });
});

describe('quantities', () => {
  it('never starts a term with the unit or the word glued to a number: 58 mm, 9-bar, 3-way', () => {
    const d = analyzer.analyzeDocument({
      text:
        'The machine takes a 58 mm portafilter. Do the 9-bar OPV spring mod on day one. ' +
        'A 3-way solenoid valve dries the puck; a three-way solenoid valve too. Buy 2 espresso machines for the office.',
    });
    const all = keys(d);
    for (const fragment of ['mm portafilter', 'bar opv spring', 'bar OPV spring', 'way solenoid valve', 'way solenoid'])
      expect(all, fragment).not.toContain(fragment);
    expect(all).toContain('portafilter');
    expect(all).toContain('solenoid valve');
    expect(all).toContain('espresso machine');
  });
});
