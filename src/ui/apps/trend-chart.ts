/**
 * The visibility trend view (MCP Apps), linked from get_tracker_trends: SPI per day as a line chart (uPlot), one
 * line overall and one per platform. A day without a successful run is a gap in the line, never a zero.
 */
import uPlot from 'uplot';
import { h, list, num, str } from './dom.ts';

export function renderTrends(body: Record<string, unknown>): Node {
  const points = list(body.points);
  const days = points.map((p) => Date.parse(`${str(p.date)}T00:00:00Z`) / 1000);
  const platforms = Array.isArray(body.platforms_expected) ? (body.platforms_expected as string[]) : [];
  const series: (number | null)[][] = [
    points.map((p) => (typeof p.spi === 'number' ? p.spi : null)),
    ...platforms.map((name) =>
      points.map((p) => {
        const v = (p.platforms as Record<string, unknown> | undefined)?.[name];
        return typeof v === 'number' ? v : null;
      }),
    ),
  ];
  const measured = series[0]!.filter((v) => v !== null).length;
  const chart = h('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `SPI over ${points.length} days, ${measured} measured`,
  });
  const section = h(
    'section',
    {},
    h('h1', {}, 'Visibility trend'),
    h(
      'p',
      { class: 'muted' },
      `${str(body.from)} to ${str(body.to)} (UTC): ${measured} of ${points.length} days measured; gaps are days without a successful run.`,
    ),
    chart,
    h('p', {}, `Latest SPI: ${num([...series[0]!].reverse().find((v) => v !== null))}`),
  );
  const colors = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bf3989'];
  // uPlot draws into the element once it is in the document.
  queueMicrotask(() => {
    new uPlot(
      {
        width: Math.max(320, chart.clientWidth || 640),
        height: 260,
        scales: { y: { range: [0, 100] } },
        series: [
          {},
          { label: 'SPI', stroke: colors[0], width: 2, spanGaps: false },
          ...platforms.map((name, i) => ({
            label: name,
            stroke: colors[(i + 1) % colors.length],
            width: 1,
            spanGaps: false,
          })),
        ],
      },
      [days, ...series] as uPlot.AlignedData,
      chart,
    );
  });
  return section;
}
