import { z } from 'zod';
import { ERROR_CATALOGUE } from '../errors.ts';
import type { AnyOperation } from '../tools/define.ts';
import { API_BASE } from './http/rest.ts';

const COMMON_ERRORS = ['unauthorized', 'forbidden', 'not_found', 'rate_limit_exceeded', 'internal_error'] as const;

function schemaOf(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  delete out.$schema;
  return out;
}

/** OpenAPI 3.1 from the registry: the same zod schemas the handlers validate with. */
export function buildOpenApi(operations: readonly AnyOperation[], version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const pathParams = [...op.http.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
    const openPath = API_BASE + op.http.path.replace(/:([a-z_]+)/g, '{$1}');
    const input = schemaOf(op.input, 'input') as { properties?: Record<string, unknown>; required?: string[] };
    const props = input.properties ?? {};
    const required = new Set(input.required ?? []);
    const parameters: unknown[] = pathParams.map((name) => ({
      name,
      in: 'path',
      required: true,
      schema: props[name] ?? { type: 'string' },
    }));
    let requestBody: unknown;
    if (op.http.method === 'GET') {
      for (const [name, schema] of Object.entries(props)) {
        if (!pathParams.includes(name)) parameters.push({ name, in: 'query', required: required.has(name), schema });
      }
    } else {
      const bodyProps = Object.fromEntries(Object.entries(props).filter(([k]) => !pathParams.includes(k)));
      if (Object.keys(bodyProps).length > 0) {
        requestBody = {
          required: [...required].some((r) => !pathParams.includes(r)),
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: bodyProps,
                required: [...required].filter((r) => !pathParams.includes(r)),
                additionalProperties: false,
              },
            },
          },
        };
      }
    }
    if (op.idempotency !== 'none') {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: op.idempotency === 'required',
        schema: { type: 'string', minLength: 1, maxLength: 255 },
        description: 'The same key and body return the first result (Idempotent-Replayed: true).',
      });
    }
    const errors = [...new Set([...COMMON_ERRORS, ...op.errors])];
    // Documents an operation renders (define.ts `render`) are further media types of the success answer.
    const documents = Object.fromEntries(
      (op.render?.mediaTypes ?? []).map((type) => [type, { schema: { type: 'string' } }]),
    );
    const responses: Record<string, unknown> = {
      [String(op.http.status)]: {
        description: 'Success',
        content: { 'application/json': { schema: schemaOf(op.output, 'output') }, ...documents },
      },
    };
    if (op.http.replayStatus && op.http.replayStatus !== op.http.status) {
      responses[String(op.http.replayStatus)] = {
        description: 'Idempotent replay',
        content: { 'application/json': { schema: schemaOf(op.output, 'output') } },
      };
    }
    for (const code of errors) {
      const status = String(ERROR_CATALOGUE[code].status);
      const existing = responses[status] as { description: string } | undefined;
      responses[status] = {
        description: existing ? `${existing.description}, ${code}` : code,
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    paths[openPath] ??= {};
    paths[openPath][op.http.method.toLowerCase()] = {
      operationId: op.name,
      summary: op.title,
      description: op.description,
      tags: [op.family],
      ...(op.scope ? { 'x-required-scope': op.scope } : {}),
      security: [{ bearer: [] }],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'agent-api',
      version,
      description: 'SEO content service: content jobs, Autopilot, Optimize, tracker and outreach lists.',
    },
    servers: [{ url: '/' }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message'],
              properties: {
                code: { type: 'string', enum: Object.keys(ERROR_CATALOGUE) },
                message: { type: 'string' },
                details: { type: 'object' },
              },
            },
          },
        },
      },
    },
  };
}
