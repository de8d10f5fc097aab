import { describe, expect, it } from 'vitest';
import { emptyExtraction } from '../../../src/engine/analysis/extract/index.ts';
import {
  brandLabel,
  createBrandMatcher,
  createTopicMatcher,
} from '../../../src/engine/content/extractive/exclusion.ts';
import { countWords } from '../../../src/engine/content/extractive/index.ts';
import { slugify } from '../../../src/engine/content/extractive/seo.ts';
import { createSentenceSplitter, rejectReason } from '../../../src/engine/content/extractive/sentences.ts';
import { readExtraction, readMarkdown } from '../../../src/engine/content/extractive/structure.ts';
import { stemEn, trimAtWord } from '../../../src/engine/content/extractive/text.ts';

describe('countWords', () => {
  it('counts body words only: no Sources section, citation markers, link targets or markdown syntax', () => {
    const md = [
      '# Tankless heaters',
      '',
      'One two three. [1] Four, five [2]',
      '',
      '- item six [3]',
      '1. seven eight',
      '',
      'See [the guide](https://example.com/a-long-url) here.',
      '',
      '![alt text](img.png)',
      '',
      '## Sources',
      '',
      '1. [Source one](https://a.example)',
      '',
      '_Extractive draft: not counted._',
    ].join('\n');
    // Tankless heaters (2) + 5 + item six (2) + seven eight (2) + See the guide here (4) = 15
    expect(countWords(md)).toBe(15);
  });

  it('joins inner apostrophes, hyphens and dots; splits at slashes', () => {
    expect(countWords("don't well-known 1.5 24/7 U.S.")).toBe(6);
    expect(countWords('## Sources\n\nwords here\n\n## Next\n\nthree more words')).toBe(4);
  });
});

describe('sentences', () => {
  const split = createSentenceSplitter('en');
  it('repairs abbreviations and quoted questions, keeps real ends', () => {
    expect(
      split(
        'Ask Dr. Smith about it. Not every drip needs a truck at 3 a.m. A leak is urgent. “Is it safe?” she asked. Yes.',
      ),
    ).toEqual([
      'Ask Dr. Smith about it.',
      'Not every drip needs a truck at 3 a.m.',
      'A leak is urgent.',
      '“Is it safe?” she asked.',
      'Yes.',
    ]);
  });

  it('rejects boilerplate, chatter, first person, promotion, testimonials and fragments', () => {
    const foreign = { item: false, foreign: true };
    expect(rejectReason('We use cookies to improve your experience on this site.', foreign)).toBe('boilerplate');
    expect(rejectReason('I think tankless is totally worth it for most homes.', foreign)).toBe('chatter');
    expect(rejectReason('Our plumbers handle permits, venting and gas line sizing.', foreign)).toBe('first_person');
    expect(
      rejectReason('Our plumbers handle permits, venting and gas line sizing.', { item: false, foreign: false }),
    ).toBeNull();
    expect(rejectReason('Call (303) 555-0117 to talk to a plumber about your heater.', foreign)).toBe('promotion');
    expect(rejectReason('Family-owned and serving the whole metro area for decades.', foreign)).toBe('promotion');
    expect(rejectReason('“Great service, the crew was fast and very tidy.” – Mike D.', foreign)).toBe('testimonial');
    expect(rejectReason('The 6 Best Espresso Machines Under $500 (2024)', foreign)).toBe('fragment');
    expect(rejectReason('Too short.', foreign)).toBe('too_short');
    expect(rejectReason('Capital City Plumbing Co.', { item: true, foreign: true })).toBe('name_only');
    expect(rejectReason('Descale the heat exchanger once a year with white vinegar.', foreign)).toBeNull();
  });

  it('stems inflected forms together', () => {
    expect(new Set(['leaks', 'leaking', 'leaked', 'leak'].map(stemEn))).toEqual(new Set(['leak']));
    expect(stemEn('heaters')).toBe(stemEn('heater'));
    expect(stemEn('batteries')).toBe(stemEn('battery'));
    expect(stemEn('business')).toBe('business');
  });
});

describe('exclusion and brands', () => {
  it('matches an excluded topic in any case and inflection, and only as a phrase', () => {
    const m = createTopicMatcher(['solar water heater', 'rebate'], 'en');
    expect(m.matches('Solar Water Heaters need a backup heater.')).toBe(true);
    expect(m.matches('Local utility REBATES can lower the price.')).toBe(true);
    expect(m.matches('Solar panels can heat water for a heater.')).toBe(false);
    expect(m.partOf?.('solar water')).toBe(true);
    expect(m.partOf?.('water')).toBe(false);
  });

  it('finds a site brand by its host label', () => {
    expect(brandLabel('https://www.rapidflowplumbing.com/x')).toBe('rapidflowplumbing');
    expect(brandLabel('https://shop.example.co.uk/')).toBe('example');
    const m = createBrandMatcher(['rapidflowplumbing', 'austinpipepros', 'homebaristas']);
    expect(m.matches('RapidFlow sends a plumber within the hour.')).toBe(true);
    expect(m.matches('Call Austin Pipe Pros for drains.')).toBe(true);
    expect(m.matches('Rapid flow of water through the pipe.')).toBe(false);
    expect(m.matches('Many home baristas start with a used machine.')).toBe(false);
  });
});

describe('structure', () => {
  it('guesses headings and skips tables when the extractor gave no structure', () => {
    const ex = {
      ...emptyExtraction(),
      mainText: [
        'A guide to heaters',
        'Heaters warm water for a home. They come in many sizes.',
        'Prices in 2024\nService\nPrice\nFlush\n$175\nRepair\n$250',
        'How they work',
        'Cold water enters the unit and is heated.\nFirst item of a list\nSecond item of a list',
      ].join('\n\n'),
    };
    const blocks = readExtraction(ex);
    expect(blocks.filter((b) => b.kind === 'heading').map((b) => [b.text, b.level])).toEqual([
      ['A guide to heaters', 1],
      ['Prices in 2024', 2],
      ['How they work', 2],
    ]);
    expect(blocks.some((b) => b.text === '$175')).toBe(false);
    expect(blocks.filter((b) => b.kind === 'item').map((b) => b.text)).toEqual([
      'First item of a list',
      'Second item of a list',
    ]);
  });

  it('reads markdown: headings, items with continuations, paragraphs, raw tables', () => {
    const blocks = readMarkdown(
      '# Title\n\nPara one\ncontinues.\n\n- a item\n  more\n- b item\n\n| x | y |\n|---|---|\n\n## Next\n',
    );
    expect(blocks.map((b) => [b.kind, b.text])).toEqual([
      ['heading', 'Title'],
      ['paragraph', 'Para one continues.'],
      ['item', 'a item more'],
      ['item', 'b item'],
      ['raw', '| x | y |\n|---|---|'],
      ['heading', 'Next'],
    ]);
  });
});

describe('seo helpers', () => {
  it('slugs and trims at word boundaries', () => {
    expect(slugify('Café Crème: Best Espresso 2024!')).toBe('cafe-creme-best-espresso-2024');
    expect(trimAtWord('one two three four five six', 15)).toBe('one two three…');
    expect(trimAtWord('short', 15)).toBe('short');
  });
});
