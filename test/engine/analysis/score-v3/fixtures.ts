/**
 * The calibration texts of test/fixtures/scoring for the version-3 blocks, built without a run: the expert article,
 * the stub, the collage (calibration.ts's own), the off-topic text (the next topic's expert article) and a keyword
 * salad made by calibration.ts's `keywordSalad` from terms counted here (the content words and word pairs most
 * competitor pages use, in place of a run's recommendations). Competitor pages are read as markdown-like text of
 * their <main> element.
 */
import { collage, keywordSalad, loadTopics, type CalibrationTopic } from '../../../optimize/helpers/calibration.ts';
import { tokenize } from '../../../../src/engine/analysis/words.ts';

export const LABELS = ['expert', 'salad', 'collage', 'stub', 'offtopic'] as const;
export type Label = (typeof LABELS)[number];

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };
const decode = (s: string) => s.replace(/&(#?\w+);/g, (m, n: string) => ENTITIES[n] ?? m);

/** A competitor page's main text as markdown-like lines: headings, list items, table rows, paragraphs. */
export function mainText(html: string): string {
  const main = /<main\b[\s\S]*<\/main>/i.exec(html)?.[0] ?? html;
  return decode(
    main
      .replace(/<h([1-6])\b[^>]*>/gi, (_, l: string) => `\n\n${'#'.repeat(Number(l))} `)
      .replace(/<li\b[^>]*>/gi, '\n- ')
      .replace(/<tr\b[^>]*>/gi, '\n| ')
      .replace(/<\/t[dh]>/gi, ' | ')
      .replace(/<(p|div|section|article|table|ul|ol|blockquote|dl|dt|dd)\b[^>]*>/gi, '\n\n')
      .replace(/<[^>]+>/g, ' '),
  )
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** Terms most competitor pages use (content unigrams and bigrams by page count), for the salad. */
function competitorTerms(topic: CalibrationTopic): string[] {
  const df = new Map<string, number>();
  for (const p of topic.pages) {
    const seen = new Set<string>();
    const toks = tokenize(mainText(p.html), 'en').filter((t) => /\p{L}/u.test(t.lower));
    toks.forEach((t, i) => {
      if (t.stop) return;
      seen.add(t.lower);
      const n = toks[i + 1];
      if (n && !n.stop) seen.add(`${t.lower} ${n.lower}`);
    });
    for (const s of seen) df.set(s, (df.get(s) ?? 0) + 1);
  }
  return [...df]
    .filter(([, n]) => n >= 2)
    .sort((a, b) => b[1] - a[1] || b[0].split(' ').length - a[0].split(' ').length || a[0].localeCompare(b[0]))
    .slice(0, 40)
    .map(([t]) => t);
}

export interface Calibration {
  topic: CalibrationTopic;
  competitors: { url: string; text: string }[];
  texts: Record<Label, string>;
}

let cached: Calibration[] | undefined;

/** Every calibration topic with its competitors' main texts and its five labelled texts. */
export function calibration(): Calibration[] {
  if (cached) return cached;
  const topics = loadTopics();
  cached = topics.map((topic, i) => {
    const next = topics[(i + 1) % topics.length]!;
    const terms = competitorTerms(topic);
    const salad = keywordSalad(topic.keyword, {
      entities: terms.map((term, j) => ({ term, kind: 'term', importance: terms.length - j })),
      recommendations: terms.slice(0, 20).map((term) => ({ kind: 'add_term', term, recommendation: '' })),
    });
    return {
      topic,
      competitors: topic.pages.map((p) => ({ url: p.url, text: mainText(p.html) })),
      texts: { expert: topic.expert, salad, collage: collage(topic), stub: topic.stub, offtopic: next.expert },
    };
  });
  return cached;
}
