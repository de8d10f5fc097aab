import { describe, expect, it } from 'vitest';
import { DOMParser } from 'linkedom';
import { SERIES_COLOURS, svgMarkup, trendChart, type SvgNode, type TrendChartInput } from '../../src/charts/trend.ts';

/**
 * The trend chart both the console and the MCP Apps view draw (src/charts/trend.ts): the same series give the same
 * tree and the same markup; a day without a value breaks the line (a new `M`), never a point at zero; every string
 * (title, labels, dates) is text, escaped in the markup, and the markup parses back to the very tree it was made of.
 */

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(2)>&amp;'`;
const DATES = ['2026-11-10', '2026-11-11', '2026-11-12', '2026-11-13'];

const input = (over: Partial<TrendChartInput> = {}): TrendChartInput => ({
  titleId: 'trend-title',
  title: 'SPI per platform',
  dates: DATES,
  series: [{ name: 'organic', values: [40, 50, null, 60] }],
  ...over,
});

/** Every element of the tree with the given tag, depth first. */
function all(node: SvgNode, tag: string): SvgNode[] {
  const kids = node.children.filter((c): c is SvgNode => typeof c !== 'string');
  return [...(node.tag === tag ? [node] : []), ...kids.flatMap((c) => all(c, tag))];
}
const text = (node: SvgNode): string => node.children.map((c) => (typeof c === 'string' ? c : text(c))).join('');
const paths = (tree: SvgNode) => all(tree, 'path').map((p) => p.attrs.d!);

/** An element of a parsed document as a tree (the shape of SvgNode). */
interface Parsed {
  tagName: string;
  attributes: ArrayLike<{ name: string; value: string }>;
  childNodes: ArrayLike<{ nodeType: number; textContent: string | null }>;
}
function treeOf(el: Parsed): SvgNode {
  return {
    tag: el.tagName,
    attrs: Object.fromEntries(Array.from(el.attributes, (a) => [a.name, a.value])),
    // The parser may split a text at its entities: adjacent texts are joined.
    children: Array.from(el.childNodes, (c) => (c.nodeType === 3 ? (c.textContent ?? '') : treeOf(c as never))).reduce<
      SvgNode['children']
    >((out, c) => {
      const last = out.at(-1);
      if (typeof c === 'string' && typeof last === 'string') out[out.length - 1] = last + c;
      else out.push(c);
      return out;
    }, []),
  };
}
const parse = (markup: string) =>
  treeOf(new DOMParser().parseFromString(markup, 'image/svg+xml').documentElement as unknown as Parsed);

describe('trend chart', () => {
  it('the same series give the same tree and the same markup', () => {
    const a = trendChart(input());
    const b = trendChart(input({ series: [{ name: 'organic', values: [40, 50, undefined, 60] }] }));
    expect(b).toEqual(a);
    expect(svgMarkup(b)).toBe(svgMarkup(a));
    expect(a.tag).toBe('svg');
    expect(a.attrs).toMatchObject({ role: 'img', 'aria-labelledby': 'trend-title' });
    const title = all(a, 'title')[0]!;
    expect(title.attrs.id).toBe('trend-title');
    expect(text(title)).toBe('SPI per platform');
  });

  it('a day without a value breaks the line; no point is drawn at zero', () => {
    const tree = trendChart(input());
    const [d] = paths(tree);
    // Nov 10-11 joined, Nov 12 missing, Nov 13 a run of its own.
    expect(d!.match(/M/g)).toHaveLength(2);
    expect(d!.match(/[ML]/g)).toHaveLength(3);
    const zero = Number(all(tree, 'line').find((l) => l.attrs.class === 'axis')!.attrs.y1);
    const ys = [...d!.matchAll(/[ML]\s*[\d.]+[\s,]+([\d.]+)/g)].map((m) => Number(m[1]));
    expect(ys).toHaveLength(3);
    for (const y of ys) expect(y).toBeLessThan(zero);
    // A point (with its tooltip) per day with a value, none for the gap.
    const circles = all(tree, 'circle');
    expect(circles.map((c) => text(c))).toEqual([
      'organic 2026-11-10: 40',
      'organic 2026-11-11: 50',
      'organic 2026-11-13: 60',
    ]);
  });

  it('NaN, Infinity, null and undefined are gaps; a series without a value draws no line', () => {
    const tree = trendChart(
      input({
        series: [
          { name: 'organic', values: [NaN, 10, Infinity, 20] },
          { name: 'chatgpt', values: [null, undefined] },
        ],
      }),
    );
    expect(paths(tree)).toHaveLength(1);
    expect(paths(tree)[0]!.match(/M/g)).toHaveLength(2);
    expect(all(tree, 'circle')).toHaveLength(2);
    // Both are in the legend all the same.
    expect(
      all(tree, 'text')
        .filter((t) => t.attrs.class === 'legend')
        .map(text),
    ).toEqual(['organic', 'chatgpt']);
  });

  it('values are clamped to 0-100, a single day sits mid-chart, no series draws no line', () => {
    const tree = trendChart(input({ series: [{ name: 'organic', values: [-5, 150, 0, 100] }] }));
    const ys = all(tree, 'circle').map((c) => Number(c.attrs.cy));
    const axis = all(tree, 'line').filter((l) => l.attrs.class === 'axis');
    const [bottom, top] = [Number(axis[1]!.attrs.y2), Number(axis[1]!.attrs.y1)];
    expect(ys).toEqual([bottom, top, bottom, top]);

    const one = trendChart(input({ dates: ['2026-11-10'], series: [{ name: 'organic', values: [30] }] }));
    expect(Number(all(one, 'circle')[0]!.attrs.cx)).toBe(372);
    const none = trendChart(input({ series: [] }));
    expect(paths(none)).toEqual([]);
    expect(all(none, 'circle')).toEqual([]);
  });

  it('dates along the bottom: the first, every step, the last unless it crowds the one before', () => {
    const dates = Array.from({ length: 90 }, (_, i) => new Date(Date.UTC(2026, 7, 16 + i)).toISOString().slice(0, 10));
    const tree = trendChart(input({ dates, series: [] }));
    const labels = all(tree, 'text')
      .filter((t) => t.attrs.class === 'date')
      .map(text);
    expect(labels).toEqual(['08-16', '08-31', '09-15', '09-30', '10-15', '10-30', '11-13']);
  });

  it('a platform has one colour wherever it is drawn; the overall line is the text colour; other names get one each', () => {
    const tree = trendChart(
      input({
        series: [
          { name: 'overall', label: 'SPI', values: [1, 2, 3, 4], width: 3 },
          { name: 'chatgpt', values: [1, 2, 3, 4] },
          { name: 'somewhere', values: [1, 2, 3, 4] },
        ],
      }),
    );
    const strokes = all(tree, 'path').map((p) => [p.attrs.class, p.attrs.stroke, p.attrs['stroke-width']]);
    expect(strokes).toEqual([
      ['series series-overall', 'currentColor', '3'],
      ['series series-chatgpt', SERIES_COLOURS.chatgpt, '2'],
      ['series series-somewhere', expect.stringMatching(/^#[0-9a-f]{6}$/), '2'],
    ]);
    expect(
      all(tree, 'text')
        .filter((t) => t.attrs.class === 'legend')
        .map(text),
    ).toEqual(['SPI', 'chatgpt', 'somewhere']);
  });

  it('hostile titles, names and dates are text: escaped in the markup, which parses back to the same tree', () => {
    const tree = trendChart(
      input({
        titleId: 'x" onload="alert(3)',
        title: `SPI of ${HOSTILE}`,
        dates: ['2026-11-10', `2026-11-11${HOSTILE}`],
        series: [{ name: HOSTILE, label: `label ${HOSTILE}`, values: [10, 20] }],
      }),
    );
    const markup = svgMarkup(tree);
    expect(markup).not.toMatch(/<script|<img/i);
    expect(markup).toContain(
      `<title id="x&quot; onload=&quot;alert(3)">SPI of "&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;'</title>`,
    );
    expect(markup).toContain('aria-labelledby="x&quot; onload=&quot;alert(3)"');
    // The class is the name made a class name; the name itself is only ever text.
    expect(all(tree, 'path')[0]!.attrs.class).toMatch(/^series series-[A-Za-z0-9_-]+$/);
    // No attribute, element or text more or less than the tree's: the handlers stayed inside values and text.
    const parsed = parse(markup);
    expect(parsed).toEqual(tree);
    expect(all(parsed, 'script')).toEqual([]);
    expect(all(parsed, 'img')).toEqual([]);
    expect(text(all(parsed, 'title')[0]!)).toBe(`SPI of ${HOSTILE}`);
    // The legend has the label's start, the points' tooltips all of it.
    const legend = all(parsed, 'text').filter((t) => t.attrs.class === 'legend');
    expect(legend.map(text)).toEqual([`label ${HOSTILE}`.slice(0, 21) + '…']);
    expect(text(all(parsed, 'circle')[0]!)).toBe(`label ${HOSTILE} 2026-11-10: 10`);
  });

  it('svgMarkup refuses handlers and names that are not names', () => {
    const node = (tag: string, attrs: Record<string, string>): SvgNode => ({ tag, attrs, children: [] });
    expect(() => svgMarkup(node('g', { onclick: 'alert(1)' }))).toThrow(/refused attribute/);
    expect(() => svgMarkup(node('g', { 'x"y': '1' }))).toThrow(/refused attribute/);
    expect(() => svgMarkup(node('g><script', {}))).toThrow(/not a tag name/);
    expect(svgMarkup(node('g', { class: `a"b'c<d>&` }))).toBe(`<g class="a&quot;b&#39;c&lt;d&gt;&amp;" />`);
  });
});
