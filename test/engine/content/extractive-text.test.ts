import { describe, expect, it } from 'vitest';
import { emptyExtraction } from '../../../src/engine/analysis/extract/index.ts';
import {
  brandLabel,
  createBrandMatcher,
  createSiteMatcher,
  createTopicMatcher,
} from '../../../src/engine/content/extractive/exclusion.ts';
import { countWords } from '../../../src/engine/content/extractive/index.ts';
import { slugify } from '../../../src/engine/content/extractive/seo.ts';
import { SECTION_MATCH_THRESHOLD, sectionMatch } from '../../../src/engine/content/extractive/placement.ts';
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
    expect(rejectReason('Call (303) 555-0117 to talk to a plumber about your heater.', foreign)).toBe('call_to_action');
    expect(rejectReason('A plumber at (303) 555-0117 can look at your heater tonight.', foreign)).toBe('promotion');
    expect(rejectReason('Family-owned and serving the whole metro area for decades.', foreign)).toBe('promotion');
    expect(rejectReason('“Great service, the crew was fast and very tidy.” – Mike D.', foreign)).toBe('testimonial');
    expect(rejectReason('The 6 Best Espresso Machines Under $500 (2024)', foreign)).toBe('fragment');
    expect(rejectReason('Too short.', foreign)).toBe('too_short');
    expect(rejectReason('Capital City Plumbing Co.', { item: true, foreign: true })).toBe('name_only');
    expect(rejectReason('Descale the heat exchanger once a year with white vinegar.', foreign)).toBeNull();
  });

  it('rejects calls to action, form prompts, policies, reviews, unbalanced quotes and other businesses prices', () => {
    const foreign = { item: false, foreign: true };
    const own = { item: false, foreign: false };
    expect(rejectReason('Enter your zip code to see if you qualify for $0 down solar panels!', foreign)).toBe(
      'form_prompt',
    );
    expect(rejectReason('Get a free quote today for your new heat pump system.', foreign)).toBe('call_to_action');
    expect(rejectReason('If your emergency is a sewer backup, call them first.', foreign)).toBe('call_to_action');
    expect(
      rejectReason(
        'You approve it before any work begins, and the price does not change if the job runs long.',
        foreign,
      ),
    ).toBe('policy');
    expect(rejectReason('Always get a written estimate before any work begins on your heater.', foreign)).toBeNull();
    expect(rejectReason('About 88% of emergency calls are fixed on the first visit.', foreign)).toBe('policy');
    expect(rejectReason('★★★★★ The furnace was replaced in one day. – Sarah K.', foreign)).toBe('testimonial');
    expect(rejectReason('The crew was great and I would recommend them to anyone.', foreign)).toBe('first_person');
    expect(rejectReason('Price was exactly what the tablet said.”', foreign)).toBe('unbalanced');
    expect(rejectReason('Costs vary by region (see the chart for details.', foreign)).toBe('unbalanced');
    expect(rejectReason('She said “it works” and the heater has run fine since then.', foreign)).toBeNull();
    expect(rejectReason('Worker-owned company with bilingual plumbers and transparent pricing.', foreign)).toBe(
      'promotion',
    );
    expect(rejectReason('smith and State water heaters are common in older homes.', foreign)).toBe('fragment');
    const service = { item: false, foreign: true, commercial: true };
    expect(rejectReason('Emergency fee is $149 after 6 p.m. on any weekday.', service)).toBe('business_price');
    expect(rejectReason('Most emergency repairs in Austin run between $250 and $850.', service)).toBeNull();
    expect(rejectReason('Emergency fee is $149 after 6 p.m. on any weekday.', foreign)).toBeNull();
    // The client's own words: first person and offers are its own, quotes must still pair up.
    expect(rejectReason('We guarantee the price will not change once you say yes.', own)).toBeNull();
    expect(rejectReason('Price was exactly what the tablet said.”', own)).toBe('unbalanced');
  });

  it('splits with the shared splitter and keeps every sentence verbatim', () => {
    const text =
      'Most heaters sold in the U.S. come from makers such as A.O. Smith and Rheem. Signs include e.g. rumbling noises. A 3.5 kW element is common. For CPU-bound work, use concurrent.futures. It runs threads.';
    const parts = split(text);
    expect(parts).toEqual([
      'Most heaters sold in the U.S. come from makers such as A.O. Smith and Rheem.',
      'Signs include e.g. rumbling noises.',
      'A 3.5 kW element is common.',
      'For CPU-bound work, use concurrent.futures.',
      'It runs threads.',
    ]);
    for (const p of parts) expect(text).toContain(p);
  });

  it('stems inflected forms together', () => {
    expect(new Set(['leaks', 'leaking', 'leaked', 'leak'].map(stemEn))).toEqual(new Set(['leak']));
    expect(stemEn('heaters')).toBe(stemEn('heater'));
    expect(stemEn('batteries')).toBe(stemEn('battery'));
    expect(stemEn('businesses')).toBe(stemEn('business'));
  });
});

describe('placement', () => {
  const topic = 'best espresso machine under 500';
  const at = (headings: string[], text = ''): { headings: string[]; text: string } => ({ headings, text });
  it('matches a heading to the sections about its subject, synonyms included', () => {
    expect(sectionMatch('Espresso machine costs', at(['Prices in 2024']), topic)).toBe(1);
    expect(sectionMatch('Milk steaming', at(['Milk steaming']), topic)).toBe(1);
    // A facet of a subject stays on it: the heating system of "what to look for".
    expect(
      sectionMatch('What to look for in an espresso machine', at(['What to look for', 'Heating system']), topic),
    ).toBeGreaterThanOrEqual(SECTION_MATCH_THRESHOLD);
  });

  it("never puts one machine's claims under another's heading", () => {
    const bambinoCons = at(['5. Breville Bambino – best value'], 'Cons: small drip tray; no brew temperature setting.');
    expect(sectionMatch('De’Longhi Dedica EC685 – best for small kitchens', bambinoCons, topic)).toBeLessThan(
      SECTION_MATCH_THRESHOLD,
    );
    expect(sectionMatch('Breville Bambino Plus – best espresso machine', bambinoCons, topic)).toBeLessThan(
      SECTION_MATCH_THRESHOLD,
    );
    // A generic facet under a named machine is that machine's, not the topic's.
    expect(sectionMatch('Pros and cons', at(['Breville Bambino', 'Pros and cons']), topic)).toBeLessThan(
      SECTION_MATCH_THRESHOLD,
    );
    // The opening of a page (no heading) goes under no heading.
    expect(sectionMatch('Milk steaming', at([], 'Milk steaming is easy.'), topic)).toBe(0);
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

  it("the writer's site matcher wants a name, not a common word that starts one", () => {
    const m = createSiteMatcher(['rapidflowplumbing', 'austinpipepros', 'waterwise', 'kitchenvault']);
    expect(m.matches('RapidFlow sends a plumber within the hour.')).toBe(true);
    expect(m.matches('Call Austin Pipe Pros for drains.')).toBe(true);
    expect(m.matches('WaterWise tested twelve heaters.')).toBe(true);
    expect(m.matches('Water heaters last about ten years.')).toBe(false);
    expect(m.matches('Kitchen faucets drip when the cartridge wears.')).toBe(false);
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
