/**
 * A sweep's figure for one swept key: mean final regret (left) and mean ms per round (right, log
 * scale) against the key's values, one line per policy (and per combination of the other keys'
 * values; such lines share their policy's colour and dash, and name their values in a tooltip).
 * The x axis is logarithmic when the values are positive numbers spanning more than 10×,
 * linear for other numbers, and evenly spaced categories otherwise. Policy styles and the wrapping
 * legend are the report's (palette.ts, svg.ts); the figure scales to its container.
 */
import type { SweepRow } from '../results/sweep.js';
import { formatShort } from './format.js';
import { dashAttribute, policyStyles, type PolicyStyle } from './palette.js';
import { comparePolicies } from './summarize.js';
import { escapeXml, legend, LEGEND, niceTicks, svgOpen } from './svg.js';

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
const PW = W - M.left - M.right;
const PH = H - M.top - M.bottom;

const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));
const f = (x: number): string => x.toFixed(2);

/** x position in [0, PW] of each value of the axis. */
function xScale(values: readonly unknown[]): { at: (i: number) => number; log: boolean } {
  const numeric = values.every((v) => typeof v === 'number' && Number.isFinite(v));
  if (!numeric || values.length < 2) return { at: (i) => (values.length < 2 ? PW / 2 : (i * PW) / (values.length - 1)), log: false };
  const xs = values as number[];
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  const log = lo > 0 && hi / lo > 10;
  const t = (x: number): number => (log ? Math.log10(x) : x);
  const span = t(hi) - t(lo) || 1;
  return { at: (i) => ((t(xs[i] as number) - t(lo)) / span) * PW, log };
}

function panel(
  input: SweepFigureInput,
  styles: Map<string, PolicyStyle>,
  offsetX: number,
  title: string,
  value: (r: SweepRow) => number,
  logY: boolean,
): string {
  const axis = input.axes[input.axis] as { key: string; values: readonly unknown[] };
  const x = xScale(axis.values);
  const others = input.axes.map((_, k) => k).filter((k) => k !== input.axis);
  const series = new Map<string, { policy: string; points: [number, number][] }>();
  for (const r of input.rows) {
    const v = value(r);
    if (!Number.isFinite(v) || (logY && v <= 0)) continue;
    const label = [r.policy, ...others.map((k) => `${input.axes[k]?.key.split('.').pop()}=${text(r.values[k])}`)].join(', ');
    const i = axis.values.findIndex((a) => JSON.stringify(a) === JSON.stringify(r.values[input.axis]));
    const entry = series.get(label) ?? { policy: r.policy, points: [] };
    entry.points.push([i, v]);
    series.set(label, entry);
  }
  const all = [...series.values()].flatMap((s) => s.points.map((p) => p[1]));
  const lo = logY ? Math.floor(Math.log10(Math.min(...all, 1))) : 0;
  const hi = logY ? Math.ceil(Math.log10(Math.max(...all, 1e-9))) : niceTicks(Math.max(...all, 0)).top;
  const y = (v: number): number => PH - (logY ? ((Math.log10(v) - lo) / Math.max(1, hi - lo)) * PH : (v / (hi || 1)) * PH);
  const out: string[] = [`<g transform="translate(${offsetX + M.left},${M.top})">`];
  out.push(`<rect width="${PW}" height="${PH}" fill="none" stroke="#999"/>`);
  out.push(`<text x="${f(PW / 2)}" y="-10" text-anchor="middle" font-weight="bold">${escapeXml(title)}</text>`);
  const yTicks = logY ? Array.from({ length: hi - lo + 1 }, (_, k) => 10 ** (lo + k)) : niceTicks(Math.max(...all, 0)).values;
  for (const t of yTicks) out.push(`<text x="-6" y="${f(y(t) + 4)}" text-anchor="end">${escapeXml(formatShort(t, 3))}</text>`);
  axis.values.forEach((v, i) => out.push(`<text x="${f(x.at(i))}" y="${PH + 16}" text-anchor="middle">${escapeXml(text(v))}</text>`));
  out.push(`<text x="${f(PW / 2)}" y="${PH + 36}" text-anchor="middle">${escapeXml(axis.key)}${x.log ? ' (log scale)' : ''}</text>`);
  for (const [label, s] of series) {
    const style = styles.get(s.policy) as PolicyStyle;
    const pts = s.points.sort((a, b) => a[0] - b[0]).map(([i, v]) => `${f(x.at(i))},${f(y(v))}`);
    out.push(
      `<polyline data-policy="${escapeXml(s.policy)}" fill="none" stroke="${style.colour}" stroke-width="2"${dashAttribute(style)} points="${pts.join(' ')}"><title>${escapeXml(label)}</title></polyline>`,
    );
    for (const p of pts) out.push(`<circle cx="${p.split(',')[0]}" cy="${p.split(',')[1]}" r="3" fill="${style.colour}"/>`);
  }
  out.push('</g>');
  return out.join('\n');
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
    `<text x="${W}" y="18" text-anchor="middle" font-size="14">${escapeXml(`${input.experiment}: sweep over ${key} (means over trials)`)}</text>`,
    panel(input, styles, 0, 'final regret', (r) => r.meanFinalRegret, false),
    panel(input, styles, W, 'ms per round (log scale)', (r) => r.meanRoundMs, true),
    ...drawn.elements,
    '</svg>',
    '',
  ].join('\n');
}
