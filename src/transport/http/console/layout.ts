/**
 * The web console's pages: server-rendered HTML from `hono/html`, whose template escapes every interpolated value
 * (page titles, client names, drafts and notes are hostile), with no script at all (the CSP allows none) and one
 * stylesheet served by the server.
 */
import { html } from 'hono/html';

export type Html = ReturnType<typeof html>;

export const CONSOLE_CSS = `
:root { color-scheme: light dark; --fg: #1f2328; --muted: #59636e; --bg: #fff; --line: #d1d9e0; --accent: #0969da; }
@media (prefers-color-scheme: dark) { :root { --fg: #f0f6fc; --muted: #9198a1; --bg: #0d1117; --line: #3d444d; --accent: #4493f8; } }
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 16px; align-items: center; padding: 8px 16px; border-bottom: 1px solid var(--line); }
header nav a { margin-right: 12px; color: var(--accent); }
main { padding: 16px; max-width: 1000px; }
.muted { color: var(--muted); }
table { border-collapse: collapse; } th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); }
.error { color: #d1242f; }
label { display: block; margin: 8px 0 4px; }
input[type=password], input[type=text] { width: 100%; max-width: 520px; padding: 6px; }
button { padding: 6px 12px; margin-top: 8px; }
a:focus, button:focus, input:focus { outline: 2px solid var(--accent); outline-offset: 2px; }
label.copy { display: inline-block; margin: 0 0 0 8px; color: var(--muted); font-size: 13px; }
label.copy input { width: 38ch; max-width: 100%; padding: 2px 4px; font: 13px ui-monospace, monospace; }
`;

/** A table's header row: one `<th scope="col">` per column name. */
export function columns(...names: string[]): Html {
  return html`<thead>
    <tr>
      ${names.map((n) => html`<th scope="col">${n}</th>`)}
    </tr>
  </thead>`;
}

/** A console page: the header (navigation and sign-out when signed in) and the content. */
export function page(title: string, content: Html, session: { csrf: string } | null = null): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · agent-api</title>
        <link rel="stylesheet" href="/console/assets/console.css" />
        <link rel="icon" href="data:," />
      </head>
      <body>
        <header>
          <strong>agent-api</strong>
          ${
            session
              ? html`<nav aria-label="Console">
                    <a href="/console">Usage</a>
                    <a href="/console/optimizations">Optimizations</a>
                    <a href="/console/jobs">Content</a>
                    <a href="/console/tracker">Tracker</a>
                    <a href="/console/prospects">Prospects</a>
                  </nav>
                  <form method="post" action="/console/sign-out">
                    <input type="hidden" name="csrf" value="${session.csrf}" />
                    <button type="submit">Sign out</button>
                  </form>`
              : ''
          }
        </header>
        <main id="main">${content}</main>
      </body>
    </html>`;
}
