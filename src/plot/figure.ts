/**
 * A figure of panels: a title, a wrapped legend and panels three to a row, as one SVG (figureSvg) or
 * one SVG per panel for HTML, where CSS lays them out (panelSvg). Panels are lettered (a), (b), ….
 */
import { legend, LEGEND, type LegendItem } from './legend.js';
import { escapeXml, n, svgOpen, text, textWidth } from './svg.js';

const PANELS_PER_ROW = 3;
const PAD = 10;

/** One figure as parts: html.ts lays the panels out with CSS, figureSvg with coordinates. */
export interface Figure {
  title: string;
  legend: LegendItem[];
  /** Panel width and height (px); every panel's elements are in its own 0..width × 0..height box. */
  panelWidth: number;
  panelHeight: number;
  /** Where a panel's plot area starts (px from its left): the title and legend line up with it. */
  plotLeft: number;
  panels: { name: string; elements: string[] }[];
}

/** "(a)", "(b)", …, "(z)", "(aa)", …: the letter of panel `index`. */
export function panelLetter(index: number): string {
  let k = index;
  let s = '';
  do {
    s = String.fromCharCode(97 + (k % 26)) + s;
    k = Math.floor(k / 26) - 1;
  } while (k >= 0);
  return `(${s})`;
}

/** The figure as one SVG: title, wrapped legend, panels three to a row. */
export function figureSvg(figure: Figure, standalone = true): string {
  const columns = Math.max(1, Math.min(PANELS_PER_ROW, figure.panels.length));
  const rows = Math.max(1, Math.ceil(figure.panels.length / PANELS_PER_ROW));
  const width = 2 * PAD + columns * figure.panelWidth;
  const legendLeft = PAD + figure.plotLeft;
  const titleWidth = textWidth(figure.title, 15) + legendLeft + PAD;
  const fullWidth = Math.max(width, titleWidth);
  const drawn = legend(figure.legend, legendLeft, 44, fullWidth - legendLeft - PAD);
  const header = 44 + Math.max(0, drawn.rows - 1) * LEGEND.row + 18;
  const height = header + rows * figure.panelHeight + PAD;
  const out = svgOpen(fullWidth, height, figure.title, standalone);
  out.push(text(legendLeft, 22, figure.title, { size: 15, bold: true }));
  out.push(...drawn.elements);
  figure.panels.forEach((panel, i) => {
    const x = PAD + (i % PANELS_PER_ROW) * figure.panelWidth;
    const y = header + Math.floor(i / PANELS_PER_ROW) * figure.panelHeight;
    out.push(`<g data-panel="${escapeXml(panel.name)}" transform="translate(${n(x)},${n(y)})">`, ...panel.elements, '</g>');
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** One panel of a figure as its own SVG (for HTML, where CSS lays the panels out). */
export function panelSvg(figure: Figure, index: number): string {
  const panel = figure.panels[index];
  if (panel === undefined) throw new RangeError(`no panel ${index} (the figure has ${figure.panels.length})`);
  const out = svgOpen(figure.panelWidth, figure.panelHeight, `${figure.title}: ${panel.name}`, false, ` data-panel="${escapeXml(panel.name)}"`);
  out.push(...panel.elements, '</svg>');
  return out.join('\n');
}
