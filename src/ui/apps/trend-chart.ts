/**
 * The visibility trend view (MCP Apps), linked from get_tracker_trends: SPI per day as a line chart, one line overall
 * and one per platform, drawn by the chart module the console's project page uses too (src/charts/trend.ts, SVG). A
 * day without a successful run is a gap in the line, never a zero; each point's tooltip gives its date and value.
 */
import { trendChart } from '../../charts/trend.ts';
import { h, list, num, obj, str } from './dom.ts';
import { svgElement } from './svg.ts';
import type { ViewBody } from './outputs.ts';
import { defineView } from './view.ts';

export function renderTrends(body: ViewBody<'get_tracker_trends'>): Node {
  const points = list(body.points);
  const platforms = Array.isArray(body.platforms_expected)
    ? body.platforms_expected.filter((p): p is string => typeof p === 'string')
    : [];
  const overall = points.map((p) => (typeof p.spi === 'number' ? p.spi : null));
  const measured = overall.filter((v) => v !== null).length;
  const chart = trendChart({
    titleId: 'trend-title',
    title: `SPI over ${points.length} days, ${measured} measured: overall and per platform; days without data are gaps in the lines`,
    dates: points.map((p) => str(p.date)),
    series: [
      { name: 'overall', label: 'SPI', values: overall, width: 3 },
      ...platforms.map((name) => ({
        name,
        values: points.map((p) => {
          // Read by any name platforms_expected gives, not only the platforms the schema knows.
          const measured: Readonly<Record<string, unknown>> = obj(p.platforms);
          const v = measured[name];
          return typeof v === 'number' ? v : null;
        }),
      })),
    ],
  });
  return h(
    'section',
    {},
    h('h1', {}, 'Visibility trend'),
    h(
      'p',
      { class: 'muted' },
      `${str(body.from)} to ${str(body.to)} (UTC): ${measured} of ${points.length} days measured; gaps are days without a successful run.`,
    ),
    h('div', { class: 'chart' }, svgElement(chart)),
    h('p', {}, `Latest SPI: ${num([...overall].reverse().find((v) => v !== null))}`),
  );
}

export const view = defineView(['get_tracker_trends'], renderTrends);
