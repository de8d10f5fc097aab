/**
 * Showing things by name (docs/console.md): people know their clients by name, not by id, so pages show a client's
 * name (from the organisation's client directory, listed once per page), filter by a `<select>` of the clients by
 * name, and keep ids to links, form values and a read-only field to copy. Names are hostile input: every one goes
 * through `hono/html`, which escapes it.
 */
import { html } from 'hono/html';
import type { z } from 'zod';
import type { ClientView } from '../../../tools/clients/schemas.ts';
import type { Html } from './layout.ts';

/** A client as list_clients answers it, as far as the pages need. */
export type ClientOption = Pick<z.output<typeof ClientView>, 'client_id' | 'name'>;

/** The organisation's clients as a page listed them (newest first, up to the kit's bound), by id. */
export interface ClientDirectory {
  clients: ClientOption[];
  /** More clients than listed: the forms offer only the newest. */
  more: boolean;
  names: ReadonlyMap<string, string>;
}

export function directoryOf(clients: ClientOption[], more: boolean): ClientDirectory {
  return { clients, more, names: new Map(clients.map((c) => [c.client_id, c.name])) };
}

/** A client by name; one beyond the listed ones (an organisation with hundreds) is said to be so, not shown by id. */
export function clientName(dir: ClientDirectory, clientId: string | null): Html {
  if (clientId === null) return html`<span class="muted">none</span>`;
  const name = dir.names.get(clientId);
  return name === undefined ? html`<span class="muted">a client not listed here</span>` : html`${name}`;
}

/** The clients as a `<select>`'s options, by name, the one given selected. */
export function clientOptions(clients: readonly ClientOption[], selected: string | undefined): Html[] {
  return clients.map((c) =>
    c.client_id === selected
      ? html`<option value="${c.client_id}" selected>${c.name}</option>`
      : html`<option value="${c.client_id}">${c.name}</option>`,
  );
}

/**
 * A filter form's client `<select>`: any client, or one of the organisation's by name. A client asked for that is
 * not among the listed ones stays selected (so the filter shown is the filter applied), under a neutral label.
 */
export function clientFilter(dir: ClientDirectory, selected: string | undefined, id = 'client_id'): Html {
  const unlisted = selected !== undefined && selected !== '' && !dir.names.has(selected);
  return html`<label for="${id}">Client</label>
    <select id="${id}" name="client_id">
      <option value="" ${selected ? '' : 'selected'}>any client</option>
      ${clientOptions(dir.clients, selected)}
      ${unlisted ? html`<option value="${selected}" selected>a client not listed here</option>` : ''}
    </select>`;
}

/**
 * An id to copy: a read-only text field the user can select (the console's CSP allows no script, so a button that
 * copies cannot work; a field's text selects with a click and Ctrl+A and copies like any other).
 */
export function copyField(label: string, id: string): Html {
  return html`<label class="copy">
    ${label}
    <input type="text" readonly value="${id}" size="36" spellcheck="false" />
  </label>`;
}
