/**
 * The consent page of the built-in authorization server, in the console's layout and sign-in manner: the person
 * pastes an API key of their organisation, sees who is asking (the client's name, which is hostile text and escaped,
 * its id and where it will send them back) and what for, then approves or denies. No script; the form carries the
 * authorization request back unchanged, and the server checks all of it again.
 */
import { html } from 'hono/html';
import type { AuthorizationRequest } from '../../../engine/oauth/authorization.ts';
import type { Scope } from '../../../engine/accounts/scopes.ts';
import { SCOPES } from '../../../engine/accounts/scopes.ts';
import { page, type Html } from '../console/layout.ts';

/** What each scope lets a connected assistant do, in the person's words. */
const SCOPE_WORDS: Record<Scope, string> = {
  'copywriter:run': 'start content jobs and Autopilot runs (uses your usage allowance)',
  'copywriter:read': 'read content jobs, briefs and drafts',
  'optimize:run': 'score pages with Optimize (uses your usage allowance)',
  'optimize:read': 'read Optimize results',
  'reporter:run': 'run tracker scans (uses your usage allowance)',
  'reporter:write': 'create and change tracker projects',
  'reporter:read': 'read tracker projects and results',
  'prospector:write': 'create and change outreach lists',
  'prospector:read': 'read outreach lists',
  'clients:write': "create and change your organisation's clients",
};

/** Where the client sends the person back: a URL's host, or a private-use scheme (an app on this device). */
function returnTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host || `${url.protocol} (an app on this device)`;
}

export function consentPage(request: AuthorizationRequest, message: string | null): Html {
  const asked = request.scopes ?? [...SCOPES];
  return page(
    'Authorize access',
    html`<h1>Authorize ${request.client.name}</h1>
      <p>
        <strong>${request.client.name}</strong> asks to use agent-api as your organisation. After you decide, you go
        back to <strong>${returnTarget(request.redirectUri)}</strong>.
      </p>
      <p class="muted">Client id: <code>${request.client.clientId}</code></p>
      <h2>It asks to</h2>
      <ul>
        ${asked.map((s) => html`<li><code>${s}</code>: ${SCOPE_WORDS[s]}</li>`)}
      </ul>
      <p class="muted">Only what the API key you paste may do is granted. Revoking that key ends this access too.</p>
      ${message ? html`<p class="error" role="alert">${message}</p>` : ''}
      <form method="post" action="/oauth/authorize">
        ${Object.entries(request.params).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}" />`)}
        <label for="api_key">API key of your organisation</label>
        <input id="api_key" name="api_key" type="password" autocomplete="off" required />
        <button type="submit" name="decision" value="approve">Approve</button>
        <button type="submit" name="decision" value="deny" formnovalidate>Deny</button>
      </form>`,
  );
}

/** A request that cannot go back to its client (unknown client, redirect URI not registered): say why, here. */
export function authorizationErrorPage(description: string): Html {
  return page(
    'Authorization refused',
    html`<h1>This authorization request cannot be completed</h1>
      <p class="error" role="alert">${description}</p>
      <p class="muted">Nothing was shared. Go back to the application and try connecting again.</p>`,
  );
}
