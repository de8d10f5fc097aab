/**
 * Tool results an assistant can take in: MCP clients cap a tool result at about 25,000 tokens (Claude Code among
 * them), and a few answers can be far bigger (a 500-query tracker scan's results, a 100-row page of optimizations
 * with their recommendations, a client echoed with a 100,000-character knowledge base). REST answers them whole;
 * over MCP a body bigger than the budget is cut to fit:
 * - the longest list in it keeps its first half, again and again, and then the longest text is shortened, until the
 *   body fits;
 * - the result says what was cut (`_meta.truncated`: each cut's path and how much was kept) in its text too;
 * - a read-only tool's result links its full answer as a resource (`agent-api://calls/{tool}?{arguments}`), which
 *   resources/read answers by running the same read again (resources.ts), so nothing is stored and any process can
 *   answer it.
 */

/** About 4 characters a token: the structured content stays under 22,500 tokens, room for the text and the links. */
export const RESULT_BUDGET_CHARS = 90_000;

export interface Cut {
  /** Where in the body, as a dotted path (`data`, `platforms.organic.rows`, `knowledge_base`). */
  path: string;
  /** Items or characters kept, of how many. */
  kept: number;
  of: number;
}

type Json = unknown;

const size = (v: Json) => JSON.stringify(v).length;

/** The longest list or text in the body, with its path and a setter. */
function biggest(root: Json, kind: 'list' | 'text') {
  let best: { path: string; length: number; set(v: Json): void; value: Json } | null = null;
  const walk = (v: Json, path: string, set: (x: Json) => void) => {
    if (Array.isArray(v)) {
      const length = v.length;
      if (kind === 'list' && length > 1 && (!best || size(v) > size(best.value)))
        best = { path, length, set, value: v };
      v.forEach((item, i) => walk(item, `${path}[${i}]`, (x) => (v[i] = x)));
    } else if (typeof v === 'object' && v !== null) {
      for (const [k, child] of Object.entries(v as Record<string, Json>))
        walk(child, path ? `${path}.${k}` : k, (x) => ((v as Record<string, Json>)[k] = x));
    } else if (kind === 'text' && typeof v === 'string' && v.length > 200 && (!best || v.length > best.length)) {
      best = { path, length: v.length, set, value: v };
    }
  };
  walk(root, '', () => undefined);
  return best as { path: string; length: number; set(v: Json): void; value: Json } | null;
}

/**
 * The body cut to the budget, and the cuts (none when it fits). The body given is not changed.
 */
export function fitToBudget<T>(body: T, budget = RESULT_BUDGET_CHARS): { body: T; cuts: Cut[] } {
  if (size(body) <= budget) return { body, cuts: [] };
  const copy = structuredClone(body);
  const cuts = new Map<string, Cut>();
  for (let guard = 0; size(copy) > budget && guard < 200; guard++) {
    const list = biggest(copy, 'list');
    // Halving the longest list first: rows are what a page holds too many of.
    if (list && size(list.value) > budget / 8) {
      const items = list.value as Json[];
      const kept = Math.max(1, Math.floor(items.length / 2));
      list.set(items.slice(0, kept));
      const before = cuts.get(list.path);
      cuts.set(list.path, { path: list.path, kept, of: before?.of ?? items.length });
      continue;
    }
    const text = biggest(copy, 'text');
    if (!text) break;
    const value = text.value as string;
    const over = size(copy) - budget;
    const kept = Math.max(200, value.length - over - 100);
    text.set(`${value.slice(0, kept)}…`);
    const before = cuts.get(text.path);
    cuts.set(text.path, { path: text.path, kept, of: before?.of ?? value.length });
  }
  return { body: copy, cuts: [...cuts.values()] };
}

/** One line saying what was cut, for the result's text. */
export function describeCuts(cuts: readonly Cut[]): string {
  return `Cut to fit an assistant's context: ${cuts.map((c) => `${c.path || 'body'} keeps ${c.kept} of ${c.of}`).join('; ')}.`;
}

const CALL_SCHEME = 'agent-api://calls/';

/** The resource URI that answers a read-only tool call in full. */
export function callUri(tool: string, args: Record<string, unknown>): string {
  return `${CALL_SCHEME}${encodeURIComponent(tool)}?${new URLSearchParams({ arguments: JSON.stringify(args) })}`;
}

/** The tool and arguments of a call URI, or null. */
export function parseCallUri(uri: string): { tool: string; args: Record<string, unknown> } | null {
  if (!uri.startsWith(CALL_SCHEME)) return null;
  const rest = uri.slice(CALL_SCHEME.length);
  const q = rest.indexOf('?');
  try {
    const tool = decodeURIComponent(q < 0 ? rest : rest.slice(0, q));
    const args: unknown = JSON.parse(new URLSearchParams(q < 0 ? '' : rest.slice(q + 1)).get('arguments') ?? '{}');
    if (!/^[a-z_]+$/.test(tool) || typeof args !== 'object' || args === null || Array.isArray(args)) return null;
    return { tool, args: args as Record<string, unknown> };
  } catch {
    return null;
  }
}
