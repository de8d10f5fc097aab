/**
 * Compact JSON Schemas for the MCP tool list, whose size every assistant pays for in tokens on every session.
 * The schemas zod emits are exact but verbose; these rewrites keep what a client validates against and drop what
 * repeats or says nothing:
 * - number bounds (`minimum`, `maximum`) and list bounds (`minItems`, `maxItems`): the server refuses a value out of
 *   bounds with a message naming the field, and descriptions state the bounds a caller can hit ("Page size, 1-100");
 * - a `pattern` beside a `format` that says the same (uuid), `type` beside a string enum, a `default` the
 *   description states, and `additionalProperties: false` (the server refuses unknown fields by name);
 * - `{anyOf: [X, {type: "null"}]}` becomes X with `type: [t, "null"]` when X is a plain typed schema;
 * - strings lose `minLength`/`maxLength` and `pattern` (the server refuses a value out of bounds or out of form with
 *   a message naming the field, and descriptions state the limits and forms that matter), and a `type` that
 *   `format: uuid` already implies;
 * - `anyOf` alternatives that are each one value (`const`, `enum` or `null`) become one `enum` of those values;
 * - an output schema says only that the result is an object: hosts give the model a tool's name, description and
 *   input schema, not its output schema, so field names there cost the list bytes and tell the model nothing (the
 *   tool description says what comes back, the structured content names its fields, docs/api.md has the shapes);
 *   an open schema also lets the error body (`{error: {code, message, details}}`, the structured content of every
 *   failed call) and fields added later validate against it;
 * - a subschema that appears more than once in one tool's schema moves to that schema's `$defs` and is referenced.
 */

/**
 * The most JSON bytes `tools/list` may answer a key with every scope. test/mcp/tool-list.test.ts imports it and
 * fails past it; `node --import tsx scripts/tool-list-size.ts` shows where the bytes go and the headroom left. Every
 * assistant pays for the list in every session, so a new tool buys its bytes from the others' descriptions rather
 * than raising this (docs/architecture.md, "The tool-list budget").
 */
export const TOOL_LIST_MAX_BYTES = 32 * 1024;

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose values are schemas, maps of schemas or lists of schemas. */
const SCHEMA_KEYS = new Set(['items', 'additionalProperties', 'not', 'propertyNames']);
const SCHEMA_MAP_KEYS = new Set(['properties', '$defs', 'definitions', 'patternProperties']);
const SCHEMA_LIST_KEYS = new Set(['anyOf', 'oneOf', 'allOf']);

function mapChildren(schema: Obj, fn: (child: Json) => Json): Obj {
  const out: Obj = {};
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_KEYS.has(k) && isObj(v)) out[k] = fn(v);
    else if (SCHEMA_MAP_KEYS.has(k) && isObj(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, isObj(s) ? fn(s) : s]));
    else if (SCHEMA_LIST_KEYS.has(k) && Array.isArray(v)) out[k] = v.map((s) => (isObj(s) ? fn(s) : s));
    else out[k] = v;
  }
  return out;
}

/**
 * The values of `anyOf` alternatives that each allow only named values (`{const}`, `{enum}` or `{type: "null"}`, with
 * nothing else but a `type`), or null when one allows more.
 */
function valuesOf(alternatives: Json[]): Json[] | null {
  const values: Json[] = [];
  for (const alt of alternatives) {
    if (!isObj(alt)) return null;
    const { type, ...rest } = alt;
    const keys = Object.keys(rest);
    if (type === 'null' && keys.length === 0) values.push(null);
    else if (keys.length === 1 && 'const' in rest) values.push(rest.const!);
    else if (keys.length === 1 && Array.isArray(rest.enum)) values.push(...rest.enum);
    else return null;
  }
  return values;
}

/** The input-schema rewrites listed above. */
function tidy(schema: Obj): Obj {
  let s = mapChildren(schema, (child) => (isObj(child) ? tidy(child) : child));
  if (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) {
    delete s.minLength;
    delete s.maxLength;
    delete s.pattern;
  }
  if (s.format === 'uuid' && s.type === 'string') delete s.type;
  for (const bound of ['minimum', 'maximum', 'minItems', 'maxItems']) delete s[bound];
  if (s.format === 'uuid' && typeof s.pattern === 'string') delete s.pattern;
  // An enum of strings says its type; a default the description already states is said twice.
  if (Array.isArray(s.enum) && s.type === 'string' && s.enum.every((v) => typeof v === 'string')) delete s.type;
  if ('default' in s && typeof s.description === 'string' && /default/i.test(s.description)) delete s.default;
  // Unknown fields are refused by the server with a message naming them; the schema need not say it.
  if (s.additionalProperties === false) delete s.additionalProperties;
  const values = Array.isArray(s.anyOf) ? valuesOf(s.anyOf) : null;
  if (values) {
    const { anyOf: _drop, ...rest } = s;
    s = { ...rest, enum: values };
  }
  const any = s.anyOf;
  if (Array.isArray(any) && any.length === 2) {
    const nullIndex = any.findIndex((x) => isObj(x) && x.type === 'null' && Object.keys(x).length === 1);
    const other = any[1 - nullIndex];
    if (nullIndex >= 0 && isObj(other) && typeof other.type === 'string' && !('anyOf' in other)) {
      const { anyOf: _drop, ...rest } = s;
      s = { ...other, ...rest, type: [other.type, 'null'] };
    }
  }
  return s;
}

const DEF_MIN_BYTES = 80;

/** Moves subschemas that repeat (and are big enough to be worth a reference) into `$defs`. */
function shareRepeats(root: Obj): Obj {
  const counts = new Map<string, number>();
  const count = (s: Obj, top: boolean) => {
    if (!top) {
      const key = JSON.stringify(s);
      if (key.length >= DEF_MIN_BYTES) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    mapChildren(s, (child) => {
      if (isObj(child)) count(child, false);
      return child;
    });
  };
  count(root, true);
  const repeated = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
  if (repeated.length === 0) return root;
  // Largest first, so a repeated object takes its repeated parts with it rather than being split up.
  repeated.sort((a, b) => b.length - a.length);
  const names = new Map<string, string>();
  const defs: Obj = isObj(root.$defs) ? { ...root.$defs } : {};
  const replace = (s: Obj, top: boolean): Obj => {
    const key = JSON.stringify(s);
    const existing = names.get(key);
    if (!top && existing) return { $ref: `#/$defs/${existing}` };
    if (!top && repeated.includes(key)) {
      const name = `d${names.size}`;
      names.set(key, name);
      defs[name] = mapChildren(s, (child) => (isObj(child) ? replace(child, false) : child));
      return { $ref: `#/$defs/${name}` };
    }
    return mapChildren(s, (child) => (isObj(child) ? replace(child, false) : child));
  };
  const out = replace(root, true);
  return { ...out, $defs: defs };
}

export function compactInputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return shareRepeats(tidy(schema as Obj));
}

/** The output schema the tool list carries: an object, open (see above). */
export function compactOutputSchema(): Record<string, unknown> {
  return { type: 'object' };
}
