import { describe, expect, it } from 'vitest';
import { brandLabel } from '../../../src/engine/analysis/brands.ts';
import { registrableDomain, siteLabel } from '../../../src/engine/analysis/site.ts';
import {
  domainOf,
  preselect,
  selectCompetitors,
  siteOf,
  type FetchedCandidate,
} from '../../../src/engine/optimize/competitors.ts';
import type { Extraction } from '../../../src/engine/analysis/extract/types.ts';
import { headTerms } from '../../../src/engine/analysis/score/relevance.ts';

/** Which site a host is on: the registrable domain by the Public Suffix List, private domains included. */
describe('registrableDomain', () => {
  it.each([
    ['www.example.com', 'example.com'],
    ['a.b.example.co.uk', 'example.co.uk'],
    ['www.bbc.co.uk', 'bbc.co.uk'],
    ['news.bbc.co.uk', 'bbc.co.uk'],
    ['shop.example.com.au', 'example.com.au'],
    ['a.github.io', 'a.github.io'],
    ['b.github.io', 'b.github.io'],
    ['WWW.Example.COM.', 'example.com'],
  ])('%s -> %s', (host, domain) => {
    expect(registrableDomain(host)).toBe(domain);
  });

  it.each([
    ['localhost', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['192.168.1.10', '192.168.1.10'],
    ['[::1]', '::1'],
    ['', ''],
  ])('a host without a registrable domain is its own site: %s', (host, site) => {
    expect(registrableDomain(host)).toBe(site);
  });

  it('gives the label a site registered, or null without one', () => {
    expect(siteLabel('www.rapidflowplumbing.co.uk')).toBe('rapidflowplumbing');
    expect(siteLabel('rapidflow.github.io')).toBe('rapidflow');
    expect(siteLabel('127.0.0.1')).toBeNull();
    expect(siteLabel('localhost')).toBeNull();
  });

  it('gives brand labels by the same rule', () => {
    expect(brandLabel('https://www.rapidflowplumbing.co.uk/x')).toBe('rapidflowplumbing');
    expect(brandLabel('https://rapidflow.github.io/')).toBe('rapidflow');
    expect(brandLabel('https://shop.example.com.au/')).toBe('example');
    expect(brandLabel('http://127.0.0.41:8080/')).toBeNull();
    expect(brandLabel('http://localhost/')).toBeNull();
  });
});

describe('competitor sites', () => {
  it('counts a.github.io and b.github.io as two sites and www/news.bbc.co.uk as one', () => {
    expect(siteOf('https://a.github.io/x')).not.toBe(siteOf('https://b.github.io/x'));
    expect(siteOf('https://www.bbc.co.uk/a')).toBe(siteOf('https://news.bbc.co.uk/b'));
    expect(siteOf('http://127.0.0.1:3000/a')).toBe('127.0.0.1');
    expect(siteOf('http://localhost:3000/a')).toBe('localhost');
    expect(siteOf('not a url')).toBe('');
  });

  it('reads excluded domains as a caller writes them', () => {
    expect(domainOf('https://News.BBC.co.uk/x')).toBe('bbc.co.uk');
    expect(domainOf('www.example.com/path')).toBe('example.com');
    expect(domainOf('a.github.io')).toBe('a.github.io');
    expect(domainOf('localhost:8080')).toBe('localhost');
  });

  it('leaves out the own site and excluded domains by registrable domain', () => {
    const { targets, excluded } = preselect(
      [
        { url: 'https://blog.mysite.co.uk/a', position: 1 },
        { url: 'https://other.github.io/b', position: 2 },
        { url: 'https://news.bbc.co.uk/c', position: 3 },
        { url: 'https://mine.github.io/d', position: 4 },
      ],
      { pageUrl: 'https://www.mysite.co.uk/', excludeDomains: ['www.bbc.co.uk'], allowSameSite: false },
    );
    expect(targets.map((t) => t.url)).toEqual(['https://other.github.io/b', 'https://mine.github.io/d']);
    expect(excluded.map((e) => e.reason)).toEqual(['same_site', 'excluded_domain']);
  });

  it('caps pages per site by registrable domain', () => {
    const head = headTerms('descale espresso machine', 'en');
    const extraction = {
      title: 'How to descale an espresso machine',
      h1: 'Descale your espresso machine',
      headings: [],
      mainText: 'Descale the espresso machine every month. Descaling an espresso machine keeps it working.',
    } as unknown as Extraction;
    const page = (url: string, position: number): FetchedCandidate => ({ url, position, extraction, failure: null });
    const { kept, excluded } = selectCompetitors(
      [
        page('https://a.github.io/1', 1),
        page('https://a.github.io/2', 2),
        page('https://b.github.io/1', 3),
        page('https://www.bbc.co.uk/1', 4),
        page('https://news.bbc.co.uk/2', 5),
        page('https://food.bbc.co.uk/3', 6),
        page('https://a.github.io/3', 7),
      ],
      { head, language: 'en', force: false },
    );
    expect(kept.map((k) => k.page.url)).toEqual([
      'https://a.github.io/1',
      'https://a.github.io/2',
      'https://b.github.io/1',
      'https://www.bbc.co.uk/1',
      'https://news.bbc.co.uk/2',
    ]);
    expect(excluded.map((e) => [e.url, e.reason])).toEqual([
      ['https://food.bbc.co.uk/3', 'domain_cap'],
      ['https://a.github.io/3', 'domain_cap'],
    ]);
  });
});
