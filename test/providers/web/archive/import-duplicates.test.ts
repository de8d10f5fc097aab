/**
 * import-duplicates.ts: one file per URL by the documented rule (source, then text, then path order), each file left
 * out reported with the step that decided.
 */
import { describe, expect, it } from 'vitest';
import { pageTextLength, resolveDuplicates } from '../../../../src/providers/web/archive/import-duplicates.ts';
import type { UrlClaim } from '../../../../src/providers/web/archive/import-duplicates.ts';

const claim = (file: string, url: string, source: UrlClaim['source'], order: number): UrlClaim => ({
  file,
  url,
  source,
  order,
});

describe('resolveDuplicates', () => {
  it('keeps unique URLs as they are and never measures text for them', async () => {
    const claims = [claim('a', 'https://a/', 'canonical', 0), claim('b', 'https://b/', 'base-url', 1)];
    const measured: string[] = [];
    const { kept, duplicates } = await resolveDuplicates(claims, async (c) => {
      measured.push(c.file);
      return 0;
    });
    expect(kept).toEqual(claims);
    expect(duplicates).toEqual([]);
    expect(measured).toEqual([]);
  });

  it('prefers the stronger source: canonical, og:url, saved-from, base-url', async () => {
    const url = 'https://u/';
    const claims = [
      claim('base', url, 'base-url', 0),
      claim('saved', url, 'saved-from', 1),
      claim('og', url, 'og:url', 2),
      claim('canon', url, 'canonical', 3),
    ];
    const measured: string[] = [];
    const { kept, duplicates } = await resolveDuplicates(claims, async (c) => {
      measured.push(c.file);
      return 0;
    });
    expect(kept.map((c) => c.file)).toEqual(['canon']);
    expect(duplicates.map((d) => [d.winner, d.loser, d.rule])).toEqual([
      ['canon', 'og', 'source'],
      ['canon', 'saved', 'source'],
      ['canon', 'base', 'source'],
    ]);
    expect(measured).toEqual([]); // no tie on the source, so no text to measure
  });

  it('between equal sources keeps the file with more text, then the first in path order', async () => {
    const text: Record<string, number> = { short: 10, long: 500, twinA: 40, twinB: 40, weak: 9999 };
    const claims = [
      claim('short', 'https://t/', 'canonical', 0),
      claim('weak', 'https://t/', 'og:url', 1), // more text, but a weaker source: never measured
      claim('long', 'https://t/', 'canonical', 2),
      claim('twinB', 'https://p/', 'og:url', 3),
      claim('twinA', 'https://p/', 'og:url', 4),
    ];
    const measured: string[] = [];
    const { kept, duplicates } = await resolveDuplicates(claims, async (c) => {
      measured.push(c.file);
      return text[c.file] ?? 0;
    });
    expect(kept.map((c) => c.file)).toEqual(['long', 'twinB']);
    expect(duplicates).toEqual([
      {
        url: 'https://p/',
        winner: 'twinB',
        loser: 'twinA',
        rule: 'path-order',
        reason:
          'both name it by its og:url and have as much text (40 characters); the winner comes first in path order',
      },
      {
        url: 'https://t/',
        winner: 'long',
        loser: 'short',
        rule: 'text',
        reason: 'both name it by its canonical link; the winner has more text (500 characters against 10)',
      },
      {
        url: 'https://t/',
        winner: 'long',
        loser: 'weak',
        rule: 'source',
        reason: "the winner's URL comes from its canonical link, a stronger source than the loser's og:url",
      },
    ]);
    expect(measured.sort()).toEqual(['long', 'short', 'twinA', 'twinB']);
  });
});

describe('pageTextLength', () => {
  it('counts what a reader sees: no markup, scripts, styles or comments, spaces collapsed', () => {
    const html =
      '<html><head><title>Hi</title><style>p { color: red }</style><script>var x = "<p>";</script></head>' +
      '<body><!-- note --><p>Hello   <b>world</b></p>\n<svg><text>chart</text></svg><p>&amp; more</p></body></html>';
    // "Hi Hello world _ more"
    expect(pageTextLength(html)).toBe('Hi Hello world _ more'.length);
  });
});
