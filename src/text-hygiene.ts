/**
 * The characters text may not carry, in one place for both sides of the service: the input validator
 * (tools/common/text.ts) refuses them in every operation's text fields, and `cleanText` removes them from text taken
 * from pages and providers before it reaches an artifact. Sharing the classes is what keeps the service from
 * refusing its own output (a draft carrying U+0084 from a mis-decoded title): change a class here and both
 * sides move together.
 *
 * - Every text refuses lone surrogates (not well-formed Unicode) and control characters: C0 (U+0000-U+001F), DEL
 *   (U+007F) and C1 (U+0080-U+009F).
 * - Long text (prose: drafts, notes, a page's main text) keeps tab, line feed and carriage return, and the
 *   bidirectional formatting characters that right-to-left prose legitimately uses.
 * - Short text (one line: names, keywords, topics, titles, headings) refuses every control character, tab and line
 *   breaks included, and the bidirectional override and isolate characters (U+202A-U+202E, U+2066-U+2069), which can
 *   make a name display as something else.
 *
 * A top-level module (like clock.ts) because providers, the engine and the tools all need it.
 */

export type TextKind = 'short' | 'long';

// eslint-disable-next-line no-control-regex
export const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
export const CONTROL_EXCEPT_LINES = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
export const BIDI_OVERRIDE = /[\u202a-\u202e\u2066-\u2069]/;
/** In `u` mode a regex reads code points, so a surrogate pair is one astral character and only a lone half matches. */
export const LONE_SURROGATE = /\p{Cs}/u;

/** The classes a text of each kind must not contain, in the order the validator reports them. */
export const REFUSED: Readonly<Record<TextKind, { control: RegExp; bidi: RegExp | null }>> = {
  short: { control: CONTROL, bidi: BIDI_OVERRIDE },
  long: { control: CONTROL_EXCEPT_LINES, bidi: null },
};

/**
 * How `cleanText` cleans: as short or long text for the validator's kinds, or `lines`, for text taken from pages:
 * one-line text on each of its lines. A page's prose (long) is split into sentences and points that land in short
 * fields (a brief's outline points and FAQ questions, which approve_content_brief takes back), so it keeps line feeds
 * and nothing else the short rules refuse: no tab or carriage return, no override or isolate character. Those
 * characters carry no words; right-to-left prose a person writes keeps them (the validator's long text).
 */
export type CleanKind = TextKind | 'lines';

const everywhere = (re: RegExp) => new RegExp(re.source, `${re.flags}g`);
const LONE_SURROGATES = everywhere(LONE_SURROGATE);
// Runs of the whitespace controls: a word separator, so a space where they go.
const SPACING: Record<CleanKind, RegExp | null> = { short: /[\t\n\v\f\r]+/g, lines: /[\t\v\f\r]+/g, long: null };
// eslint-disable-next-line no-control-regex
const CONTROL_EXCEPT_LINE_FEED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;
const REMOVE: Record<CleanKind, RegExp[]> = {
  short: [everywhere(CONTROL), everywhere(BIDI_OVERRIDE)],
  lines: [everywhere(CONTROL_EXCEPT_LINE_FEED), everywhere(BIDI_OVERRIDE)],
  long: [everywhere(CONTROL_EXCEPT_LINES)],
};
const ANY_REFUSED: Record<CleanKind, RegExp> = {
  short: new RegExp(`${LONE_SURROGATE.source}|${CONTROL.source}|${BIDI_OVERRIDE.source}`, 'u'),
  lines: new RegExp(`${LONE_SURROGATE.source}|${CONTROL_EXCEPT_LINE_FEED.source}|${BIDI_OVERRIDE.source}`, 'u'),
  long: new RegExp(`${LONE_SURROGATE.source}|${CONTROL_EXCEPT_LINES.source}`, 'u'),
};

/**
 * `text` without what the validator refuses in text of `kind`: a lone surrogate becomes U+FFFD (a character was
 * there), control and override characters go, and a run of tabs and line breaks the kind does not keep becomes one
 * space (it separated words). Clean text comes back as it is.
 */
export function cleanText(text: string, kind: CleanKind): string {
  if (!ANY_REFUSED[kind].test(text)) return text;
  let out = text.replace(LONE_SURROGATES, '\ufffd');
  const spacing = SPACING[kind];
  if (spacing) out = out.replace(spacing, ' ');
  for (const re of REMOVE[kind]) out = out.replace(re, '');
  return out;
}
