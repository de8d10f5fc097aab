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

/** A page fixture as extraction sees it, with the URL such a page would have. */
const signalsOf = (name: string, url: string): Record<string, number> =>
  extract(fixture(name), { url }).pageSignals ?? {};

describe('page signals per type (fixtures without URL or markup hints)', () => {
  it('product: a buy box (heading beside one price), a cart form, variant radios and a product-id field', () => {
    const url = 'https://northwind.example/waxed-cotton-jacket-olive';
    const s = signalsOf('product-variants', url);
    expect(s.h1PriceNear).toBe(1);
    expect(s.cartForms).toBe(1);
    expect(s.radios).toBe(3);
    expect(s.productFields).toBe(1);
    // The buy box alone moves the page towards product: the same page without it scores product lower.
    const withoutBuyBox = fixture('product-variants')
      .replace(/<form[\s\S]*?<\/form>/, '')
      .replace('€89.00', '');
    const before = classifyPage(extract(fixture('product-variants'), { url })).scores.product;
    const after = classifyPage(extract(withoutBuyBox, { url })).scores.product;
    expect(before).toBeGreaterThan(after);
    const asProduct = classifyPage(
      extract(fixture('product-variants'), { url: `${url.replace('.example/', '.example/products/')}` }),
    );
    expect(asProduct.type).toBe('product');
  });

  it('collection: filter checkboxes, "sort by" and "showing … products", pagination, a grid of priced cards', () => {
    const s = signalsOf('collection-filters', 'https://northwind.example/mens-jackets');
    expect(s.checkboxes).toBe(5);
    expect(s.collectionTexts).toBeGreaterThanOrEqual(2);
    expect(s.pageLinks).toBe(3);
    expect(s.priceCards).toBe(8);
    // Its heading sits above a grid of prices, not beside one: no buy box.
    expect(s.h1PriceNear).toBe(0);
    expect(
      classifyPage(extract(fixture('collection-filters'), { url: 'https://northwind.example/mens-jackets' })).type,
    ).toBe('collection');
  });

  it('documentation: a side navigation of many links, anchored headings and an "on this page" list', () => {
    const url = 'https://widgetlib.example/configuring-the-client';
    const s = signalsOf('docs-sidebar', url);
    expect(s.sideLinks).toBe(30);
    expect(s.headingIds).toBe(3);
    expect(s.anchorLinks).toBe(3);
    expect(s.docsTexts).toBeGreaterThanOrEqual(3);
    expect(classifyPage(extract(fixture('docs-sidebar'), { url })).type).toBe('documentation');
  });

  it('listing: dated post summaries with "read more", numbered pages and "older posts"', () => {
    const url = 'https://orchardlane.example/field-notes';
    const s = signalsOf('listing-posts', url);
    expect(s.dateCards).toBe(8);
    expect(s.listingTexts).toBeGreaterThanOrEqual(8);
    expect(s.pageLinks).toBe(3);
    expect(s.proseBlockChars).toBe(0);
    expect(classifyPage(extract(fixture('listing-posts'), { url })).type).toBe('listing');
  });

  it('article: one block of running text', () => {
    const s = signalsOf('article', CASES[0]?.[1] ?? '');
    expect(s.proseBlockChars).toBeGreaterThan(1000);
  });

  it('reads JSON-LD collection and product-count signals', () => {
    const e = extract(fixture('collection'));
    expect(e.pageSignals?.ldCollectionPage).toBe(1);
    expect(extract(fixture('product')).pageSignals?.ldAggregateOffer).toBe(0);
  });

  it('judges an extraction without page signals on stand-ins from its JSON-LD and canonical URL', () => {
    const product = {
      name: 'Trail Runner 2',
      description: '',
      brand: '',
      sku: 'TR2',
      price: '129.00',
      currency: 'USD',
      availability: '',
      ratingValue: '',
      reviewCount: '',
    };
    const result = classifyPage({
      ...emptyExtraction(),
      title: 'Trail Runner 2',
      canonical: 'https://fleetfoot.example/products/trail-runner-2',
      structuredData: { faq: [], articles: [], products: [product], types: ['Product', 'Offer'] },
      mainText: 'A light, cushioned shoe for rough trails.',
      wordCount: 7,
    });
    expect(result.type).toBe('product');
  });
});
