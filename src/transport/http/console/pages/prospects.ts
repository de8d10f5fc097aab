/**
 * The prospect pages: the organisation's outreach lists by client, and a list's items grouped by status (in the
 * schema's order) with a form per item that sets its status and notes through update_prospect.
 *
 * Lists belong to a client, and every prospect operation takes the client id, so a list's page and its forms carry
 * `client_id` (a query parameter, a hidden field); a list of another client or organisation is a 404 like REST.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { html } from 'hono/html';
import { ProspectStatus } from '../../../../tools/prospects/schemas.ts';
import type { HttpEnv } from '../../guards.ts';
import type { ConsoleKit, ConsoleSession } from '../kit.ts';
import type { Html } from '../layout.ts';

const STATUSES = ProspectStatus.options;
type Status = (typeof STATUSES)[number];

/** Clients per index page: each costs one list_prospect_lists call against the key's rate limit. */
const CLIENTS_PER_PAGE = 10;
/** Items a list's page shows at most (pages of 100). */
const MAX_ITEMS = 300;
/** Pages of lists searched for the name of the list shown. */
const MAX_LIST_PAGES = 5;

interface Pagination {
  limit: number;
  offset: number;
  total: number;
  has_more: boolean;
}
interface ClientRow {
  client_id: string;
  name: string;
}
interface ListRow {
  list_id: string;
  client_id: string;
  name: string;
  opportunity_type: string | null;
  item_count: number;
  status_breakdown: Record<Status, number>;
  updated_at: string;
}
interface ItemRow {
  item_id: string;
  url: string;
  domain: string;
  target_name: string | null;
  opportunity_type: string | null;
  status: Status;
  notes: string | null;
  contact_path: string | null;
  updated_at: string;
}
type Page<T> = { data: T[]; pagination: Pagination };

const label = (status: string) => status.replace(/_/g, ' ');

const listHref = (clientId: string, listId: string) =>
  `/console/prospects/${encodeURIComponent(listId)}?client_id=${encodeURIComponent(clientId)}`;

/** Only http(s) URLs become links (saved URLs are always http(s); this keeps it so whatever is stored). */
const linkable = (url: string) => /^https?:\/\//i.test(url);

/** A non-negative integer from a query parameter, or 0. */
const offsetOf = (raw: string | undefined) => {
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

export function prospectPages(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console/prospects', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const offset = offsetOf(c.req.query('offset'));
    let clients: Page<ClientRow>;
    const lists = new Map<string, Page<ListRow>>();
    try {
      clients = (await kit.run(s, 'list_clients', { limit: CLIENTS_PER_PAGE, offset })) as Page<ClientRow>;
      for (const client of clients.data) {
        const page = await kit.run(s, 'list_prospect_lists', { client_id: client.client_id, limit: 100 });
        lists.set(client.client_id, page as Page<ListRow>);
      }
    } catch (err) {
      return kit.failure(c, err, s);
    }

    const sections = clients.data.map((client) => {
      const page = lists.get(client.client_id)!;
      const rows = page.data.map(
        (l) =>
          html`<tr>
            <th scope="row"><a href="${listHref(client.client_id, l.list_id)}">${l.name}</a></th>
            <td>${l.opportunity_type ?? '–'}</td>
            <td>${l.item_count}</td>
            ${STATUSES.map((st) => html`<td>${l.status_breakdown[st]}</td>`)}
            <td>${l.updated_at}</td>
          </tr>`,
      );
      return html`<section>
        <h2>${client.name}</h2>
        ${
          page.data.length === 0
            ? html`<p class="muted">No prospect lists.</p>`
            : html`<table>
                <thead>
                  <tr>
                    <th scope="col">list</th>
                    <th scope="col">type</th>
                    <th scope="col">items</th>
                    ${STATUSES.map((st) => html`<th scope="col">${label(st)}</th>`)}
                    <th scope="col">updated</th>
                  </tr>
                </thead>
                <tbody>
                  ${rows}
                </tbody>
              </table>`
        }
        ${
          page.pagination.has_more
            ? html`<p class="muted">
                The ${page.data.length} most recently updated of ${page.pagination.total} lists.
              </p>`
            : ''
        }
      </section>`;
    });

    const { total } = clients.pagination;
    const nav = html`<p>
      ${
        offset > 0
          ? html`<a href="/console/prospects?offset=${Math.max(0, offset - CLIENTS_PER_PAGE)}">Previous clients</a>`
          : ''
      }
      ${
        clients.pagination.has_more
          ? html`<a href="/console/prospects?offset=${offset + CLIENTS_PER_PAGE}">Next clients</a>`
          : ''
      }
    </p>`;
    return kit.render(
      c,
      'Prospect lists',
      html`<h1>Prospect lists</h1>
        ${
          total === 0
            ? html`<p class="muted">No clients yet.</p>`
            : html`<p class="muted">
                Clients ${offset + 1}–${offset + clients.data.length} of ${total}, with their outreach lists.
              </p>`
        }
        ${sections} ${nav}`,
      s,
    );
  });

  app.get('/console/prospects/:list_id', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const listId = c.req.param('list_id');
    const clientId = c.req.query('client_id');
    const items: ItemRow[] = [];
    let total = 0;
    let list: ListRow | undefined;
    try {
      // The items first: a list of another client or organisation is a 404 here.
      for (let offset = 0; offset < MAX_ITEMS; offset += 100) {
        const page = (await kit.run(s, 'list_prospects', {
          client_id: clientId,
          list_id: listId,
          limit: 100,
          offset,
        })) as Page<ItemRow>;
        items.push(...page.data);
        total = page.pagination.total;
        if (!page.pagination.has_more) break;
      }
      for (let offset = 0, n = 0; !list && n < MAX_LIST_PAGES; offset += 100, n++) {
        const page = (await kit.run(s, 'list_prospect_lists', {
          client_id: clientId,
          limit: 100,
          offset,
        })) as Page<ListRow>;
        list = page.data.find((l) => l.list_id === listId);
        if (!page.pagination.has_more) break;
      }
    } catch (err) {
      return kit.failure(c, err, s);
    }

    const byStatus = new Map<Status, ItemRow[]>(STATUSES.map((st) => [st, []]));
    for (const item of items) byStatus.get(item.status)?.push(item);
    const sections = STATUSES.map((st) => {
      const group = byStatus.get(st)!;
      return html`<section aria-labelledby="status-${st}">
        <h2 id="status-${st}">${label(st)} <span class="muted">(${group.length})</span></h2>
        ${
          group.length === 0
            ? html`<p class="muted">None.</p>`
            : group.map((item) => itemBlock(s, clientId!, listId, item))
        }
      </section>`;
    });
    const title = list?.name ?? 'Prospect list';
    return kit.render(
      c,
      title,
      html`<p><a href="/console/prospects">All prospect lists</a></p>
        <h1>${title}</h1>
        <p class="muted">
          ${list?.opportunity_type ? html`${list.opportunity_type} · ` : ''}${total}
          items${items.length < total ? html`, the ${items.length} newest shown` : ''}.
        </p>
        ${sections}`,
      s,
    );
  });

  app.post('/console/prospects/:list_id/items/:item_id', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    const listId = c.req.param('list_id');
    const itemId = c.req.param('item_id');
    const clientId = form.client_id ?? c.req.query('client_id');
    const input: Record<string, unknown> = { client_id: clientId, list_id: listId, item_id: itemId };
    if (form.status !== undefined) input.status = form.status;
    if (form.notes !== undefined) {
      // Browsers send a textarea's line breaks as CRLF; an empty (or blank) textarea clears the notes.
      const notes = form.notes.replace(/\r\n?/g, '\n');
      input.notes = notes.trim() === '' ? null : notes;
    }
    try {
      await kit.run(s, 'update_prospect', input, form.idempotency_key || undefined);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    // The ids were validated by the operation; encoded all the same.
    return c.redirect(`${listHref(clientId!, listId)}#item-${encodeURIComponent(itemId)}`, 303);
  });
}

/** One item: its link, what is known of it, and the form that sets its status and notes. */
function itemBlock(s: ConsoleSession, clientId: string, listId: string, item: ItemRow): Html {
  const id = item.item_id;
  const title = item.target_name ?? item.domain;
  const action = `/console/prospects/${encodeURIComponent(listId)}/items/${encodeURIComponent(id)}`;
  return html`<article id="item-${id}">
    <h3>${title}</h3>
    <p>
      ${linkable(item.url) ? html`<a href="${item.url}" rel="noopener noreferrer nofollow">${item.url}</a>` : item.url}
    </p>
    <p class="muted">
      ${item.opportunity_type ?? 'no type'}${item.contact_path ? html` · contact: ${item.contact_path}` : ''} · updated
      ${item.updated_at}
    </p>
    <form method="post" action="${action}">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="client_id" value="${clientId}" />
      <input type="hidden" name="idempotency_key" value="${randomUUID()}" />
      <label for="status-${id}">Status</label>
      <select id="status-${id}" name="status">
        ${STATUSES.map(
          (st) => html`<option value="${st}" ${st === item.status ? 'selected' : ''}>${label(st)}</option>`,
        )}
      </select>
      <label for="notes-${id}">Notes</label>
      <textarea id="notes-${id}" name="notes" rows="3" cols="60" maxlength="10000">${item.notes ?? ''}</textarea>
      <button type="submit">Save</button>
    </form>
  </article>`;
}
