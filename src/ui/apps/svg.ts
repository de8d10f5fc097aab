/**
 * SVG elements from a chart's tree (src/charts/trend.ts): the same drawing the console writes as markup, built here
 * as elements, every string a text node and attribute values set as values (never parsed as markup), no `on*`.
 */
import { SVG_NS, type SvgNode } from '../../charts/trend.ts';

export function svgElement(node: SvgNode): SVGElement {
  const el = document.createElementNS(SVG_NS, node.tag) as SVGElement;
  for (const [k, v] of Object.entries(node.attrs)) if (k !== 'xmlns' && !/^on/i.test(k)) el.setAttribute(k, v);
  for (const c of node.children) el.append(typeof c === 'string' ? document.createTextNode(c) : svgElement(c));
  return el;
}
