import type { Family } from './define.ts';

/**
 * MCP toolsets (AGENT_API_TOOLSETS): named groups of operation families a host can narrow the tool list to. REST is
 * not narrowed; a tool outside the toolsets is not served over MCP (calling it is an unknown tool).
 */
export const TOOLSETS = {
  /** Content jobs and Autopilot. */
  content: ['copywriter', 'autopilot'],
  /** Optimize: score a page against the pages that rank for its keyword. */
  optimize: ['optimize'],
  /** The visibility tracker: projects, scans, results, trends. */
  tracker: ['tracker'],
  /** Saved outreach lists. */
  prospects: ['prospector'],
  /** Usage and the organisation's client workspaces. */
  account: ['usage', 'clients'],
} as const satisfies Record<string, readonly Family[]>;

export type Toolset = keyof typeof TOOLSETS;

export const TOOLSET_NAMES = Object.keys(TOOLSETS) as [Toolset, ...Toolset[]];

/** Whether an operation of `family` is served with these toolsets (none named: every operation). */
export function inToolsets(family: Family, toolsets: readonly Toolset[]): boolean {
  return toolsets.length === 0 || toolsets.some((t) => (TOOLSETS[t] as readonly Family[]).includes(family));
}
