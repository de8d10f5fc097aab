/**
 * A long draft as an assistant would send it to score_content: a markdown review of espresso machines under $500
 * (the sample archive's brewgeek.net page ranks for that keyword), every sentence numbered so none repeats.
 */

const SENTENCES: ((n: number) => string)[] = [
  (n) => `Model ${n} heats up in about ${20 + (n % 40)} seconds and holds its brew temperature within two degrees.`,
  (n) => `In test ${n}, the steam wand frothed 150 ml of cold milk to microfoam in ${30 + (n % 25)} seconds.`,
  (n) => `Shot ${n} through the unpressurised basket had more body than the pressurised one, with the same grind.`,
  (n) => `Descaling every ${2 + (n % 4)} months keeps the boiler and the solenoid valve free of mineral build-up.`,
  (n) => `The drip tray holds ${400 + n} ml, enough for a morning of back-to-back shots before it needs emptying.`,
  (n) => `Owners in forum thread ${n} report that the pump still runs quietly after three years of daily use.`,
  (n) => `At $${300 + (n % 200)}, it costs less than a year of café lattes for someone who buys one every working day.`,
  (n) => `Dialing in took ${3 + (n % 5)} shots: 18 grams in, 36 grams out, in 28 seconds, then a finer grind.`,
  (n) => `The portafilter is ${51 + (n % 8)} mm, so third-party baskets, tampers and funnels are easy to find.`,
  (n) => `Warranty cover runs ${1 + (n % 3)} years on parts and labour, and the boiler is covered for a further year.`,
];

/** The fields of score_content's whole answer (`view=full`), sorted. */
export const SCORE_FULL_FIELDS = [
  'categoryScores',
  'competitorCount',
  'entities',
  'optimization_id',
  'rankabilityScore',
  'recommendations',
  'scoreDetails',
  'scoringVersion',
  'sourceWordCount',
];

/** The sample-archive page and keyword the draft is scored against. */
export const ESPRESSO_PAGE = 'https://brewgeek.net/guides/best-espresso-machines-under-500/';
export const ESPRESSO_KEYWORD = 'best espresso machine under 500';
export const ESPRESSO_TITLE = 'The 6 Best Espresso Machines Under $500 (2025), Tested';
export const ESPRESSO_DESCRIPTION = 'We pulled 600 shots on twelve machines under $500 to find the ones worth buying.';

/** A markdown article of at least `words` words: an H1, an H2 every twelve paragraphs of five sentences. */
export function espressoArticle(words: number, title = 'The best espresso machines under $500, tested'): string {
  const out = [`# ${title}`, ''];
  let count = 0;
  for (let n = 0; count < words; n++) {
    if (n % 12 === 0) out.push(`## Section ${n / 12 + 1}: what matters in a machine at this price`, '');
    const paragraph = Array.from({ length: 5 }, (_, i) => SENTENCES[(n * 5 + i) % SENTENCES.length]!(n * 5 + i)).join(
      ' ',
    );
    count += paragraph.split(/\s+/).length;
    out.push(paragraph, '');
  }
  return out.join('\n');
}
