import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigSchema, loadConfig } from '../../src/config.ts';
import { ROOT } from '../cli/helpers.ts';

/**
 * server.json describes this server to the MCP Registry: the npm package, run over stdio as `agent-api mcp`, and the
 * environment variables people set for it. It must validate against the registry's schema and agree with
 * package.json (the registry checks the npm package's `mcpName`) and with src/config.ts (every variable it names is
 * a real setting, with its real default and choices).
 *
 * The published schema is https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json. No npm
 * package ships it (looked for in @modelcontextprotocol/inspector, -inspector-client, -inspector-server,
 * -inspector-cli, -conformance, -sdk, @anthropic-ai/mcpb, @mcpjam/inspector, mcp-framework, mcporter, @wong2/mcp-cli:
 * none holds a server.schema.json), and copies from its GitHub repository may not be committed here, so SCHEMA below
 * writes out the rules of that version (draft-07, as published) for every part server.json can use: the server
 * (name, description, title, version, $schema, websiteUrl, repository, packages, remotes), a package (registry type,
 * identifier, version, transport, runtime hint and arguments, environment variables, file hash) and its inputs.
 * Descriptions, examples and the `_meta` extension are left out; constraints are the published ones.
 */
const SCHEMA_VERSION = '2025-12-11';
const SCHEMA_ID = `https://static.modelcontextprotocol.io/schemas/${SCHEMA_VERSION}/server.schema.json`;

const SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: SCHEMA_ID,
  $ref: '#/definitions/ServerDetail',
  definitions: {
    Input: {
      type: 'object',
      properties: {
        choices: { type: 'array', items: { type: 'string' } },
        default: { type: 'string' },
        description: { type: 'string' },
        format: { type: 'string', enum: ['string', 'number', 'boolean', 'filepath'] },
        isRequired: { type: 'boolean' },
        isSecret: { type: 'boolean' },
        placeholder: { type: 'string' },
        value: { type: 'string' },
      },
    },
    InputWithVariables: {
      allOf: [
        { $ref: '#/definitions/Input' },
        {
          type: 'object',
          properties: { variables: { type: 'object', additionalProperties: { $ref: '#/definitions/Input' } } },
        },
      ],
    },
    KeyValueInput: {
      allOf: [
        { $ref: '#/definitions/InputWithVariables' },
        { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      ],
    },
    PositionalArgument: {
      allOf: [
        { $ref: '#/definitions/InputWithVariables' },
        {
          type: 'object',
          anyOf: [{ required: ['valueHint'] }, { required: ['value'] }],
          properties: {
            isRepeated: { type: 'boolean' },
            type: { type: 'string', enum: ['positional'] },
            valueHint: { type: 'string' },
          },
          required: ['type'],
        },
      ],
    },
    NamedArgument: {
      allOf: [
        { $ref: '#/definitions/InputWithVariables' },
        {
          type: 'object',
          properties: {
            isRepeated: { type: 'boolean' },
            name: { type: 'string' },
            type: { type: 'string', enum: ['named'] },
          },
          required: ['type', 'name'],
        },
      ],
    },
    Argument: { anyOf: [{ $ref: '#/definitions/PositionalArgument' }, { $ref: '#/definitions/NamedArgument' }] },
    StdioTransport: {
      type: 'object',
      properties: { type: { type: 'string', enum: ['stdio'] } },
      required: ['type'],
    },
    StreamableHttpTransport: {
      type: 'object',
      properties: {
        headers: { type: 'array', items: { $ref: '#/definitions/KeyValueInput' } },
        type: { type: 'string', enum: ['streamable-http'] },
        url: { type: 'string', pattern: '^https?://[^\\s]+$' },
      },
      required: ['type', 'url'],
    },
    SseTransport: {
      type: 'object',
      properties: {
        headers: { type: 'array', items: { $ref: '#/definitions/KeyValueInput' } },
        type: { type: 'string', enum: ['sse'] },
        url: { type: 'string', pattern: '^https?://[^\\s]+$' },
      },
      required: ['type', 'url'],
    },
    LocalTransport: {
      anyOf: [
        { $ref: '#/definitions/StdioTransport' },
        { $ref: '#/definitions/StreamableHttpTransport' },
        { $ref: '#/definitions/SseTransport' },
      ],
    },
    RemoteTransport: {
      allOf: [
        { anyOf: [{ $ref: '#/definitions/StreamableHttpTransport' }, { $ref: '#/definitions/SseTransport' }] },
        {
          type: 'object',
          properties: { variables: { type: 'object', additionalProperties: { $ref: '#/definitions/Input' } } },
        },
      ],
    },
    Package: {
      type: 'object',
      properties: {
        environmentVariables: { type: 'array', items: { $ref: '#/definitions/KeyValueInput' } },
        fileSha256: { type: 'string', pattern: '^[a-f0-9]{64}$' },
        identifier: { type: 'string' },
        packageArguments: { type: 'array', items: { $ref: '#/definitions/Argument' } },
        registryBaseUrl: { type: 'string', format: 'uri' },
        registryType: { type: 'string' },
        runtimeArguments: { type: 'array', items: { $ref: '#/definitions/Argument' } },
        runtimeHint: { type: 'string' },
        transport: { $ref: '#/definitions/LocalTransport' },
        version: { type: 'string', minLength: 1, not: { const: 'latest' } },
      },
      required: ['registryType', 'identifier', 'transport'],
    },
    Repository: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        source: { type: 'string' },
        subfolder: { type: 'string' },
        url: { type: 'string', format: 'uri' },
      },
      required: ['url', 'source'],
    },
    ServerDetail: {
      type: 'object',
      properties: {
        $schema: { type: 'string', format: 'uri' },
        description: { type: 'string', minLength: 1, maxLength: 100 },
        name: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
        packages: { type: 'array', items: { $ref: '#/definitions/Package' } },
        remotes: { type: 'array', items: { $ref: '#/definitions/RemoteTransport' } },
        repository: { $ref: '#/definitions/Repository' },
        title: { type: 'string', minLength: 1, maxLength: 100 },
        version: { type: 'string', maxLength: 255 },
        websiteUrl: { type: 'string', format: 'uri' },
      },
      required: ['name', 'description', 'version'],
    },
  },
} as const;

interface EnvVar {
  name: string;
  description?: string;
  isRequired?: boolean;
  isSecret?: boolean;
  format?: string;
  default?: string;
  choices?: string[];
}
interface ServerJson {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: Array<{
    registryType: string;
    identifier: string;
    version: string;
    transport: { type: string };
    packageArguments?: Array<{ type: string; value?: string }>;
    environmentVariables: EnvVar[];
  }>;
}

const read = <T>(file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as T;
const server = read<ServerJson>('server.json');
const pkg = read<{ name: string; version: string; mcpName: string }>('package.json');

function validator(): ValidateFunction {
  // Strict, except for `required` naming a property that a sibling branch defines (the published schema does that).
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  // The one string format the schema uses; ajv knows none by itself.
  ajv.addFormat('uri', (s: string) => URL.canParse(s) && /^[a-z][a-z0-9+.-]*:/i.test(s));
  return ajv.compile(SCHEMA);
}

describe('server.json (MCP Registry)', () => {
  const validate = validator();

  it(`validates against the registry's server.json schema ${SCHEMA_VERSION}, which it names`, () => {
    expect(server.$schema).toBe(SCHEMA_ID);
    expect(validate(server), JSON.stringify(validate.errors, null, 2)).toBe(true);
  });

  it('the schema refuses what the registry refuses (so the check above can fail)', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- each case breaks the document somewhere else
    type Doc = any;
    const broken = [
      (s: Doc) => (s.name = 'agent-api'),
      (s: Doc) => (s.description = 'x'.repeat(101)),
      (s: Doc) => delete s.version,
      (s: Doc) => delete s.packages[0].transport,
      (s: Doc) => (s.packages[0].version = 'latest'),
      (s: Doc) => (s.packages[0].transport = { type: 'websocket' }),
      (s: Doc) => delete s.packages[0].environmentVariables[0].name,
      (s: Doc) => (s.packages[0].environmentVariables[1].format = 'path'),
      (s: Doc) => (s.packages[0].packageArguments = [{ type: 'positional' }]),
    ];
    for (const breakIt of broken) {
      const s = structuredClone(server) as Doc;
      breakIt(s);
      expect(validate(s), breakIt.toString()).toBe(false);
    }
  });

  it("agrees with package.json: mcpName, the npm package's name and version, run as `agent-api mcp` over stdio", () => {
    expect(server.name).toBe(pkg.mcpName);
    expect(server.version).toBe(pkg.version);
    expect(server.packages).toHaveLength(1);
    const [p] = server.packages;
    expect(p).toMatchObject({ registryType: 'npm', identifier: pkg.name, version: pkg.version });
    expect(p!.transport).toEqual({ type: 'stdio' });
    expect(p!.packageArguments?.map((a) => a.value)).toEqual(['mcp']);
  });

  it('describes the settings a stdio user sets, each a real one, with its real default and choices', () => {
    const vars = server.packages[0]!.environmentVariables;
    const names = vars.map((v) => v.name);
    expect(new Set(names).size).toBe(names.length);
    for (const needed of ['AGENT_API_KEY', 'AGENT_API_DB', 'AGENT_API_DATABASE_URL', 'AGENT_API_WEB_ARCHIVE'])
      expect(names).toContain(needed);
    const defaults = loadConfig({});
    const shape = ConfigSchema.shape as Record<string, z.ZodType>;
    for (const v of vars) {
      expect(Object.keys(shape), v.name).toContain(v.name);
      expect(v.description?.length ?? 0, v.name).toBeGreaterThan(10);
      // Only the key is needed; every credential is a secret.
      expect(v.isRequired ?? false, v.name).toBe(v.name === 'AGENT_API_KEY');
      expect(v.isSecret ?? false, v.name).toBe(/KEY|PASSWORD|DATABASE_URL/.test(v.name));
      const accepted = z.toJSONSchema(shape[v.name]!, { io: 'input', unrepresentable: 'any' }) as { enum?: string[] };
      if (v.choices) expect(v.choices, v.name).toEqual(accepted.enum);
      else if (accepted.enum) expect(v.format, `${v.name} takes ${accepted.enum.join('|')}`).toBe('boolean');
      if (v.format === 'boolean') for (const b of ['true', 'false']) expect(accepted.enum).toContain(b);
      // The default it states is the default the server takes when the variable is unset.
      if (v.default !== undefined)
        expect(loadConfig({ [v.name]: v.default })[v.name as keyof typeof defaults], v.name).toEqual(
          defaults[v.name as keyof typeof defaults],
        );
    }
  });
});
