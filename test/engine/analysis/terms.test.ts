import { beforeAll, describe, expect, it } from 'vitest';
import { createTermAnalyzer, primaryLanguage } from '../../../src/engine/analysis/terms/index.ts';
import type { DocumentTerms, TermAnalyzer } from '../../../src/engine/analysis/terms/index.ts';

let analyzer: TermAnalyzer;

beforeAll(() => {
  analyzer = createTermAnalyzer();
});

const keys = (d: DocumentTerms): string[] => d.terms.filter((t) => t.count > 0).map((t) => t.key);
const term = (d: DocumentTerms, key: string) => d.terms.find((t) => t.key === key);
const entity = (d: DocumentTerms, key: string) => d.entities.find((e) => e.key === key);

describe('tokenising and stop words', () => {
  it('counts words and keeps numbers, URLs, e-mails and punctuation out of terms', () => {
    const d = analyzer.analyzeDocument({
      text: 'Email bob@example.com or visit https://example.com/shop today. We sold 1,200 grinders in 2024!',
    });
    expect(d.method).toBe('wink');
    expect(d.language).toBe('en');
    expect(d.wordCount).toBe(10);
    const all = keys(d);
    expect(all).toContain('grinder');
    for (const k of all) {
      expect(k).not.toMatch(/@|https?:|example|^\d|[.,!]/);
    }
  });

  it('drops stop words and lets them end a phrase', () => {
    const d = analyzer.analyzeDocument({
      text: 'The cost of living is rising and the prices of coffee beans are high.',
    });
    const all = keys(d);
    for (const stop of ['the', 'of', 'is', 'and', 'are']) expect(all).not.toContain(stop);
    expect(all).toContain('coffee bean');
    expect(all).not.toContain('cost living');
    expect(all).not.toContain('living rising');
  });
});

describe('lemmas', () => {
  it('keys terms by lemma and shows the most frequent surface form', () => {
    const d = analyzer.analyzeDocument({
      text: 'We tested espresso machines for a month. The espresso machines were loud. This espresso machine was quiet.',
    });
    expect(term(d, 'espresso machine')).toMatchObject({ n: 2, count: 3, display: 'espresso machines' });
    expect(term(d, 'machine')?.count).toBe(3);
    // A verb is never a term (terms are noun phrases).
    expect(term(d, 'test')).toBeUndefined();
  });

  it('gives running shoes one key whatever the tagger makes of "running", and never makes a term of a verb', () => {
    const d = analyzer.analyzeDocument({
      text: 'Running shoes for women. The running shoes are light. Trail running shoes work. She runs shoe tests daily.',
    });
    expect(term(d, 'running shoe')?.count).toBe(3);
    expect(term(d, 'woman')?.display).toBe('women');
    expect(term(d, 'run shoe')).toBeUndefined();
    expect(term(d, 'run')).toBeUndefined();
    expect(term(d, 'shoe test')?.count).toBe(1);
  });

  it('singularises plurals wink does not know, the same way everywhere', () => {
    const d = analyzer.analyzeDocument({ text: 'Milk frothers vary. Clean the milk frother daily. Zorbs and zorb.' });
    expect(term(d, 'milk frother')).toMatchObject({ count: 2, display: 'milk frother' });
    expect(term(d, 'frothers')).toBeUndefined();
  });

  it('matches title-case headings and titles to body lemmas', () => {
    const d = analyzer.analyzeDocument({
      text: 'Our running shoes guide. Running shoes for flat feet need support.',
      headings: ['Best Running Shoes For Flat Feet', 'How We Tested Running Shoes'],
      title: 'The 10 Best Running Shoes of 2024',
    });
    expect(term(d, 'running shoe')).toMatchObject({ count: 2, headingCount: 2, titleCount: 1 });
    expect(term(d, 'flat foot')).toMatchObject({ count: 1, headingCount: 1, display: 'flat feet' });
    expect(term(d, 'best running shoe')).toMatchObject({ count: 0, headingCount: 1, titleCount: 1 });
  });
});

describe('n-grams', () => {
  it('never cross punctuation, sentence or line boundaries', () => {
    const d = analyzer.analyzeDocument({
      text: 'We sell espresso machines, grinders and milk jugs. Coffee beans matter.\nFresh roast coffee\nbeans arrive weekly',
    });
    const all = keys(d);
    expect(all).toContain('espresso machine');
    expect(all).toContain('milk jug');
    expect(all).toContain('coffee bean');
    expect(term(d, 'coffee bean')?.count).toBe(1);
    expect(all).not.toContain('machine grinder');
    expect(all).not.toContain('jug coffee');
    expect(all).toContain('fresh roast coffee');
    expect(all.filter((k) => k.split(' ').length > 3)).toEqual([]);
  });

  it('joins a tight hyphen and shows it in the display form', () => {
    const d = analyzer.analyzeDocument({ text: 'The best running-shoe brands - and a few others.' });
    expect(term(d, 'running shoe brand')).toMatchObject({ n: 3, display: 'running-shoe brands' });
    expect(keys(d)).not.toContain('brand other');
  });
});

describe('entities', () => {
  const paragraph =
    'Apple Inc. and its CEO Tim Cook opened a store in New York. Later, Cook said the iPhone 15 sold well. ' +
    'Microsoft was founded by Bill Gates in Seattle, and Dr. Jane Smith of Acme Corporation studied at the ' +
    'University of Oxford. Coffee is popular in Germany. Reuters reported that Apple paid $1,200 per unit on ' +
    '5 March 2024, and Mr. Smith agreed.';

  it('finds people, companies, places and products with types', () => {
    const d = analyzer.analyzeDocument({ text: paragraph, headings: ['Why Tim Cook Visited New York'] });
    expect(entity(d, 'tim cook')).toMatchObject({ type: 'person', kind: 'name', count: 2, headingCount: 1 });
    expect(entity(d, 'cook')).toBeUndefined();
    expect(entity(d, 'bill gates')?.type).toBe('person');
    expect(entity(d, 'jane smith')).toMatchObject({ type: 'person', display: 'Jane Smith', count: 2 });
    expect(entity(d, 'apple')).toMatchObject({ type: 'organization', count: 2 });
    expect(entity(d, 'acme corporation')?.type).toBe('organization');
    expect(entity(d, 'university of oxford')?.type).toBe('organization');
    expect(entity(d, 'new york')).toMatchObject({ type: 'place', headingCount: 1 });
    expect(entity(d, 'seattle')?.type).toBe('place');
    expect(entity(d, 'germany')?.type).toBe('place');
    expect(entity(d, 'iphone 15')).toMatchObject({ type: 'product', display: 'iPhone 15' });
    expect(entity(d, 'microsoft')?.kind).toBe('name');
    expect(entity(d, 'reuters')?.kind).toBe('name');
    expect(entity(d, '$1,200')).toMatchObject({ kind: 'money', type: 'other' });
    expect(entity(d, '5 march 2024')?.kind).toBe('date');
  });

  it('keeps names with letters outside Latin-1 whole and ignores contractions', () => {
    const d = analyzer.analyzeDocument({
      text: "I'm sure. I’m told we met Ivana Jelić in Łódź, and Antonín Dvořák too. Москва is far.",
    });
    expect(d.entities.map((e) => e.display)).toEqual(['Antonín Dvořák', 'Ivana Jelić', 'Łódź']);
    expect(keys(d)).toEqual(expect.arrayContaining(['jelić', 'łódź', 'dvořák', 'москва']));
    expect(keys(d).filter((k) => k.includes("'"))).toEqual([]);
  });

  it('does not take sentence-initial or title-case capitals for names', () => {
    const d = analyzer.analyzeDocument({
      text: 'Coffee is good. Best results come slowly.\nBest Espresso Machines For Small Kitchens\nGrinders matter too.',
    });
    expect(d.entities).toEqual([]);
    expect(term(d, 'espresso machine')?.display).toBe('espresso machines');
  });
});

describe('other languages', () => {
  it('German: lower-cased tokens, German stop words, identity lemmas, n-grams', () => {
    const d = analyzer.analyzeDocument({
      language: 'de-DE',
      text: 'Die beste Kaffeemaschine für Espresso. Wir haben die Kaffeemaschinen der Deutsche Bank getestet.',
    });
    expect(d).toMatchObject({ language: 'de', method: 'segmenter', wordCount: 13 });
    const all = keys(d);
    expect(all).toEqual(
      expect.arrayContaining(['beste kaffeemaschine', 'kaffeemaschine', 'kaffeemaschinen', 'espresso']),
    );
    for (const stop of ['die', 'für', 'wir', 'haben', 'der']) expect(all).not.toContain(stop);
    expect(entity(d, 'deutsche bank')?.type).toBe('organization');
    expect(entity(d, 'espresso')).toBeUndefined();
  });

  it('French: elided articles are dropped and capitals mid-sentence are names', () => {
    const d = analyzer.analyzeDocument({
      language: 'fr',
      text: "L'homme d'affaires a acheté une machine à café à Paris. Le café de l’Italie est fort.",
    });
    const all = keys(d);
    expect(all).toEqual(expect.arrayContaining(['homme', 'affaires', 'homme affaires', 'machine', 'café', 'italie']));
    expect(all).not.toContain("l'homme");
    expect(all).not.toContain('machine café');
    expect(entity(d, 'paris')?.type).toBe('place');
  });

  it('Japanese and Chinese never crash and give dictionary words without particles', () => {
    const ja = analyzer.analyzeDocument({ language: 'ja', text: '東京は日本の首都です。ソニーの本社があります。' });
    expect(keys(ja)).toEqual(expect.arrayContaining(['東京', '日本', '首都', 'ソニー', '本社']));
    for (const particle of ['は', 'の', 'です', 'が', 'ます']) expect(keys(ja)).not.toContain(particle);
    expect(ja.wordCount).toBeGreaterThan(5);
    const zh = analyzer.analyzeDocument({ language: 'zh-Hans', text: '我们测试了十台咖啡机，这是最好的咖啡机。' });
    expect(keys(zh)).toContain('咖啡机');
    expect(keys(zh)).not.toContain('的');
  });

  it('routes CJK text labelled English to the segmenter and survives odd language tags', () => {
    const d = analyzer.analyzeDocument({ language: 'en', text: '東京は日本の首都です。' });
    expect(d.method).toBe('segmenter');
    expect(keys(d)).toContain('東京');
    expect(() => analyzer.analyzeDocument({ language: 'x-!!', text: 'Kaffee und Tee' })).not.toThrow();
    expect(analyzer.analyzeDocument({ language: 'qq', text: 'Kaffee und Tee' }).method).toBe('segmenter');
    expect(primaryLanguage('pt_BR')).toBe('pt');
    expect(primaryLanguage(undefined)).toBe('en');
    expect(primaryLanguage('!!')).toBe('en');
  });
});

describe('edge cases and determinism', () => {
  it('handles empty, blank and heading-only documents', () => {
    expect(analyzer.analyzeDocument({ text: '' })).toEqual({
      language: 'en',
      method: 'wink',
      wordCount: 0,
      terms: [],
      entities: [],
    });
    expect(analyzer.analyzeDocument({ text: ' \n\t ', language: 'fr' }).wordCount).toBe(0);
    const d = analyzer.analyzeDocument({ text: '', headings: ['Espresso Machines'], title: '' });
    expect(term(d, 'espresso machine')).toMatchObject({ count: 0, headingCount: 1, display: 'espresso machines' });
    expect(() => analyzer.analyzeDocument({ text: '...!!! ??? ---' })).not.toThrow();
  });

  it('gives byte-identical JSON for the same input, whatever was analysed before', () => {
    const input = {
      text: 'Zorblax Industries makes espresso machines in Oslo. Zorblax said the Frobnicator 3000 grinder is new.',
      headings: ['Zorblax Espresso Machines'],
      title: 'Zorblax review',
    };
    const first = JSON.stringify(analyzer.analyzeDocument(input));
    analyzer.analyzeDocument({ text: 'Frobnicator and Zorblax and Quuxcorp are words wink has never seen.' });
    expect(JSON.stringify(analyzer.analyzeDocument(input))).toBe(first);
    // A fresh wink instance, then a rebuilt one (the analyser recycles wink to bound its lexicon cache).
    const recycling = createTermAnalyzer({ recycleAfterDocuments: 1 });
    expect(JSON.stringify(recycling.analyzeDocument(input))).toBe(first);
    recycling.analyzeDocument({ text: 'Quuxcorp Frobnicator Zorblax.' });
    expect(JSON.stringify(recycling.analyzeDocument(input))).toBe(first);
    const parsed = JSON.parse(first) as DocumentTerms;
    const sorted = [...parsed.terms.map((t) => t.key)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(parsed.terms.map((t) => t.key)).toEqual(sorted);
  });
});
