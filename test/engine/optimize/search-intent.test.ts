/**
 * The search intent module on its own: which type dominates the ranking pages and when, which pages are another kind
 * of page, and the words of the page_type_mismatch detail and the page_type advice.
 */
import { describe, expect, it } from 'vitest';
import type { PageType } from '../../../src/engine/analysis/page-type/index.ts';
import type { Recommendation } from '../../../src/engine/analysis/score/types.ts';
import {
  INTENT_MIN_PAGES,
  PAGE_TYPE_MIN_POINTS,
  SURE_CONFIDENCE,
  TYPE_WORDS,
  isMismatch,
  mismatchDetail,
  pageTypeAdvice,
  pageTypeRecommendation,
  searchIntent,
  type TypedCandidate,
} from '../../../src/engine/optimize/search-intent.ts';

/** Candidates of these types, ranked 1, 2, ... each on its own site, all classified with confidence 0.9. */
function ranked(...types: PageType[]): TypedCandidate[] {
  return types.map((type, i) => ({ type, confidence: 0.9, position: i + 1, site: `site${i + 1}.example` }));
}

const rec = (points: number): Recommendation => ({
  id: `coverage.terms:t${points}`,
  check: 'coverage.terms',
  category: 'coverage',
  kind: 'add_term',
  term: `t${points}`,
  points,
  priority: points >= 2 ? 'high' : 'low',
  recommendation: 'Add it.',
});

describe('searchIntent', () => {
  it('is the type most relevant pages share, with its count and the pages counted', () => {
    expect(searchIntent(ranked('article', 'product', 'article', 'article', 'forum'), 2)).toEqual({
      page_type: 'article',
      pages: 3,
      of: 5,
      dominant: true,
    });
  });

  it(`is dominant from ${INTENT_MIN_PAGES} pages, not with 2`, () => {
    expect(searchIntent(ranked('listing', 'listing', 'product'), 2)).toMatchObject({ pages: 2, dominant: false });
    expect(searchIntent(ranked('listing', 'listing', 'product', 'listing'), 2)).toMatchObject({
      page_type: 'listing',
      pages: 3,
      dominant: true,
    });
  });

  it('is not dominant when the type holds fewer than half of the pages: a mixed results page has several intents', () => {
    const mixed = searchIntent(ranked('article', 'article', 'article', 'product', 'forum', 'listing', 'collection'), 2);
    expect(mixed).toEqual({ page_type: 'article', pages: 3, of: 7, dominant: false });
    // Exactly half is enough.
    expect(searchIntent(ranked('article', 'article', 'article', 'product', 'forum', 'listing'), 2)?.dominant).toBe(
      true,
    );
  });

  it('breaks a tie by the best-ranked page and never calls a tie dominant', () => {
    const tie = searchIntent(ranked('product', 'article', 'article', 'product', 'article', 'product'), 2);
    expect(tie).toEqual({ page_type: 'product', pages: 3, of: 6, dominant: false });
    const other = searchIntent(ranked('article', 'product', 'article', 'product', 'article', 'product'), 2);
    expect(other?.page_type).toBe('article');
  });

  it('counts at most `perSite` pages of one site, the best-ranked ones, whatever order it is given', () => {
    const oneSite = ['listing', 'listing', 'listing', 'listing'].map((type, i) => ({
      type: type as PageType,
      confidence: 0.9,
      position: 4 - i,
      site: 'big.example',
    }));
    const intent = searchIntent([...oneSite, ...ranked('article', 'article')], 2);
    expect(intent).toEqual({ page_type: 'listing', pages: 2, of: 4, dominant: false });
  });

  it('is null without candidates', () => {
    expect(searchIntent([], 2)).toBeNull();
  });
});

describe('isMismatch', () => {
  const intent = searchIntent(ranked('article', 'article', 'article', 'product'), 2)!;

  it('is another type the classifier is sure of', () => {
    expect(isMismatch(intent, { type: 'product', confidence: 0.98 })).toBe(true);
    expect(isMismatch(intent, { type: 'article', confidence: 0.98 })).toBe(false);
  });

  it(`gives an unsure page (below ${SURE_CONFIDENCE}) the benefit of the doubt`, () => {
    expect(isMismatch(intent, { type: 'listing', confidence: 0.45 })).toBe(false);
    expect(isMismatch(intent, { type: 'listing', confidence: SURE_CONFIDENCE })).toBe(true);
  });

  it('never sets article and documentation against each other', () => {
    expect(isMismatch(intent, { type: 'documentation', confidence: 0.9 })).toBe(false);
    const docs = searchIntent(ranked('documentation', 'documentation', 'documentation'), 2)!;
    expect(isMismatch(docs, { type: 'article', confidence: 0.9 })).toBe(false);
  });

  it('is never a mismatch when the intent is not dominant or unknown', () => {
    const weak = searchIntent(ranked('article', 'article', 'product'), 2)!;
    expect(isMismatch(weak, { type: 'product', confidence: 0.99 })).toBe(false);
    expect(isMismatch(null, { type: 'product', confidence: 0.99 })).toBe(false);
  });
});

describe('the words', () => {
  const listings = searchIntent(ranked('listing', 'listing', 'product', 'listing', 'listing', 'listing', 'forum'), 2)!;

  it('gives the mismatch detail with the true count', () => {
    expect(mismatchDetail('product', listings)).toBe(
      'a product page; 5 of the 7 relevant ranking pages are listing pages',
    );
  });

  it('says which type ranks, what it is, what this page is and what to do, per pair', () => {
    const text = pageTypeAdvice('best laptops under $500', 'product', listings, []);
    expect(text).toContain('For "best laptops under $500", 5 of the 7 relevant ranking pages are listing pages');
    expect(text).toContain(`(${TYPE_WORDS.listing.what})`);
    expect(text).toContain('this page is a product page');
    expect(text).toContain('a single product page rarely ranks where searchers want to compare several products');
    expect(text).toContain('product-specific keyword');
    expect(text).not.toContain('Your site');
  });

  it("has advice for every intent, and names the page's own-site result of the intent's type, the best-ranked", () => {
    const ownSite = [
      { url: 'https://shop.example/blog/other', position: 8, type: 'listing' as const },
      { url: 'https://shop.example/top-10', position: 4, type: 'listing' as const },
      { url: 'https://shop.example/p/2', position: 2, type: 'product' as const },
    ];
    const text = pageTypeAdvice('k', 'product', listings, ownSite);
    expect(text).toContain(
      'Your site already has a listing page in these results: https://shop.example/top-10 (position 4)',
    );
    expect(text).not.toContain('/blog/other');
    for (const type of Object.keys(TYPE_WORDS) as PageType[]) {
      const intent = { page_type: type, pages: 3, of: 4, dominant: true };
      const other: PageType = type === 'service' ? 'product' : 'service';
      expect(pageTypeAdvice('k', other, intent, [])).toMatch(/In practice, \w.+\.$/);
    }
  });
});

describe('pageTypeRecommendation', () => {
  const articles = searchIntent(ranked('article', 'article', 'article', 'article', 'product'), 2)!;

  it('is high priority, first by points (the largest of the list, at least the high mark), about the page', () => {
    const r = pageTypeRecommendation('k', { type: 'product', confidence: 0.99 }, articles, [], [rec(7.5), rec(1)]);
    expect(r).toMatchObject({
      id: 'page_type',
      check: 'page_type',
      category: 'structure',
      kind: 'page_type',
      term: null,
      points: 7.5,
      priority: 'high',
    });
    const alone = pageTypeRecommendation('k', { type: 'product', confidence: 0.99 }, articles, [], [rec(0.5)]);
    expect(alone?.points).toBe(PAGE_TYPE_MIN_POINTS);
  });

  it('is null for a page of the intent, an unsure page, or no dominant intent', () => {
    expect(pageTypeRecommendation('k', { type: 'article', confidence: 0.9 }, articles, [], [])).toBeNull();
    expect(pageTypeRecommendation('k', { type: 'product', confidence: 0.4 }, articles, [], [])).toBeNull();
    const weak = searchIntent(ranked('article', 'article', 'product'), 2);
    expect(pageTypeRecommendation('k', { type: 'product', confidence: 0.9 }, weak, [], [])).toBeNull();
  });
});
