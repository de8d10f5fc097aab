/**
 * The Optimize report view (MCP Apps), linked from get_optimization and score_content: the score, the category
 * bars, the recommendations by points, the term table with competitor ranges, the competitors and the pages left out.
 */
import { h, list, num, obj, str } from './dom.ts';
import type { ViewBody } from './outputs.ts';
import { defineView } from './view.ts';

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
export function renderReport(body: ViewBody<'get_optimization' | 'score_content'>): Node {
  const result = obj(body.result ?? body);
  // The ranking pages are in get_optimization's result only (score_content's answer has none).
  const competitors = list('competitors' in result ? result.competitors : undefined);
  const excluded = list('excluded_competitors' in result ? result.excluded_competitors : undefined);
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
      competitors.map((c) => [
        num(c.position, 0),
        `${str(c.title)} (${str(c.url)})`,
        num(c.wordCount, 0),
        num(c.score),
      ]),
    ),
    excluded.length
      ? h(
          'details',
          {},
          h('summary', {}, 'Ranking pages left out'),
          h('ul', {}, ...excluded.map((x) => h('li', {}, `${str(x.url)}: ${str(x.reason)} (${str(x.detail)})`))),
        )
      : null,
  );
}

export const view = defineView(['get_optimization', 'score_content'], renderReport);
