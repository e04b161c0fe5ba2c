/**
 * The paper's figures as plain, hand-written SVG (no dependencies, deterministic: coordinates with two
 * decimals, no timestamps), one panel per experiment, at most three panels per row.
 *
 * - Fig. 1: cumulative regret against round t; per policy the mean over trials as a line (one
 *   `<path data-policy="…">` per policy per panel) and a translucent band (`<path data-band="…">`;
 *   its lower edge is clamped at 0, since cumulative regret is ≥ 0): ±1 sample std as in the paper
 *   (`band: 'std'`, Section 4), or the 95% Student-t interval of the mean (`'ci95'`; no band for a
 *   single trial).
 * - Fig. 2: mean per-round time (ms) per policy as bars with ±1 sample-std error bars on a log-scale
 *   y axis with decade ticks; a lower whisker below the axis floor is drawn to the floor.
 *
 * Each policy has a fixed colour (Okabe–Ito palette, readable by colour-blind readers).
 */
import { describeTimeReduction, fixed, formatSig } from './format.js';
import { OFUL, EOFD, RANDOM, comparePolicies, type ExperimentSummary, type RegretCurve } from './summarize.js';

/** What Fig. 1's band around the mean shows. */
export const BANDS = ['std', 'ci95'] as const;
export type Band = (typeof BANDS)[number];

/** The band in words, for titles and captions. */
export const BAND_TEXT: Readonly<Record<Band, string>> = {
  std: '± 1 sample std',
  ci95: '95% Student-t interval of the mean',
};

export interface SvgOptions {
  /** true (default): a standalone file with the SVG namespace; false: for inlining in HTML. */
  standalone?: boolean;
  /** Fig. 1's band: ±1 sample std (default) or the 95% interval of the mean. */
  band?: Band;
}

/** Fixed colours of the paper's policies. */
export const POLICY_COLOURS: Readonly<Record<string, string>> = {
  [EOFD]: '#0072B2',
  [OFUL]: '#D55E00',
  [RANDOM]: '#7F7F7F',
};
const OTHER_COLOURS = ['#009E73', '#CC79A7', '#E69F00', '#56B4E9', '#000000'];

const PANEL_WIDTH = 380;
const PANEL_HEIGHT = 300;
const PANELS_PER_ROW = 3;
const HEADER_HEIGHT = 58;
const PAD = 10;
const MARGIN = { left: 66, right: 18, top: 62, bottom: 50 };
const PLOT_WIDTH = PANEL_WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
const GRID = '#e4e4e4';
const INK = '#222222';
const MUTED = '#555555';

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** A coordinate: two decimals, never "-0.00". */
function n(x: number): string {
  return fixed(x, 2);
}

/** Colour of every policy appearing in `experiments`: fixed ones first, others from a palette in order. */
function colourMap(experiments: readonly ExperimentSummary[]): Map<string, string> {
  const colours = new Map<string, string>();
  let next = 0;
  for (const policy of allPolicies(experiments)) {
    colours.set(policy, POLICY_COLOURS[policy] ?? (OTHER_COLOURS[next++ % OTHER_COLOURS.length] as string));
  }
  return colours;
}

function allPolicies(experiments: readonly ExperimentSummary[]): string[] {
  const set = new Set<string>();
  for (const e of experiments) for (const p of e.policies) set.add(p.policy);
  return [...set].sort(comparePolicies);
}

export interface Ticks {
  step: number;
  /** Tick values from 0 to `top` inclusive. */
  values: number[];
  /** The axis end: the first tick ≥ max. */
  top: number;
  /** Decimals that print every tick exactly. */
  decimals: number;
}

/** Round-number ticks (1, 2 or 5 × 10^k apart) from 0 to the first tick ≥ max, about `target` of them. */
export function niceTicks(max: number, target = 5): Ticks {
  const upper = Number.isFinite(max) && max > 0 ? max : 1;
  const raw = upper / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / magnitude;
  const step = (norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 5 ? 5 : 10) * magnitude;
  const count = Math.max(1, Math.ceil(upper / step - 1e-9));
  const decimals = Math.max(0, -Math.floor(Math.log10(step) + 1e-9));
  const values = Array.from({ length: count + 1 }, (_, k) => Number((k * step).toFixed(decimals)));
  return { step, values, top: values[count] as number, decimals };
}

function tickLabel(value: number, ticks: Ticks): string {
  const thousands = (ticks.top >= 10_000 && ticks.step % 1000 === 0);
  return thousands && value !== 0 ? `${value / 1000}k` : fixed(value, ticks.decimals);
}

/** 10^k as a plain label: "0.01", "1", "1000"; exponent form beyond 10^±6. */
export function decadeLabel(k: number): string {
  if (k >= 0 && k <= 6) return String(10 ** k);
  if (k < 0 && k >= -6) return (10 ** k).toFixed(-k);
  return `1e${k}`;
}

function svgOpen(width: number, height: number, title: string, options: SvgOptions): string[] {
  const ns = options.standalone === false ? '' : ' xmlns="http://www.w3.org/2000/svg"';
  return [
    `<svg${ns} width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
  ];
}

function figureSize(panels: number): { width: number; height: number } {
  const columns = Math.max(1, Math.min(PANELS_PER_ROW, panels));
  const rows = Math.max(1, Math.ceil(panels / PANELS_PER_ROW));
  return { width: 2 * PAD + columns * PANEL_WIDTH, height: HEADER_HEIGHT + rows * PANEL_HEIGHT + PAD };
}

function panelOrigin(index: number): { x: number; y: number } {
  return {
    x: PAD + (index % PANELS_PER_ROW) * PANEL_WIDTH,
    y: HEADER_HEIGHT + Math.floor(index / PANELS_PER_ROW) * PANEL_HEIGHT,
  };
}

function settingLine(e: ExperimentSummary): string {
  const s = e.setting;
  return `${s.environment} · d = ${s.d}, K = ${s.K} · T = ${s.horizon} · ${s.trials} trial${s.trials === 1 ? '' : 's'}`;
}

function panelHeader(e: ExperimentSummary, extra: string | null): string[] {
  const cx = n(MARGIN.left + PLOT_WIDTH / 2);
  const out = [
    `<text x="${cx}" y="18" text-anchor="middle" font-size="14" font-weight="bold" fill="${INK}">${escapeXml(e.name)}</text>`,
    `<text x="${cx}" y="34" text-anchor="middle" fill="${MUTED}">${escapeXml(settingLine(e))}</text>`,
  ];
  if (extra !== null) out.push(`<text x="${cx}" y="50" text-anchor="middle" fill="${MUTED}">${escapeXml(extra)}</text>`);
  return out;
}

function legend(policies: string[], colours: Map<string, string>, withBand: boolean): string[] {
  const out: string[] = [];
  let x = PAD + MARGIN.left;
  for (const policy of policies) {
    const colour = colours.get(policy) as string;
    if (withBand) {
      out.push(`<rect x="${n(x)}" y="38" width="26" height="12" fill="${colour}" fill-opacity="0.18"/>`);
      out.push(`<line x1="${n(x)}" y1="44" x2="${n(x + 26)}" y2="44" stroke="${colour}" stroke-width="2.5"/>`);
    } else {
      out.push(`<rect x="${n(x + 7)}" y="38" width="12" height="12" fill="${colour}"/>`);
    }
    out.push(`<text x="${n(x + 32)}" y="48" fill="${INK}">${escapeXml(policy)}</text>`);
    x += 40 + 7.5 * policy.length;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Fig. 1

/** Half-widths of a curve's band at each point, or null when there is none (ci95 of one trial). */
export function bandHalfWidths(curve: RegretCurve, band: Band): number[] | null {
  return band === 'std' ? curve.std : curve.ci95;
}

/** Fig. 1: cumulative regret vs round t, mean over trials with a band, one panel per experiment. */
export function renderRegretFigure(experiments: readonly ExperimentSummary[], options: SvgOptions = {}): string {
  const band = options.band ?? 'std';
  const colours = colourMap(experiments);
  const title = `Fig. 1. Cumulative regret: mean over trials (line), ${BAND_TEXT[band]} (band)`;
  const { width, height } = figureSize(experiments.length);
  const out = svgOpen(width, height, title, options);
  out.push(`<text x="${PAD + MARGIN.left}" y="22" font-size="15" font-weight="bold" fill="${INK}">${escapeXml(title)}</text>`);
  out.push(...legend(allPolicies(experiments), colours, true));
  experiments.forEach((e, i) => out.push(...regretPanel(e, panelOrigin(i), colours, band)));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function regretPanel(e: ExperimentSummary, origin: { x: number; y: number }, colours: Map<string, string>, band: Band): string[] {
  const halves = e.curves.map((c) => bandHalfWidths(c, band));
  let maxY = 0;
  e.curves.forEach((c, k) => {
    for (let i = 0; i < c.mean.length; i++) maxY = Math.max(maxY, (c.mean[i] as number) + (halves[k]?.[i] ?? 0));
  });
  const xTicks = niceTicks(e.setting.horizon);
  const yTicks = niceTicks(maxY);
  const left = MARGIN.left;
  const top = MARGIN.top;
  const bottom = top + PLOT_HEIGHT;
  const sx = (t: number) => left + (t / xTicks.top) * PLOT_WIDTH;
  const sy = (v: number) => bottom - (Math.max(0, v) / yTicks.top) * PLOT_HEIGHT;

  const out = [`<g data-panel="${escapeXml(e.name)}" transform="translate(${origin.x},${origin.y})">`];
  out.push(...panelHeader(e, null));
  out.push(...axes(left, top, bottom, xTicks, yTicks, sx, sy));
  e.curves.forEach((c, k) => {
    const half = halves[k];
    if (!half || c.t.length === 0) return;
    const colour = colours.get(c.policy) as string;
    const upper = c.t.map((t, i) => `${n(sx(t))},${n(sy((c.mean[i] as number) + (half[i] as number)))}`);
    const lower = c.t.map((t, i) => `${n(sx(t))},${n(sy((c.mean[i] as number) - (half[i] as number)))}`).reverse();
    out.push(
      `<path data-band="${escapeXml(c.policy)}" d="M${[...upper, ...lower].join('L')}Z" fill="${colour}" fill-opacity="0.18" stroke="none"/>`,
    );
  });
  for (const c of e.curves) {
    const colour = colours.get(c.policy) as string;
    const line = c.t.map((t, i) => `${n(sx(t))},${n(sy(c.mean[i] as number))}`);
    out.push(
      `<path data-policy="${escapeXml(c.policy)}" d="M${line.join('L')}" fill="none" stroke="${colour}" stroke-width="2" stroke-linejoin="round"/>`,
    );
  }
  out.push(`<text x="${n(left + PLOT_WIDTH / 2)}" y="${n(bottom + 38)}" text-anchor="middle" fill="${INK}">round t</text>`);
  out.push(yTitle('cumulative regret', top));
  out.push('</g>');
  return out;
}

function yTitle(text: string, top: number): string {
  const cy = n(top + PLOT_HEIGHT / 2);
  return `<text x="16" y="${cy}" transform="rotate(-90 16 ${cy})" text-anchor="middle" fill="${INK}">${escapeXml(text)}</text>`;
}

function axes(
  left: number,
  top: number,
  bottom: number,
  xTicks: Ticks,
  yTicks: Ticks,
  sx: (v: number) => number,
  sy: (v: number) => number,
): string[] {
  const right = left + PLOT_WIDTH;
  const out: string[] = [];
  for (const v of yTicks.values) {
    const y = n(sy(v));
    out.push(`<line x1="${n(left)}" y1="${y}" x2="${n(right)}" y2="${y}" stroke="${GRID}"/>`);
    out.push(`<text x="${n(left - 6)}" y="${y}" dy="4" text-anchor="end" fill="${INK}">${tickLabel(v, yTicks)}</text>`);
  }
  for (const v of xTicks.values) {
    const x = n(sx(v));
    out.push(`<line x1="${x}" y1="${n(bottom)}" x2="${x}" y2="${n(bottom + 5)}" stroke="${INK}"/>`);
    out.push(`<text x="${x}" y="${n(bottom + 18)}" text-anchor="middle" fill="${INK}">${tickLabel(v, xTicks)}</text>`);
  }
  out.push(`<line x1="${n(left)}" y1="${n(bottom)}" x2="${n(right)}" y2="${n(bottom)}" stroke="${INK}"/>`);
  out.push(`<line x1="${n(left)}" y1="${n(top)}" x2="${n(left)}" y2="${n(bottom)}" stroke="${INK}"/>`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Fig. 2

/** Fig. 2: mean per-round time (ms) per policy, ±1 std error bars, log scale; one panel per experiment. */
export function renderTimeFigure(experiments: readonly ExperimentSummary[], options: SvgOptions = {}): string {
  const colours = colourMap(experiments);
  const title = 'Fig. 2. Mean per-round time (select + update) with ± 1 sample std';
  const { width, height } = figureSize(experiments.length);
  const out = svgOpen(width, height, title, options);
  out.push(`<text x="${PAD + MARGIN.left}" y="22" font-size="15" font-weight="bold" fill="${INK}">${escapeXml(title)}</text>`);
  out.push(...legend(allPolicies(experiments), colours, false));
  experiments.forEach((e, i) => out.push(...timePanel(e, panelOrigin(i), colours)));
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function timePanel(e: ExperimentSummary, origin: { x: number; y: number }, colours: Map<string, string>): string[] {
  const positive: number[] = [];
  for (const p of e.policies) {
    for (const v of [p.roundMs.mean, p.roundMs.mean + p.roundMs.std, p.roundMs.mean - p.roundMs.std]) {
      if (Number.isFinite(v) && v > 0) positive.push(v);
    }
  }
  let lo = positive.length > 0 ? Math.floor(Math.log10(Math.min(...positive))) : -3;
  let hi = positive.length > 0 ? Math.ceil(Math.log10(Math.max(...positive))) : 0;
  if (hi <= lo) hi = lo + 1;
  // Keep the decade ticks readable: at most 8 decades below the top.
  lo = Math.max(lo, hi - 8);
  const left = MARGIN.left;
  const top = MARGIN.top;
  const bottom = top + PLOT_HEIGHT;
  const right = left + PLOT_WIDTH;
  const floor = 10 ** lo;
  // The top decade sits 16 px below the plot's top edge: room for the value above the tallest bar.
  const sy = (v: number) => bottom - ((Math.log10(Math.max(v, floor)) - lo) / (hi - lo)) * (PLOT_HEIGHT - 16);

  const c = e.comparison;
  const note = c !== null && c.timeReductionPct !== null ? `${EOFD}: ${describeTimeReduction(c.timeReductionPct)} than ${OFUL}` : null;
  const out = [`<g data-panel="${escapeXml(e.name)}" transform="translate(${origin.x},${origin.y})">`];
  out.push(...panelHeader(e, note));
  for (let k = lo; k <= hi; k++) {
    const y = n(sy(10 ** k));
    out.push(`<line x1="${n(left)}" y1="${y}" x2="${n(right)}" y2="${y}" stroke="${GRID}"/>`);
    out.push(`<line x1="${n(left - 5)}" y1="${y}" x2="${n(left)}" y2="${y}" stroke="${INK}"/>`);
    out.push(`<text x="${n(left - 7)}" y="${y}" dy="4" text-anchor="end" fill="${INK}">${decadeLabel(k)}</text>`);
    if (k < hi) {
      for (let j = 2; j <= 9; j++) {
        const ym = n(sy(j * 10 ** k));
        out.push(`<line x1="${n(left - 3)}" y1="${ym}" x2="${n(left)}" y2="${ym}" stroke="${INK}"/>`);
      }
    }
  }
  const slot = PLOT_WIDTH / Math.max(1, e.policies.length);
  const barWidth = Math.min(56, slot * 0.6);
  e.policies.forEach((p, i) => {
    const cx = left + slot * (i + 0.5);
    const colour = colours.get(p.policy) as string;
    const m = p.roundMs.mean;
    const s = p.roundMs.std;
    if (m > 0) {
      const y = sy(m);
      out.push(
        `<rect data-bar="${escapeXml(p.policy)}" x="${n(cx - barWidth / 2)}" y="${n(y)}" width="${n(barWidth)}" height="${n(bottom - y)}" fill="${colour}"/>`,
      );
      const yHigh = sy(m + s);
      const yLow = sy(m - s);
      out.push(`<line x1="${n(cx)}" y1="${n(yHigh)}" x2="${n(cx)}" y2="${n(yLow)}" stroke="${INK}" stroke-width="1.2"/>`);
      for (const yy of [yHigh, yLow]) {
        out.push(`<line x1="${n(cx - 6)}" y1="${n(yy)}" x2="${n(cx + 6)}" y2="${n(yy)}" stroke="${INK}" stroke-width="1.2"/>`);
      }
      out.push(`<text x="${n(cx)}" y="${n(yHigh - 5)}" text-anchor="middle" fill="${INK}">${escapeXml(formatSig(m, 3))}</text>`);
    } else {
      out.push(`<text x="${n(cx)}" y="${n(bottom - 5)}" text-anchor="middle" fill="${INK}">${escapeXml(formatSig(m, 3))}</text>`);
    }
    out.push(`<text x="${n(cx)}" y="${n(bottom + 18)}" text-anchor="middle" fill="${INK}">${escapeXml(p.policy)}</text>`);
  });
  out.push(`<line x1="${n(left)}" y1="${n(bottom)}" x2="${n(right)}" y2="${n(bottom)}" stroke="${INK}"/>`);
  out.push(`<line x1="${n(left)}" y1="${n(top)}" x2="${n(left)}" y2="${n(bottom)}" stroke="${INK}"/>`);
  out.push(`<text x="${n(left + PLOT_WIDTH / 2)}" y="${n(bottom + 38)}" text-anchor="middle" fill="${INK}">policy</text>`);
  out.push(yTitle('per-round time (ms, log scale)', top));
  out.push('</g>');
  return out;
}
