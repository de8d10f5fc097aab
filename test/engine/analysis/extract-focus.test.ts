import { describe, expect, it } from 'vitest';
import { extract } from '../../../src/engine/analysis/extract/index.ts';

const sentence = (word: string, i: number): string =>
  `The ${word} is described in sentence ${i}, with enough words to read like running text on a page.`;
const prose = (word: string, n: number): string => Array.from({ length: n }, (_, i) => sentence(word, i)).join(' ');

function page(body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><title>T</title></head><body>${body}</body></html>`;
}

describe('extract: narrowing by page type', () => {
  it('keeps a product page to its name and description sections, not the buy box', () => {
    const buyBox = Array.from({ length: 8 }, (_, i) => `<div class="variant-row">Size ${i} ships in ${i} days</div>`);
    const html = page(
      `<main><h1>Trail Pack</h1><div class="buy-box">${buyBox.join('')}<p>Pay in 4 instalments of $20.00</p></div>` +
        `<div class="product-description"><p>${prose('pack', 4)}</p></div>` +
        `<div class="product-specs"><table><tr><td>Weight</td><td>1 kg</td></tr><tr><td>Volume</td><td>25 litres</td></tr>` +
        `<tr><td>Material</td><td>Recycled nylon ripstop</td></tr><tr><td>Dimensions</td><td>60 x 30 x 20 cm</td></tr></table></div></main>`,
    );
    const e = extract(html, { pageType: 'product' });
    expect(e.mainText).toContain('Trail Pack');
    expect(e.mainText).toContain('sentence 3');
    expect(e.mainText).toContain('Weight');
    expect(e.mainText).not.toContain('ships in');
    expect(e.mainText).not.toContain('instalments');
  });

  it('leaves a product page whole when its running text lies outside the description sections', () => {
    const html = page(
      `<main><h1>Coffee</h1><div class="hero"><p>${prose('roast', 5)}</p></div>` +
        `<div class="product-details"><p>${prose('bag', 2)}</p></div></main>`,
    );
    const e = extract(html, { pageType: 'product' });
    expect(e.mainText).toContain('roast');
    expect(e.mainText).toContain('bag');
  });

  it('keeps a listing to its heading and grid of items, without the filters beside it', () => {
    const items = Array.from(
      { length: 6 },
      (_, i) =>
        `<div class="card"><h3><a href="/i/${i}">Item number ${i} title</a></h3><p>${sentence('item', i)}</p></div>`,
    );
    const filters = Array.from({ length: 5 }, (_, i) => `<label>Colour option ${i}</label>`).join('');
    const html = page(
      `<main><h1>All items</h1><div class="panel">${filters}</div><div class="grid">${items.join('')}</div></main>`,
    );
    const e = extract(html, { pageType: 'listing' });
    expect(e.mainText).toContain('All items');
    expect(e.mainText).toContain('Item number 5 title');
    expect(e.mainText).not.toContain('Colour option');
  });

  it('drops short link-only lines repeated item after item, keeping repeated labels', () => {
    const items = Array.from(
      { length: 5 },
      (_, i) =>
        `<li><h3>Book ${i}</h3><p>Format:</p><p>${sentence('book', i)}</p><p><a href="/rate/${i}">Rate this book</a></p></li>`,
    );
    const e = extract(page(`<main><h1>Books</h1><ul>${items.join('')}</ul></main>`), { pageType: 'collection' });
    expect(e.mainText).toContain('Book 4');
    expect(e.mainText).toContain('Format:');
    expect(e.mainText).not.toContain('Rate this book');
  });

  it('leaves quotes of earlier posts and post meta lines out of a forum thread', () => {
    const posts = [0, 1, 2].map(
      (i) =>
        `<article class="message"><div class="message-attribution">#${i + 1} Posted May ${i + 2}</div>` +
        (i > 0 ? `<blockquote class="bbCodeBlock bbCodeBlock--quote">${sentence('quoted', i)}</blockquote>` : '') +
        `<div class="message-body"><p>${sentence(`reply${i}`, i)}</p></div></article>`,
    );
    const e = extract(page(`<main><h1>Thread</h1>${posts.join('')}</main>`), { pageType: 'forum' });
    expect(e.mainText).toContain('reply2');
    expect(e.mainText).not.toContain('quoted');
    expect(e.mainText).not.toContain('Posted May');
  });

  it('leaves the comments under a question or an answer out of a Q&A thread, and keeps a thread of replies', () => {
    const comments = (i: number): string =>
      `<div class="comments js-comments-container"><ul><li>${sentence(`remark${i}`, i)}</li></ul></div>`;
    const qa = page(
      `<main><h1>Question</h1><div class="question"><p>${prose('question', 2)}</p>${comments(0)}</div>` +
        `<div class="answer"><p>${prose('answer', 2)}</p>${comments(1)}</div></main>`,
    );
    const e = extract(qa, { pageType: 'forum' });
    expect(e.mainText).toContain('The answer');
    expect(e.mainText).not.toContain('remark');
    const replies = Array.from({ length: 3 }, (_, i) => `<li class="comment">${sentence(`reply${i}`, i)}</li>`);
    const thread = page(
      `<main><div class="story"><h1>Story</h1><p>${sentence('story', 0)}</p></div>` +
        `<ol class="comments">${replies.join('')}</ol></main>`,
    );
    expect(extract(thread, { pageType: 'forum' }).mainText).toContain('reply2');
  });
});
