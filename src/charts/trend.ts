/**
 * The tracker's trend chart, one drawing for both places that show it: the console's project page (server-side, as
 * SVG markup in the page; the console's CSP allows no script) and the MCP Apps trend view (in the browser, as SVG
 * elements). Daily values on a 0-100 scale, one line per series, drawn with d3 (d3-scale, d3-shape); a day without
 * a value breaks its line (a new `M`), it is never drawn as a zero.
 *
 * The chart is a plain tree of SVG elements ({@link SvgNode}) with no DOM and no Node.js in it, so both the server
 * and the view bundle import this module: {@link svgMarkup} writes the tree as markup with every text and attribute
 * escaped, and the view builds elements from the same tree, strings as text nodes. Names and dates come from tool
 * results and projects (hostile): they only ever reach the tree as strings, never as markup.
 */
import { scaleLinear } from 'd3-scale';
import { line } from 'd3-shape';

/** An SVG element: its tag, its attributes in order, and its children (strings are text). */
export interface SvgNode {
  tag: string;
  attrs: Record<string, string>;
  children: (SvgNode | string)[];
}

export interface TrendSeries {
  /** The series' name (a platform, or `overall`): its colour and its class (`series-<name>`). */
  name: string;
  /** What the legend and the points' tooltips call it; by default its name. */
  label?: string;
  /** One value per date; null, undefined or a non-finite number is a day without data. */
  values: readonly (number | null | undefined)[];
  /** The line's width (default 2). */
  width?: number;
}

export interface TrendChartInput {
  /** The id of the chart's `<title>`, which labels the chart (`aria-labelledby`). */
  titleId: string;
  /** The chart's accessible title. */
  title: string;
  /** The days, `YYYY-MM-DD`, oldest first. */
  dates: readonly string[];
  series: readonly TrendSeries[];
}

/** Line colours: mid-tones readable on the light and the dark background; overall is the text's colour. */
export const SERIES_COLOURS: Readonly<Record<string, string>> = {
  overall: 'currentColor',
  organic: '#1a7f37',
  chatgpt: '#0969da',
  perplexity: '#8250df',
  claude: '#bc4c00',
  google_ai_overview: '#bf3989',
};
/** For a series of another name, by its position. */
const MORE_COLOURS = ['#9a6700', '#d1242f', '#0550ae', '#6e7781'];

export const SVG_NS = 'http://www.w3.org/2000/svg';

const W = 720;
const LEFT = 40;
const RIGHT = 16;
const TOP = 12;
const PLOT_W = W - LEFT - RIGHT;
const PLOT_H = 208;
const BOTTOM = TOP + PLOT_H;
/** The legend: this many entries a row, this far apart. */
const LEGEND_PER_ROW = 4;
const LEGEND_STEP = 165;
const LEGEND_ROW = 18;
const LEGEND_CHARS = 22;
/** About this many dates along the x axis. */
const X_LABELS = 6;

const round = (n: number) => Number(n.toFixed(1));
const el = (tag: string, attrs: Record<string, string | number>, ...children: (SvgNode | string)[]): SvgNode => ({
  tag,
  attrs: Object.fromEntries(Object.entries(attrs).map(([k, v]) => [k, String(v)])),
  children,
});
const valueOf = (v: number | null | undefined): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/** The colour of the `index`th series named `name`. */
export function seriesColour(name: string, index: number): string {
  return Object.hasOwn(SERIES_COLOURS, name) ? SERIES_COLOURS[name]! : MORE_COLOURS[index % MORE_COLOURS.length]!;
}

/** A legend entry's text: at most LEGEND_CHARS characters, cut with an ellipsis (the points' tooltips say it all). */
const clip = (label: string) => {
  const chars = [...label];
  return chars.length > LEGEND_CHARS ? `${chars.slice(0, LEGEND_CHARS - 1).join('')}…` : label;
};

/** A series' name as a class name: what is not a letter, digit, `-` or `_` becomes `-`. */
const classOf = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, '-');

/**
 * The chart: axes, a grid at every 25, dates along the bottom, one line and its points per series (each point has a
 * tooltip: series, date and value) and a legend. The points' indices are the dates'.
 */
export function trendChart(input: TrendChartInput): SvgNode {
  const { dates, series } = input;
  const n = dates.length;
  const legendRows = Math.max(1, Math.ceil(series.length / LEGEND_PER_ROW));
  const height = BOTTOM + 30 + legendRows * LEGEND_ROW;
  const x = scaleLinear()
    .domain(n <= 1 ? [-1, 1] : [0, n - 1])
    .range([LEFT, LEFT + PLOT_W]);
  const y = scaleLinear().domain([0, 100]).range([BOTTOM, TOP]).clamp(true);
  const path = line<[number, number | undefined]>()
    .defined(([, v]) => v !== undefined)
    .x(([i]) => x(i))
    .y(([, v]) => y(v!))
    .digits(1);

  const grid = [0, 25, 50, 75, 100].flatMap((v) => [
    el('line', {
      class: 'grid',
      x1: LEFT,
      y1: round(y(v)),
      x2: W - RIGHT,
      y2: round(y(v)),
      stroke: 'currentColor',
      'stroke-opacity': 0.15,
    }),
    el(
      'text',
      { x: LEFT - 6, y: round(y(v)) + 4, 'text-anchor': 'end', 'font-size': 11, fill: 'currentColor' },
      String(v),
    ),
  ]);
  // The first date, every `step`th, and the last unless it would crowd the one before.
  const step = Math.max(1, Math.ceil(n / X_LABELS));
  const ticks = dates
    .map((date, i) => ({ date, i }))
    .filter(({ i }) => i % step === 0 || (i === n - 1 && i % step >= step / 2))
    .map(({ date, i }) =>
      el(
        'text',
        {
          class: 'date',
          x: round(x(i)),
          y: BOTTOM + 16,
          'text-anchor': 'middle',
          'font-size': 11,
          fill: 'currentColor',
        },
        date.slice(5, 10),
      ),
    );
  const lines = series.map((s, k) => {
    const colour = seriesColour(s.name, k);
    const label = s.label ?? s.name;
    const values = dates.map((_, i) => valueOf(s.values[i]));
    const d = path(values.map((v, i): [number, number | undefined] => [i, v])) ?? '';
    const points = values.flatMap((v, i) =>
      v === undefined
        ? []
        : [
            el(
              'circle',
              { cx: round(x(i)), cy: round(y(v)), r: 2.5, fill: colour },
              el('title', {}, `${label} ${dates[i] ?? ''}: ${round(v)}`),
            ),
          ],
    );
    return el(
      'g',
      {},
      ...(d
        ? [
            el('path', {
              class: `series series-${classOf(s.name)}`,
              d,
              fill: 'none',
              stroke: colour,
              'stroke-width': s.width ?? 2,
              'stroke-linejoin': 'round',
            }),
          ]
        : []),
      ...points,
    );
  });
  const legend = series.flatMap((s, k) => {
    const left = LEFT + (k % LEGEND_PER_ROW) * LEGEND_STEP;
    const top = BOTTOM + 38 + Math.floor(k / LEGEND_PER_ROW) * LEGEND_ROW;
    return [
      el('line', {
        x1: left,
        y1: top - 4,
        x2: left + 18,
        y2: top - 4,
        stroke: seriesColour(s.name, k),
        'stroke-width': 3,
      }),
      el(
        'text',
        { class: 'legend', x: left + 24, y: top, 'font-size': 12, fill: 'currentColor' },
        clip(s.label ?? s.name),
      ),
    ];
  });
  return el(
    'svg',
    {
      xmlns: SVG_NS,
      viewBox: `0 0 ${W} ${height}`,
      width: '100%',
      role: 'img',
      'aria-labelledby': input.titleId,
    },
    el('title', { id: input.titleId }, input.title),
    el('line', { class: 'axis', x1: LEFT, y1: BOTTOM, x2: W - RIGHT, y2: BOTTOM, stroke: 'currentColor' }),
    el('line', { class: 'axis', x1: LEFT, y1: TOP, x2: LEFT, y2: BOTTOM, stroke: 'currentColor' }),
    ...grid,
    ...ticks,
    ...lines,
    ...legend,
  );
}

const NAME = /^[A-Za-z][A-Za-z0-9:_-]*$/;
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * The tree as SVG markup: every text and attribute value escaped; a tag or attribute name that is not a plain name,
 * or an `on*` attribute, is refused (the tree is this module's, so that is a bug).
 */
export function svgMarkup(node: SvgNode): string {
  if (!NAME.test(node.tag)) throw new Error(`svgMarkup: not a tag name: ${JSON.stringify(node.tag)}`);
  let out = `<${node.tag}`;
  for (const [k, v] of Object.entries(node.attrs)) {
    if (!NAME.test(k) || /^on/i.test(k)) throw new Error(`svgMarkup: refused attribute ${JSON.stringify(k)}`);
    out += ` ${k}="${escapeAttr(v)}"`;
  }
  if (node.children.length === 0) return `${out} />`;
  out += '>';
  for (const c of node.children) out += typeof c === 'string' ? escapeText(c) : svgMarkup(c);
  return `${out}</${node.tag}>`;
}
