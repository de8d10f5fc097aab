/**
 * Facts (score version 3): the statements that at least two relevant competitors share, and which of them
 * a text covers; facts a text adds that no competitor states earn a bounded bonus (information gain).
 *
 * A fact is one of:
 * - a number with its unit and subject: "15 g" of "citric acid" — a number (or a range, `15 to 20`, `15-20`) followed
 *   by a unit, or after a currency sign, and the content words (stems) within five words of it in its sentence;
 * - a named entity with its role: "Brooks Adrenaline GTS 24" ("stability shoe") — a run of capitalised words (not
 *   only the sentence's first word) and the content words of its sentences that two pages share.
 * Two pages state the same number fact when value and unit match and their subjects share a content word; the same
 * entity fact when they name it (case-insensitive). Every text unit is read: sentences, list items, table rows.
 */
import { tokenize } from '../../words.ts';
import { analyzeText, type AnalyzedText } from './text.ts';

export const MIN_PAGES = 2;
/** New facts that count for the bonus, at most. */
export const MAX_GAIN = 5;
/** Points per new fact (at most MAX_GAIN of them). */
export const GAIN_POINTS = 4;

export interface FactMention {
  kind: 'number' | 'entity';
  /** `15 g`, `15-20 min`, `usd 140`; or the entity's lower-case name. */
  key: string;
  /** As written. */
  text: string;
  /** Content-word stems around it (its subject or role). */
  context: string[];
  sentence: string;
}

export interface Fact {
  id: string;
  kind: 'number' | 'entity';
  key: string;
  /** The value as one page writes it (`15 g`, `Brooks Adrenaline GTS 24`). */
  text: string;
  /** The subject (number facts) or role (entities): stems two of its pages share around it. */
  about: string[];
  /** The shortest sentence that states it. */
  statement: string;
  urls: string[];
}

export interface FactList {
  facts: Fact[];
  /** Every number and entity key any competitor states (new facts are the text's others). */
  known: string[];
  /** Content stems of the facts' subjects and roles: a new fact must be about the topic. */
  topic: string[];
}

export interface FactCoverage {
  /** 0-100: the covered share of the fact list, plus GAIN_POINTS per new fact (at most MAX_GAIN); null without facts. */
  score: number | null;
  covered: Fact[];
  missing: Fact[];
  /** Facts the text states that no competitor does (on topic), at most 20 listed. */
  added: FactMention[];
  gain: number;
}

const UNITS: [RegExp, string][] = [
  [/^(%|percent|per cent)$/i, '%'],
  [/^(°f|degrees? f(ahrenheit)?|f)$/i, '°f'],
  [/^(°c|degrees? c(elsius)?|c)$/i, '°c'],
  [/^(°|degrees?)$/i, '°'],
  [/^(mg|milligrams?)$/i, 'mg'],
  [/^(g|grams?)$/i, 'g'],
  [/^(kg|kilos?|kilograms?)$/i, 'kg'],
  [/^(lbs?|pounds?)$/i, 'lb'],
  [/^(oz|ounces?)$/i, 'oz'],
  [/^(ml|millilit(re|er)s?)$/i, 'ml'],
  [/^(l|lit(re|er)s?)$/i, 'l'],
  [/^(gal|gallons?)$/i, 'gal'],
  [/^(mm|millimet(re|er)s?)$/i, 'mm'],
  [/^(cm|centimet(re|er)s?)$/i, 'cm'],
  [/^(m|met(re|er)s?)$/i, 'm'],
  [/^(km|kilomet(re|er)s?)$/i, 'km'],
  [/^(in|inch|inches)$/i, 'in'],
  [/^(ft|feet|foot)$/i, 'ft'],
  [/^(miles?|mi)$/i, 'mi'],
  [/^(s|secs?|seconds?)$/i, 's'],
  [/^(mins?|minutes?)$/i, 'min'],
  [/^(h|hrs?|hours?)$/i, 'h'],
  [/^(days?)$/i, 'day'],
  [/^(weeks?)$/i, 'week'],
  [/^(months?)$/i, 'month'],
  [/^(years?|yrs?)$/i, 'year'],
  [/^(kw|kilowatts?)$/i, 'kw'],
  [/^(w|watts?)$/i, 'w'],
  [/^(v|volts?)$/i, 'v'],
  [/^(btu|btus)$/i, 'btu'],
  [/^(mph)$/i, 'mph'],
  [/^(x|times)$/i, 'x'],
  [/^(tablespoons?|tbsp)$/i, 'tbsp'],
  [/^(teaspoons?|tsp)$/i, 'tsp'],
  [/^(cups?)$/i, 'cup'],
];
const CURRENCY: Record<string, string> = { $: 'usd', '€': 'eur', '£': 'gbp', '¥': 'jpy' };

const NUM = String.raw`\d+(?:[.,]\d+)*`;
const NUMBER_RE = new RegExp(
  String.raw`([$€£¥])\s?(${NUM})(?:\s?(?:-|–|to)\s?[$€£¥]?(${NUM}))?|(?<![\p{L}\p{N}.])(${NUM})(?:\s?(?:-|–|to)\s?(${NUM}))?\s?(%|°\s?[cf]?(?![\p{L}\p{N}])|[\p{L}]+(?![\p{L}\p{N}]))`,
  'giu',
);

const round = (v: string) => String(Number(v.replace(/,/g, '')));

function unitOf(word: string): string | null {
  const w = word.replace(/\s+/g, ' ').trim();
  for (const [re, unit] of UNITS) if (re.test(w)) return unit;
  return null;
}

const stemsOf = (text: string) =>
  tokenize(text, 'en')
    .filter((t) => !t.stop && /\p{L}/u.test(t.lower) && t.lower.length > 1)
    .map((t) => t.stem);

/** Text units of a text: sentences, and table rows. */
function units(a: AnalyzedText): string[] {
  return [...a.sentences.map((s) => s.text), ...a.blocks.filter((b) => b.kind === 'table').map((b) => b.text)];
}

/** Mentions of texts already read, by their analysis: a run reads each competitor's facts once. */
const mentionsOf = new WeakMap<AnalyzedText, FactMention[]>();

/** The number and entity mentions of a text. */
export function extractFacts(input: string | AnalyzedText): FactMention[] {
  if (typeof input !== 'string') {
    let known = mentionsOf.get(input);
    if (!known) mentionsOf.set(input, (known = readFacts(input)));
    return known;
  }
  return readFacts(analyzeText(input));
}

function readFacts(a: AnalyzedText): FactMention[] {
  const out: FactMention[] = [];
  for (const sentence of units(a)) {
    for (const m of sentence.matchAll(NUMBER_RE)) {
      let key: string;
      if (m[1]) {
        const cur = CURRENCY[m[1]]!;
        key = `${cur} ${round(m[2]!)}${m[3] ? `-${round(m[3])}` : ''}`;
      } else {
        const unit = unitOf(m[6]!);
        if (!unit) continue;
        key = `${round(m[4]!)}${m[5] ? `-${round(m[5])}` : ''} ${unit}`;
      }
      // Its subject: content words within five words either side, the number and unit left out.
      const before = sentence.slice(0, m.index).split(/\s+/).slice(-5).join(' ');
      const after = sentence
        .slice(m.index + m[0].length)
        .split(/\s+/)
        .slice(0, 6)
        .join(' ');
      const context = [...new Set(stemsOf(`${before} ${after}`))];
      out.push({ kind: 'number', key, text: m[0], context, sentence });
    }
    // Names: runs of capitalised words (digits may continue a run). A run at the start of the sentence, of a table
    // cell or after a colon loses its first word when that is a stop word ("Most Denver" -> "Denver") or the run's
    // only capital ("Removes", "Add 15").
    const words = [...sentence.matchAll(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu)];
    let run: RegExpMatchArray[] = [];
    let runInitial = false;
    const flush = () => {
      let r = run;
      const capitals = r.filter((w) => /^\p{Lu}/u.test(w[0])).length;
      if (runInitial && r.length && (capitals === 1 || tokenize(r[0]![0], 'en')[0]?.stop)) r = r.slice(1);
      const name = r.map((w) => w[0].replace(/[.]$/, '')).join(' ');
      if (r.length && /^\p{Lu}/u.test(name) && name.length > 1 && !tokenize(name, 'en').every((t) => t.stop))
        out.push({
          kind: 'entity',
          key: name.toLowerCase(),
          text: name,
          context: [...new Set(stemsOf(sentence.replace(name, ' ')))],
          sentence,
        });
      run = [];
    };
    let prevEnd = 0;
    for (const w of words) {
      const gap = sentence.slice(prevEnd, w.index);
      if (run.length && !/^[\s-]*$/.test(gap)) flush();
      // The previous word may end with its full stop (`p.`): look one character back.
      const before = sentence.slice(prevEnd - 1, w.index);
      const abbreviation = /(?:e\.g|i\.e|vs|approx|incl)\.\s+$/i.test(
        sentence.slice(Math.max(0, prevEnd - 7), w.index),
      );
      const initial = prevEnd === 0 || /[|:;!?(]\s*$/.test(before) || (/[.]\s+$/.test(before) && !abbreviation);
      if (/^\p{Lu}/u.test(w[0]) || (run.length > 0 && /^\d/.test(w[0]))) {
        if (!run.length) runInitial = initial;
        run.push(w);
      } else flush();
      prevEnd = w.index + w[0].length;
    }
    flush();
  }
  return out;
}

const overlaps = (a: readonly string[], b: readonly string[]) => {
  const s = new Set(a);
  return b.filter((x) => s.has(x));
};

/** The facts at least MIN_PAGES competitors state, from their main texts. */
export function buildFactList(
  pages: readonly { url: string; text: string | AnalyzedText }[],
  minPages = MIN_PAGES,
): FactList {
  const byKey = new Map<string, { url: string; m: FactMention }[]>();
  pages.forEach((p) => {
    for (const m of extractFacts(p.text)) {
      const k = `${m.kind}:${m.key}`;
      const list = byKey.get(k) ?? [];
      list.push({ url: p.url, m });
      byKey.set(k, list);
    }
  });
  const facts: Fact[] = [];
  for (const [k, mentions] of [...byKey].sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))) {
    const urls = [...new Set(mentions.map((x) => x.url))];
    if (urls.length < minPages) continue;
    // Stems said around it on at least two pages.
    const perPage = urls.map((u) => new Set(mentions.filter((x) => x.url === u).flatMap((x) => x.m.context)));
    const count = new Map<string, number>();
    for (const set of perPage) for (const s of set) count.set(s, (count.get(s) ?? 0) + 1);
    const about = [...count]
      .filter(([, n]) => n >= minPages)
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
      .map(([s]) => s);
    const kind = mentions[0]!.m.kind;
    // A number shared without a shared subject is a coincidence (`20 minutes` of two different things).
    if (kind === 'number' && about.length === 0) continue;
    const agreeing = kind === 'number' ? urls.filter((_, i) => overlaps([...perPage[i]!], about).length > 0) : urls;
    if (agreeing.length < minPages) continue;
    // The shortest sentence that states it, of at least six words when there is one (a table cell says little).
    const said = [...new Set(mentions.map((x) => x.m.sentence))];
    const full = said.filter((x) => x.split(/\s+/).length >= 6);
    const statement = (full.length ? full : said).sort((x, y) => x.length - y.length || (x < y ? -1 : 1))[0]!;
    facts.push({
      id: k,
      kind,
      key: mentions[0]!.m.key,
      text: mentions[0]!.m.text,
      about: about.slice(0, 6),
      statement,
      urls: agreeing,
    });
  }
  const known = [...byKey.keys()].sort();
  const topic = [...new Set(facts.flatMap((f) => f.about))].sort();
  return { facts, known, topic };
}

/** Which facts of the list a text covers, and which facts it adds. */
export function factCoverage(input: string | AnalyzedText, list: FactList, keyword = ''): FactCoverage {
  const mentions = extractFacts(input);
  const byKey = new Map<string, FactMention[]>();
  for (const m of mentions) {
    const k = `${m.kind}:${m.key}`;
    byKey.set(k, [...(byKey.get(k) ?? []), m]);
  }
  const covered: Fact[] = [];
  const missing: Fact[] = [];
  for (const f of list.facts) {
    const ms = byKey.get(f.id) ?? [];
    const hit = f.kind === 'entity' ? ms.length > 0 : ms.some((m) => overlaps(m.context, f.about).length > 0);
    (hit ? covered : missing).push(f);
  }
  const known = new Set(list.known);
  const topic = new Set(list.topic);
  const head = new Set(stemsOf(keyword));
  const added: FactMention[] = [];
  const seen = new Set<string>();
  for (const m of mentions) {
    const k = `${m.kind}:${m.key}`;
    if (known.has(k) || seen.has(k)) continue;
    // On topic: a word of the keyword around it, or two words of the facts' subjects.
    const onTopic = m.context.some((x) => head.has(x)) || m.context.filter((x) => topic.has(x)).length >= 2;
    if (!onTopic) continue;
    seen.add(k);
    added.push(m);
  }
  const gain = Math.min(MAX_GAIN, added.length);
  const score = list.facts.length
    ? Math.min(100, Math.round(((100 * covered.length) / list.facts.length + GAIN_POINTS * gain) * 10) / 10)
    : null;
  return { score, covered, missing, added: added.slice(0, 20), gain };
}
