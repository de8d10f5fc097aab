/**
 * page-url.ts: the URL a saved page names, each malformed source passed over for the next one, and what was passed
 * over reported.
 */
import { describe, expect, it } from 'vitest';
import { findSavedPageUrl, savedFromUrl, savedPageUrl } from '../../../../src/providers/web/archive/page-url.ts';

const page = (head: string, body = '<p>text</p>', before = '') =>
  `<!DOCTYPE html>\n${before}<html><head>${head}</head><body>${body}</body></html>`;
const canonical = (href: string) => `<link rel="canonical" href="${href}">`;
const og = (content: string) => `<meta property="og:url" content="${content}">`;
const saved = (url: string) => `<!-- saved from url=(${String(url.length).padStart(4, '0')})${url} -->\n`;
const BASE = 'https://base.example/dir/file.html';

describe('findSavedPageUrl', () => {
  it('takes the canonical link, then og:url, then the saved-from comment, then the fallback', () => {
    const all = page(canonical('https://c.example/') + og('https://o.example/'), '', saved('https://s.example/'));
    expect(savedPageUrl(all, BASE)).toEqual({ url: 'https://c.example/', source: 'canonical' });
    expect(savedPageUrl(page(og('https://o.example/')), BASE)).toEqual({ url: 'https://o.example/', source: 'og:url' });
    expect(savedPageUrl(page('', '', saved('https://s.example/')), BASE)).toEqual({
      url: 'https://s.example/',
      source: 'saved-from',
    });
    expect(savedPageUrl(page(''), BASE)).toEqual({ url: BASE, source: 'base-url' });
    expect(savedPageUrl(page(''))).toBeNull();
  });

  it('passes a malformed canonical link over for og:url, and reports it', () => {
    const html = page(canonical('http://[bad') + og('https://o.example/a'));
    expect(findSavedPageUrl(html)).toEqual({
      found: { url: 'https://o.example/a', source: 'og:url' },
      skipped: [{ source: 'canonical', value: 'http://[bad' }],
    });
  });

  it('passes a malformed og:url over for the canonical link, the saved-from comment and the fallback', () => {
    // og:url comes after the canonical link in strength, so a bad og:url beside a good canonical changes nothing.
    expect(findSavedPageUrl(page(og('https://') + canonical('https://c.example/'))).found).toEqual({
      url: 'https://c.example/',
      source: 'canonical',
    });
    const toComment = findSavedPageUrl(page(og('https://exa mple.com/'), '', saved('https://s.example/')));
    expect(toComment).toEqual({
      found: { url: 'https://s.example/', source: 'saved-from' },
      skipped: [{ source: 'og:url', value: 'https://exa mple.com/' }],
    });
    // A scheme-less og:url is not resolved against the base (it would give a wrong URL under it): the base is used.
    expect(findSavedPageUrl(page(og('www.example.com/page')), BASE)).toEqual({
      found: { url: BASE, source: 'base-url' },
      skipped: [{ source: 'og:url', value: 'www.example.com/page' }],
    });
  });

  it('reports every malformed source when none gives a URL', () => {
    const html = page(
      canonical('file:///C:/saved.html') + og('ftp://o.example/'),
      '',
      '<!-- saved from url=(0004)nope -->',
    );
    expect(findSavedPageUrl(html)).toEqual({
      found: null,
      skipped: [
        { source: 'canonical', value: 'file:///C:/saved.html' },
        { source: 'og:url', value: 'ftp://o.example/' },
        { source: 'saved-from', value: 'saved from url=(0004)nope' },
      ],
    });
  });

  it('resolves a relative canonical link against the fallback, and reads only the head', () => {
    expect(savedPageUrl(page(canonical('/a/b?x=1#frag')), BASE)).toEqual({
      url: 'https://base.example/a/b?x=1',
      source: 'canonical',
    });
    // A canonical link in the body is not the page's (search engines ignore it too).
    expect(savedPageUrl(page('', canonical('https://body.example/')))).toBeNull();
  });
});

describe('savedFromUrl', () => {
  it('stops the URL at the length the comment gives', () => {
    expect(savedFromUrl(' saved from url=(0019)https://a.example/ more words')).toBe('https://a.example/');
    expect(savedFromUrl('not a mark')).toBeNull();
  });
});
