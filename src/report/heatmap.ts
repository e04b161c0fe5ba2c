/**
 * The grid search's heatmap (hand-written SVG, deterministic): mean final regret of one policy over
 * the (l, e) grid, l on the x axis, e on the y axis (larger e up), one `<rect data-l data-e>` per grid
 * point with its value printed, the best cell outlined (a black and a white ring: visible on every
 * fill), and a colour-scale legend. The figure is at least as wide as its subtitle lines, so a
 * 1 × 1 grid shows them whole, and it scales to its container like the report's figures.
 * Colours: a light-to-dark sequential ramp (low regret light, high regret dark).
 */
import { escapeXml, INK, MUTED, n, svgOpen, textWidth } from './svg.js';

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

/** A sequential ramp (viridis-like stops, reversed: 0 → light yellow, 1 → dark purple). */
const STOPS: readonly [number, number, number][] = [
  [253, 231, 37],
  [94, 201, 98],
  [33, 145, 140],
  [59, 82, 139],
  [68, 1, 84],
];

export function rampColour(t: number): string {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const a = STOPS[i] as [number, number, number];
  const b = STOPS[i + 1] as [number, number, number];
  const hex = (k: number): string => Math.round(a[k]! + (b[k]! - a[k]!) * f).toString(16).padStart(2, '0');
  return `#${hex(0)}${hex(1)}${hex(2)}`;
}

/** Text colour readable on a ramp colour: white on dark fills (relative luminance below 0.4). */
function inkOn(t: number): string {
  const fill = rampColour(t);
  const channel = (k: number): number => {
    const c = parseInt(fill.slice(1 + 2 * k, 3 + 2 * k), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const luminance = 0.2126 * channel(0) + 0.7152 * channel(1) + 0.0722 * channel(2);
  return luminance < 0.4 ? '#ffffff' : INK;
}

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
  out.push(`<text x="${LEFT}" y="22" font-size="15" font-weight="bold" fill="${INK}">${escapeXml(heading)}</text>`);
  SUBTITLE.forEach((line, i) => out.push(`<text x="${LEFT}" y="${40 + 15 * i}" fill="${MUTED}">${escapeXml(line)}</text>`));
  const gridBottom = TOP + es.length * CELL;
  out.push('<g data-cells="">');
  ls.forEach((l, i) => {
    es.forEach((e, j) => {
      const x = LEFT + i * CELL;
      const y = TOP + (es.length - 1 - j) * CELL;
      const row = rows.find((r) => r.l === l && r.e === e);
      if (row === undefined) {
        out.push(`<rect data-missing="" x="${n(x)}" y="${n(y)}" width="${CELL}" height="${CELL}" fill="#f2f2f2" stroke="#ffffff"/>`);
        return;
      }
      const t = scale(row.meanFinalRegret);
      out.push(
        `<rect data-l="${l}" data-e="${e}" data-value="${row.meanFinalRegret}" x="${n(x)}" y="${n(y)}" width="${CELL}" height="${CELL}" fill="${rampColour(t)}" stroke="#ffffff"/>`,
      );
      out.push(
        `<text x="${n(x + CELL / 2)}" y="${n(y + CELL / 2 + 4)}" text-anchor="middle" font-size="11" fill="${inkOn(t)}">${escapeXml(cellValue(row.meanFinalRegret))}</text>`,
      );
    });
  });
  out.push('</g>');
  if (best !== null) {
    const i = ls.indexOf(best.l);
    const j = es.indexOf(best.e);
    if (i >= 0 && j >= 0) {
      const x = LEFT + i * CELL;
      const y = TOP + (es.length - 1 - j) * CELL;
      out.push(
        `<rect data-best="" x="${n(x + 2)}" y="${n(y + 2)}" width="${CELL - 4}" height="${CELL - 4}" fill="none" stroke="#000000" stroke-width="4"/>`,
        `<rect x="${n(x + 5)}" y="${n(y + 5)}" width="${CELL - 10}" height="${CELL - 10}" fill="none" stroke="#ffffff" stroke-width="2"/>`,
      );
    }
  }
  // Axes: tick labels and titles.
  ls.forEach((l, i) => {
    out.push(`<text x="${n(LEFT + i * CELL + CELL / 2)}" y="${n(gridBottom + 16)}" text-anchor="middle" fill="${INK}">${l}</text>`);
  });
  es.forEach((e, j) => {
    out.push(`<text x="${n(LEFT - 8)}" y="${n(TOP + (es.length - 1 - j) * CELL + CELL / 2 + 4)}" text-anchor="end" fill="${INK}">${e}</text>`);
  });
  out.push(
    `<text x="${n(LEFT + (ls.length * CELL) / 2)}" y="${n(gridBottom + 38)}" text-anchor="middle" fill="${INK}">l (exponent of λ)</text>`,
    `<text transform="translate(20,${n(TOP + (es.length * CELL) / 2)}) rotate(-90)" text-anchor="middle" fill="${INK}">e (exponent of η)</text>`,
  );
  // Colour scale legend.
  const lx = LEFT + ls.length * CELL + 30;
  const lh = legendHeight;
  const steps = 20;
  out.push('<g data-legend="">');
  out.push(`<text x="${lx}" y="${TOP - 8}" fill="${INK}">final regret</text>`);
  for (let k = 0; k < steps; k++) {
    const t = 1 - k / (steps - 1);
    out.push(`<rect x="${lx}" y="${n(TOP + (k * lh) / steps)}" width="18" height="${n(lh / steps + 0.5)}" fill="${rampColour(t)}"/>`);
  }
  out.push(`<rect x="${lx}" y="${TOP}" width="18" height="${n(lh)}" fill="none" stroke="${MUTED}"/>`);
  out.push(`<text x="${lx + 24}" y="${TOP + 10}" fill="${INK}">${escapeXml(cellValue(hi))}</text>`);
  out.push(`<text x="${lx + 24}" y="${n(TOP + lh)}" fill="${INK}">${escapeXml(cellValue(lo))}</text>`);
  out.push('</g>');
  out.push('</svg>');
  return out.join('\n') + '\n';
}
