/**
 * Where an HTML document's head ends: the offset of its `<body>` start tag, or the document's length without one.
 * Saved pages average hundreds of kilobytes while the URL they name sits in the head (canonical link, `og:url`, the
 * "saved from url" comment above it), so the importer parses only this much of each page. The scan skips comments,
 * quoted attribute values and the raw text of script-like elements, so a `<body` written inside them does not end
 * the head early.
 */

/** Elements whose content is text up to their end tag, never markup. */
const RAW_TEXT = new Set(['script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes']);

const TAG_NAME = /<([a-zA-Z][a-zA-Z0-9:-]*)/y;
const endTags = new Map<string, RegExp>();

/** The offset just past the `>` that ends the tag whose name ends at `from` (quoted values may hold a `>`). */
function tagEnd(text: string, from: number): number {
  let quote = '';
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '>') {
      return i + 1;
    }
  }
  return text.length;
}

/** Raw-text elements whose text is left out of the head given to the parser (the title is kept). */
const CODE = new Set(['script', 'style']);

/**
 * Scans `text` up to its `<body` start tag: the offset of that tag (`text.length` without one) and, when `keep`,
 * the markup before it without the text of its scripts and styles.
 */
function scanHead(text: string, keep: boolean): { end: number; head: string } {
  const parts: string[] = [];
  let from = 0; // start of the markup not yet kept
  let i = 0;
  const done = (end: number) => {
    if (keep) parts.push(text.slice(from, end));
    return { end, head: parts.join('') };
  };
  for (;;) {
    const lt = text.indexOf('<', i);
    if (lt < 0) return done(text.length);
    if (text.startsWith('<!--', lt)) {
      const end = text.indexOf('-->', lt + 4);
      if (end < 0) return done(text.length);
      i = end + 3;
      continue;
    }
    TAG_NAME.lastIndex = lt;
    const m = TAG_NAME.exec(text);
    if (!m?.[1]) {
      i = lt + 1;
      continue;
    }
    const name = m[1].toLowerCase();
    if (name === 'body') return done(lt);
    if (name === 'plaintext') return done(text.length);
    i = tagEnd(text, lt + m[0].length);
    if (RAW_TEXT.has(name)) {
      let close = endTags.get(name);
      if (!close) {
        close = new RegExp(`</${name}[\\s/>]`, 'gi');
        endTags.set(name, close);
      }
      close.lastIndex = i;
      const found = close.exec(text);
      if (!found) return done(text.length);
      if (keep && CODE.has(name)) {
        parts.push(text.slice(from, i));
        from = found.index;
      }
      i = found.index + 2;
    }
  }
}

/** The offset of the `<body` start tag in `text` (HTML markup, or bytes read as latin1), else `text.length`. */
export function headEnd(text: string): number {
  return scanHead(text, false).end;
}

/**
 * The document's markup before its `<body>` start tag (all of it when there is none), with the text of its scripts
 * and styles left out: a saved page's head is mostly inline code, which names no URL and is most of what a parser
 * would be given.
 */
export function documentHead(html: string): string {
  return scanHead(html, true).head;
}

/** documentHead and where the head ends in `html` (the body is `html.slice(end)`). */
export function splitHead(html: string): { head: string; end: number } {
  return scanHead(html, true);
}
