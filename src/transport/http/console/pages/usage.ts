/** The usage page: both pooled windows with charged and reserved units, their limits and when room frees up. */
import type { Hono } from 'hono';
import { html } from 'hono/html';
import { getUsage } from '../../../../tools/usage/get-usage.ts';
import type { HttpEnv } from '../../guards.ts';
import { columns } from '../layout.ts';
import type { ConsoleKit, OperationResult } from '../kit.ts';

export function usagePages(app: Hono<HttpEnv>, kit: ConsoleKit): void {
  app.get('/console', async (c) => {
    const s = await kit.session(c);
    if (!s) return c.redirect('/console/sign-in', 303);
    let usage: OperationResult<typeof getUsage>;
    try {
      usage = await kit.run(s, getUsage, {});
    } catch (err) {
      return kit.failure(c, err, s);
    }
    const rows = Object.entries(usage.windows).map(
      ([name, w]) =>
        html`<tr>
          <th scope="row">${name}</th>
          <td>${w.used}</td>
          <td>${w.reserved}</td>
          <td>${w.limit}</td>
          <td>
            <meter min="0" max="100" value="${w.remaining_percent}">${w.remaining_percent}%</meter>
            ${w.remaining_percent}%
          </td>
          <td>${w.recovers_at ?? '–'}</td>
        </tr>`,
    );
    return kit.render(
      c,
      'Usage',
      html`<h1>Usage</h1>
        <p>Plan <strong>${usage.plan}</strong>, ${usage.rate_limit_per_minute} requests a minute per key.</p>
        <table>
          <caption class="muted">
            Units in each pooled window
          </caption>
          ${columns('window', 'charged', 'reserved', 'limit', 'free', 'room again at')}
          <tbody>
            ${rows}
          </tbody>
        </table>`,
      s,
    );
  });
}
