/**
 * The page-type classifier on small fixture pages, one per WCXB type (test/fixtures/page-types/), with the URL such a
 * page would have; plus the signals it reads and the shape of its answer. Accuracy on real pages is the extraction
 * bench's job (`npm run bench -- extraction`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { emptyExtraction, extract } from '../../../src/engine/analysis/extract/index.ts';
import { FEATURE_NAMES, PAGE_TYPES, classifyPage, pageFeatures } from '../../../src/engine/analysis/page-type/index.ts';
import { PAGE_TYPE_MODEL } from '../../../src/engine/analysis/page-type/weights.ts';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/page-types/${name}.html`, import.meta.url), 'utf8');

const CASES: [string, string][] = [
  ['article', 'https://dailyloaf.example/2024/03/why-bread-goes-stale'],
  ['forum', 'https://forum.netfolk.example/t/my-router-drops-wifi-every-hour/4821'],
  ['product', 'https://fleetfoot.example/products/trail-runner-2'],
  ['collection', 'https://fleetfoot.example/collections/mens-sneakers'],
  ['listing', 'https://citytimes.example/news/'],
  ['documentation', 'https://widgetlib.example/docs/configuration.html'],
  ['service', 'https://aceplumbing.example/services/emergency-plumbing-repair'],
];

describe('classifyPage', () => {
  for (const [type, url] of CASES) {
    it(`classifies the ${type} fixture as ${type}`, () => {
      const result = classifyPage(extract(fixture(type), { url }));
      expect(result.type).toBe(type);
      expect(result.confidence).toBe(result.scores[result.type]);
      expect(result.confidence).toBeGreaterThan(0.4);
    });
  }

  it('answers with every type scored, the scores summing to 1', () => {
    const { scores } = classifyPage(extract(fixture('article'), { url: CASES[0]?.[1] ?? '' }));
    expect(Object.keys(scores).sort()).toEqual([...PAGE_TYPES].sort());
    expect(Object.values(scores).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
  });

  it('still answers for an extraction without page signals (built elsewhere)', () => {
    const result = classifyPage({ ...emptyExtraction(), mainText: 'Some text.', wordCount: 2 });
    expect(PAGE_TYPES).toContain(result.type);
    expect(result.confidence).toBeGreaterThan(0);
  });

  it('keeps the shipped weights in step with the feature list', () => {
    expect(PAGE_TYPE_MODEL.features).toEqual(FEATURE_NAMES);
    expect([...PAGE_TYPE_MODEL.classes].sort()).toEqual([...PAGE_TYPES].sort());
    expect(pageFeatures(emptyExtraction())).toHaveLength(FEATURE_NAMES.length);
  });
});

describe('page signals read by extract()', () => {
  it('counts form controls from the metadata pass: add-to-cart and quantity on a product page', () => {
    const s = extract(fixture('product'), { url: CASES[2]?.[1] ?? '' }).pageSignals ?? {};
    expect(s.cartControls).toBe(1);
    expect(s.quantityInputs).toBe(1);
    expect(s.ldProduct).toBe(1);
    expect(s.ogProduct).toBe(1);
    expect(s.urlProduct).toBe(1);
  });

  it('counts repeated cards, and those with a price, on a collection page', () => {
    const s = extract(fixture('collection')).pageSignals ?? {};
    expect(s.cards).toBe(12);
    expect(s.priceCards).toBe(12);
    expect(s.ldCollection).toBe(1);
  });

  it('reads the generator, code and reply structure', () => {
    expect(extract(fixture('documentation')).pageSignals?.genDocs).toBe(1);
    expect(extract(fixture('documentation')).pageSignals?.preChars).toBeGreaterThan(50);
    const forum = extract(fixture('forum')).pageSignals ?? {};
    expect(forum.genForum).toBe(1);
    expect(forum.replyControls).toBeGreaterThanOrEqual(6);
  });

  it('reads URL patterns only from a URL it can parse', () => {
    const s = extract(fixture('listing'), { url: 'not a url' }).pageSignals ?? {};
    expect(s.urlKnown).toBe(0);
    expect(s.urlListing).toBe(0);
    expect(extract(fixture('listing'), { url: CASES[4]?.[1] ?? '' }).pageSignals?.urlListingEnd).toBe(1);
  });

  it('leaves the main text as it was', () => {
    const e = extract(fixture('article'), { url: CASES[0]?.[1] ?? '' });
    expect(e.mainText).toContain('Starch retrogradation');
    expect(e.mainText).not.toContain('The Daily Loaf');
  });
});
