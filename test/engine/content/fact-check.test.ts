import { describe, expect, it } from 'vitest';
import { factCheck, isClaim, markdownSentences } from '../../../src/engine/content/fact-check.ts';
import { countWords } from '../../../src/engine/content/extractive/index.ts';
import type { Draft, Research } from '../../../src/engine/content/types.ts';

/** Research whose pages carry only the text the fact check reads. */
function research(pages: Record<string, string>, imported: string | null = null): Research {
  return {
    query: 'water heaters',
    searches: [],
    skipped: [],
    imported: imported ? { url: imported, title: 'Own', markdown: '', wordCount: 0, contentHash: 'x' } : null,
    sources: Object.entries(pages).map(([url, mainText], i) => ({
      id: i + 1,
      url,
      title: url,
      platform: 'organic',
      position: i + 1,
      contentHash: String(i),
      wordCount: countWords(mainText),
      extraction: { mainText } as Research['sources'][number]['extraction'],
    })),
  };
}

const A = 'https://a-plumbing.example/water-heaters/';
const A2 = 'https://a-plumbing.example/tankless/';
const B = 'https://b-guide.example/heaters/';
const client = { name: 'Hill Country Plumbing', domain: 'hillcountryplumbing.example', knowledgeBase: null };
const options = { language: 'en', supplied: false, countWords };

const draftOf = (sentences: [string, string | null][]): Draft => {
  const markdown = `# Water heaters\n\n${sentences.map(([t]) => t).join(' ')}\n`;
  return {
    markdown,
    wordCount: countWords(markdown),
    sentences: sentences.map(([text, sourceUrl]) => ({ text, section: '', sourceUrl })),
  };
};

describe('the fact check counts only independent evidence', () => {
  const pages = research({
    [A]: 'A tank water heater lasts 8 to 12 years. A.O. Smith sells tank and tankless models.',
    [A2]: 'A tank water heater lasts 8 to 12 years with yearly flushing.',
    [B]: 'Most tank water heaters last 8 to 12 years before the tank corrodes.',
  });

  it('a claim quoted from one site and found on another is supported, citing the other site', () => {
    const check = factCheck(draftOf([['A tank water heater lasts 8 to 12 years.', A]]), pages, client, options);
    expect(check).toMatchObject({ checked: 1, supported: 1, singleSource: 0, removed: 0 });
    expect(check.citations[0]).toMatchObject({ source_url: B, support: 'supported' });
    expect(check.citations[0]!.quote).toContain('8 to 12 years');
  });

  it('a claim found only on the site it was quoted from (even on two of its pages) is single_source, kept and cited', () => {
    const check = factCheck(draftOf([['A.O. Smith sells tank and tankless models.', A]]), pages, client, options);
    expect(check).toMatchObject({ checked: 1, supported: 0, singleSource: 1, removed: 0 });
    expect(check.citations[0]).toMatchObject({ source_url: A, support: 'single_source' });
    expect(check.draft.markdown).toContain('A.O. Smith sells tank and tankless models.');
  });

  it('a claim no page backs is removed from a writer draft', () => {
    const text = 'Every water heater made in 2020 carries a 25 year warranty.';
    const check = factCheck(draftOf([[text, null]]), pages, client, options);
    expect(check).toMatchObject({ checked: 1, removed: 1, removedClaims: [text] });
    expect(check.draft.markdown).not.toContain('25 year');
  });

  it('the knowledge base supports a claim no page has', () => {
    const kb = 'Hill Country Plumbing has installed over 2,400 tankless units since 2009.';
    const check = factCheck(
      draftOf([['The team has installed over 2,400 tankless units since 2009.', null]]),
      pages,
      { ...client, knowledgeBase: kb },
      options,
    );
    expect(check).toMatchObject({ checked: 1, supported: 1, removed: 0 });
    expect(check.citations[0]).toMatchObject({ source_url: 'knowledge-base:client', quote: kb, support: 'supported' });
  });

  it("the client's own call to action and knowledge-base sentences are never removed nor counted as claims", () => {
    const cta = 'Call Hill Country Plumbing at any hour for a same-day visit in Austin.';
    const kbLine = 'Our vans carry 40 and 50 gallon tanks.';
    const check = factCheck(
      draftOf([
        [cta, null],
        [kbLine, 'knowledge-base:1a2b3c'],
      ]),
      pages,
      client,
      options,
    );
    expect(check).toMatchObject({ checked: 0, removed: 0 });
    expect(check.draft.markdown).toContain(cta);
  });

  it('a supplied draft is never edited: an unsupported claim is flagged and kept', () => {
    const body =
      '# Heaters\n\nA tank water heater lasts 8 to 12 years.\n\n- Every model sold in 2021 saves 40% on bills.\n';
    const check = factCheck({ markdown: body, wordCount: countWords(body), sentences: [] }, pages, client, {
      ...options,
      supplied: true,
    });
    expect(check.draft.markdown).toBe(body);
    // Paraphrased claims need two sites; this one is word for word on A and B.
    expect(check).toMatchObject({ checked: 2, supported: 1, flagged: 1, removed: 0 });
    expect(check.flaggedClaims).toEqual(['Every model sold in 2021 saves 40% on bills.']);
  });

  it('checked = supported + single_source + removed + flagged', () => {
    const check = factCheck(
      draftOf([
        ['A tank water heater lasts 8 to 12 years.', A],
        ['A.O. Smith sells tank and tankless models.', A],
        ['Only 3% of heaters fail in 2019.', null],
      ]),
      pages,
      client,
      options,
    );
    expect(check.checked).toBe(check.supported + check.singleSource + check.removed + check.flagged);
    expect(check.checked).toBe(3);
  });
});

describe('claims and markdown sentences', () => {
  it('questions and research-gap notes are not claims; numbers, names and absolutes are', () => {
    expect(isClaim('How long does a water heater last?')).toBe(false);
    expect(isClaim('[research gap: the sources say nothing about permits]')).toBe(false);
    expect(isClaim('It lasts 10 years.')).toBe(true);
    expect(isClaim('Brands include Rheem.')).toBe(true);
    expect(isClaim('It is the best choice.')).toBe(true);
    expect(isClaim('it works well.')).toBe(false);
  });

  it('a markdown draft splits into sentences by section, list items and abbreviations kept, Sources left out', () => {
    const md =
      '# Title\n\nIntro about A.O. Smith tanks. A second one.\n\n## Costs\n\n* A 3.5 kW unit costs more, e.g. in the U.S. market.\n* **Bold** [link](https://x.example) item.\n\n## Sources\n\n1. [A](https://a.example)\n';
    expect(markdownSentences(md)).toEqual([
      { text: 'Intro about A.O. Smith tanks.', section: 'Title', sourceUrl: null },
      { text: 'A second one.', section: 'Title', sourceUrl: null },
      { text: 'A 3.5 kW unit costs more, e.g. in the U.S. market.', section: 'Costs', sourceUrl: null },
      { text: 'Bold link item.', section: 'Costs', sourceUrl: null },
    ]);
  });
});
