/**
 * The prospect pages: the organisation's outreach lists by client, and a list's items grouped by status (in the
 * schema's order) with a form per item that sets its status and notes through update_prospect.
 *
 * Lists belong to a client, and every prospect operation takes the client id, so a list's page and its forms carry
 * `client_id` (a query parameter, a hidden field); a list of another client or organisation is a 404 like REST.
 *
 * The actions: a "New list" form per client on the index (create_prospect_list), an "Add a prospect" form on a list's
 * page (save_prospect) and a "Delete" button per item (delete_prospect, which identifies the item by its exact saved
 * URL, as REST's DELETE of a list's items does). Every form carries the CSRF token and an idempotency key made when
 * the page is rendered, so a double submit acts once; each action answers 303 back to the page it belongs to.
 */
import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import { html } from 'hono/html';
import { OPPORTUNITY_TYPES, PROSPECT_STATUSES, type ProspectStatus } from '../../../../engine/prospects/contract.ts';
import { MAX_PROSPECT_URL_LENGTH } from '../../../../engine/prospects/normalize-url.ts';
import { listClients } from '../../../../tools/clients/list-clients.ts';
import { createProspectList } from '../../../../tools/prospects/create-prospect-list.ts';
import { deleteProspect } from '../../../../tools/prospects/delete-prospect.ts';
import { listProspectLists } from '../../../../tools/prospects/list-prospect-lists.ts';
import { listProspects } from '../../../../tools/prospects/list-prospects.ts';
import { saveProspect } from '../../../../tools/prospects/save-prospect.ts';
import { updateProspect } from '../../../../tools/prospects/update-prospect.ts';
import type { HttpEnv } from '../../guards.ts';
import type { ConsoleKit, ConsoleSession, OperationResult } from '../kit.ts';
import type { Html } from '../layout.ts';

const STATUSES = PROSPECT_STATUSES;

/** Clients per index page: each costs one list_prospect_lists call against the key's rate limit. */
const CLIENTS_PER_PAGE = 10;
/** Items a list's page shows at most (pages of 100). */
const MAX_ITEMS = 300;
/** Pages of lists searched for the name of the list shown. */
const MAX_LIST_PAGES = 5;

type ClientRow = OperationResult<typeof listClients>['data'][number];
type ListPage = OperationResult<typeof listProspectLists>;
type ListRow = ListPage['data'][number];
type ItemRow = OperationResult<typeof listProspects>['data'][number];

const label = (status: string) => status.replace(/_/g, ' ');

const listHref = (clientId: string, listId: string) =>
  `/console/prospects/${encodeURIComponent(listId)}?client_id=${encodeURIComponent(clientId)}`;

/** Browsers send a textarea's line breaks as CRLF, which nobody typed. */
const lf = (text: string) => text.replace(/\r\n?/g, '\n');

/** A form field, trimmed, when filled in (optional fields are sent only then, so the operation's defaults apply). */
const filled = (value: string | undefined) => {
  const v = value?.trim();
  return v ? v : undefined;
};

/** Only http(s) URLs become links (saved URLs are always http(s); this keeps it so whatever is stored). */
const linkable = (url: string) => /^https?:\/\//i.test(url);

/** A non-negative integer from a query parameter, or 0. */
const offsetOf = (raw: string | undefined) => {
  const n = Number(raw);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

/** GET /console/prospects: each client of the page with its prospect lists and a form for a new one. */
function listsRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console/prospects', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const offset = offsetOf(c.req.query('offset'));
    let clients: OperationResult<typeof listClients>;
    const lists = new Map<string, ListPage>();
    try {
      clients = await kit.run(s, listClients, { limit: CLIENTS_PER_PAGE, offset });
      for (const client of clients.data) {
        const page = await kit.run(s, listProspectLists, { client_id: client.client_id, limit: 100 });
        lists.set(client.client_id, page);
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
        ${newListForm(s, client)}
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
}

/** GET /console/prospects/:list_id: a list's items grouped by status, with the form that adds one. */
function listRoute(app: Hono<HttpEnv>, kit: ConsoleKit): void {
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
        const page = await kit.run(s, listProspects, { client_id: clientId, list_id: listId, limit: 100, offset });
        items.push(...page.data);
        total = page.pagination.total;
        if (!page.pagination.has_more) break;
      }
      for (let offset = 0, n = 0; !list && n < MAX_LIST_PAGES; offset += 100, n++) {
        const page = await kit.run(s, listProspectLists, { client_id: clientId, limit: 100, offset });
        list = page.data.find((l) => l.list_id === listId);
        if (!page.pagination.has_more) break;
      }
    } catch (err) {
      return kit.failure(c, err, s);
    }

    const byStatus = new Map<ProspectStatus, ItemRow[]>(STATUSES.map((st) => [st, []]));
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
        ${addProspectForm(s, clientId!, listId)} ${sections}`,
      s,
    );
  });
}

/** The console's writes: a new list, a saved item, a deleted item, an item's status and notes. */
function writeRoutes(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.post('/console/prospects', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    const input: Record<string, unknown> = { client_id: form.client_id ?? '', name: form.name ?? '' };
    const type = filled(form.opportunity_type);
    if (type) input.opportunity_type = type;
    let list: OperationResult<typeof createProspectList>;
    try {
      list = await kit.run(s, createProspectList, input, form.idempotency_key || undefined);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    return c.redirect(listHref(list.client_id, list.list_id), 303);
  });

  app.post('/console/prospects/:list_id/items', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    const listId = c.req.param('list_id');
    const clientId = form.client_id ?? '';
    const input: Record<string, unknown> = { client_id: clientId, list_id: listId, url: form.url ?? '' };
    const targetName = filled(form.target_name);
    if (targetName) input.target_name = targetName;
    const status = filled(form.status);
    if (status) input.status = status;
    const notes = lf(form.notes ?? '');
    if (notes.trim() !== '') input.notes = notes;
    const contactPath = filled(form.contact_path);
    if (contactPath) input.contact_path = contactPath;
    let item: OperationResult<typeof saveProspect>;
    try {
      item = await kit.run(s, saveProspect, input, form.idempotency_key || undefined);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    // A URL already in the list (a canonical variant) answers that item: the page shows it, unchanged.
    return c.redirect(`${listHref(clientId, listId)}#item-${encodeURIComponent(item.item_id)}`, 303);
  });

  // Registered before the item route: "delete" is never an item id (a UUID), but the order makes it certain.
  app.post('/console/prospects/:list_id/items/delete', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    const form = await kit.form(c, s);
    if (!form) return kit.refused(c, s);
    const listId = c.req.param('list_id');
    const clientId = form.client_id ?? '';
    try {
      // The URL as the page wrote it: delete_prospect wants the exact saved URL (no trimming).
      await kit.run(
        s,
        deleteProspect,
        { client_id: clientId, list_id: listId, url: form.url ?? '' },
        form.idempotency_key || undefined,
      );
    } catch (err) {
      return kit.failure(c, err, s);
    }
    return c.redirect(listHref(clientId, listId), 303);
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
      await kit.run(s, updateProspect, input, form.idempotency_key || undefined);
    } catch (err) {
      return kit.failure(c, err, s);
    }
    // The ids were validated by the operation; encoded all the same.
    return c.redirect(`${listHref(clientId!, listId)}#item-${encodeURIComponent(itemId)}`, 303);
  });
}

export function prospectPages(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  listsRoute(app, kit);
  listRoute(app, kit);
  writeRoutes(app, kit);
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
    <form method="post" action="/console/prospects/${encodeURIComponent(listId)}/items/delete">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="client_id" value="${clientId}" />
      <input type="hidden" name="url" value="${item.url}" />
      <input type="hidden" name="idempotency_key" value="${randomUUID()}" />
      <button type="submit" aria-label="Delete ${title}">Delete</button>
    </form>
  </article>`;
}

const options = (values: readonly string[], selected: string | undefined) =>
  values.map((v) => html`<option value="${v}" ${v === selected ? 'selected' : ''}>${label(v)}</option>`);

/** A client's "New list" form on the index, with the CSRF token and its own idempotency key. */
function newListForm(s: ConsoleSession, client: ClientRow): Html {
  const id = (field: string) => `new-list-${client.client_id}-${field}`;
  return html`<details>
    <summary>New list for ${client.name}</summary>
    <form method="post" action="/console/prospects" autocomplete="off">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="client_id" value="${client.client_id}" />
      <input type="hidden" name="idempotency_key" value="${randomUUID()}" />
      <label for="${id('name')}">List name</label>
      <input id="${id('name')}" name="name" type="text" maxlength="200" required />
      <label for="${id('type')}">Opportunity type <span class="muted">(optional, new items' default)</span></label>
      <select id="${id('type')}" name="opportunity_type">
        <option value="" selected>none</option>
        ${options(OPPORTUNITY_TYPES, undefined)}
      </select>
      <button type="submit">Create the list</button>
    </form>
  </details>`;
}

/** The list's "Add a prospect" form (save_prospect), with the CSRF token and its own idempotency key. */
function addProspectForm(s: ConsoleSession, clientId: string, listId: string): Html {
  return html`<section aria-labelledby="add-prospect">
    <h2 id="add-prospect">Add a prospect</h2>
    <form method="post" action="/console/prospects/${encodeURIComponent(listId)}/items" autocomplete="off">
      <input type="hidden" name="csrf" value="${s.csrf}" />
      <input type="hidden" name="client_id" value="${clientId}" />
      <input type="hidden" name="idempotency_key" value="${randomUUID()}" />
      <label for="add-url">URL <span class="muted">(a public http(s) page)</span></label>
      <input id="add-url" name="url" type="url" maxlength="${MAX_PROSPECT_URL_LENGTH}" required />
      <label for="add-target-name"
        >Target name <span class="muted">(optional: site, publication or person)</span></label
      >
      <input id="add-target-name" name="target_name" type="text" maxlength="200" />
      <label for="add-status">Status</label>
      <select id="add-status" name="status">
        ${options(STATUSES, 'identified')}
      </select>
      <label for="add-notes">Notes <span class="muted">(optional)</span></label>
      <textarea id="add-notes" name="notes" rows="3" cols="60" maxlength="10000"></textarea>
      <label for="add-contact-path">Contact path <span class="muted">(optional, e.g. a contact page URL)</span></label>
      <input id="add-contact-path" name="contact_path" type="text" maxlength="500" />
      <button type="submit">Add</button>
    </form>
  </section>`;
}
