/**
 * The DOM builder of the MCP Apps views: every string is written as text (scraped titles, drafts and notes are
 * hostile), attributes never carry handlers. And the readers of an untrusted tool result (outputs.ts, `Untrusted`):
 * each checks the value's kind at run time and answers a value of that kind, or an empty one.
 */
import type { JsonObject } from './outputs.ts';

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

export const str = (v: unknown): string => (typeof v === 'string' ? v : '');

type Scalar = string | number | boolean | null | undefined;

/** An object with no fields: what `obj` answers for a value that is not an object. */
export type NoFields = { readonly [key: string]: undefined };
const NO_FIELDS: NoFields = {};

/** `v` when it is an object (not an array), else an empty one: the object's fields, each still to be checked. */
export function obj<F extends object>(v: F | Scalar | unknown[]): F | NoFields {
  return isObject(v) ? v : NO_FIELDS;
}

/** The objects of `v` when it is an array (anything else in it skipped), else none. */
export function list<E>(v: E[] | Scalar | JsonObject): Exclude<E, Scalar | unknown[]>[] {
  return Array.isArray(v) ? v.filter(isObject) : [];
}

function isObject<V>(v: V): v is Exclude<V, Scalar | unknown[]> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
