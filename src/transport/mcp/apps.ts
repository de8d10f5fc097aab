/**
 * MCP Apps views: interactive HTML a host renders inline next to a tool's result (Claude Desktop, Claude.ai, VS Code
 * and others; the `io.modelcontextprotocol/ui` extension). A tool names its view in `_meta.ui.resourceUri`; the view
 * is a `ui://` resource of type `text/html;profile=mcp-app`, built by `npm install` (scripts/build.mjs, from
 * src/ui/apps) with its script and styles inline. It renders from the tool result the host hands it and reaches the
 * server only through the host, so its CSP allows no network at all. Hosts without Apps see the same result as before.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ProtocolError, ProtocolErrorCode, type Resource } from '@modelcontextprotocol/server';
import { APPS_PATH } from '../../config.ts';
import type { ViewOperation } from '../../ui/apps/outputs.ts';

export const APP_MIME_TYPE = 'text/html;profile=mcp-app';

interface View {
  name: string;
  title: string;
  description: string;
  /** The tools whose results it shows: the view is typed by their output schemas (src/ui/apps/outputs.ts). */
  tools: readonly ViewOperation[];
}

const VIEWS: readonly View[] = [
  {
    name: 'optimize-report',
    title: 'Optimize report',
    description: 'Score, category bars, recommendations, terms and competitors of an optimization or a scored draft.',
    tools: ['get_optimization', 'score_content'],
  },
  {
    name: 'trend-chart',
    title: 'Visibility trend',
    description: 'Daily SPI of a tracker project as a chart, overall and per platform; gaps stay gaps.',
    tools: ['get_tracker_trends'],
  },
  {
    name: 'draft',
    title: 'Draft',
    description: "A content job's draft laid out with its sources.",
    tools: ['get_content_artifacts'],
  },
];

const uriOf = (view: View) => `ui://agent-api/${view.name}`;

/** A tool's `_meta` naming its view, or undefined when it has none. */
export function appMetaFor(tool: string): { ui: { resourceUri: string } } | undefined {
  const view = VIEWS.find((v) => v.tools.some((t) => t === tool));
  return view ? { ui: { resourceUri: uriOf(view) } } : undefined;
}

/** The views as resources, for resources/list. */
export function appResources(): Resource[] {
  return VIEWS.map((v) => ({
    uri: uriOf(v),
    name: v.name,
    title: v.title,
    description: v.description,
    mimeType: APP_MIME_TYPE,
  }));
}

/** The view a `ui://` URI names, read from the build; null when the URI names none. */
export async function readApp(uri: string) {
  const view = VIEWS.find((v) => uriOf(v) === uri);
  if (!view) return null;
  let html: string;
  try {
    html = await readFile(join(APPS_PATH, `${view.name}.html`), 'utf8');
  } catch {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      `The ${view.title} view is not built: run npm install or npm run build (it makes dist/apps).`,
    );
  }
  return {
    contents: [
      {
        uri,
        mimeType: APP_MIME_TYPE,
        text: html,
        // No network: the view talks to the server through the host only.
        _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
      },
    ],
  };
}
