/**
 * `node --import tsx scripts/tool-list-size.ts`: the JSON bytes of the MCP tool list an all-scope key gets (the
 * TOOL_LIST_MAX_BYTES budget of test/mcp/tool-list.test.ts), and where they go: per tool, input schemas (and the
 * property descriptions in them), output schemas, descriptions, titles and annotations.
 */
import { OPERATIONS } from '../src/tools/registry.ts';
import { TOOL_LIST_MAX_BYTES } from '../src/transport/mcp/compact-schema.ts';
import { toolDefinitions } from '../src/transport/mcp/server.ts';

const tools = toolDefinitions(OPERATIONS, 'legacy');
const size = (v: unknown) => Buffer.byteLength(JSON.stringify(v));
let propertyDescriptions = 0;
const walk = (s: unknown): void => {
  if (!s || typeof s !== 'object') return;
  if (Array.isArray(s)) return s.forEach(walk);
  const o = s as Record<string, unknown>;
  if (typeof o.description === 'string') propertyDescriptions += Buffer.byteLength(o.description);
  Object.values(o).forEach(walk);
};
for (const t of tools) walk(t.inputSchema);
const rows = tools
  .map((t) => ({
    tool: t.name,
    total: size(t),
    input: size(t.inputSchema),
    output: size(t.outputSchema),
    description: Buffer.byteLength(t.description ?? ''),
  }))
  .sort((a, b) => b.total - a.total);
console.table(rows);
const total = size({ tools });
console.log({
  toolListBytes: total,
  budget: TOOL_LIST_MAX_BYTES,
  headroom: TOOL_LIST_MAX_BYTES - total,
  inputSchemas: tools.reduce((n, t) => n + size(t.inputSchema), 0),
  propertyDescriptions,
  outputSchemas: tools.reduce((n, t) => n + size(t.outputSchema), 0),
  toolDescriptions: tools.reduce((n, t) => n + Buffer.byteLength(t.description ?? ''), 0),
  titles: tools.reduce((n, t) => n + Buffer.byteLength(t.title ?? ''), 0),
  annotations: tools.reduce((n, t) => n + size(t.annotations ?? {}), 0),
});
