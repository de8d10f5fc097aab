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

  it('resolves a relative canonical link against the fallback', () => {
    expect(savedPageUrl(page(canonical('/a/b?x=1#frag')), BASE)).toEqual({
      url: 'https://base.example/a/b?x=1',
      source: 'canonical',
    });
  });

  it('reads tags in the body after those of the same kind in the head (metadata streamed by Next.js)', () => {
    const body = `<div>${canonical('https://body.example/c')}${og('https://body.example/o')}</div>`;
    // The head's canonical link comes first; a body canonical link beats a head og:url (the stronger kind).
    expect(savedPageUrl(page(canonical('https://head.example/c'), body))?.url).toBe('https://head.example/c');
    expect(savedPageUrl(page(og('https://head.example/o'), body))).toEqual({
      url: 'https://body.example/c',
      source: 'canonical',
    });
    expect(savedPageUrl(page(og('https://head.example/o'), `<p>${og('https://body.example/o')}</p>`))?.url).toBe(
      'https://head.example/o',
    );
    expect(savedPageUrl(page('', `<p>${og('https://body.example/o')}</p>`))).toEqual({
      url: 'https://body.example/o',
      source: 'og:url',
    });
    // Given only the head, the body is not searched.
    const html = page('', body);
    expect(savedPageUrl(html.slice(0, html.indexOf('<body>')))).toBeNull();
    // A tag in a script in the body does not count.
    expect(
      savedPageUrl(page('', `<script>var s = '<link rel="canonical" href="https://js.example/">';</script>`)),
    ).toEqual(null);
  });
});

describe('savedFromUrl', () => {
  it('stops the URL at the length the comment gives', () => {
    expect(savedFromUrl(' saved from url=(0019)https://a.example/ more words')).toBe('https://a.example/');
    expect(savedFromUrl('not a mark')).toBeNull();
  });
});
