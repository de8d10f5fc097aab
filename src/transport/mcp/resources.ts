/**
 * MCP resources: the big documents behind tool results, read when a client needs them instead of repeated in every
 * answer. Tool results link to them (`resource_link` content); `resources/read` serves them with the same scope and
 * organisation checks as the tools they come from (another organisation's URI is not found).
 *
 * | URI template                                            | document                                  |
 * |---------------------------------------------------------|-------------------------------------------|
 * | agent-api://optimizations/{optimization_id}/report.md   | the full Optimize report, markdown        |
 * | agent-api://optimizations/{optimization_id}/report.json | the full Optimize record (view=full) JSON  |
 * | agent-api://copywriter/jobs/{job_id}/draft.md           | the draft with footnoted citations         |
 * | agent-api://copywriter/jobs/{job_id}/draft.html         | the same draft as an HTML page             |
 * | agent-api://copywriter/jobs/{job_id}/brief.md           | the brief: metadata, outline, FAQs, terms  |
 * | agent-api://calls/{tool}{?arguments}                    | a read-only tool's whole answer, run again |
 *
 * The last one backs results cut to fit an assistant's context (fit.ts): the URI holds the call, and reading it runs
 * that read again, so nothing is stored.
 */
import { randomUUID } from 'node:crypto';
import {
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  type ResourceLink,
  type ResourceTemplateType,
  type Server,
} from '@modelcontextprotocol/server';
import { ApiError, toApiError } from '../../errors.ts';
import type { Principal } from '../../engine/accounts/auth.ts';
import type { Engine } from '../../engine/engine.ts';
import { briefMarkdown, optimizationReportMarkdown } from '../../engine/rendering/documents.ts';
import type { AnyOperation } from '../../tools/define.ts';
import { invokeOperation } from '../../tools/invoke.ts';
import type { ToolExtra } from './server.ts';
import { callUri, parseCallUri } from './fit.ts';
import { appResources, readApp } from './apps.ts';

const SCHEME = 'agent-api://';

interface Document {
  /** The URI template's path after the scheme, with one `{id}` parameter. */
  path: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /** The operation that reads it, and its input for an id. */
  operation: string;
  input(id: string): Record<string, unknown>;
  /** The document from the operation's answer. */
  text(body: Record<string, unknown>, op: AnyOperation): string;
}

const DOCUMENTS: readonly Document[] = [
  {
    path: 'optimizations/{optimization_id}/report.md',
    name: 'optimization-report-md',
    title: 'Optimize report (markdown)',
    description: 'Score, categories, every recommendation, competitors and terms of a complete optimization.',
    mimeType: 'text/markdown',
    operation: 'get_optimization',
    input: (id) => ({ optimization_id: id, view: 'full' }),
    text: (body) => optimizationReportMarkdown(body),
  },
  {
    path: 'optimizations/{optimization_id}/report.json',
    name: 'optimization-report-json',
    title: 'Optimize report (JSON)',
    description: 'The full optimization record (get_optimization with view=full).',
    mimeType: 'application/json',
    operation: 'get_optimization',
    input: (id) => ({ optimization_id: id, view: 'full' }),
    text: (body) => JSON.stringify(body),
  },
  {
    path: 'copywriter/jobs/{job_id}/draft.md',
    name: 'draft-md',
    title: 'Draft (markdown)',
    description: 'The draft of a content job or Autopilot run, with its citations as footnotes.',
    mimeType: 'text/markdown',
    operation: 'get_content_artifacts',
    input: (id) => ({ job_id: id, format: 'markdown' }),
    text: (body, op) => op.render?.document(body)?.text ?? '',
  },
  {
    path: 'copywriter/jobs/{job_id}/draft.html',
    name: 'draft-html',
    title: 'Draft (HTML)',
    description: 'The draft as an HTML page, citations as footnotes.',
    mimeType: 'text/html',
    operation: 'get_content_artifacts',
    input: (id) => ({ job_id: id, format: 'html' }),
    text: (body, op) => op.render?.document(body)?.text ?? '',
  },
  {
    path: 'copywriter/jobs/{job_id}/brief.md',
    name: 'brief-md',
    title: 'Brief (markdown)',
    description: 'The brief of a content job: SEO metadata, outline, FAQs and terms.',
    mimeType: 'text/markdown',
    operation: 'get_content_artifacts',
    input: (id) => ({ job_id: id, include: 'outline,seo_metadata,faqs,entities' }),
    text: (body) => briefMarkdown(body as Parameters<typeof briefMarkdown>[0]),
  },
];

/** A resource's URI for one id. */
export const documentUri = (doc: Document, id: string) =>
  `${SCHEME}${doc.path.replace(/\{[a-z_]+\}/, encodeURIComponent(id))}`;

/** The documents a URI names: the document and the id, or null. */
function parseUri(uri: string): { doc: Document; id: string } | null {
  if (!uri.startsWith(SCHEME)) return null;
  const rest = uri.slice(SCHEME.length);
  for (const doc of DOCUMENTS) {
    const [before, after] = doc.path.split(/\{[a-z_]+\}/) as [string, string];
    if (!rest.startsWith(before) || !rest.endsWith(after)) continue;
    const raw = rest.slice(before.length, rest.length - after.length);
    if (!raw || raw.includes('/')) continue;
    try {
      return { doc, id: decodeURIComponent(raw) };
    } catch {
      return null;
    }
  }
  return null;
}

const link = (doc: Document, id: string): ResourceLink => ({
  type: 'resource_link',
  uri: documentUri(doc, id),
  name: doc.name,
  title: doc.title,
  description: doc.description,
  mimeType: doc.mimeType,
});

const byName = (name: string) => DOCUMENTS.filter((d) => d.name === name);

/** The statuses of a content job or Autopilot run at which a brief, and a draft, exist. */
const HAS_BRIEF = new Set(['brief_ready', 'generating_draft', 'completed']);

/**
 * The resource links of a tool's answer: the report of a complete optimization; the brief of a job past research
 * and the draft of a completed one.
 */
export function resourceLinksFor(body: unknown): ResourceLink[] {
  if (typeof body !== 'object' || body === null) return [];
  const b = body as Record<string, unknown>;
  if (typeof b.optimization_id === 'string' && b.status === 'complete')
    return [...byName('optimization-report-md'), ...byName('optimization-report-json')].map((d) =>
      link(d, b.optimization_id as string),
    );
  if (typeof b.job_id === 'string' && typeof b.status === 'string') {
    const out: ResourceLink[] = [];
    if (HAS_BRIEF.has(b.status)) out.push(...byName('brief-md').map((d) => link(d, b.job_id as string)));
    if (b.status === 'completed')
      out.push(...[...byName('draft-md'), ...byName('draft-html')].map((d) => link(d, b.job_id as string)));
    return out;
  }
  return [];
}

/** The link to a read-only tool call's whole answer. */
export function callLink(tool: string, args: Record<string, unknown>): ResourceLink {
  return {
    type: 'resource_link',
    uri: callUri(tool, args),
    name: `${tool}-result`,
    title: `The whole answer of ${tool}`,
    description: 'This call answered again in full (the result above was cut to fit).',
    mimeType: 'application/json',
  };
}

/** A miss: -32602 with data `{uri}` (the protocol's resource-not-found, in both eras). */
const notFound = (uri: string) => new ResourceNotFoundError(uri);

/** Serves resources/templates/list, resources/list (nothing fixed: every document is per resource) and resources/read. */
export function serveResources(
  server: Server,
  deps: {
    engine: Engine | PromiseLike<Engine>;
    operations: readonly AnyOperation[];
    resolvePrincipal(ctx: ToolExtra): Promise<Principal>;
  },
): void {
  server.registerCapabilities({ resources: {} });
  const templates: ResourceTemplateType[] = [
    ...DOCUMENTS.map((d) => ({
      uriTemplate: `${SCHEME}${d.path}`,
      name: d.name,
      title: d.title,
      description: d.description,
      mimeType: d.mimeType,
    })),
    {
      uriTemplate: `${SCHEME}calls/{tool}{?arguments}`,
      name: 'tool-call',
      title: 'A read-only tool call, answered in full',
      description: 'arguments: the call arguments as JSON. Linked from results that were cut to fit.',
      mimeType: 'application/json',
    },
  ];
  server.setRequestHandler('resources/templates/list', () => ({ resourceTemplates: templates }));
  server.setRequestHandler('resources/list', () => ({ resources: appResources() }));
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const uri = request.params.uri;
    const app = await readApp(uri);
    if (app) return app;
    const call = parseCallUri(uri);
    if (call) return readCall(uri, call.tool, call.args, ctx);
    const parsed = parseUri(uri);
    const op = parsed ? deps.operations.find((o) => o.name === parsed.doc.operation) : undefined;
    if (!parsed || !op) throw notFound(uri);
    const body = await run(uri, op, parsed.doc.input(parsed.id), ctx);
    return { contents: [{ uri, mimeType: parsed.doc.mimeType, text: parsed.doc.text(body, op) }] };
  });

  /** A read-only operation run again with the URI's arguments; any other tool is not a resource. */
  async function readCall(uri: string, tool: string, args: Record<string, unknown>, ctx: ToolExtra) {
    const op = deps.operations.find((o) => o.name === tool && o.annotations.readOnlyHint);
    if (!op) throw notFound(uri);
    const body = await run(uri, op, args, ctx);
    return { contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(body) }] };
  }

  /** Runs the operation behind a resource as the caller, with the tools' checks; a 404 is a resource miss. */
  async function run(uri: string, op: AnyOperation, input: Record<string, unknown>, ctx: ToolExtra) {
    const principal = await deps.resolvePrincipal(ctx);
    const engine = await deps.engine;
    try {
      const result = await invokeOperation(engine, op, {
        principal,
        input,
        idempotencyKeys: null,
        requestId: randomUUID(),
        signal: ctx.mcpReq.signal,
      });
      return result.body as Record<string, unknown>;
    } catch (err) {
      const e = toApiError(err);
      if (!(err instanceof ApiError)) engine.logger.error({ err, uri }, 'resources/read failed');
      // Unknown ids, other organisations' ids and malformed ids are all "not found", as the tools answer 404.
      if (e.code === 'not_found' || e.code === 'invalid_input' || e.code === 'validation_error') throw notFound(uri);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, e.message, e.toBody());
    }
  }
}
