/**
 * The DOM builder of the MCP Apps views: every string is written as text (scraped titles, drafts and notes are
 * hostile), attributes never carry handlers.
 */
type Child = Node | string | number | null | undefined | false;

/** An element with attributes (never `on*` handlers or raw HTML) and children, strings added as text nodes. */
export function h(tag: string, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) if (!/^on/i.test(k)) el.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return el;
}

export const num = (v: unknown, digits = 1): string =>
  typeof v === 'number' && Number.isFinite(v) ? String(Math.round(v * 10 ** digits) / 10 ** digits) : '–';

export const list = (v: unknown): Record<string, unknown>[] =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** `v` when it is an object (not an array), else an empty one: tool results are read as untrusted input. */
export const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
