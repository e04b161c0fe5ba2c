/**
 * A sweep's figure for one swept key: mean final regret (left) and mean ms per round (right, log
 * scale) against the key's values, one line per policy (and per combination of the other keys'
 * values; such lines share their policy's colour and dash, and name their values in a tooltip).
 * The x axis is logarithmic when the values are positive numbers spanning more than 10×,
 * linear for other numbers, and evenly spaced categories otherwise. Drawn with the plotting kit
 * (src/plot/) in the report's policy styles (palette.ts); the figure scales to its container.
 */
import { axisLines, xAxis, xTitle, yAxis, type Frame } from '../plot/axis.js';
import { legend, LEGEND } from '../plot/legend.js';
import { dots, line, type Point } from '../plot/marks.js';
import { decadeRange, decadeScale, linearScale, logScale, niceScale, pointScale, type Scale } from '../plot/scale.js';
import { svgOpen, text } from '../plot/svg.js';
import type { SweepRow } from '../results/sweep.js';
import { policyStyles, type PolicyStyle } from './palette.js';
import { comparePolicies } from './summarize.js';

export interface SweepFigureInput {
  experiment: string;
  axes: readonly { key: string; values: readonly unknown[] }[];
  /** Index of the axis on x. */
  axis: number;
  rows: readonly SweepRow[];
}

const W = 420;
const H = 300;
const M = { left: 64, right: 16, top: 46, bottom: 48 };
/** Most decades the log axis spans below its top. */
const MAX_DECADES = 8;

const valueText = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));

/** The x scale over the axis's value indices: log or linear in the values when they are numbers, else points. */
function xScale(values: readonly unknown[], range: readonly [number, number]): { scale: Scale; log: boolean } {
  const labels = values.map(valueText);
  const points = pointScale(labels, range);
  if (values.length < 2 || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) return { scale: points, log: false };
  const xs = values as number[];
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const log = lo > 0 && hi / lo > 10;
  const inValues = log ? logScale([lo, hi], range) : linearScale([lo, hi], range);
  return { scale: { at: (i) => inValues.at(xs[i] as number), ticks: points.ticks }, log };
}

function panel(input: SweepFigureInput, styles: Map<string, PolicyStyle>, offsetX: number, title: string, value: (r: SweepRow) => number, logY: boolean): string[] {
  const frame: Frame = { left: offsetX + M.left, top: M.top, width: W - M.left - M.right, height: H - M.top - M.bottom };
  const axis = input.axes[input.axis] as { key: string; values: readonly unknown[] };
  const x = xScale(axis.values, [frame.left, frame.left + frame.width]);
  const others = input.axes.map((_, k) => k).filter((k) => k !== input.axis);
  const series = new Map<string, { policy: string; points: [number, number][] }>();
  for (const r of input.rows) {
    const v = value(r);
    if (!Number.isFinite(v) || (logY && v <= 0)) continue;
    const label = [r.policy, ...others.map((k) => `${input.axes[k]?.key.split('.').pop()}=${valueText(r.values[k])}`)].join(', ');
    const i = axis.values.findIndex((a) => JSON.stringify(a) === JSON.stringify(r.values[input.axis]));
    const entry = series.get(label) ?? { policy: r.policy, points: [] };
    entry.points.push([i, v]);
    series.set(label, entry);
  }
  const all = [...series.values()].flatMap((s) => s.points.map((p) => p[1]));
  const range = [frame.top + frame.height, frame.top] as const;
  const y = logY ? decadeScale(...decadeRange(all, all, MAX_DECADES), range) : niceScale(Math.max(0, ...all), range);
  const out = [text(frame.left + frame.width / 2, frame.top - 10, title, { anchor: 'middle', bold: true })];
  out.push(...yAxis(frame, y, { marks: logY }), ...xAxis(frame, x.scale), ...axisLines(frame, true));
  out.push(xTitle(frame, `${axis.key}${x.log ? ' (log scale)' : ''}`));
  for (const [label, s] of series) {
    const style = styles.get(s.policy) as PolicyStyle;
    const points: Point[] = s.points.sort((a, b) => a[0] - b[0]).map(([i, v]) => [x.scale.at(i), y.at(v)]);
    out.push(line(points, style, { 'data-policy': s.policy }, label), ...dots(points, style.colour));
  }
  return out;
}

export function renderSweepFigure(input: SweepFigureInput): string {
  const key = (input.axes[input.axis] as { key: string }).key;
  const policies = [...new Set(input.rows.map((r) => r.policy))].sort(comparePolicies);
  const styles = policyStyles(policies);
  const items = policies.map((p) => ({ label: p, style: styles.get(p) as PolicyStyle, kind: 'line' as const }));
  const drawn = legend(items, M.left, H + 10, 2 * W - M.left - M.right);
  const height = H + 10 + drawn.rows * LEGEND.row;
  return [
    ...svgOpen(2 * W, height, `${input.experiment}: final regret and ms per round against ${key}`),
    text(W, 18, `${input.experiment}: sweep over ${key} (means over trials)`, { anchor: 'middle', size: 14 }),
    ...panel(input, styles, 0, 'final regret', (r) => r.meanFinalRegret, false),
    ...panel(input, styles, W, 'ms per round (log scale)', (r) => r.meanRoundMs, true),
    ...drawn.elements,
    '</svg>',
    '',
  ].join('\n');
}
