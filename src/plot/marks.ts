/**
 * Marks drawn in a plot's pixel space: lines, bands around them, dots, bars with error bars, and
 * heatmap cells. `attributes` are the element's `data-*` hooks (escaped, written first).
 */
import { dashAttribute, escapeXml, hooks, INK, n, segment, type Stroke } from './svg.js';

export type Point = readonly [number, number];

/** Opacity of a band's fill (and of its legend swatch's). */
export const BAND_OPACITY = 0.18;

const path = (points: readonly Point[]): string => `M${points.map(([x, y]) => `${n(x)},${n(y)}`).join('L')}`;

/** A line through `points`, 2 px wide; `title` becomes its tooltip. */
export function line(points: readonly Point[], stroke: Stroke, attributes: Readonly<Record<string, string>> = {}, title?: string): string {
  const open = `<path${hooks(attributes)} d="${path(points)}" fill="none" stroke="${stroke.colour}" stroke-width="2" stroke-linejoin="round"${dashAttribute(stroke)}`;
  return title === undefined ? `${open}/>` : `${open}><title>${escapeXml(title)}</title></path>`;
}

/** The translucent area between `upper` and `lower` (same x, in order). */
export function band(upper: readonly Point[], lower: readonly Point[], colour: string, attributes: Readonly<Record<string, string>> = {}): string {
  return `<path${hooks(attributes)} d="${path([...upper, ...[...lower].reverse()])}Z" fill="${colour}" fill-opacity="${BAND_OPACITY}" stroke="none"/>`;
}

/** A dot (radius 3) at each point. */
export function dots(points: readonly Point[], colour: string): string[] {
  return points.map(([x, y]) => `<circle cx="${n(x)}" cy="${n(y)}" r="3" fill="${colour}"/>`);
}

/** A bar centred on `cx`, `width` wide, from `y` down to `bottom`. */
export function bar(cx: number, width: number, y: number, bottom: number, colour: string, attributes: Readonly<Record<string, string>> = {}): string {
  return `<rect${hooks(attributes)} x="${n(cx - width / 2)}" y="${n(y)}" width="${n(width)}" height="${n(bottom - y)}" fill="${colour}"/>`;
}

/** An error bar at `cx` from `yHigh` to `yLow`, with caps 12 px wide. */
export function errorBar(cx: number, yHigh: number, yLow: number): string[] {
  const width = ' stroke-width="1.2"';
  return [segment(cx, yHigh, cx, yLow, INK, width), ...[yHigh, yLow].map((y) => segment(cx - 6, y, cx + 6, y, INK, width))];
}

/** A heatmap cell: a filled square (`size` px) at (x, y) with a white edge. */
export function cell(x: number, y: number, size: number, fill: string, attributes: Readonly<Record<string, string | number>> = {}): string {
  return `<rect${hooks(attributes)} x="${n(x)}" y="${n(y)}" width="${n(size)}" height="${n(size)}" fill="${fill}" stroke="#ffffff"/>`;
}
