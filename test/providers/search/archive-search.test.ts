import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SAMPLE_ARCHIVE_PATH } from '../../../src/config.ts';
import { createArchiveSearch } from '../../../src/providers/search/archive-search.ts';
import { ProviderError } from '../../../src/providers/types.ts';
import type { SearchResponse } from '../../../src/providers/types.ts';
import { createWebArchive } from '../../../src/providers/web/archive/archive.ts';
import { fallbackExtractText } from '../../../src/providers/web/archive/fallback-extract.ts';
import { clip } from '../../../src/providers/web/archive/snippet.ts';
import { stem, terms } from '../../../src/providers/web/archive/terms.ts';
import { serializeExchange } from '../../../src/providers/web/archive/writer.ts';
import { tempDir } from '../../helpers/temp.ts';

const fixedClock = { now: () => Date.parse('2024-07-01T12:00:00.000Z') };
const tmp = tempDir('archive-search-');
afterAll(() => tmp.cleanup());
const indexDir = join(tmp.dir, 'index');
const sampleArchive = () => createWebArchive({ path: SAMPLE_ARCHIVE_PATH, indexDir });
// One index for the file: extracting the sample archive's pages is the slow part.
const search = createArchiveSearch({ archive: sampleArchive(), clock: fixedClock });

const hosts = (r: SearchResponse, n = 3) => r.results.slice(0, n).map((x) => new URL(x.url).host);

describe('archive search on the sample archive', () => {
  const topics: [string, RegExp][] = [
    ['emergency plumber', /plumb|rooter|pipepros|homefixguide/],
    ['water heater repair', /plumb|rooter|pipepros|homefixguide/],
    ['best espresso machine under 500', /brewgeek|crema|barista/],
    ['sourdough starter not rising', /loaf|bakersbench|flourandwater|kingsmill|quickeats/],
    ['how much do solar panels cost', /sunwise|solar|energysaver/],
    ['heat pump vs furnace', /sunwise|greenhome|comfortair/],
    ['python asyncio tutorial', /realcoder|pyguide|codeanswers|snakebytes/],
  ];

  it.each(topics)('ranks the topic pages first for "%s"', async (query, topic) => {
    const response = await search.search(query, { platform: 'organic' });
    expect(response.results.length).toBeGreaterThanOrEqual(3);
    for (const host of hosts(response)) expect(host).toMatch(topic);
  });

  it('puts the obvious best page first for each main demo query', async () => {
    const first = async (q: string) => (await search.search(q, { platform: 'organic' })).results[0]?.url;
    expect(await first('best espresso machine under 500')).toBe(
      'https://brewgeek.net/guides/best-espresso-machines-under-500/',
    );
    expect(await first('how much do solar panels cost')).toBe(
      'https://www.sunwiseenergy.org/guides/how-much-do-solar-panels-cost/',
    );
    expect(await first('heat pump vs furnace')).toBe('https://www.sunwiseenergy.org/guides/heat-pump-vs-furnace/');
    expect(await first('python asyncio tutorial')).toBe('https://www.realcoder.io/articles/python-asyncio-tutorial/');
    expect(await first('asyncio queue worker')).toBe('https://www.realcoder.io/articles/asyncio-queue-worker-pool/');
  });

  it('answers the SearchResponse shape with positions, titles and short snippets', async () => {
    const response = await search.search('breville bambino plus review', {
      platform: 'organic',
      location: 'Portland, Oregon, United States',
      language: 'en',
    });
    expect(response).toMatchObject({
      provider: 'archive',
      platform: 'organic',
      query: 'breville bambino plus review',
      location: 'Portland, Oregon, United States',
      language: 'en',
      fetchedAt: '2024-07-01T12:00:00.000Z',
    });
    expect(response.results.map((r) => r.position)).toEqual(response.results.map((_, i) => i + 1));
    expect(response.results[0]?.url).toBe('https://brewgeek.net/reviews/breville-bambino-plus-review/');
    expect(response.results[0]?.title).toMatch(/^Breville Bambino Plus Review/);
    for (const r of response.results) {
      expect(r.snippet.length).toBeGreaterThan(0);
      expect(r.snippet.length).toBeLessThanOrEqual(200);
    }
  });

  it('returns nothing for a query no page matches, or one made only of stop words', async () => {
    expect((await search.search('flibbertigibbet quuxzorp', { platform: 'organic' })).results).toEqual([]);
    expect((await search.search('the and of', { platform: 'organic' })).results).toEqual([]);
    expect((await search.search('', { platform: 'organic' })).results).toEqual([]);
  });

  it('never returns more than 10 results, and honours a smaller limit', async () => {
    expect((await search.search('water heater plumber austin', { platform: 'organic' })).results).toHaveLength(10);
    expect(
      (await search.search('water heater plumber austin', { platform: 'organic', limit: 50 })).results,
    ).toHaveLength(10);
    expect(
      (await search.search('water heater plumber austin', { platform: 'organic', limit: 3 })).results,
    ).toHaveLength(3);
  });

  it('only returns HTML pages with status 200 that match a query term', async () => {
    const response = await search.search('page not found', { platform: 'organic' });
    const urls = response.results.map((r) => r.url);
    expect(urls).not.toContain('https://www.rapidflowplumbing.com/coupons/');
    expect(urls).not.toContain('https://docs.pyguide.dev/asyncio/streams-legacy/');
    const pdf = await search.search('solar buyer checklist NABCEP', { platform: 'organic' });
    expect(pdf.results.map((r) => r.url)).not.toContain(
      'https://www.sunwiseenergy.org/downloads/solar-buyers-checklist.pdf',
    );
  });

  it('is deterministic: the same query gives the same results in the same order', async () => {
    const a = await search.search('sourdough bread recipe', { platform: 'organic' });
    const b = await search.search('sourdough bread recipe', { platform: 'organic' });
    expect(b.results).toEqual(a.results);
    const other = createArchiveSearch({ archive: sampleArchive(), clock: fixedClock });
    expect((await other.search('sourdough bread recipe', { platform: 'organic' })).results).toEqual(a.results);
  });

  it('boosts pages that mention the city of the location among pages that match', async () => {
    const plain = await search.search('emergency plumber', { platform: 'organic' });
    const local = await search.search('emergency plumber', { platform: 'organic', location: 'Round Rock, Texas' });
    const rank = (r: SearchResponse) => r.results.findIndex((x) => x.url.endsWith('/service-areas/round-rock/'));
    expect(rank(local)).toBeLessThan(rank(plain));
    // The boost reorders pages that match; only the weakest match at the cut of ten may trade places (two solar pages
    // match `emergency` by `emergencies` alone, and one of them mentions `round`).
    const plainUrls = new Set(plain.results.map((r) => r.url));
    expect(local.results.filter((r) => !plainUrls.has(r.url)).length).toBeLessThanOrEqual(1);
  });

  it('rejects platforms other than organic', async () => {
    await expect(search.search('x', { platform: 'youtube_search' })).rejects.toBeInstanceOf(ProviderError);
  });

  it('uses the extractor it is given, and keeps its index apart from other extractors', async () => {
    const calls: string[] = [];
    const options = {
      extractorId: 'zanzibar-test',
      extractText: (_html: string, url: string) => {
        calls.push(url);
        return { title: `T ${url}`, text: url.includes('theloafjournal.com/') ? 'zanzibar marmalade' : 'other' };
      },
    };
    const custom = createArchiveSearch({ archive: sampleArchive(), ...options });
    const response = await custom.search('zanzibar', { platform: 'organic' });
    expect(calls.length).toBeGreaterThanOrEqual(48);
    expect(response.results.every((r) => r.url.includes('theloafjournal.com'))).toBe(true);
    expect(response.results[0]?.title).toMatch(/^T https:\/\/www\.theloafjournal\.com/);
    const extracted = calls.length;
    await custom.search('marmalade', { platform: 'organic' });
    expect(calls.length).toBe(extracted); // the index was built once
    await custom.close();

    // A later start reuses the index on disk: nothing is extracted again.
    const restarted = createArchiveSearch({ archive: sampleArchive(), ...options });
    expect((await restarted.search('zanzibar', { platform: 'organic' })).results).toEqual(response.results);
    expect(calls.length).toBe(extracted);
    await restarted.close();
    // The default extractor's index is another one: it never saw the marmalade.
    expect((await search.search('zanzibar marmalade', { platform: 'organic' })).results).toEqual([]);
  });
});

describe('ranking', () => {
  const page = (url: string, title: string, text: string) =>
    serializeExchange(
      {
        url,
        date: '2024-01-01T00:00:00Z',
        status: 200,
        statusText: 'OK',
        headers: [['Content-Type', 'text/html; charset=utf-8']],
        payload: Buffer.from(
          `<html><head><title>${title}</title></head><body><main><p>${text}</p></main></body></html>`,
        ),
      },
      { gzip: true },
    );

  it('breaks ties by URL and boosts title matches', async () => {
    const file = join(tmp.dir, 'kettles.warc.gz');
    await writeFile(
      file,
      Buffer.concat([
        await page('https://b.example/', 'Alpha', 'kettle descaling guide. Other words here.'),
        await page('https://a.example/', 'Alpha', 'kettle descaling guide. Other words here.'),
        await page('https://c.example/', 'Kettle descaling', 'How to descale a kettle with citric acid.'),
        await page('https://d.example/', 'Beta', 'Nothing about that at all.'),
        await page('https://e.example/', 'Gamma', 'Still nothing to see.'),
      ]),
    );
    const kettles = createArchiveSearch({ archive: createWebArchive({ path: file, indexDir }) });
    const response = await kettles.search('kettle descaling', { platform: 'organic' });
    expect(response.results.map((r) => r.url)).toEqual([
      'https://c.example/',
      'https://a.example/',
      'https://b.example/',
    ]);
    expect(response.results[0]?.snippet).toBe('How to descale a kettle with citric acid.');
    await kettles.close();
  });

  it('stems consistently and drops stop words', () => {
    expect(stem('baking')).toBe(stem('bakes'));
    expect(stem('heating')).toBe(stem('heat'));
    expect(stem('running')).toBe('run');
    expect(terms('The Heat Pumps of Minnesota')).toEqual(['heat', 'pump', 'minnesota']);
  });

  it('clips long snippets to 200 characters at a word boundary', () => {
    const long = `${'word '.repeat(30)}target ${'tail '.repeat(40)}`.trim();
    const clipped = clip(long, long.indexOf('target'));
    expect(clipped.length).toBeLessThanOrEqual(200);
    expect(clipped).toContain('target');
    expect(clipped.endsWith('…')).toBe(true);
  });

  it('the fallback extractor drops navigation, footers, scripts and cookie banners', () => {
    const { title, text } = fallbackExtractText(
      '<html><head><title> Hello  page </title><script>var x=1</script></head><body>' +
        '<div class="cookie-banner">We use cookies</div><nav>Home About</nav><header>Logo</header>' +
        '<main><h1>Heading</h1><p>Body text.</p><aside>Related</aside></main><footer>Copyright</footer></body></html>',
      'https://x.example/',
    );
    expect(title).toBe('Hello page');
    expect(text).toBe('Heading\nBody text.');
  });
});
