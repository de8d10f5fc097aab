/**
 * The connection of an MCP Apps view to its host (`@modelcontextprotocol/ext-apps`): a view renders the structured
 * content of the tool result the host hands it, and reaches the server only through the host.
 */
import { App } from '@modelcontextprotocol/ext-apps';
import { h, obj, str } from './dom.ts';

/**
 * Connects the view to its host and renders each tool result it receives into `#root`. `render` gets the result's
 * structured content; an error result shows its message.
 */
export function mountView(name: string, render: (body: Record<string, unknown>) => Node): void {
  const root = document.getElementById('root')!;
  const show = (node: Node) => root.replaceChildren(node);
  const app = new App({ name: `agent-api ${name}`, version: '1' });
  app.ontoolresult = (result) => {
    const body = obj(result.structuredContent);
    const error = obj(body.error);
    if (result.isError || body.error)
      show(h('p', { class: 'error', role: 'alert' }, `${str(error.code) || 'error'}: ${str(error.message)}`));
    else show(render(body));
  };
  void app.connect();
}
