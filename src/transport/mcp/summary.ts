/**
 * The text content of a tool result: a short summary of its structured body, not a second copy of it.
 *
 * The protocol's advice is to mirror structured content as JSON text for clients that read only text. The body is
 * already in `structuredContent` (every client this server is built for reads it), and a second copy doubles what an
 * assistant pays in tokens for every answer. So the text says what happened, the figures that matter and what to
 * call next; a client that needs the copy sets AGENT_API_MCP_TEXT=json (docs/api.md, MCP results).
 */

type Body = Record<string, unknown>;

const MAX_FACTS = 14;
const MAX_STRING = 80;

const isObject = (v: unknown): v is Body => typeof v === 'object' && v !== null && !Array.isArray(v);

function scalar(v: unknown): string | null {
  if (typeof v === 'number') return Number.isInteger(v) ? String(v) : String(Math.round(v * 10) / 10);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string') return v.length <= MAX_STRING ? JSON.stringify(v) : null;
  return null;
}

/** `key=value` facts of an object: its scalars, lists as counts, then the scalars of nested objects. */
function facts(body: Body, prefix = '', depth = 0): string[] {
  const out: string[] = [];
  const nested: [string, Body][] = [];
  for (const [k, v] of Object.entries(body)) {
    if (v === null || v === undefined) continue;
    const name = prefix ? `${prefix}.${k}` : k;
    const s = scalar(v);
    if (s !== null) out.push(`${name}=${s}`);
    else if (Array.isArray(v)) out.push(`${name}: ${v.length} item${v.length === 1 ? '' : 's'}`);
    else if (isObject(v) && depth < 1) nested.push([name, v]);
  }
  for (const [name, v] of nested) out.push(...facts(v, name, depth + 1));
  return out;
}

/** What to do next, from the body's status (the long-running resources share these states). */
function next(body: Body): string | null {
  const status = typeof body.status === 'string' ? body.status : null;
  if (status === 'queued' || status === 'running' || status === 'researching' || status === 'generating_draft')
    return 'Still working: read it again with wait_seconds (up to 30) to wait for the next change.';
  if (status === 'brief_ready')
    return 'The brief is ready: read it, then approve_content_brief (optionally with edits or your own draft_body).';
  if (status === 'failed') return 'It failed: see error (and error_code); nothing more is charged for it.';
  return null;
}

/** The text content of a successful tool result. */
export function summarize(title: string, body: unknown, links: readonly string[] = []): string {
  if (!isObject(body)) return `${title}: ${JSON.stringify(body)}`;
  const all = facts(body);
  const shown = all.slice(0, MAX_FACTS);
  const lines = [`${title}: ${shown.join('; ')}${all.length > shown.length ? '; …' : ''}`];
  const then = next(body);
  if (then) lines.push(then);
  if (links.length) lines.push(`Full documents: ${links.join(', ')} (resources/read).`);
  lines.push('The whole answer is in structuredContent.');
  return lines.join('\n');
}
