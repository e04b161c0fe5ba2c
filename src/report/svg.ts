/**
 * The paper's figures as plain, hand-written SVG (no dependencies, deterministic: coordinates with two
 * decimals, no timestamps), one panel per experiment, lettered (a), (b), (c) in the order given
 * (buildReport gives the paper's: MNIST, synthetic multinomial, synthetic binary), at most three
 * panels per row. Every SVG scales to its container: `width="100%"` with a viewBox and a max-width of
 * its natural size, so a narrow window shrinks it instead of cutting it off.
 *
 * - Fig. 1: cumulative regret against round t; per policy the mean over trials as a line (one
 *   `<path data-policy="…">` per policy per panel) and a translucent band (`<path data-band="…">`;
 *   its lower edge is clamped at 0, since cumulative regret is ≥ 0): ±1 sample std as in the paper
 *   (`band: 'std'`, Section 4), or the 95% Student-t interval of the mean (`'ci95'`; no band for a
 *   single trial).
 * - Fig. 2: mean per-round time (ms) per policy as bars with ±1 sample-std error bars, on a linear
 *   axis (default: bar lengths compare as the times do) or a log axis with decade ticks (`timeAxis:
 *   'log'`: small times stay visible; a lower whisker below the axis floor is drawn to the floor).
 *
 * Each policy has a fixed colour and dash pattern (palette.ts). The legend wraps onto more rows
 * when the policies do not fit on one.
 */
import type { ClaimRow } from './claims.js';
import { describeTimeReduction, fixed, formatSig } from './format.js';
import { identicalText } from './identical.js';
import { dashAttribute, policyStyles, type PolicyStyle } from './palette.js';
import { OFUL, EOFD, comparePolicies, type ExperimentSummary, type RegretCurve } from './summarize.js';

export { POLICY_COLOURS } from './palette.js';

/** What Fig. 1's band around the mean shows. */
export const BANDS = ['std', 'ci95'] as const;
export type Band = (typeof BANDS)[number];

/** The band in words, for titles and captions. */
export const BAND_TEXT: Readonly<Record<Band, string>> = {
  std: '± 1 sample std',
  ci95: '95% Student-t interval of the mean',
};

/** Fig. 2's time axis. */
export const TIME_AXES = ['linear', 'log'] as const;
export type TimeAxis = (typeof TIME_AXES)[number];

export interface SvgOptions {
  /** true (default): a standalone file with the SVG namespace; false: for inlining in HTML. */
  standalone?: boolean;
  /** Fig. 1's band: ±1 sample std (default) or the 95% interval of the mean. */
  band?: Band;
  /** Fig. 2's time axis: linear (default) or log. */
  timeAxis?: TimeAxis;
  /** Fig. 1's regret axis on a log scale (default linear). */
  logY?: boolean;
  /** The report's claims: Fig. 2 states a time difference only where its claim was judged. */
  claims?: readonly ClaimRow[];
}

const PANEL_WIDTH = 380;
const PANEL_HEIGHT = 300;
const PANELS_PER_ROW = 3;
const PAD = 10;
const MARGIN = { left: 66, right: 18, top: 62, bottom: 50 };
const PLOT_WIDTH = PANEL_WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = PANEL_HEIGHT - MARGIN.top - MARGIN.bottom;
const GRID = '#e4e4e4';
export const INK = '#222222';
export const MUTED = '#555555';
/** Font size of ordinary text (px) and an upper estimate of a sans-serif character's advance (em). */
export const FONT_SIZE = 12;
const CHAR_EM = 0.62;
/** Legend: swatch width, gap after the swatch, gap between items, row height (px). */
export const LEGEND = { swatch: 30, gap: 6, spacing: 22, row: 20 };

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** A coordinate: two decimals, never "-0.00". */
export function n(x: number): string {
  return fixed(x, 2);
}

/** Upper estimate of the width (px) of `text` at `fontSize` in a sans-serif font. */
export function textWidth(text: string, fontSize = FONT_SIZE): number {
  return text.length * fontSize * CHAR_EM;
}

/** Every policy appearing in `experiments`, in report order. */
function allPolicies(experiments: readonly ExperimentSummary[]): string[] {
  const set = new Set<string>();
  for (const e of experiments) for (const p of e.policies) set.add(p.policy);
  for (const e of experiments) for (const p of e.setting.policies) set.add(p);
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

/**
 * The opening of an SVG of natural size `width` × `height` that scales to its container (never above
 * its natural width), its title and a white background.
 */
export function svgOpen(width: number, height: number, title: string, standalone = true, attributes = ''): string[] {
  const ns = standalone ? ' xmlns="http://www.w3.org/2000/svg"' : '';
  return [
    `<svg${ns}${attributes} width="100%" viewBox="0 0 ${n(width)} ${n(height)}" style="max-width:${n(width)}px;height:auto" ` +
      `font-family="sans-serif" font-size="${FONT_SIZE}" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect x="0" y="0" width="${n(width)}" height="${n(height)}" fill="#ffffff"/>`,
  ];
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

// ---------------------------------------------------------------------------------------------
// Legend

/** One legend entry: a line swatch (with a band behind it) or a filled square, and a label. */
export interface LegendItem {
  label: string;
  style: PolicyStyle;
  kind: 'line' | 'box';
}

/** Each item's (x, row) when the items are laid out left to right, wrapping at `maxWidth`. */
export function legendLayout(items: readonly LegendItem[], maxWidth: number): { x: number; row: number }[] {
  let x = 0;
  let row = 0;
  return items.map((item) => {
    const width = LEGEND.swatch + LEGEND.gap + textWidth(item.label);
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
  return [
    `<rect x="${n(x)}" y="${n(y - 6)}" width="${LEGEND.swatch}" height="12" fill="${colour}" fill-opacity="0.18"/>`,
    `<line x1="${n(x)}" y1="${n(y)}" x2="${n(x + LEGEND.swatch)}" y2="${n(y)}" stroke="${colour}" stroke-width="2.5"${dashAttribute(item.style)}/>`,
  ];
}

/** The legend as SVG elements, wrapped at `maxWidth`, its first row centred on `top`; returns its rows. */
export function legend(items: readonly LegendItem[], left: number, top: number, maxWidth: number): { elements: string[]; rows: number } {
  const layout = legendLayout(items, maxWidth);
  const elements: string[] = ['<g data-legend="">'];
  items.forEach((item, i) => {
    const { x, row } = layout[i] as { x: number; row: number };
    const y = top + row * LEGEND.row;
    elements.push(...legendSwatch(item, left + x, y));
    elements.push(
      `<text x="${n(left + x + LEGEND.swatch + LEGEND.gap)}" y="${n(y + 4)}" fill="${INK}" data-legend-item="${escapeXml(item.label)}">${escapeXml(item.label)}</text>`,
    );
  });
  elements.push('</g>');
  return { elements, rows: layout.length === 0 ? 0 : (layout[layout.length - 1] as { row: number }).row + 1 };
}

// ---------------------------------------------------------------------------------------------
// Figures: a title, a legend and panels

/** One figure as parts: html.ts lays the panels out with CSS, the composite below with coordinates. */
export interface Figure {
  title: string;
  legend: LegendItem[];
  /** Panel width and height (px); every panel's elements are in its own 0..width × 0..height box. */
  panelWidth: number;
  panelHeight: number;
  panels: { name: string; elements: string[] }[];
}

/** The figure as one SVG: title, wrapped legend, panels three to a row. */
export function figureSvg(figure: Figure, standalone = true): string {
  const columns = Math.max(1, Math.min(PANELS_PER_ROW, figure.panels.length));
  const rows = Math.max(1, Math.ceil(figure.panels.length / PANELS_PER_ROW));
  const width = 2 * PAD + columns * figure.panelWidth;
  const legendLeft = PAD + MARGIN.left;
  const titleWidth = textWidth(figure.title, 15) + legendLeft + PAD;
  const fullWidth = Math.max(width, titleWidth);
  const drawn = legend(figure.legend, legendLeft, 44, fullWidth - legendLeft - PAD);
  const header = 44 + Math.max(0, drawn.rows - 1) * LEGEND.row + 18;
  const height = header + rows * figure.panelHeight + PAD;
  const out = svgOpen(fullWidth, height, figure.title, standalone);
  out.push(`<text x="${legendLeft}" y="22" font-size="15" font-weight="bold" fill="${INK}">${escapeXml(figure.title)}</text>`);
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

function settingLine(e: ExperimentSummary): string {
  const s = e.setting;
  return `${s.environment} · d = ${s.d}, K = ${s.K} · T = ${s.horizon} · ${trialsText(e)}`;
}

/** "10 trials", or for a run in progress "in progress: 3 of 6 units". */
function trialsText(e: ExperimentSummary): string {
  const p = e.progress;
  if (!p.complete) return `in progress: ${p.finishedUnits} of ${p.plannedUnits} units`;
  const trials = e.setting.trials;
  return `${trials} trial${trials === 1 ? '' : 's'}`;
}

function panelHeader(e: ExperimentSummary, index: number, extra: string | null): string[] {
  const cx = n(MARGIN.left + PLOT_WIDTH / 2);
  const out = [
    `<text x="${cx}" y="18" text-anchor="middle" font-size="14" font-weight="bold" fill="${INK}">${escapeXml(`${panelLetter(index)} ${e.name}`)}</text>`,
    `<text x="${cx}" y="34" text-anchor="middle" fill="${e.progress.complete ? MUTED : '#8a4b00'}">${escapeXml(settingLine(e))}</text>`,
  ];
  if (extra !== null) out.push(`<text x="${cx}" y="50" text-anchor="middle" fill="${MUTED}">${escapeXml(extra)}</text>`);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Fig. 1

/** Half-widths of a curve's band at each point, or null when there is none (ci95 of one trial). */
export function bandHalfWidths(curve: RegretCurve, band: Band): number[] | null {
  return band === 'std' ? curve.std : curve.ci95;
}

/** Fig. 1 as parts: cumulative regret vs round t, mean over trials with a band, one panel per experiment. */
export function regretFigure(experiments: readonly ExperimentSummary[], band: Band = 'std', logY = false): Figure {
  const policies = allPolicies(experiments);
  const styles = policyStyles(policies);
  return {
    title: `Fig. 1. Cumulative regret${logY ? ' (log scale)' : ''}: mean over trials (line), ${BAND_TEXT[band]} (band)`,
    legend: policies.map((p) => ({ label: p, style: styles.get(p) as PolicyStyle, kind: 'line' })),
    panelWidth: PANEL_WIDTH,
    panelHeight: PANEL_HEIGHT,
    panels: experiments.map((e, i) => ({ name: e.name, elements: regretPanel(e, i, styles, band, logY) })),
  };
}

/** Fig. 1 as one SVG. */
export function renderRegretFigure(experiments: readonly ExperimentSummary[], options: SvgOptions = {}): string {
  return figureSvg(regretFigure(experiments, options.band ?? 'std', options.logY === true), options.standalone !== false);
}

/**
 * Fig. 3 as parts, for runs with an adaptive sketch size (params.m: adaptive): m_t against round t,
 * mean over trials with a band, one panel per experiment that has such a policy; null when none has.
 */
export function sketchSizeFigure(experiments: readonly ExperimentSummary[], band: Band = 'std'): Figure | null {
  const shown = experiments.filter((e) => e.sketchCurves.length > 0);
  if (shown.length === 0) return null;
  const policies = allPolicies(experiments);
  const styles = policyStyles(policies);
  const drawn = policies.filter((p) => shown.some((e) => e.sketchCurves.some((c) => c.policy === p)));
  return {
    title: `Fig. 3. Sketch size m_t of the adaptive sketches: mean over trials (line), ${BAND_TEXT[band]} (band)`,
    legend: drawn.map((p) => ({ label: p, style: styles.get(p) as PolicyStyle, kind: 'line' })),
    panelWidth: PANEL_WIDTH,
    panelHeight: PANEL_HEIGHT,
    panels: shown.map((e, i) => ({ name: e.name, elements: curvePanel(e, i, styles, band, e.sketchCurves, 'sketch size m_t', null, false) })),
  };
}

/** Fig. 3 as one SVG, or null when no experiment has an adaptive sketch. */
export function renderSketchSizeFigure(experiments: readonly ExperimentSummary[], options: SvgOptions = {}): string | null {
  const figure = sketchSizeFigure(experiments, options.band ?? 'std');
  return figure === null ? null : figureSvg(figure, options.standalone !== false);
}

/** Fig. 1's panel; policies that decided identically are named above the plot ("A = B in every round"). */
function regretPanel(e: ExperimentSummary, index: number, styles: Map<string, PolicyStyle>, band: Band, logY: boolean): string[] {
  const same = e.identical.map((group) => identicalText(e, group));
  return curvePanel(e, index, styles, band, e.curves, logY ? 'cumulative regret (log scale)' : 'cumulative regret', same.length === 0 ? null : same.join('; '), logY);
}

/** One panel of mean curves against round t with their bands (Fig. 1: regret; Fig. 3: m_t). */
function curvePanel(
  e: ExperimentSummary,
  index: number,
  styles: Map<string, PolicyStyle>,
  band: Band,
  curves: readonly RegretCurve[],
  title: string,
  note: string | null,
  logY: boolean,
): string[] {
  const halves = curves.map((c) => bandHalfWidths(c, band));
  const highs: number[] = [];
  curves.forEach((c, k) => c.mean.forEach((m, i) => highs.push(m + (halves[k]?.[i] ?? 0))));
  const xTicks = niceTicks(e.setting.horizon);
  const left = MARGIN.left;
  const top = MARGIN.top;
  const bottom = top + PLOT_HEIGHT;
  const sx = (t: number) => left + (t / xTicks.top) * PLOT_WIDTH;
  const { sy, ticks } = logY ? logRegretScale(curves, halves, highs, left, bottom) : linearScale(highs, left, bottom, PLOT_HEIGHT);
  const out = panelHeader(e, index, note);
  out.push(...axes(left, top, bottom, ticks, xTicks, sx));
  curves.forEach((c, k) => {
    const half = halves[k];
    if (!half || c.t.length === 0) return;
    const colour = (styles.get(c.policy) as PolicyStyle).colour;
    const upper = c.t.map((t, i) => `${n(sx(t))},${n(sy((c.mean[i] as number) + (half[i] as number)))}`);
    const lower = c.t.map((t, i) => `${n(sx(t))},${n(sy((c.mean[i] as number) - (half[i] as number)))}`).reverse();
    out.push(
      `<path data-band="${escapeXml(c.policy)}" d="M${[...upper, ...lower].join('L')}Z" fill="${colour}" fill-opacity="0.18" stroke="none"/>`,
    );
  });
  for (const c of curves) {
    if (c.t.length === 0) continue;
    const style = styles.get(c.policy) as PolicyStyle;
    const line = c.t.map((t, i) => `${n(sx(t))},${n(sy(c.mean[i] as number))}`);
    out.push(
      `<path data-policy="${escapeXml(c.policy)}" d="M${line.join('L')}" fill="none" stroke="${style.colour}" stroke-width="2" stroke-linejoin="round"${dashAttribute(style)}/>`,
    );
  }
  if (curves.every((c) => c.t.length === 0)) out.push(noDataText(left, top));
  out.push(`<text x="${n(left + PLOT_WIDTH / 2)}" y="${n(bottom + 38)}" text-anchor="middle" fill="${INK}">round t</text>`);
  out.push(yTitle(title, top));
  return out;
}

/** A y axis from 0 to a round number ≥ the largest of `highs`, `height` px up from `bottom`, with its grid. */
function linearScale(highs: readonly number[], left: number, bottom: number, height: number): { sy: (v: number) => number; ticks: string[] } {
  const yTicks = niceTicks(Math.max(0, ...highs));
  const sy = (v: number) => bottom - (Math.max(0, v) / yTicks.top) * height;
  return { sy, ticks: yGrid(left, yTicks, sy) };
}

/**
 * Fig. 1's log axis (--log-y): from the decade at or below the smallest positive mean to the one above
 * the highest band edge; zeros and lower band edges beneath it sit on it, and its label says "≤".
 */
function logRegretScale(
  curves: readonly RegretCurve[],
  halves: readonly (number[] | null)[],
  highs: readonly number[],
  left: number,
  bottom: number,
): { sy: (v: number) => number; ticks: string[] } {
  const means = curves.flatMap((c) => c.mean);
  const lows = curves.flatMap((c, k) => c.mean.map((m, i) => m - (halves[k]?.[i] ?? 0)));
  const [lo, hi] = decadeRange(means.filter((v) => v > 0), highs.filter((v) => v > 0), MAX_REGRET_DECADES);
  return logAxis(lo, hi, left, bottom, PLOT_HEIGHT, [...means, ...lows].some((v) => v < 10 ** lo));
}

/** "no finished trial yet", centred in the plot area. */
function noDataText(left: number, top: number): string {
  return `<text x="${n(left + PLOT_WIDTH / 2)}" y="${n(top + PLOT_HEIGHT / 2)}" text-anchor="middle" fill="${MUTED}">no finished trial yet</text>`;
}

function yTitle(text: string, top: number): string {
  const cy = n(top + PLOT_HEIGHT / 2);
  return `<text x="16" y="${cy}" transform="rotate(-90 16 ${cy})" text-anchor="middle" fill="${INK}">${escapeXml(text)}</text>`;
}

/** Horizontal grid lines with y tick labels at `yTicks`. */
function yGrid(left: number, yTicks: Ticks, sy: (v: number) => number): string[] {
  const out: string[] = [];
  for (const v of yTicks.values) {
    const y = n(sy(v));
    out.push(`<line x1="${n(left)}" y1="${y}" x2="${n(left + PLOT_WIDTH)}" y2="${y}" stroke="${GRID}"/>`);
    out.push(`<text x="${n(left - 6)}" y="${y}" dy="4" text-anchor="end" fill="${INK}">${tickLabel(v, yTicks)}</text>`);
  }
  return out;
}

/** The plot's left and bottom axis lines. */
function axisLines(left: number, top: number, bottom: number): string[] {
  return [
    `<line x1="${n(left)}" y1="${n(bottom)}" x2="${n(left + PLOT_WIDTH)}" y2="${n(bottom)}" stroke="${INK}"/>`,
    `<line x1="${n(left)}" y1="${n(top)}" x2="${n(left)}" y2="${n(bottom)}" stroke="${INK}"/>`,
  ];
}

/** The y axis's grid and labels (`yTicks`, drawn), the x axis's ticks and labels, and both axis lines. */
function axes(left: number, top: number, bottom: number, yTicks: readonly string[], xTicks: Ticks, sx: (v: number) => number): string[] {
  const out = [...yTicks];
  for (const v of xTicks.values) out.push(...xTick(v, xTicks, sx, bottom));
  out.push(...axisLines(left, top, bottom));
  return out;
}

/** A tick mark and label on the x axis. */
function xTick(v: number, xTicks: Ticks, sx: (v: number) => number, bottom: number): string[] {
  const x = n(sx(v));
  return [
    `<line x1="${x}" y1="${n(bottom)}" x2="${x}" y2="${n(bottom + 5)}" stroke="${INK}"/>`,
    `<text x="${x}" y="${n(bottom + 18)}" text-anchor="middle" fill="${INK}">${tickLabel(v, xTicks)}</text>`,
  ];
}

/** Most decades a log axis of Fig. 1 spans below its top (Fig. 2's: TIME_DECADES). */
const MAX_REGRET_DECADES = 6;
const TIME_DECADES = 8;

/**
 * [lo, hi]: decades 10^lo ≤ the smallest of `lows` and 10^hi ≥ the largest of `highs` (all > 0),
 * at least one and at most `maxDecades` apart; [−1, 0] when there is nothing to show.
 */
export function decadeRange(lows: readonly number[], highs: readonly number[], maxDecades: number): [number, number] {
  const all = [...lows, ...highs];
  if (all.length === 0) return [-1, 0];
  let hi = Math.ceil(Math.log10(Math.max(...all)));
  const lo = lows.length === 0 ? hi - 1 : Math.floor(Math.log10(Math.min(...lows)));
  if (hi <= lo) hi = lo + 1;
  return [Math.max(lo, hi - maxDecades), hi];
}

/**
 * A log axis from 10^lo to 10^hi, `height` px up from `bottom`: values at or below 10^lo are drawn on
 * it, and with `floored` its label says so ("≤0.01"). Grid lines and labels at the decades, minor
 * ticks at 2..9 × 10^k.
 */
function logAxis(lo: number, hi: number, left: number, bottom: number, height: number, floored: boolean): { sy: (v: number) => number; ticks: string[] } {
  const floor = 10 ** lo;
  const sy = (v: number) => bottom - ((Math.log10(Math.max(v, floor)) - lo) / (hi - lo)) * height;
  const ticks: string[] = [];
  for (let k = lo; k <= hi; k++) {
    const y = n(sy(10 ** k));
    const label = `${k === lo && floored ? '≤' : ''}${decadeLabel(k)}`;
    ticks.push(`<line x1="${n(left)}" y1="${y}" x2="${n(left + PLOT_WIDTH)}" y2="${y}" stroke="${GRID}"/>`);
    ticks.push(`<line x1="${n(left - 5)}" y1="${y}" x2="${n(left)}" y2="${y}" stroke="${INK}"/>`);
    ticks.push(`<text x="${n(left - 7)}" y="${y}" dy="4" text-anchor="end" fill="${INK}">${escapeXml(label)}</text>`);
    if (k < hi) {
      for (let j = 2; j <= 9; j++) {
        const ym = n(sy(j * 10 ** k));
        ticks.push(`<line x1="${n(left - 3)}" y1="${ym}" x2="${n(left)}" y2="${ym}" stroke="${INK}"/>`);
      }
    }
  }
  return { sy, ticks };
}

// ---------------------------------------------------------------------------------------------
// Fig. 2

/** Policy labels under the bars turn by this angle when they do not fit side by side. */
const LABEL_ANGLE = 40;

/** Fig. 2 as parts: mean per-round time (ms) per policy, ±1 std error bars; one panel per experiment. */
export function timeFigure(experiments: readonly ExperimentSummary[], timeAxis: TimeAxis = 'linear', claims: readonly ClaimRow[] = []): Figure {
  const policies = allPolicies(experiments);
  const styles = policyStyles(policies);
  const slot = Math.min(PLOT_WIDTH, ...experiments.map((e) => PLOT_WIDTH / Math.max(1, e.policies.length)));
  const longest = Math.max(0, ...policies.map((p) => textWidth(p)));
  const turned = longest > slot - 4;
  // Turned labels hang below the axis: width·sin(angle) plus a line's height.
  const labelDepth = turned ? longest * Math.sin((LABEL_ANGLE * Math.PI) / 180) + FONT_SIZE + 12 : 0;
  return {
    title: `Fig. 2. Mean per-round time (select + update) with ± 1 sample std${timeAxis === 'log' ? ', log scale' : ''}`,
    legend: policies.map((p) => ({ label: p, style: styles.get(p) as PolicyStyle, kind: 'box' })),
    panelWidth: PANEL_WIDTH,
    panelHeight: PANEL_HEIGHT + Math.max(0, Math.ceil(labelDepth - MARGIN.bottom + 8)),
    panels: experiments.map((e, i) => ({ name: e.name, elements: timePanel(e, i, styles, timeAxis, turned, timeNote(e, claims)) })),
  };
}

/** Fig. 2 as one SVG. */
export function renderTimeFigure(experiments: readonly ExperimentSummary[], options: SvgOptions = {}): string {
  return figureSvg(timeFigure(experiments, options.timeAxis ?? 'linear', options.claims), options.standalone !== false);
}

/** The value → y map of Fig. 2's axis and its tick marks; the top 16 px stay free for the value labels. */
function timeScale(e: ExperimentSummary, timeAxis: TimeAxis, left: number, bottom: number): { sy: (v: number) => number; ticks: string[] } {
  const height = PLOT_HEIGHT - 16;
  if (timeAxis === 'linear') {
    return linearScale(e.policies.map((p) => p.roundMs.mean + p.roundMs.std).filter(Number.isFinite), left, bottom, height);
  }
  const positive: number[] = [];
  for (const p of e.policies) {
    for (const v of [p.roundMs.mean, p.roundMs.mean + p.roundMs.std, p.roundMs.mean - p.roundMs.std]) {
      if (Number.isFinite(v) && v > 0) positive.push(v);
    }
  }
  const [lo, hi] = positive.length === 0 ? [-3, 0] : decadeRange(positive, positive, TIME_DECADES);
  return logAxis(lo, hi, left, bottom, height, false);
}

/**
 * Fig. 2's line above a panel: EOFD-MLogB's time reduction against OFUL-MLogB, stated only where the
 * report judged the experiment's claim (holds, does not hold, inconclusive); "not judged" where it did
 * not; nothing without a claim (the report's tables carry the numbers).
 */
export function timeNote(e: ExperimentSummary, claims: readonly ClaimRow[]): string | null {
  const claim = claims.find((c) => c.experiment === e.name);
  const reduction = e.comparison?.timeReductionPct ?? null;
  if (claim === undefined || reduction === null) return null;
  if (claim.verdict === 'not judged') return 'time difference not judged (see the claims)';
  if (claim.verdict === 'not measured') return null;
  return `${EOFD}: ${describeTimeReduction(reduction)} than ${OFUL}`;
}

function timePanel(e: ExperimentSummary, index: number, styles: Map<string, PolicyStyle>, timeAxis: TimeAxis, turned: boolean, note: string | null): string[] {
  const left = MARGIN.left;
  const top = MARGIN.top;
  const bottom = top + PLOT_HEIGHT;
  const { sy, ticks } = timeScale(e, timeAxis, left, bottom);
  const out = panelHeader(e, index, note);
  out.push(...ticks);
  const slot = PLOT_WIDTH / Math.max(1, e.policies.length);
  const barWidth = Math.min(56, slot * 0.6);
  e.policies.forEach((p, i) => {
    const cx = left + slot * (i + 0.5);
    const colour = (styles.get(p.policy) as PolicyStyle).colour;
    const m = p.roundMs.mean;
    const s = p.roundMs.std;
    const y = sy(m);
    if (m > 0) {
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
    const label = escapeXml(p.policy);
    out.push(
      turned
        ? `<text x="${n(cx)}" y="${n(bottom + 14)}" text-anchor="end" transform="rotate(-${LABEL_ANGLE} ${n(cx)} ${n(bottom + 14)})" fill="${INK}">${label}</text>`
        : `<text x="${n(cx)}" y="${n(bottom + 18)}" text-anchor="middle" fill="${INK}">${label}</text>`,
    );
  });
  if (e.policies.length === 0) out.push(noDataText(left, top));
  out.push(...axisLines(left, top, bottom));
  if (!turned) out.push(`<text x="${n(left + PLOT_WIDTH / 2)}" y="${n(bottom + 38)}" text-anchor="middle" fill="${INK}">policy</text>`);
  out.push(yTitle(timeAxis === 'log' ? 'per-round time (ms, log scale)' : 'per-round time (ms)', top));
  return out;
}
