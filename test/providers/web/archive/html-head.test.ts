/**
 * html-head.ts: where a document's head ends, and the head the importer parses (scripts and styles emptied).
 */
import { describe, expect, it } from 'vitest';
import { documentHead, headEnd } from '../../../../src/providers/web/archive/html-head.ts';

describe('headEnd', () => {
  it('ends the head at the <body> start tag, whatever its case and attributes', () => {
    const html = '<html><head><title>t</title></head><BODY class="x"><p>text</p></body></html>';
    expect(headEnd(html)).toBe(html.indexOf('<BODY'));
    expect(headEnd('<head></head><body>')).toBe(13);
  });

  it('is not fooled by a "<body" inside a comment, a script, a style, the title or a quoted attribute', () => {
    const head =
      '<!-- <body> in a comment --><html><head>' +
      '<script>document.write("<body>")</script>' +
      '<style>/* <body> */ body { color: red }</style>' +
      '<title>About <body> tags</title>' +
      '<meta name="x" content="a <body> here">' +
      '<link rel="canonical" href="https://a.example/">';
    const html = `${head}</head><body><p>text</p>`;
    expect(headEnd(html)).toBe(head.length + '</head>'.length);
  });

  it('is the whole text without a body tag, or when a raw-text element or comment never ends', () => {
    expect(headEnd('<link rel="canonical" href="https://a.example/">')).toBe(48);
    expect(headEnd('<head><script>var a = "<body>";')).toBe(31);
    expect(headEnd('<head><!-- <body>')).toBe(17);
    expect(headEnd('<head><plaintext><body>')).toBe(23);
  });
});

describe('documentHead', () => {
  it('keeps the markup before <body> and the title, without the text of scripts and styles', () => {
    const html =
      '<!-- saved from url=(0022)https://a.example/x -->' +
      '<html><head><title>T</title><script type="application/ld+json">{"url":"<body>"}</script>' +
      '<style>p{}</style><meta property="og:url" content="https://a.example/x"></head><body><p>body text</p>';
    expect(documentHead(html)).toBe(
      '<!-- saved from url=(0022)https://a.example/x -->' +
        '<html><head><title>T</title><script type="application/ld+json"></script>' +
        '<style></style><meta property="og:url" content="https://a.example/x"></head>',
    );
  });
});
