/**
 * Named entities of one page, for SEO coverage: proper-noun phrases plus wink's date, money, percent and duration
 * entities that contain a digit (`2024`, `$1,200`, `30 minutes`; `today` and bare numbers say nothing a competitor
 * set can agree on).
 *
 * A proper-noun phrase is a run of capitalised words (wink POS aside from function words), optionally joined by
 * `of`, `&`, `de`, `van`, ... or a tight hyphen, plus a trailing model number (`Pegasus 40`). A capital means little
 * at the start of a sentence, line, quotation or list item, or anywhere in a title-case line (extracted text carries
 * headings as lines), so such a word counts only if the same word is capitalised mid-sentence elsewhere on the page
 * or wink tags it PROPN and it is not in wink's lexicon (`Nike`, `Microsoft`, but not `Best` or `Coffee`).
 * German capitalises every noun, so there a single capitalised word counts only as an acronym or with a company
 * suffix. Types come from cues in gazetteer.ts (honorifics, place names and suffixes, company suffixes, model
 * numbers, first names, role words before and speech verbs after); no cue means `other`.
 */
import type { EntityKind, EntityType } from './types.ts';
import type { LexToken, TokenStream } from './tokens.ts';
import { CONTRACTION, hasLetter, isHyphen } from './tokens.ts';
import { GENERIC_ZIPF, zipf } from './frequency.ts';
import { WINK_EN_STOP_WORDS } from './stopwords.ts';
import {
  CALENDAR_WORDS,
  FIRST_NAMES,
  HONORIFICS,
  LEGAL_SUFFIXES,
  NAME_CONNECTORS,
  NOT_NAMES,
  OF_HEADS,
  ORG_PREFIXES,
  ORG_SUFFIXES,
  PERSON_ROLES,
  PERSON_VERBS,
  PLACES,
  PLACE_PREFIXES,
  PLACE_SUFFIXES,
  PRODUCT_CUES,
} from './gazetteer.ts';

export interface EntityAccumulator {
  kind: EntityKind;
  /** Normalised tokens, for counting the entity in headings and the title. */
  match: string[];
  count: number;
  forms: Map<string, number>;
  votes: Map<EntityType, number>;
  /** Some mention is a name on its own merits (see notAName); a name never so is dropped after aliasing. */
  strong?: boolean;
}

export type EntityTable = Map<string, EntityAccumulator>;

const FUNCTION_POS = new Set(['PRON', 'DET', 'ADP', 'CCONJ', 'SCONJ', 'AUX', 'PART', 'INTJ', 'NUM', 'SYM', 'PUNCT']);
const WINK_KINDS: Readonly<Record<string, EntityKind>> = {
  DATE: 'date',
  MONEY: 'money',
  PERCENT: 'percent',
  DURATION: 'duration',
};
const SENTENCE_END = new Set(['.', '!', '?', '…']);
const TYPE_ORDER: readonly EntityType[] = ['person', 'organization', 'place', 'product'];
const MAX_NAME_WORDS = 6;
const GENERIC_HEADS: ReadonlySet<string> = new Set([...ORG_SUFFIXES, ...ORG_PREFIXES, ...PLACE_SUFFIXES]);
const GERMAN_CONNECTORS: ReadonlySet<string> = new Set(['&', 'von', 'zu']);

export interface SentenceClasses {
  titleLines: Set<number>;
  shouting: Set<number>;
}

/** Finds the entities of one token stream (body text); `classes` is classifySentences of the same tokens. */
export function findEntities(
  stream: TokenStream,
  language: string,
  classes: SentenceClasses,
  codeWords: ReadonlySet<string> = new Set(),
): EntityTable {
  const { tokens } = stream;
  const table: EntityTable = new Map();
  const { titleLines, shouting } = classes;

  const isCandidate = tokens.map(
    (t) =>
      t.kind === 'word' &&
      !t.code &&
      t.cap !== 'none' &&
      !FUNCTION_POS.has(t.pos) &&
      t.entity === '' &&
      !(t.stop && t.pos !== 'PROPN') &&
      !shouting.has(t.sentence) &&
      !CALENDAR_WORDS.has(t.norm) &&
      !CONTRACTION.test(t.norm) &&
      hasLetter(t.surface),
  );
  const isStrong = tokens.map((t, k) => isCandidate[k] === true && !t.sentenceStart && !titleLines.has(t.sentence));
  const confirmed = new Set<string>();
  tokens.forEach((t, k) => {
    if (isStrong[k]) confirmed.add(t.norm);
  });
  const isAccepted = tokens.map(
    (t, k) =>
      isCandidate[k] === true && (isStrong[k] === true || confirmed.has(t.norm) || unknownProperNoun(stream, t)),
  );
  const accepted = (k: number): boolean => isAccepted[k] === true;
  // German articles (`der`, `den`) would glue every noun pair together.
  const connectors = language === 'de' ? GERMAN_CONNECTORS : NAME_CONNECTORS;

  let i = 0;
  while (i < tokens.length) {
    if (!accepted(i)) {
      i += 1;
      continue;
    }
    const start = i;
    let end = i;
    for (;;) {
      const next = tokens[end + 1];
      const after = tokens[end + 2];
      if (next === undefined || next.breakBefore) break;
      if (accepted(end + 1)) {
        end += 1;
        continue;
      }
      const joins =
        after !== undefined &&
        !after.breakBefore &&
        accepted(end + 2) &&
        ((connectors.has(next.norm) && (next.norm !== 'of' || OF_HEADS.has(tokens[end]?.norm ?? ''))) ||
          (isHyphen(next.surface) && !next.spaceBefore && !after.spaceBefore));
      if (!joins) break;
      end += 2;
    }
    let productCue = false;
    const trailing = tokens[end + 1];
    if (trailing && !trailing.breakBefore && trailing.kind === 'number' && isModelNumber(trailing.surface)) {
      end += 1;
      productCue = true;
    }
    addName(table, tokens, start, end, productCue, language, codeWords);
    i = end + 1;
  }

  aliasSurnames(table);
  for (const [key, acc] of table) if (acc.kind === 'name' && acc.strong !== true) table.delete(key);
  addIdentifiers(table, stream);
  addWinkEntities(table, stream);
  return table;
}

/** A PROPN wink has never seen in any form (`Nike`), unlike `Grinders`, whose lemma it knows. */
export function unknownProperNoun(stream: TokenStream, t: LexToken): boolean {
  return t.pos === 'PROPN' && !stream.isCommonWord(t.norm) && !(t.key !== '' && stream.isCommonWord(t.key));
}

/** The winning type: most votes among typed cues, ties in TYPE_ORDER; `other` only when nothing else was voted. */
export function winningType(votes: ReadonlyMap<EntityType, number>): EntityType {
  let best: EntityType = 'other';
  let bestVotes = 0;
  for (const type of TYPE_ORDER) {
    const v = votes.get(type) ?? 0;
    if (v > bestVotes) {
      best = type;
      bestVotes = v;
    }
  }
  return best;
}

/** Sentences whose capitals are positional: title-case lines (no final stop) and shouting (half upper case). */
export function classifySentences(tokens: readonly LexToken[]): SentenceClasses {
  const stats = new Map<number, { words: number; caps: number; upper: number; last: LexToken }>();
  for (const t of tokens) {
    const s = stats.get(t.sentence) ?? { words: 0, caps: 0, upper: 0, last: t };
    s.last = t;
    if (t.kind === 'word' && hasLetter(t.surface)) {
      s.words += 1;
      if (t.cap !== 'none') s.caps += 1;
      if (t.cap === 'upper') s.upper += 1;
    }
    stats.set(t.sentence, s);
  }
  const titleLines = new Set<number>();
  const shouting = new Set<number>();
  for (const [sentence, s] of stats) {
    if (s.words < 3) continue;
    if (s.upper / s.words >= 0.5) shouting.add(sentence);
    else if (s.caps / s.words >= 0.7 && !(s.last.kind === 'punct' && SENTENCE_END.has(s.last.surface))) {
      titleLines.add(sentence);
    }
  }
  return { titleLines, shouting };
}

function isModelNumber(surface: string): boolean {
  if (!/^\d{1,4}$/.test(surface)) return false;
  const n = Number(surface);
  return n < 1900 || n > 2099;
}

function addName(
  table: EntityTable,
  tokens: readonly LexToken[],
  start: number,
  end: number,
  productCue: boolean,
  language: string,
  codeWords: ReadonlySet<string>,
): void {
  let s = start;
  let e = end;
  let personCue = false;
  // Titles and roles lead into a name (`Dr. Jane Smith`, `CEO Tim Cook`) but are not part of it.
  while (s <= e && (HONORIFICS.has(tokens[s]?.norm ?? '') || PERSON_ROLES.has(tokens[s]?.norm ?? ''))) {
    personCue = true;
    s += 1;
  }
  while (s <= e && NAME_CONNECTORS.has(tokens[s]?.norm ?? '')) s += 1;
  while (e >= s && (NAME_CONNECTORS.has(tokens[e]?.norm ?? '') || NOT_NAMES.has(tokens[e]?.norm ?? ''))) e -= 1;
  if (s > e) return;
  const run = tokens.slice(s, e + 1);
  const words = run.filter((t) => t.kind === 'word' && !NAME_CONNECTORS.has(t.norm));
  const first = words[0];
  const last = words[words.length - 1];
  if (first === undefined || last === undefined || words.length > MAX_NAME_WORDS) return;
  // `the Company`, `the University`: a generic head word alone refers to a name without being one.
  if (run.length === 1 && (NOT_NAMES.has(first.norm) || GENERIC_HEADS.has(first.norm))) return;

  let keyRun = run;
  let orgCue = false;
  if (run.length >= 2 && LEGAL_SUFFIXES.has(run[run.length - 1]?.norm ?? '')) {
    keyRun = run.slice(0, -1);
    orgCue = true;
  }
  if (language === 'de' && words.length === 1 && !orgCue && !(first.cap === 'upper' && first.norm.length <= 5)) return;
  // Kept until surnames are aliased (`Cook` is `Tim Cook`), then dropped if never more than that (see notAName).
  const weak = words.length === 1 && !orgCue && notAName(tokens, first, language, codeWords);

  const match = keyRun.map((t) => t.norm);
  const key = joinRun(keyRun, (t) => t.norm);
  const display = joinRun(run, (t) => t.surface);
  const prev = previousWord(tokens, s);
  const next = tokens[e + 1];
  const nextWord = next && !next.breakBefore && next.kind === 'word' ? next.norm : '';

  let type: EntityType = 'other';
  if (personCue) type = 'person';
  else if (PLACES.has(key)) type = 'place';
  else if (orgCue || ORG_SUFFIXES.has(last.norm) || (words.length >= 2 && ORG_PREFIXES.has(first.norm))) {
    type = 'organization';
  } else if (
    productCue ||
    run.some((t) => /\d/.test(t.surface)) ||
    /^\p{Ll}+\p{Lu}/u.test(first.surface) ||
    PRODUCT_CUES.has(nextWord)
  ) {
    type = 'product';
  } else if (
    (words.length >= 2 && words.length <= 3 && FIRST_NAMES.has(first.norm)) ||
    (words.length >= 2 && PERSON_VERBS.has(nextWord)) ||
    PERSON_ROLES.has(prev)
  ) {
    type = 'person';
  } else if (words.length >= 2 && (PLACE_SUFFIXES.has(last.norm) || PLACE_PREFIXES.has(first.norm))) {
    type = 'place';
  } else if (words.length === 1 && first.cap === 'upper' && first.norm.length <= 5) {
    type = 'organization';
  }

  let acc = table.get(key);
  if (!acc) {
    acc = { kind: 'name', match, count: 0, forms: new Map(), votes: new Map() };
    table.set(key, acc);
  }
  acc.count += 1;
  if (!weak) acc.strong = true;
  acc.forms.set(display, (acc.forms.get(display) ?? 0) + 1);
  acc.votes.set(type, (acc.votes.get(type) ?? 0) + 1);
}

/**
 * One capitalised word that is a literal of the page's code (`None`, `False`), a word the page also writes in lower
 * case as a plain word (`Details`, `Color` as labels beside `color`), a stop word, or generic English (`Office`,
 * `True`, `Round` of `Round Rock`) is a fragment, a label or a keyword, not a name; acronyms (`NASA`), places and
 * single letters are left to the other rules.
 */
function notAName(tokens: readonly LexToken[], t: LexToken, language: string, codeWords: ReadonlySet<string>): boolean {
  if (codeWords.has(t.surface)) return true;
  if (language !== 'en' || t.cap === 'upper' || t.norm.length < 2 || PLACES.has(t.norm)) return false;
  return lowerCaseUses(tokens, t.norm) > 0 || WINK_EN_STOP_WORDS.has(t.norm) || zipf(t.norm) >= GENERIC_ZIPF;
}

/** Uses of a word written all in lower case on the page (memoised per token array). */
const lowerCounts = new WeakMap<readonly LexToken[], Map<string, number>>();
function lowerCaseUses(tokens: readonly LexToken[], norm: string): number {
  let counts = lowerCounts.get(tokens);
  if (!counts) {
    counts = new Map();
    for (const t of tokens)
      if (t.kind === 'word' && t.cap === 'none') counts.set(t.norm, (counts.get(t.norm) ?? 0) + 1);
    lowerCounts.set(tokens, counts);
  }
  return counts.get(norm) ?? 0;
}

function joinRun(run: readonly LexToken[], text: (t: LexToken) => string): string {
  let out = '';
  run.forEach((t, k) => {
    out += (k > 0 && t.spaceBefore ? ' ' : '') + text(t);
  });
  return out;
}

function previousWord(tokens: readonly LexToken[], index: number): string {
  const t = tokens[index];
  const prev = tokens[index - 1];
  if (t === undefined || t.breakBefore || prev === undefined || prev.kind !== 'word') return '';
  return prev.norm;
}

// A lone surname (`Cook`) after the full name (`Tim Cook`) is the same person, and a lone model name (`Bambino`)
// the product whose name it ends (`Breville Bambino`), when exactly one longer name on the page ends with it. Places
// are left alone (`Austin` is not `North Austin`).
function aliasSurnames(table: EntityTable): void {
  const bySurname = new Map<string, string[]>();
  for (const [key, acc] of table) {
    if (acc.match.length < 2 || acc.kind !== 'name') continue;
    const surname = acc.match[acc.match.length - 1] ?? '';
    bySurname.set(surname, [...(bySurname.get(surname) ?? []), key]);
  }
  for (const [surname, owners] of bySurname) {
    const single = table.get(surname);
    const owner = owners.length === 1 && owners[0] !== undefined ? table.get(owners[0]) : undefined;
    if (!single || !owner || single.match.length !== 1 || single.kind !== 'name') continue;
    if (PLACES.has(surname) || winningType(single.votes) === 'place' || winningType(owner.votes) === 'place') continue;
    owner.count += single.count;
    owner.strong = owner.strong === true || single.strong === true;
    for (const [type, n] of single.votes) if (type !== 'other') owner.votes.set(type, (owner.votes.get(type) ?? 0) + n);
    if (winningType(owner.votes) === 'person')
      owner.votes.set('person', (owner.votes.get('person') ?? 0) + single.count);
    table.delete(surname);
  }
}

// Identifiers in prose (`asyncio.Queue()`, `getLogger`) are the names of a programming topic's APIs: one name each,
// keyed in lower case without the call, shown as written.
function addIdentifiers(table: EntityTable, stream: TokenStream): void {
  for (const span of stream.identifiers) {
    const run = stream.tokens.slice(span.start, span.end + 1);
    const display = run.map((t) => t.surface).join('');
    if (!hasLetter(display) || display.length < 3) continue;
    // A plain English word called (`join(`, `print(`) is a verb of the prose or too generic to name an API.
    if (run.length === 1 && /^\p{Ll}+$/u.test(display) && zipf(display) > 0) continue;
    const key = display.toLowerCase();
    let acc = table.get(key);
    if (!acc) {
      acc = { kind: 'name', match: run.map((t) => t.norm), count: 0, forms: new Map(), votes: new Map() };
      table.set(key, acc);
    }
    acc.count += 1;
    acc.forms.set(display, (acc.forms.get(display) ?? 0) + 1);
    acc.votes.set('other', (acc.votes.get('other') ?? 0) + 1);
  }
}

function addWinkEntities(table: EntityTable, stream: TokenStream): void {
  for (const span of stream.spans) {
    const kind = WINK_KINDS[span.label];
    if (kind === undefined) continue;
    const run = stream.tokens.slice(span.start, span.end + 1);
    if (!run.some((t) => /\d/.test(t.surface))) continue;
    const key = joinRun(run, (t) => t.norm);
    let acc = table.get(key);
    if (!acc) {
      acc = { kind, match: run.map((t) => t.norm), count: 0, forms: new Map(), votes: new Map() };
      table.set(key, acc);
    }
    acc.count += 1;
    const display = joinRun(run, (t) => t.surface);
    acc.forms.set(display, (acc.forms.get(display) ?? 0) + 1);
  }
}
