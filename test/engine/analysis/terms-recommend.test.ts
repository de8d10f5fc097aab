/**
 * What the competitor model may recommend (score/term-filter.ts over the term analyser's statistics), on competitor
 * texts written the way service and review pages write: no lone word of generic English, no clipped two-letter
 * word, no brand or model line beside the product name that carries it, and common words weighed as written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { recommendableTerms, type SiteFacts } from '../../../src/engine/analysis/score/term-filter.ts';
import { specificity, wordZipf } from '../../../src/engine/analysis/terms/frequency.ts';
import { createTermAnalyzer } from '../../../src/engine/analysis/terms/index.ts';
import type { DocumentTerms, TermAnalyzer } from '../../../src/engine/analysis/terms/index.ts';

let analyzer: TermAnalyzer;
beforeAll(() => {
  analyzer = createTermAnalyzer();
});

/** The filter over `pages`, one site each, as the competitor model calls it. */
function recommend(pages: readonly string[], head: readonly string[] = []) {
  const docs: DocumentTerms[] = pages.map((text) => analyzer.analyzeDocument({ text, language: 'en' }));
  const stats = analyzer.analyzeCompetitors(docs);
  const sites: SiteFacts[] = pages.map((_, i) => ({ host: `www.site${i}.example`, names: [] }));
  const usedOn = (key: string, entity: boolean) =>
    docs.flatMap((d, i) => ((entity ? d.entities : d.terms).some((x) => x.key === key && x.count > 0) ? [i] : []));
  const { terms, entities } = recommendableTerms({
    terms: stats.terms,
    entities: stats.entities.filter((e) => e.kind === 'name'),
    sites,
    usedOn,
    language: 'en',
    isHead: (key) => key.split(' ').every((w) => head.includes(w)),
  });
  return { terms: terms.map((t) => t.key), names: entities.map((e) => e.display), all: [...terms, ...entities] };
}

const WATER_HEATER_PAGES = [
  'A water heater that leaks needs a plumber in time. We quote a fair price and fix the water heater the same day. ' +
    'Most people call us when the water turns cold; the anode rod and the thermostat are the usual culprits.',
  'Our plumbers repair every water heater brand. The price depends on the anode rod, the thermostat and the time ' +
    'the job takes. People often ask whether the water heater is worth fixing; after ten years it rarely is.',
  'Is your water heater making noise? Sediment on the tank floor is the reason. Flushing takes little time and ' +
    'keeps the thermostat honest. We tell people the price before we start, and we check the anode rod too.',
];

describe('generic English is never a term on its own', () => {
  it('drops lone words of generic English and keeps the phrases they head', () => {
    const { terms } = recommend(WATER_HEATER_PAGES);
    for (const generic of ['time', 'price', 'people', 'water']) expect(terms, generic).not.toContain(generic);
    expect(terms).toEqual(expect.arrayContaining(['water heater', 'anode rod', 'thermostat']));
  });

  it("keeps a generic word the keyword is made of (the keyword's head terms are never dropped)", () => {
    const { terms } = recommend(WATER_HEATER_PAGES, ['price']);
    expect(terms).toContain('price');
    expect(terms).not.toContain('time');
  });

  it("judges a word by the commonest of its forms: wink's lemma `datum` is as common as the `data` pages write", () => {
    expect(wordZipf('datum')).toBe(0);
    expect(wordZipf('datum', 'data')).toBeGreaterThan(4.3);
    expect(specificity('datum', 'data')).toBeLessThan(0.5);
    expect(specificity('datum')).toBe(1);
    const pages = [
      'Kubernetes schedules containers, and your data stays in the cluster. Kubernetes restarts failed pods.',
      'Move data to Kubernetes in stages. Kubernetes namespaces keep the data of each team apart.',
      'Kubernetes needs backups of its data. Kubernetes operators automate them.',
    ];
    const stats = analyzer.analyzeCompetitors(pages.map((text) => analyzer.analyzeDocument({ text })));
    const data = stats.terms.find((t) => t.display === 'data');
    const kubernetes = [...stats.terms, ...stats.entities].find((t) => t.key === 'kubernetes');
    expect(data).toBeDefined();
    expect(data!.importance).toBeLessThan(kubernetes!.importance / 2);
  });
});

describe('well-formed names and words', () => {
  it('drops two lower-case letters (a file extension, a clipped word) but keeps an abbreviation', () => {
    const pages = [
      'Save the script as app.js and load it. In js files the AI assistant suggests imports. JavaScript runs it.',
      'Our js bundle is small. The AI model reads js code and JavaScript modules alike.',
      'Name the js file after the module. AI tools and JavaScript frameworks help.',
    ];
    const { terms, all } = recommend(pages);
    expect(terms).not.toContain('js');
    expect(all.map((x) => x.display)).toEqual(expect.arrayContaining(['AI']));
  });

  it('recommends a product by its whole name, not its brand or model line beside it', () => {
    // The brand and the model line are written on their own on more pages than the product name, so the rule
    // that folds a piece into a longer phrase carrying nearly all of its uses does not apply.
    const pages = [
      'The Saucony Guide 18 suits flat feet, and the Brooks Adrenaline GTS 24 uses GuideRails for overpronation.',
      'We ran in the Saucony Guide 18 for a month; the Brooks Adrenaline GTS 24 felt stable on long runs.',
      'Saucony makes stable trainers. Every Brooks Adrenaline GTS has GuideRails for overpronation.',
      'Saucony sells wide sizes. The Brooks Adrenaline GTS has been a stability favourite for years.',
      'Saucony foam feels soft. Runners with flat feet like the Brooks Adrenaline GTS and its GuideRails.',
    ];
    const { names, all } = recommend(pages);
    expect(names).toEqual(expect.arrayContaining(['Saucony Guide 18', 'Brooks Adrenaline GTS 24']));
    const shown = all.map((x) => x.display.toLowerCase());
    expect(shown).not.toContain('saucony');
    expect(shown).not.toContain('brooks adrenaline gts');
  });
});
