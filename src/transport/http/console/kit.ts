/**
 * What every console page uses (docs/console.md): the signed-in session of a request, running an operation as the
 * session's key (scopes, rate limit, organisation and idempotency as REST), and rendering a page with its CSRF token.
 * Pages are small modules (pages/*.ts) that register their routes with a kit; none touches the engine directly.
 */
import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import type { z } from 'zod';
import { getCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { ApiError, toApiError } from '../../../errors.ts';
import type { Principal } from '../../../engine/accounts/auth.ts';
import { consolePrincipal, csrfToken, validCsrf } from '../../../engine/accounts/console-sessions.ts';
import type { Engine } from '../../../engine/engine.ts';
import { listClients } from '../../../tools/clients/list-clients.ts';
import type { AnyOperation } from '../../../tools/define.ts';
import { invokeOperation, takeRateLimit } from '../../../tools/invoke.ts';
import type { HttpEnv } from '../guards.ts';
import { page, type Html } from './layout.ts';
import { directoryOf, type ClientDirectory, type ClientOption } from './names.ts';

export const SESSION_COOKIE = 'agent_api_session';

export interface ConsoleSession {
  id: string;
  principal: Principal;
  /** The CSRF token every form of the page carries (a hidden `csrf` field). */
  csrf: string;
}

export type Status = 200 | 400 | 401 | 403 | 404 | 409 | 429;

/**
 * What an operation answers, typed by its output schema. The handler's answer is what the schema describes (the
 * contract tests hold every operation to it), so a page reads the fields the schema has and narrows its unions with a
 * check.
 */
export type OperationResult<D extends AnyOperation> = z.output<D['output']>;

/**
 * An operation's input as a page sends it: only the input schema's field names, each value as the page has it (often
 * a form's text). The operation validates the values and answers a field error for a wrong one, as on REST.
 */
export type OperationInput<D extends AnyOperation> = { [K in keyof z.input<D['input']>]?: unknown };

/** Pages of clients (100 each) a page lists at most. */
const MAX_CLIENT_PAGES = 3;

export function createKit(deps: { engine: Engine; operations: readonly AnyOperation[] }) {
  const { engine } = deps;
  const byName = new Map(deps.operations.map((o) => [o.name, o]));

  /** The signed-in session of a request, or null (no cookie, ended, expired, or its key revoked). */
  async function session(c: Context<HttpEnv>): Promise<ConsoleSession | null> {
    const id = getCookie(c, SESSION_COOKIE);
    try {
      const principal = await consolePrincipal(engine.db, engine.clock, id);
      return { id: id!, principal, csrf: csrfToken(id!) };
    } catch (err) {
      if (err instanceof ApiError && err.code === 'unauthorized') return null;
      throw err;
    }
  }

  /** The served operation of a definition (the one REST and MCP serve under its name). */
  const operation = (def: AnyOperation) => {
    const op = byName.get(def.name);
    if (!op) throw new Error(`no operation ${def.name}`);
    return op;
  };

  /**
   * One operation as the session's key, with every check REST applies except the rate limit (the caller's): `op` is
   * the served operation of definition D.
   */
  async function invoke<D extends AnyOperation>(
    s: ConsoleSession,
    op: AnyOperation,
    input: OperationInput<D>,
    key: string | null,
  ): Promise<OperationResult<D>> {
    const result = await invokeOperation(engine, op, {
      principal: s.principal,
      input,
      idempotencyKeys: key ? [key] : null,
      requestId: randomUUID(),
    });
    // The one place an answer gets its type: the body is the handler's answer, which its output schema describes.
    return result.body as OperationResult<D>;
  }

  /**
   * Runs one operation (its definition, e.g. `getContentJob`) as the session's key, with the rate limit and every
   * check REST applies, and answers its result typed by the output schema. Writing operations get a fresh
   * idempotency key per action unless the form sent one (a double submit then does the work once).
   */
  async function run<D extends AnyOperation>(
    s: ConsoleSession,
    def: D,
    input: OperationInput<D>,
    idempotencyKey?: string,
  ): Promise<OperationResult<D>> {
    const op = operation(def);
    await takeRateLimit(engine.services, s.principal);
    return invoke<D>(s, op, input, op.idempotency === 'none' ? null : (idempotencyKey ?? randomUUID()));
  }

  const render = (c: Context<HttpEnv>, title: string, content: Html, s: ConsoleSession | null, status: Status = 200) =>
    c.html(page(title, content, s) as Parameters<typeof c.html>[0], status);

  /** A page saying what went wrong (an API error's code and message), with the matching status. */
  function failure(c: Context<HttpEnv>, err: unknown, s: ConsoleSession | null) {
    const e = toApiError(err);
    if (!(err instanceof ApiError)) engine.logger.error({ err }, 'console page failed');
    const status: Status =
      e.code === 'not_found'
        ? 404
        : e.code === 'forbidden'
          ? 403
          : e.code === 'invalid_state'
            ? 409
            : e.code === 'rate_limit_exceeded'
              ? 429
              : 400;
    // A validation error names each field and what is wrong with it.
    const fields = (e.details as { fields?: { path: string; message: string }[] } | undefined)?.fields ?? [];
    return render(
      c,
      'Not done',
      html`<h1>Not done</h1>
        <p class="error" role="alert">${e.code}: ${e.message}</p>
        ${
          fields.length
            ? html`<ul>
                ${fields.map((f) => html`<li><strong>${f.path}</strong>: ${f.message}</li>`)}
              </ul>`
            : ''
        }`,
      s,
      status,
    );
  }

  /** The form fields of a POST, after checking its CSRF token (null when the token is wrong: answer 403). */
  async function form(c: Context<HttpEnv>, s: ConsoleSession): Promise<Record<string, string> | null> {
    const body = await c.req.parseBody();
    if (!validCsrf(s.id, body.csrf)) return null;
    return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }

  const refused = (c: Context<HttpEnv>, s: ConsoleSession) =>
    render(c, 'Refused', html`<p class="error" role="alert">The form is stale; reload the page.</p>`, s, 403);

  /**
   * The organisation's clients, newest first, up to 300: what a page shows names from, filters by and offers in its
   * forms' client `<select>`s. Listed once per page and NOT taken from the key's limit: naming what a page shows is
   * part of showing it, and a job's page that refreshes every 5 s must not cost more for it (an Autopilot run's page
   * already takes two requests a view).
   */
  async function clients(s: ConsoleSession): Promise<ClientDirectory> {
    const op = operation(listClients);
    const listed: ClientOption[] = [];
    let more = false;
    for (let n = 0; n < MAX_CLIENT_PAGES; n++) {
      const page = await invoke<typeof listClients>(s, op, { limit: 100, offset: n * 100 }, null);
      listed.push(...page.data.map((c) => ({ client_id: c.client_id, name: c.name })));
      more = page.pagination.has_more;
      if (!more) break;
    }
    return directoryOf(listed, more);
  }

  /**
   * Runs one read-only operation once per input (the rows a list shows, each needing one more read, such as a
   * job's score), as ONE request of the key's limit: the page is one thing the user asked for, and the reads are
   * bounded by the page's size. Each read still gets every other check (scope, organisation, validation).
   */
  async function readEach<D extends AnyOperation>(
    s: ConsoleSession,
    def: D,
    inputs: readonly OperationInput<D>[],
  ): Promise<OperationResult<D>[]> {
    const op = operation(def);
    if (!op.annotations.readOnlyHint) throw new Error(`${def.name} writes: run it with run()`);
    if (inputs.length === 0) return [];
    await takeRateLimit(engine.services, s.principal);
    const answers: OperationResult<D>[] = [];
    for (const input of inputs) answers.push(await invoke<D>(s, op, input, null));
    return answers;
  }

  return { session, run, readEach, render, failure, form, refused, clients, engine };
}

export type ConsoleKit = ReturnType<typeof createKit>;
