/**
 * A minimal MCP Apps host for the browser tests: it loads a view's HTML into a sandboxed iframe and, through the
 * real AppBridge of @modelcontextprotocol/ext-apps, hands it a recorded tool call (arguments, then result), as
 * Claude Desktop does. Bundled for the browser by the test (esbuild).
 */
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

declare global {
  interface Window {
    showView(html: string, args: Record<string, unknown>, result: Record<string, unknown>): Promise<void>;
    viewReady: boolean;
  }
}

window.showView = async (html, args, result) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.width = '900px';
  iframe.style.height = '900px';
  document.body.append(iframe);
  const bridge = new AppBridge(null, { name: 'agent-api test host', version: '1.0.0' }, { openLinks: {}, logging: {} });
  bridge.oninitialized = () => {
    void bridge
      .sendToolInput({ arguments: args })
      .then(() => bridge.sendToolResult(result as never))
      .then(() => {
        window.viewReady = true;
      });
  };
  // The bridge listens before the view loads: the view's first message (ui/initialize) must not be missed.
  await bridge.connect(new PostMessageTransport(iframe.contentWindow!, iframe.contentWindow!));
  iframe.srcdoc = html;
};
