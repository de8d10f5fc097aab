/**
 * The Optimize report view (MCP Apps), linked from get_optimization and score_content: the score, the category
 * bars, the recommendations by points, the term table with competitor ranges, the competitors and the pages left out.
 */
import { h, list, num, obj, str } from './dom.ts';

function bar(label: string, percent: number): HTMLElement {
  const p = Math.max(0, Math.min(100, percent));
  return h(
    'div',
    { class: 'bar' },
    h('span', { class: 'bar-label' }, label),
    h(
      'span',
      {
        class: 'bar-track',
        role: 'meter',
        'aria-valuenow': String(p),
        'aria-valuemin': '0',
        'aria-valuemax': '100',
        'aria-label': label,
      },
      h('span', { class: 'bar-fill', style: `width:${p}%` }),
    ),
    h('span', { class: 'bar-value' }, `${num(p, 0)}%`),
  );
}

function table(head: string[], rows: (string | number)[][]): HTMLElement {
  return h(
    'table',
    {},
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
}

/** A result from get_optimization (view full) or score_content: both carry the scored result. */
export function renderReport(body: Record<string, unknown>): Node {
  const result = obj(body.result ?? body);
  const title = str(body.keyword) || 'Optimize report';
  if (typeof result.rankabilityScore !== 'number')
    return h(
      'section',
      {},
      h('h1', {}, title),
      h(
        'p',
        {},
        `Status: ${str(body.status) || 'not scored yet'}. The report appears once the optimization is complete.`,
      ),
    );
  return h(
    'section',
    {},
    h('h1', {}, title),
    str(body.url) ? h('p', { class: 'muted' }, str(body.url)) : null,
    h('p', { class: 'score' }, h('strong', {}, num(result.rankabilityScore)), ' / 100'),
    h('h2', {}, 'Categories'),
    ...Object.entries(obj(result.categoryScores)).flatMap(([k, v]) => (typeof v === 'number' ? [bar(k, v)] : [])),
    h('h2', {}, 'Recommendations'),
    h(
      'ol',
      {},
      ...list(result.recommendations).map((r) =>
        h(
          'li',
          {},
          h('span', { class: `tag ${str(r.priority)}` }, str(r.priority)),
          ` +${num(r.points)} `,
          str(r.recommendation),
        ),
      ),
    ),
    h('h2', {}, 'Terms'),
    table(
      ['term', 'status', 'on the page', 'competitors p25–p75'],
      list(result.entities).map((e) => {
        const range = obj(e.competitorRange);
        return [str(e.term), str(e.status), num(e.sourceUses, 0), `${num(range.p25)}–${num(range.p75)}`];
      }),
    ),
    h('h2', {}, 'Competitors'),
    table(
      ['position', 'page', 'words', 'score'],
      list(result.competitors).map((c) => [
        num(c.position, 0),
        `${str(c.title)} (${str(c.url)})`,
        num(c.wordCount, 0),
        num(c.score),
      ]),
    ),
    list(result.excluded_competitors).length
      ? h(
          'details',
          {},
          h('summary', {}, 'Ranking pages left out'),
          h(
            'ul',
            {},
            ...list(result.excluded_competitors).map((x) =>
              h('li', {}, `${str(x.url)}: ${str(x.reason)} (${str(x.detail)})`),
            ),
          ),
        )
      : null,
  );
}
