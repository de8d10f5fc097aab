import { describe, expect, it } from 'vitest';
import { overallSpi, platformSpi, queryWeight, tally } from '../../src/engine/tracker/spi.ts';
import { brandMatcher, isOnDomain, normalizeDomain } from '../../src/engine/tracker/match.ts';
import { measureAnswer, measureOrganic, topCited } from '../../src/engine/tracker/measure.ts';
import { platformStatus } from '../../src/engine/tracker/types.ts';
import { scanStatus } from '../../src/engine/tracker/pipeline.ts';

/** The documented SPI formula, brand matching and per-result measurement, on small hand-checked inputs. */

const r = (position: number | null, mentioned = false, status = 'complete') => ({
  status,
  position,
  brand_mentioned: mentioned,
  brand_cited: position !== null,
});

describe('SPI', () => {
  it('weights a query by position (1st 1.0, down 0.1 a place, 0.1 from the 10th on), a mention alone 0.5, absence 0', () => {
    expect([1, 2, 5, 10, 11, 40].map((p) => queryWeight(p, false))).toEqual([
      1,
      0.9,
      0.6,
      expect.closeTo(0.1, 9),
      0.1,
      0.1,
    ]);
    expect(queryWeight(null, true)).toBe(0.5);
    expect(queryWeight(8, true)).toBe(0.5);
    expect(queryWeight(2, true)).toBe(0.9);
    expect(queryWeight(null, false)).toBe(0);
  });

  it('is 100 x the weight sum over measured queries; failed queries leave the denominator, not count as zero', () => {
    const t = tally([r(1), r(3, true), r(null, true), r(null), r(null, false, 'failed')]);
    expect(t).toEqual({
      queries_total: 5,
      measured: 4,
      failed: 1,
      present: 3,
      mentioned: 2,
      cited: 2,
      ranked: 2,
      position_sum: 4,
      weight_sum: expect.closeTo(2.3, 9),
    });
    expect(platformSpi(t)).toBe(57.5);
    expect(platformSpi(tally([r(null, false, 'failed')]))).toBeNull();
  });

  it('pools the platforms that have measurements, over query-platform pairs', () => {
    const o = overallSpi([
      { platform: 'organic', measured: 2, weight_sum: 1.9, present: 2 },
      { platform: 'chatgpt', measured: 6, weight_sum: 0.6, present: 1 },
      { platform: 'claude', measured: 0, weight_sum: 0, present: 0 },
    ]);
    expect(o).toEqual({ spi: 31.3, pairs_measured: 8, pairs_present: 3, platforms_included: ['organic', 'chatgpt'] });
    expect(overallSpi([]).spi).toBeNull();
  });

  it('statuses: a platform is complete, partial or failed by its queries; a scan by its platforms', () => {
    expect(platformStatus([{ status: 'complete' }, { status: 'complete' }])).toBe('complete');
    expect(platformStatus([{ status: 'complete' }, { status: 'failed' }])).toBe('partial');
    expect(platformStatus([{ status: 'failed' }])).toBe('failed');
    expect(scanStatus([{ status: 'complete' }, { status: 'partial' }])).toBe('partial');
    expect(scanStatus([{ status: 'complete' }, { status: 'failed' }])).toBe('partial');
    expect(scanStatus([{ status: 'failed' }, { status: 'failed' }])).toBe('failed');
    expect(scanStatus([{ status: 'complete' }])).toBe('complete');
  });
});

describe('brand matching', () => {
  it('normalises domains to a bare lower-case host and refuses what is not one', () => {
    expect(normalizeDomain('https://WWW.RapidFlowPlumbing.com/emergency/?x=1')).toBe('rapidflowplumbing.com');
    expect(normalizeDomain('blog.example.co.uk')).toBe('blog.example.co.uk');
    expect(normalizeDomain('bücher.example')).toBe('xn--bcher-kva.example');
    for (const bad of ['', 'localhost', '127.0.0.1', 'not a domain', 'http://'])
      expect(normalizeDomain(bad), bad).toBeNull();
  });

  it('counts the domain and its subdomains, never a longer host that merely ends the same', () => {
    expect(isOnDomain('https://www.rapidflowplumbing.com/x', 'rapidflowplumbing.com')).toBe(true);
    expect(isOnDomain('https://blog.rapidflowplumbing.com/', 'rapidflowplumbing.com')).toBe(true);
    expect(isOnDomain('https://notrapidflowplumbing.com/', 'rapidflowplumbing.com')).toBe(false);
    expect(isOnDomain('not a url', 'rapidflowplumbing.com')).toBe(false);
  });

  it('finds brand names as whole words (case, accents, punctuation ignored) and the domain written out', () => {
    const m = brandMatcher(['RapidFlow Plumbing', 'Café Crème'], 'rapidflowplumbing.com');
    expect(m("Call rapidflow-plumbing's crew")).toBe(true);
    expect(m('CAFE CREME, downtown')).toBe(true);
    expect(m('see www.RapidFlowPlumbing.com/emergency')).toBe(true);
    expect(m('RapidFlow Plumbingworks')).toBe(false);
    expect(m('notrapidflowplumbing.com')).toBe(false);
    expect(m('')).toBe(false);
  });
});

describe('measurement', () => {
  const m = brandMatcher(['RapidFlow Plumbing'], 'rapidflowplumbing.com');

  it('organic: position of the first result on the domain, mention in titles or snippets, cited = ranked', () => {
    const results = [
      { position: 2, url: 'https://www.rapidflowplumbing.com/a', title: 'A', snippet: '' },
      { position: 1, url: 'https://other.example/', title: 'Top 5 incl. RapidFlow Plumbing', snippet: '' },
    ];
    expect(measureOrganic(results, 'rapidflowplumbing.com', m)).toEqual({
      position: 2,
      brand_mentioned: true,
      brand_cited: true,
      cited_urls: ['https://other.example/', 'https://www.rapidflowplumbing.com/a'],
    });
    expect(
      measureOrganic(
        [results[1]!].map((x) => ({ ...x, title: 'x' })),
        'rapidflowplumbing.com',
        m,
      ),
    ).toMatchObject({ position: null, brand_mentioned: false, brand_cited: false });
  });

  it('AI answers: mention in the text, position = rank of the first citation on the domain', () => {
    const answer = {
      text: 'Try RapidFlow Plumbing.',
      citations: [
        { url: 'https://a.example/', title: null },
        { url: 'https://rapidflowplumbing.com/x', title: null },
        { url: 'https://www.rapidflowplumbing.com/y', title: null },
      ],
    };
    expect(measureAnswer(answer, 'rapidflowplumbing.com', m)).toMatchObject({
      position: 2,
      brand_mentioned: true,
      brand_cited: true,
    });
    expect(measureAnswer({ text: 'No idea.', citations: [] }, 'rapidflowplumbing.com', m)).toEqual({
      position: null,
      brand_mentioned: false,
      brand_cited: false,
      cited_urls: [],
    });
  });

  it('top cited URLs count measured answers citing each URL, most cited first', () => {
    expect(
      topCited([
        { status: 'complete', cited_urls: ['https://b/', 'https://a/', 'https://a/'] },
        { status: 'complete', cited_urls: ['https://a/'] },
        { status: 'failed', cited_urls: ['https://c/'] },
      ]),
    ).toEqual([
      ['https://a/', 2],
      ['https://b/', 1],
    ]);
  });
});
