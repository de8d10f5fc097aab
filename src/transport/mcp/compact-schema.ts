/**
 * Compact JSON Schemas for the MCP tool list, whose size every assistant pays for in tokens on every session.
 * The schemas zod emits are exact but verbose; these rewrites keep what a client validates against and drop what
 * repeats or says nothing:
 * - integer bounds that are only JavaScript's safe-integer range;
 * - a `pattern` beside a `format` that says the same (uuid), `type` beside a string enum, a `default` the
 *   description states, and `additionalProperties: false` (the server refuses unknown fields by name);
 * - `{anyOf: [X, {type: "null"}]}` becomes X with `type: [t, "null"]` when X is a plain typed schema;
 * - strings lose `minLength`/`maxLength` (the server refuses a value out of bounds with a message naming the
 *   field, and descriptions state the limits that matter);
 * - an output schema names the body's top-level fields, and no more: no types, descriptions or `required` list (the
 *   tool description and docs/api.md explain the result), so the error body (`{error: {code, message, details}}`,
 *   the structured content of every failed call) and fields added later validate against it too;
 * - a subschema that appears more than once in one tool's schema moves to that schema's `$defs` and is referenced.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Keywords whose values are schemas, maps of schemas or lists of schemas. */
const SCHEMA_KEYS = new Set(['items', 'additionalProperties', 'not', 'propertyNames']);
const SCHEMA_MAP_KEYS = new Set(['properties', '$defs', 'definitions', 'patternProperties']);
const SCHEMA_LIST_KEYS = new Set(['anyOf', 'oneOf', 'allOf']);

const SAFE = Number.MAX_SAFE_INTEGER;

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

/** The input-schema rewrites listed above. */
function tidy(schema: Obj): Obj {
  let s = mapChildren(schema, (child) => (isObj(child) ? tidy(child) : child));
  if (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string'))) {
    delete s.minLength;
    delete s.maxLength;
  }
  if (s.type === 'integer') {
    if (s.minimum === -SAFE) delete s.minimum;
    if (s.maximum === SAFE) delete s.maximum;
  }
  if (s.format === 'uuid' && typeof s.pattern === 'string') delete s.pattern;
  // An enum of strings says its type; a default the description already states is said twice.
  if (Array.isArray(s.enum) && s.type === 'string' && s.enum.every((v) => typeof v === 'string')) delete s.type;
  if ('default' in s && typeof s.description === 'string' && /default/i.test(s.description)) delete s.default;
  // Unknown fields are refused by the server with a message naming them; the schema need not say it.
  if (s.additionalProperties === false) delete s.additionalProperties;
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

/** An output schema: the body's top-level field names (of every alternative, when the body is a union). */
function fieldNames(schema: Obj): Obj {
  const names = new Set<string>();
  const collect = (s: Obj) => {
    if (isObj(s.properties)) for (const k of Object.keys(s.properties)) names.add(k);
    for (const key of SCHEMA_LIST_KEYS) {
      const list = s[key];
      if (Array.isArray(list)) for (const branch of list) if (isObj(branch)) collect(branch);
    }
  };
  collect(schema);
  return { type: 'object', properties: Object.fromEntries([...names].map((k) => [k, {}])) };
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

export function compactOutputSchema(schema: Record<string, unknown>): Record<string, unknown> {
  return fieldNames(schema as Obj);
}
