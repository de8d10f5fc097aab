import { describe, expect, it } from 'vitest';
import { extract } from '../../../src/engine/analysis/extract/index.ts';
import { parseLenient } from '../../../src/engine/analysis/extract/structured-data.ts';
import { registrableHost } from '../../../src/engine/analysis/extract/urls.ts';

const para = (n: number, word = 'content'): string =>
  Array.from({ length: n }, (_, i) => `This is ${word} sentence number ${i}, written to look like running text.`).join(
    ' ',
  );

function page(head: string, body: string, lang = 'en'): string {
  return `<!DOCTYPE html><html lang="${lang}"><head>${head}</head><body>${body}</body></html>`;
}

describe('extract: page metadata', () => {
  it('reads title, description, canonical and lang', () => {
    const e = extract(
      page(
        '<title> My  Page </title><meta name="description" content="A page about things."><link rel="canonical" href="/canon">',
        `<main><h1>Heading One</h1><p>${para(3)}</p></main>`,
        'en-GB',
      ),
      { url: 'https://example.com/a/b' },
    );
    expect(e.title).toBe('My Page');
    expect(e.metaDescription).toBe('A page about things.');
    expect(e.canonical).toBe('https://example.com/canon');
    expect(e.lang).toBe('en-GB');
    expect(e.h1).toBe('Heading One');
  });

  it('falls back to og:description', () => {
    const e = extract(page('<meta property="og:description" content="From OG">', `<p>${para(2)}</p>`));
    expect(e.metaDescription).toBe('From OG');
  });
});

describe('extract: structured data', () => {
  it('reads @graph arrays, FAQ, articles and products', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebPage', name: 'x' },
        {
          '@type': 'BlogPosting',
          headline: 'Post title',
          author: [{ '@type': 'Person', name: 'Ann' }],
          datePublished: '2024-01-02',
        },
        {
          '@type': 'FAQPage',
          mainEntity: [
            { '@type': 'Question', name: 'Why?', acceptedAnswer: { '@type': 'Answer', text: '<p>Because.</p>' } },
          ],
        },
      ],
    };
    const product = {
      '@type': 'Product',
      name: 'Shoe',
      sku: 'S1',
      offers: { '@type': 'Offer', price: 98, priceCurrency: 'USD' },
    };
    const e = extract(
      page(
        `<script type="application/ld+json">${JSON.stringify(ld)}</script><script type="application/ld+json">${JSON.stringify(product)}</script>`,
        `<p>${para(2)}</p>`,
      ),
    );
    expect(e.structuredData.types).toEqual([
      'WebPage',
      'BlogPosting',
      'Person',
      'FAQPage',
      'Question',
      'Answer',
      'Product',
      'Offer',
    ]);
    expect(e.structuredData.faq).toEqual([{ question: 'Why?', answer: 'Because.' }]);
    expect(e.structuredData.articles[0]).toMatchObject({
      type: 'BlogPosting',
      headline: 'Post title',
      author: ['Ann'],
      datePublished: '2024-01-02',
    });
    expect(e.structuredData.products[0]).toMatchObject({ name: 'Shoe', sku: 'S1', price: '98', currency: 'USD' });
  });

  it('tolerates broken JSON-LD', () => {
    expect(parseLenient('{"@type": "Article", "headline": "a\nb",}')).toEqual([
      { '@type': 'Article', headline: 'a\nb' },
    ]);
    expect(parseLenient('{"@type":"A"}{"@type":"B"}')).toHaveLength(2);
    expect(parseLenient('<!-- {"@type":"C"} -->')).toEqual([{ '@type': 'C' }]);
    expect(parseLenient('{not json at all')).toEqual([]);
    const e = extract(
      page('<script type="application/ld+json">{"@type": "Product", "name": "X",,,</script>', `<p>${para(2)}</p>`),
    );
    expect(e.structuredData.products).toEqual([]);
  });
});

describe('extract: main content', () => {
  const body = `
    <header><a href="/">Logo</a><nav><a href="/a">Home</a><a href="/b">Products</a></nav></header>
    <div class="cookie-banner"><p>We use cookies to improve your experience on this website, accept them all please.</p></div>
    <main>
      <h1>Main title</h1>
      <p>${para(4, 'main')}</p>
      <h2>Section</h2>
      <ul><li>first item</li><li>second <a href="https://other.org/x">external</a></li></ul>
      <ol><li>one</li><li>two</li></ol>
      <table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody><tr><td>Shoe</td><td>$98</td></tr><tr><td>Hat</td><td>$20</td></tr></tbody></table>
      <p>See <a href="/docs/page">the docs</a> and <a href="https://blog.example.com/post">our blog</a> or <a href="javascript:void(0)">this</a>.</p>
      <img src="/img/a.png" alt="An image"><img data-src="b.jpg" alt="">
      <div class="share-buttons"><a href="https://twitter.com/share">Share on Twitter</a></div>
    </main>
    <footer><p>Copyright 2024 Example Inc. All rights reserved across the whole world.</p></footer>`;
  const e = extract(page('<title>t</title>', body), { url: 'https://www.example.com/dir/page' });

  it('keeps the main content and drops navigation, banners, share widgets and footer', () => {
    expect(e.mainText).toContain('This is main sentence number 3');
    expect(e.mainText).not.toContain('Products');
    expect(e.mainText).not.toContain('cookies');
    expect(e.mainText).not.toContain('Share on Twitter');
    expect(e.mainText).not.toContain('Copyright');
    expect(e.wordCount).toBeGreaterThan(40);
  });

  it('lists headings, paragraphs, lists and tables of the main content', () => {
    expect(e.headings).toEqual([
      { level: 1, text: 'Main title' },
      { level: 2, text: 'Section' },
    ]);
    expect(e.paragraphs[0]).toMatch(/^This is main sentence number 0/);
    expect(e.lists).toEqual([
      { ordered: false, items: ['first item', 'second external'] },
      { ordered: true, items: ['one', 'two'] },
    ]);
    expect(e.tables).toEqual([
      {
        headers: ['Name', 'Price'],
        rows: [
          ['Shoe', '$98'],
          ['Hat', '$20'],
        ],
      },
    ]);
  });

  it('resolves links and images and tells internal from external', () => {
    expect(e.links).toEqual([
      { href: 'https://other.org/x', text: 'external', internal: false },
      { href: 'https://www.example.com/docs/page', text: 'the docs', internal: true },
      { href: 'https://blog.example.com/post', text: 'our blog', internal: true },
    ]);
    expect(e.images).toEqual([
      { src: 'https://www.example.com/img/a.png', alt: 'An image' },
      { src: 'https://www.example.com/dir/b.jpg', alt: '' },
    ]);
  });

  it('resolves against <base href> when there is one', () => {
    const x = extract(
      page('<base href="https://cdn.example.net/root/">', `<main><p>${para(3)} <a href="rel">r</a></p></main>`),
      {
        url: 'https://example.net/page',
      },
    );
    expect(x.links).toEqual([{ href: 'https://cdn.example.net/root/rel', text: 'r', internal: true }]);
  });

  it('keeps every post of a forum thread', () => {
    const posts = [1, 2, 3]
      .map(
        (i) =>
          `<div class="comment post" id="comment-${i}"><div class="comment-body"><p>${para(2, `reply${i}`)}</p></div></div>`,
      )
      .join('');
    const x = extract(page('<meta name="generator" content="Discourse">', `<main><h1>Thread</h1>${posts}</main>`), {
      url: 'https://forum.example.org/t/thread/1',
    });
    for (const i of [1, 2, 3]) expect(x.mainText).toContain(`This is reply${i} sentence number 1`);
  });

  it('reads React streaming content parked in hidden divs', () => {
    const x = extract(
      page(
        '',
        `<div hidden id="S:0"><article><p>${para(3, 'streamed')}</p></article></div><div hidden><p>secret text</p></div>`,
      ),
    );
    expect(x.mainText).toContain('This is streamed sentence number 2');
    expect(x.mainText).not.toContain('secret');
  });
});

describe('extract: never throws', () => {
  it.each([
    ['empty', ''],
    ['binary junk', String.fromCharCode(...Array.from({ length: 2000 }, (_, i) => (i * 7919) % 256))],
    ['unclosed tags', '<div><p><b><i>text'],
    ['text only', 'just some words'],
    ['deeply nested', `${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}`],
    ['deeply nested unclosed', `<html><body>${'<span><div>'.repeat(5_000)}x`],
  ])('%s', (_name, html) => {
    const e = extract(html);
    expect(typeof e.mainText).toBe('string');
    expect(Array.isArray(e.links)).toBe(true);
    expect(e.structuredData.types).toEqual(expect.any(Array));
  });

  it('returns text of a bare fragment', () => {
    expect(extract('<p>Hello fragment world</p>').mainText).toBe('Hello fragment world');
  });

  it('does not throw on non-string input', () => {
    expect(extract(undefined as unknown as string).mainText).toBe('');
  });
});

describe('registrableHost', () => {
  it('keeps eTLD+1', () => {
    expect(registrableHost('www.example.com')).toBe('example.com');
    expect(registrableHost('a.b.example.co.uk')).toBe('example.co.uk');
    expect(registrableHost('localhost')).toBe('localhost');
    expect(registrableHost('127.0.0.1')).toBe('127.0.0.1');
  });
});
