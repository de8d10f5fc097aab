import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPERATIONS } from '../../src/tools/registry.ts';
import type { AnyOperation } from '../../src/tools/define.ts';
import { toolDefinitions, toolInputSchema } from '../../src/transport/mcp/server.ts';

/**
 * Assistants learn a tool's arguments from tools/list alone, so every input property of every operation carries a
 * description, an enum's description says what each of its values means, and a default is stated. This takes each
 * tool's input schema exactly as the MCP adapter advertises it (src/transport/mcp/server.ts `toolDefinitions`: the
 * input plus `idempotency_key`, compacted) and walks it: every property, recursively through nested objects, array
 * items, nullable/union branches and `$ref`s. The schema before compaction is walked too, because compaction drops a
 * `default` the description states: there the description must name the default value itself.
 */

type Json = Record<string, unknown>;

/** The tool's input JSON Schema as tools/list advertises it. */
function advertisedInput(op: AnyOperation): Json {
  return toolDefinitions([op], 'legacy')[0]!.inputSchema as Json;
}

/** The same input as zod emits it, before the adapter compacts it (defaults still present). */
function emittedInput(op: AnyOperation): Json {
  const out = z.toJSONSchema(toolInputSchema(op), { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema with its `$ref` (into the document's `$defs` or `definitions`) followed; null when it points nowhere. */
function resolve(root: Json, node: Json, seen = new Set<Json>()): Json | null {
  if (node.$ref === undefined) return node;
  const m = typeof node.$ref === 'string' ? /^#\/(definitions|\$defs)\/(.+)$/.exec(node.$ref) : null;
  const defs = m ? root[m[1]!] : undefined;
  const target = m && isObject(defs) ? defs[decodeURIComponent(m[2]!)] : undefined;
  if (!isObject(target) || seen.has(target)) return null;
  seen.add(target);
  const { $ref: _ref, ...siblings } = node;
  return { ...resolve(root, target, seen), ...siblings };
}

/** The sub-schemas a value of this schema may take: the schema itself and its union and nullable branches. */
function branches(root: Json, node: Json): Json[] {
  const resolved = resolve(root, node);
  if (!resolved) return [];
  const alternatives = ['anyOf', 'oneOf', 'allOf'].flatMap((k) =>
    Array.isArray(resolved[k]) ? (resolved[k] as unknown[]).filter(isObject) : [],
  );
  return [resolved, ...alternatives.flatMap((a) => branches(root, a))];
}

/** The enum values a property takes, directly, through its branches or as the items of an array. */
function enumValues(root: Json, prop: Json): unknown[] {
  const values: unknown[] = [];
  for (const b of branches(root, prop)) {
    if (Array.isArray(b.enum)) values.push(...(b.enum as unknown[]));
    if ('const' in b) values.push(b.const);
    if (isObject(b.items)) values.push(...enumValues(root, b.items));
  }
  return [...new Set(values)].filter((v) => v !== null);
}

/** Whether `text` names `value` as a word of its own (so `text` is not found inside `context`, nor `2` in `H2`). */
function mentions(text: string, value: unknown): boolean {
  const escaped = String(value).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^A-Za-z0-9_])${escaped}($|[^A-Za-z0-9_])`).test(text);
}

/** The problems of one property's own description: missing, an enum value it leaves out, a default it does not state. */
function propertyProblems(root: Json, where: string, prop: Json): string[] {
  const description = typeof prop.description === 'string' ? prop.description.trim() : '';
  if (!description) return [`${where}: no description`];
  const problems: string[] = [];
  for (const v of enumValues(root, prop))
    if (!mentions(description, v)) problems.push(`${where}: description does not explain value ${JSON.stringify(v)}`);
  if (prop.default !== undefined && prop.default !== null) {
    const named = (Array.isArray(prop.default) ? prop.default : [prop.default]).filter((v) => !isObject(v));
    if (!/default/i.test(description) || !named.every((v) => mentions(description, v)))
      problems.push(`${where}: description does not state the default ${JSON.stringify(prop.default)}`);
  }
  return problems;
}

/**
 * What is missing from a schema's property descriptions, one line per problem, named by the property's path
 * (`outline[].level`). Nested objects (directly, as array items, in a union branch or behind a `$ref`) are walked too;
 * a `$ref` already followed on the way down (a recursive schema) is not followed again.
 */
export function descriptionProblems(root: Json, node: Json = root, path = '', refs = new Set<string>()): string[] {
  if (typeof node.$ref === 'string') {
    if (refs.has(node.$ref)) return [];
    refs = new Set([...refs, node.$ref]);
  }
  if (resolve(root, node) === null) return [`${path || '(root)'}: unresolved $ref ${String(node.$ref)}`];
  const problems: string[] = [];
  for (const b of branches(root, node)) {
    if (isObject(b.properties)) {
      for (const [name, value] of Object.entries(b.properties)) {
        const where = path ? `${path}.${name}` : name;
        const prop = isObject(value) ? resolve(root, value) : null;
        if (!isObject(value) || !prop) {
          problems.push(`${where}: not a schema object or an unresolved $ref`);
          continue;
        }
        problems.push(...propertyProblems(root, where, prop), ...descriptionProblems(root, value, where, refs));
      }
    }
    if (isObject(b.items)) problems.push(...descriptionProblems(root, b.items, `${path}[]`, refs));
    if (isObject(b.additionalProperties))
      problems.push(...descriptionProblems(root, b.additionalProperties, `${path}{}`, refs));
  }
  return problems;
}

describe('tool input descriptions', () => {
  it('walks a non-empty registry', () => {
    expect(OPERATIONS.length).toBeGreaterThan(0);
  });

  describe.each(OPERATIONS.map((op) => [op.name, op] as const))('%s', (_name, op) => {
    it('describes every input property, each enum value and each default, as advertised', () => {
      const schema = advertisedInput(op);
      expect(schema.type).toBe('object');
      expect(descriptionProblems(schema)).toEqual([]);
    });

    it('states in the description each default the advertised schema leaves out', () => {
      expect(descriptionProblems(emittedInput(op))).toEqual([]);
    });
  });

  describe('the check itself', () => {
    const fake = (input: z.ZodObject) =>
      ({
        name: 'fake_tool',
        title: 'Fake',
        description: 'Test only.',
        idempotency: 'optional',
        input,
        output: z.object({}),
        annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      }) as unknown as AnyOperation;
    const both = (op: AnyOperation) => [
      descriptionProblems(advertisedInput(op)),
      descriptionProblems(emittedInput(op)),
    ];

    it('fails on a property, a nested property or an array item property without a description', () => {
      const op = fake(
        z.strictObject({
          plain: z.string(),
          nested: z.object({ inner: z.number() }).optional().describe('An object.'),
          rows: z.array(z.object({ cell: z.string() })).describe('Rows.'),
          maybe: z.object({ deep: z.boolean() }).nullable().describe('A nullable object.'),
          described: z.string().describe('Has one.'),
        }),
      );
      const expected = [
        'plain: no description',
        'nested.inner: no description',
        'rows[].cell: no description',
        'maybe.deep: no description',
      ];
      expect(both(op)).toEqual([expected, expected]);
    });

    it('fails on an enum value, an array-of-enum value or a literal its description leaves out', () => {
      const op = fake(
        z.strictObject({
          mode: z.enum(['auto', 'stepped']).default('auto').describe('auto (default): all at once.'),
          kinds: z.array(z.enum(['a', 'b'])).describe('Which: a.'),
          level: z
            .union([z.literal(2), z.literal(3)])
            .nullable()
            .describe('H2 or H3.'),
        }),
      );
      const expected = [
        'mode: description does not explain value "stepped"',
        'kinds: description does not explain value "b"',
        'level: description does not explain value 2',
        'level: description does not explain value 3',
      ];
      expect(both(op)).toEqual([expected, expected]);
    });

    it('fails on a default the description does not state, or states without its value', () => {
      const op = fake(
        z.strictObject({
          size: z.number().default(5).describe('How many.'),
          pages: z.number().default(5).describe('How many pages (there is a default).'),
          tags: z.array(z.string()).default(['x']).describe('Tags (default: x).'),
        }),
      );
      const [advertised, emitted] = both(op);
      expect(advertised).toEqual(['size: description does not state the default 5']);
      expect(emitted).toEqual([
        'size: description does not state the default 5',
        'pages: description does not state the default 5',
      ]);
    });

    it('follows $refs into $defs, and fails on one that points nowhere', () => {
      const schema = {
        type: 'object',
        properties: {
          a: { $ref: '#/$defs/d0' },
          b: { $ref: '#/$defs/d0' },
          c: { $ref: '#/$defs/missing' },
        },
        $defs: { d0: { type: 'object', description: 'Shared.', properties: { x: { type: 'string' } } } },
      };
      expect(descriptionProblems(schema)).toEqual([
        'a.x: no description',
        'b.x: no description',
        'c: not a schema object or an unresolved $ref',
      ]);
      const recursive = {
        type: 'object',
        properties: { tree: { $ref: '#/$defs/n' } },
        $defs: { n: { type: 'object', description: 'A node.', properties: { child: { $ref: '#/$defs/n' } } } },
      };
      expect(descriptionProblems(recursive)).toEqual([]);
    });

    it('checks the idempotency_key the adapter adds', () => {
      const schema = advertisedInput(fake(z.strictObject({})));
      expect(Object.keys(schema.properties as Json)).toEqual(['idempotency_key']);
      expect(descriptionProblems(schema)).toEqual([]);
    });
  });
});
