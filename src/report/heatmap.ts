/**
 * The grid search's heatmap (drawn with the plotting kit, src/plot/): mean final regret of one policy over
 * the (l, e) grid, l on the x axis, e on the y axis (larger e up), one `<rect data-l data-e>` per grid
 * point with its value printed, the best cell outlined (a black and a white ring: visible on every
 * fill), and a colour-scale legend. The figure is at least as wide as its subtitle lines, so a
 * 1 × 1 grid shows them whole, and it scales to its container like the report's figures.
 * Colours: a light-to-dark sequential ramp (low regret light, high regret dark).
 */
import { yTitle } from '../plot/axis.js';
import { colourBar, inkOnRamp, rampColour } from '../plot/colour.js';
import { cell } from '../plot/marks.js';
import { MUTED, n, svgOpen, text, textWidth } from '../plot/svg.js';

export interface HeatmapCell {
  l: number;
  e: number;
  meanFinalRegret: number;
  meanParameterError?: number | null;
}

export interface HeatmapInput {
  experiment: string;
  policy: string;
  /** Column order (x). */
  ls: readonly number[];
  /** Row order (y, drawn bottom to top). */
  es: readonly number[];
  rows: readonly HeatmapCell[];
}

const CELL = 62;
const LEFT = 74;
const TOP = 92;
const LEGEND_WIDTH = 110;
const BOTTOM = 56;

/** A cell value: 4 significant digits, no exponent for ordinary magnitudes. */
export function cellValue(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  if (abs !== 0 && (abs >= 1e6 || abs < 1e-3)) return x.toExponential(2);
  return Number(x.toPrecision(4)).toString();
}

/** The subtitle, one line each: what is shown, the grid's meaning, the outline. */
const SUBTITLE = [
  'mean final regret (validation trials)',
  'λ = (√K d)^l λ0, η = (√K d)^e η0',
  'lowest regret outlined',
] as const;

/** The heatmap as a standalone SVG document. */
export function gridHeatmapSvg(input: HeatmapInput): string {
  const { ls, es, rows } = input;
  const heading = `${input.experiment}: ${input.policy}`;
  const textRight = Math.max(textWidth(heading, 15), ...SUBTITLE.map((line) => textWidth(line)));
  const width = Math.max(LEFT + ls.length * CELL + 30 + LEGEND_WIDTH, LEFT + textRight + 16);
  /** Height of the colour-scale legend: the grid's, at least two cells. */
  const legendHeight = Math.max(CELL * 2, es.length * CELL - 20);
  const height = TOP + Math.max(es.length * CELL, legendHeight) + BOTTOM;
  const values = rows.map((r) => r.meanFinalRegret).filter(Number.isFinite);
  const lo = values.length > 0 ? Math.min(...values) : 0;
  const hi = values.length > 0 ? Math.max(...values) : 1;
  const scale = (v: number): number => (hi > lo ? (v - lo) / (hi - lo) : 0);
  let best: HeatmapCell | null = null;
  for (const r of rows) if (best === null || r.meanFinalRegret < best.meanFinalRegret) best = r;

  const out = svgOpen(width, height, `${input.experiment}: ${input.policy}, mean final regret over (l, e)`);
  out.push(text(LEFT, 22, heading, { size: 15, bold: true }));
  SUBTITLE.forEach((line, i) => out.push(text(LEFT, 40 + 15 * i, line, { fill: MUTED })));
  const gridBottom = TOP + es.length * CELL;
  /** The top-left corner of column i, row j (rows drawn bottom to top). */
  const corner = (i: number, j: number): [number, number] => [LEFT + i * CELL, TOP + (es.length - 1 - j) * CELL];
  out.push('<g data-cells="">');
  ls.forEach((l, i) => {
    es.forEach((e, j) => {
      const [x, y] = corner(i, j);
      const row = rows.find((r) => r.l === l && r.e === e);
      if (row === undefined) {
        out.push(cell(x, y, CELL, '#f2f2f2', { 'data-missing': '' }));
        return;
      }
      const t = scale(row.meanFinalRegret);
      out.push(cell(x, y, CELL, rampColour(t), { 'data-l': l, 'data-e': e, 'data-value': row.meanFinalRegret }));
      out.push(text(x + CELL / 2, y + CELL / 2 + 4, cellValue(row.meanFinalRegret), { anchor: 'middle', size: 11, fill: inkOnRamp(t) }));
    });
  });
  out.push('</g>');
  if (best !== null) {
    const i = ls.indexOf(best.l);
    const j = es.indexOf(best.e);
    if (i >= 0 && j >= 0) {
      const [x, y] = corner(i, j);
      out.push(
        `<rect data-best="" x="${n(x + 2)}" y="${n(y + 2)}" width="${CELL - 4}" height="${CELL - 4}" fill="none" stroke="#000000" stroke-width="4"/>`,
        `<rect x="${n(x + 5)}" y="${n(y + 5)}" width="${CELL - 10}" height="${CELL - 10}" fill="none" stroke="#ffffff" stroke-width="2"/>`,
      );
    }
  }
  // Axes: tick labels and titles.
  ls.forEach((l, i) => out.push(text(corner(i, 0)[0] + CELL / 2, gridBottom + 16, String(l), { anchor: 'middle' })));
  es.forEach((e, j) => out.push(text(LEFT - 8, corner(0, j)[1] + CELL / 2 + 4, String(e), { anchor: 'end' })));
  const frame = { left: LEFT, top: TOP, width: ls.length * CELL, height: es.length * CELL };
  out.push(text(LEFT + frame.width / 2, gridBottom + 38, 'l (exponent of λ)', { anchor: 'middle' }), yTitle(frame, 'e (exponent of η)', 20));
  out.push(...colourBar(LEFT + ls.length * CELL + 30, TOP, legendHeight, 'final regret', cellValue(hi), cellValue(lo)));
  out.push('</svg>');
  return out.join('\n') + '\n';
}
