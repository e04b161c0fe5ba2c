/**
 * Legends: a swatch and a label per item, laid out left to right and wrapped onto more rows when
 * they do not fit (a width of 0 stacks them, one per row).
 */
import { dashAttribute, MUTED, n, text, textWidth, type Stroke } from './svg.js';

/** Legend: swatch width, gap after the swatch, gap between items, row height (px). */
export const LEGEND = { swatch: 30, gap: 6, spacing: 22, row: 20 };

/**
 * One legend entry: a line over its band (`band`), a line (`line`) or a filled square (`box`), a
 * label and an optional second line under the label (`note`, muted).
 */
export interface LegendItem {
  label: string;
  style: Stroke;
  kind: 'band' | 'line' | 'box';
  note?: string;
}

/** Each item's (x, row) when the items are laid out left to right, wrapping at `maxWidth`. */
export function legendLayout(items: readonly LegendItem[], maxWidth: number): { x: number; row: number }[] {
  let x = 0;
  let row = 0;
  return items.map((item) => {
    const width = LEGEND.swatch + LEGEND.gap + Math.max(textWidth(item.label), textWidth(item.note ?? ''));
    if (x > 0 && x + width > maxWidth) {
      x = 0;
      row++;
    }
    const at = { x, row };
    x += width + LEGEND.spacing;
    return at;
  });
}

/** A legend swatch at (x, y) (y = the swatch's vertical middle). */
export function legendSwatch(item: LegendItem, x: number, y: number): string[] {
  const { colour } = item.style;
  if (item.kind === 'box') {
    return [`<rect x="${n(x + LEGEND.swatch - 12)}" y="${n(y - 6)}" width="12" height="12" fill="${colour}"/>`];
  }
  const line = `<line x1="${n(x)}" y1="${n(y)}" x2="${n(x + LEGEND.swatch)}" y2="${n(y)}" stroke="${colour}" stroke-width="2.5"${dashAttribute(item.style)}/>`;
  if (item.kind === 'line') return [line];
  return [`<rect x="${n(x)}" y="${n(y - 6)}" width="${LEGEND.swatch}" height="12" fill="${colour}" fill-opacity="0.18"/>`, line];
}

/**
 * The legend as SVG elements, wrapped at `maxWidth`, its first row centred on `top`, rows `rowHeight`
 * apart; returns its rows. Each label carries `data-legend-item`.
 */
export function legend(items: readonly LegendItem[], left: number, top: number, maxWidth: number, rowHeight = LEGEND.row): { elements: string[]; rows: number } {
  const layout = legendLayout(items, maxWidth);
  const elements: string[] = ['<g data-legend="">'];
  items.forEach((item, i) => {
    const { x, row } = layout[i] as { x: number; row: number };
    const y = top + row * rowHeight;
    const textX = left + x + LEGEND.swatch + LEGEND.gap;
    elements.push(...legendSwatch(item, left + x, y));
    elements.push(text(textX, y + 4, item.label, { attributes: { 'data-legend-item': item.label } }));
    if (item.note !== undefined) elements.push(text(textX, y + 19, item.note, { fill: MUTED }));
  });
  elements.push('</g>');
  return { elements, rows: layout.length === 0 ? 0 : (layout[layout.length - 1] as { row: number }).row + 1 };
}

