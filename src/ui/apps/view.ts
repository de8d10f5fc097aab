/**
 * The connection of an MCP Apps view to its host (`@modelcontextprotocol/ext-apps`): a view renders the structured
 * content of the tool result the host hands it, and reaches the server only through the host.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import { h, obj, str } from './dom.ts';
import type { Json, JsonObject, ViewBody, ViewOperation } from './outputs.ts';

/** A view: the operations whose results it renders, and how it renders one (any JSON object). */
export interface View {
  readonly operations: readonly ViewOperation[];
  render(body: JsonObject): Node;
}

/**
 * The view of the results of `operations`. `render` is written against their output schema (`ViewBody`, every field
 * optional and still to be checked) and must take any JSON object too: the compiler checks here that a JSON object
 * is such a body, which is what makes handing it the checked result (`mountView`) sound without a cast.
 */
export function defineView<N extends ViewOperation>(
  operations: readonly N[],
  render: ((body: ViewBody<N>) => Node) & ((body: JsonObject) => Node),
): View {
  return { operations, render };
}

/**
 * True when `v` is JSON: what a tool result's structured content is. A structured clone (how a host posts it) can
 * carry more (a Date, a Map, a cycle): such a result is read as an empty one.
 */
function isJson(v: unknown, path: object[] = []): v is Json {
  if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return true;
  if (typeof v !== 'object' || path.includes(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  if (!Array.isArray(v) && proto !== Object.prototype && proto !== null) return false;
  path.push(v);
  const ok = Object.values(v).every((x) => isJson(x, path));
  path.pop();
  return ok;
}

/**
 * Connects the view to its host and renders each tool result it receives into `#root`. `render` gets the result's
 * structured content when it is a JSON object (an empty one otherwise); an error result shows its message.
 */
export function mountView(name: string, view: View): void {
  const root = document.getElementById('root')!;
  const show = (node: Node) => root.replaceChildren(node);
  const app = new App({ name: `agent-api ${name}`, version: '1' });
  app.ontoolresult = (result) => {
    const content: unknown = result.structuredContent;
    const body: JsonObject =
      isJson(content) && typeof content === 'object' && content !== null && !Array.isArray(content) ? content : {};
    const error = obj(body.error);
    if (result.isError || body.error)
      show(h('p', { class: 'error', role: 'alert' }, `${str(error.code) || 'error'}: ${str(error.message)}`));
    else show(view.render(body));
  };
  void app.connect();
}
