/**
 * bench.svg: median per-round time (select + update, ms) against d on log-log axes, one line per series
 * (policy, K, m rule, warm-up, backend) with its fitted slope in the legend. Drawn with the plotting
 * kit (src/plot/: deterministic, two-decimal coordinates, no timestamps); it scales to its container.
 * One colour per policy; a policy's series (K, m, warm-up, backend) differ by dash.
 * linalg.svg (--linalg): eofd ÷ numpy against n on log-log axes, one line per operation and backend.
 */
import { axisLines, xAxis, xTitle, yAxis, yTitle, type Frame } from '../plot/axis.js';
import { legend, LEGEND } from '../plot/legend.js';
import { dots, line } from '../plot/marks.js';
import { decadeScale } from '../plot/scale.js';
import { MUTED, svgOpen, text, textWidth } from '../plot/svg.js';
import { policyStyles, type PolicyStyle } from '../report/palette.js';
import { linalgRatio, type LinalgRow } from './linalg.js';
import { seriesKey, type BenchRow, type SeriesSlope } from './output.js';
import type { BenchOptions } from './plan.js';

const WIDTH = 760;
const MIN_HEIGHT = 480;
const MARGIN = { left: 70, right: 250, top: 56, bottom: 52 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
/** Vertical space of one legend entry (key and slope lines). */
const LEGEND_ROW = 34;
/** A policy's series (K, m, warm-up, backend) in turn: its colour is the report's (palette.ts), the dash tells them apart. */
const DASHES = ['', '6 4', '2 3', '10 3 2 3', '1 5'];

interface Series {
  key: string;
  colour: string;
  /** stroke-dasharray, '' for solid. */
  dash: string;
  points: { d: number; ms: number }[];
  slope: SeriesSlope | undefined;
}

export function renderBenchSvg(rows: readonly BenchRow[], slopes: readonly SeriesSlope[], options: Pick<BenchOptions, 'actions'>): string {
  const series: Series[] = [];
  const colours = policyStyles(rows.map((row) => row.plan.point.policy));
  const seriesOfPolicy = new Map<string, number>();
  for (const row of rows) {
    const key = seriesKey(row);
    const { policy } = row.plan.point;
    let s = series.find((x) => x.key === key);
    if (s === undefined) {
      const nth = seriesOfPolicy.get(policy) ?? 0;
      seriesOfPolicy.set(policy, nth + 1);
      const colour = (colours.get(policy) as PolicyStyle).colour;
      s = { key, colour, dash: DASHES[nth % DASHES.length] as string, points: [], slope: slopes.find((x) => x.series === key) };
      series.push(s);
    }
    const ms = row.measurement?.round.median;
    if (ms !== undefined && ms > 0) s.points.push({ d: row.plan.point.d, ms });
  }
  for (const s of series) s.points.sort((a, b) => a.d - b.d);
  const height = Math.max(MIN_HEIGHT, MARGIN.top + 10 + series.length * LEGEND_ROW + MARGIN.bottom);
  const frame: Frame = { left: MARGIN.left, top: MARGIN.top, width: PLOT_WIDTH, height: height - MARGIN.top - MARGIN.bottom };

  const all = series.flatMap((s) => s.points);
  const ds = all.map((p) => p.d);
  const times = all.map((p) => p.ms);
  const xLo = Math.floor(Math.log10(all.length > 0 ? Math.min(...ds) : 10));
  const xHi = Math.max(xLo + 1, Math.ceil(Math.log10(all.length > 0 ? Math.max(...ds) : 100)));
  const yLo = Math.floor(Math.log10(all.length > 0 ? Math.min(...times) : 0.1));
  const yHi = Math.max(yLo + 1, Math.ceil(Math.log10(all.length > 0 ? Math.max(...times) : 1)));
  const x = decadeScale(xLo, xHi, [frame.left, frame.left + frame.width]);
  const y = decadeScale(yLo, yHi, [frame.top + frame.height, frame.top]);

  const slopeText = (s: Series): string =>
    s.points.length === 0 ? 'not measured' : s.slope !== undefined && Number.isFinite(s.slope.slope) ? `slope ${s.slope.slope.toFixed(2)} (d ${s.slope.fromD}–${s.slope.toD})` : 'slope –';
  const items = series.map((s) => ({ label: s.key, style: s, kind: 'line' as const, note: slopeText(s) }));
  // The legend, one entry per row right of the plot, widens the figure rather than being cut off.
  const legendLeft = frame.left + frame.width + 16;
  const width = Math.max(WIDTH, legendLeft + LEGEND.swatch + LEGEND.gap + Math.max(0, ...items.map((i) => Math.max(textWidth(i.label), textWidth(i.note)))) + 10);
  const centre = frame.left + frame.width / 2;
  const out: string[] = [
    ...svgOpen(width, height, 'eofd bench: per-round time against d'),
    text(centre, 22, 'Per-round time (select + update, median) against d', { anchor: 'middle', size: 14, bold: true }),
    text(centre, 40, `log-log; ${options.actions} actions per round; slopes fitted by least squares`, { anchor: 'middle', fill: MUTED }),
    ...xAxis(frame, x, { grid: true }),
    ...yAxis(frame, y, { marks: true }),
    ...axisLines(frame, true),
    xTitle(frame, 'd (feature dimension)'),
    yTitle(frame, 'ms per round'),
  ];
  // Series, then the legend: one entry per row, its slope beneath.
  for (const s of series) {
    if (s.points.length === 0) continue;
    const points = s.points.map((p) => [x.at(p.d), y.at(p.ms)] as const);
    out.push(line(points, s, { 'data-series': s.key }), ...dots(points, s.colour));
  }
  out.push(...legend(items, legendLeft, frame.top + 10, 0, LEGEND_ROW).elements);
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** linalg.svg: the ratio eofd ÷ numpy against n, log-log, one line per operation and backend (rows without a ratio left out). */
export function renderLinalgSvg(rows: readonly LinalgRow[]): string {
  const series = new Map<string, { x: number; y: number }[]>();
  for (const row of rows) {
    const key = `${row.operation.name} ÷ ${row.operation.numpy} [${row.backend}]`;
    if (!series.has(key)) series.set(key, []);
    const ratio = linalgRatio(row.eofdMs, row.numpyMs);
    if (ratio !== null && ratio > 0) series.get(key)!.push({ x: row.n, y: ratio });
  }
  const styles = policyStyles(series.keys());
  const height = Math.max(MIN_HEIGHT, MARGIN.top + 10 + series.size * LEGEND.row + MARGIN.bottom);
  const frame: Frame = { left: MARGIN.left, top: MARGIN.top, width: PLOT_WIDTH, height: height - MARGIN.top - MARGIN.bottom };
  const all = [...series.values()].flat();
  const decades = (values: number[], fallback: [number, number]): [number, number] => {
    const lo = Math.floor(Math.log10(values.length > 0 ? Math.min(...values) : fallback[0]));
    return [lo, Math.max(lo + 1, Math.ceil(Math.log10(values.length > 0 ? Math.max(...values) : fallback[1])))];
  };
  const [xLo, xHi] = decades(all.map((p) => p.x), [100, 1000]);
  const [yLo, yHi] = decades(all.map((p) => p.y), [1, 10]);
  const x = decadeScale(xLo, xHi, [frame.left, frame.left + frame.width]);
  const y = decadeScale(yLo, yHi, [frame.top + frame.height, frame.top]);
  const items = [...series.keys()].map((key) => ({ label: key, style: styles.get(key) as PolicyStyle, kind: 'line' as const }));
  const legendLeft = frame.left + frame.width + 16;
  const width = Math.max(WIDTH, legendLeft + LEGEND.swatch + LEGEND.gap + Math.max(0, ...items.map((i) => textWidth(i.label))) + 10);
  const centre = frame.left + frame.width / 2;
  const out: string[] = [
    ...svgOpen(width, height, 'eofd bench --linalg: eofd ÷ numpy against n'),
    text(centre, 22, "eofd's dense kernels ÷ numpy single-thread, same matrices", { anchor: 'middle', size: 14, bold: true }),
    text(centre, 40, 'log-log; best call of each; 1 = as fast as numpy', { anchor: 'middle', fill: MUTED }),
    ...xAxis(frame, x, { grid: true }),
    ...yAxis(frame, y, { marks: true }),
    ...axisLines(frame, true),
    xTitle(frame, 'n (matrix order)'),
    yTitle(frame, 'eofd time ÷ numpy time'),
  ];
  for (const [key, points] of series) {
    if (points.length === 0) continue;
    const style = styles.get(key) as PolicyStyle;
    const at = points.sort((a, b) => a.x - b.x).map((p) => [x.at(p.x), y.at(p.y)] as const);
    out.push(line(at, style, { 'data-series': key }), ...dots(at, style.colour));
  }
  out.push(...legend(items, legendLeft, frame.top + 10, 0, LEGEND.row).elements);
  out.push('</svg>');
  return out.join('\n') + '\n';
}
