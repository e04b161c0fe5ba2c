/**
 * The paper's figures, drawn with the plotting kit (src/plot/: deterministic SVG, coordinates with two
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
 *   axis (bar lengths compare as the times do) or a log axis with decade ticks (small times stay
 *   visible; a lower whisker below the axis floor is drawn to the floor): by default (`timeAxis:
 *   'auto'`) log in a panel whose learners' times span more than WIDE_TIMES, linear in the others.
 *
 * Each policy has a fixed colour and dash pattern (palette.ts). The legend wraps onto more rows
 * when the policies do not fit on one.
 */
import { axisLines, bottomOf, xAxis, xTitle, yAxis, yTitle, type Frame } from '../plot/axis.js';
import { figureSvg, panelLetter, type Figure } from '../plot/figure.js';
import { band as bandMark, bar, errorBar, line } from '../plot/marks.js';
import { decadeRange, decadeScale, niceScale, slotScale, type Range, type Scale } from '../plot/scale.js';
import { charsWithin, FONT_SIZE, INK, MUTED, text, textWidth } from '../plot/svg.js';
import type { ClaimRow } from './claims.js';
import { describeTimeReduction, formatSig } from './format.js';
import { identicalText } from './identical.js';
import { policyStyles, type PolicyStyle } from './palette.js';
import { wrapText } from './wrap.js';
import { OFUL, EOFD, comparePolicies, type Estimate, type ExperimentSummary, type RegretCurve } from './summarize.js';

/** What Fig. 1's band around the mean shows. */
export const BANDS = ['std', 'ci95'] as const;
export type Band = (typeof BANDS)[number];

/** The band in words, for titles and captions. */
export const BAND_TEXT: Readonly<Record<Band, string>> = {
  std: '± 1 sample std',
  ci95: '95% Student-t interval of the mean',
};

/** Fig. 2's time axis: auto (the default) takes log in a panel whose learners' times are far apart (WIDE_TIMES), else linear. */
export const TIME_AXES = ['auto', 'linear', 'log'] as const;
export type TimeAxis = (typeof TIME_AXES)[number];

/**
 * The ratio of the slowest to the fastest learner's mean per-round time (Random left out: its bar is
 * ~0 on any linear axis) above which `auto` draws a panel on a log axis: on a linear one the fast
 * learner's bar would be under 1/30 of the panel's height (EOFD-MLogB 0.995 ms against OFUL-MLogB's
 * textbook solver 536 ms is a bar of 0.2%).
 */
export const WIDE_TIMES = 30;

/** The axis Fig. 2 draws `e`'s panel on: `axis` itself, or for `auto` log when its learners' times span more than WIDE_TIMES. */
export function panelTimeAxis(e: ExperimentSummary, axis: TimeAxis): 'linear' | 'log' {
  if (axis !== 'auto') return axis;
  const random = new Set(e.randomLabels);
  const means = e.policies.filter((p) => !random.has(p.policy)).map((p) => p.roundMs.mean).filter((m) => Number.isFinite(m) && m > 0);
  return means.length > 1 && Math.max(...means) > WIDE_TIMES * Math.min(...means) ? 'log' : 'linear';
}

/** Fig. 2's scale in words, for its title and caption: "log scale", "linear scale" or which panels are on which. */
export function timeScaleText(experiments: readonly ExperimentSummary[], axis: TimeAxis): string {
  const axes = experiments.map((e) => panelTimeAxis(e, axis));
  if (axis === 'log' || (axes.length > 0 && axes.every((a) => a === 'log'))) return 'log scale';
  if (!axes.includes('log')) return 'linear scale';
  const letters = axes.flatMap((a, i) => (a === 'log' ? [panelLetter(i)] : []));
  return `log scale in ${letters.join(', ')} (learner times over ${WIDE_TIMES}× apart), linear in the others`;
}

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
const MARGIN = { left: 66, right: 18, top: 62, bottom: 50 };
/** A panel's plot area under a header of at most three lines; longer headers push it down (frameBelow). */
const FRAME: Frame = {
  left: MARGIN.left,
  top: MARGIN.top,
  width: PANEL_WIDTH - MARGIN.left - MARGIN.right,
  height: PANEL_HEIGHT - MARGIN.top - MARGIN.bottom,
};

/** Header lines: the first one's baseline, the step between baselines, and the room kept free at a panel's sides. */
const HEADER = { first: 18, step: 16, pad: 6 };

/** One line of a panel's header (its title, the setting, a note), already wrapped to the panel's width. */
interface HeaderLine {
  text: string;
  size: number;
  bold: boolean;
  fill: string;
}

/** Every policy appearing in `experiments`, in report order. */
function allPolicies(experiments: readonly ExperimentSummary[]): string[] {
  const set = new Set<string>();
  for (const e of experiments) for (const p of e.policies) set.add(p.policy);
  for (const e of experiments) for (const p of e.setting.policies) set.add(p);
  return [...set].sort(comparePolicies);
}

/** The setting's parts, shown " · " apart: "synthetic", "d = 400, K = 1", "T = 3000", "10 trials". */
function settingItems(e: ExperimentSummary): string[] {
  const s = e.setting;
  return [s.environment, `d = ${s.d}, K = ${s.K}`, `T = ${s.horizon}`, trialsText(e)];
}

/** Separates the setting's parts on a line. */
const ITEM_SEPARATOR = ' · ';

/** "10 trials", or for a run in progress "in progress: 3 of 6 units". */
function trialsText(e: ExperimentSummary): string {
  const p = e.progress;
  if (!p.complete) return `in progress: ${p.finishedUnits} of ${p.plannedUnits} units`;
  const trials = e.setting.trials;
  return `${trials} trial${trials === 1 ? '' : 's'}`;
}

/**
 * `items` joined by ITEM_SEPARATOR into lines no wider (textWidth) than the panel less its side room,
 * breaking between items, and inside an item (between words; a longer word cut) only when it alone
 * is wider.
 */
function headerWrap(items: readonly string[], size: number, bold: boolean, fill: string): HeaderLine[] {
  const chars = charsWithin(PANEL_WIDTH - 2 * HEADER.pad, size);
  const lines: string[] = [];
  for (const item of items) {
    const last = lines.length - 1;
    const joined = last < 0 ? item : `${lines[last] as string}${ITEM_SEPARATOR}${item}`;
    if (last >= 0 && joined.length <= chars) lines[last] = joined;
    else lines.push(...wrapText(item, chars));
  }
  return lines.map((line) => ({ text: line, size, bold, fill }));
}

/**
 * A panel's header: "(a) name", the setting, and `note` (its own lines at each "\n"), each wrapped to
 * the panel's width, so no line runs past the panel's edge (an SVG clips what does).
 */
function headerLines(e: ExperimentSummary, index: number, note: string | null): HeaderLine[] {
  return [
    ...headerWrap([`${panelLetter(index)} ${e.name}`], 14, true, INK),
    ...headerWrap(settingItems(e), FONT_SIZE, false, e.progress.complete ? MUTED : '#8a4b00'),
    ...(note === null ? [] : note.split('\n').flatMap((line) => headerWrap([line], FONT_SIZE, false, MUTED))),
  ];
}

/** The plot area under the tallest of `headers` (a figure's panels share it, so their axes line up). */
function frameBelow(headers: readonly HeaderLine[][]): Frame {
  const lines = Math.max(0, ...headers.map((h) => h.length));
  const top = Math.max(MARGIN.top, HEADER.first + (lines - 1) * HEADER.step + 12);
  return { ...FRAME, top };
}

/** How much taller than PANEL_HEIGHT a panel with plot area `frame` is. */
function extraHeight(frame: Frame): number {
  return frame.top - FRAME.top;
}

/**
 * The header's lines, each centred over the plot area, or as near as it may be while it stays
 * HEADER.pad inside the panel's edges.
 */
function panelHeader(lines: readonly HeaderLine[], frame: Frame): string[] {
  const centre = frame.left + frame.width / 2;
  return lines.map((line, i) => {
    const half = textWidth(line.text, line.size) / 2;
    const x = Math.max(HEADER.pad + half, Math.min(centre, PANEL_WIDTH - HEADER.pad - half));
    return text(x, HEADER.first + i * HEADER.step, line.text, {
      anchor: 'middle',
      fill: line.fill,
      ...(line.size === FONT_SIZE ? {} : { size: line.size }),
      ...(line.bold ? { bold: true } : {}),
      attributes: { 'data-header': i },
    });
  });
}

/** "no finished trial yet", centred in the plot area. */
function noDataText(frame: Frame): string {
  return text(frame.left + frame.width / 2, frame.top + frame.height / 2, 'no finished trial yet', { anchor: 'middle', fill: MUTED });
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
  const headers = experiments.map((e, i) => headerLines(e, i, identicalNote(e)));
  const frame = frameBelow(headers);
  const title = logY ? 'cumulative regret (log scale)' : 'cumulative regret';
  return {
    title: `Fig. 1. Cumulative regret${logY ? ' (log scale)' : ''}: mean over trials (line), ${BAND_TEXT[band]} (band)`,
    legend: policies.map((p) => ({ label: p, style: styles.get(p) as PolicyStyle, kind: 'band' })),
    panelWidth: PANEL_WIDTH,
    panelHeight: PANEL_HEIGHT + extraHeight(frame),
    plotLeft: frame.left,
    panels: experiments.map((e, i) => ({ name: e.name, elements: curvePanel(e, headers[i] as HeaderLine[], frame, styles, band, e.curves, title, logY) })),
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
  const headers = shown.map((e, i) => headerLines(e, i, null));
  const frame = frameBelow(headers);
  return {
    title: `Fig. 3. Sketch size m_t of the adaptive sketches: mean over trials (line), ${BAND_TEXT[band]} (band)`,
    legend: drawn.map((p) => ({ label: p, style: styles.get(p) as PolicyStyle, kind: 'band' })),
    panelWidth: PANEL_WIDTH,
    panelHeight: PANEL_HEIGHT + extraHeight(frame),
    plotLeft: frame.left,
    panels: shown.map((e, i) => ({ name: e.name, elements: curvePanel(e, headers[i] as HeaderLine[], frame, styles, band, e.sketchCurves, 'sketch size m_t', false) })),
  };
}

/** Fig. 3 as one SVG, or null when no experiment has an adaptive sketch. */
export function renderSketchSizeFigure(experiments: readonly ExperimentSummary[], options: SvgOptions = {}): string | null {
  const figure = sketchSizeFigure(experiments, options.band ?? 'std');
  return figure === null ? null : figureSvg(figure, options.standalone !== false);
}

/** Fig. 1's note above a panel: the policies that decided identically ("A = B in every round"), one line a group; null when none did. */
function identicalNote(e: ExperimentSummary): string | null {
  return e.identical.length === 0 ? null : e.identical.map((group) => identicalText(e, group)).join(';\n');
}

/** One panel of mean curves against round t with their bands (Fig. 1: regret; Fig. 3: m_t), under its header. */
function curvePanel(
  e: ExperimentSummary,
  header: readonly HeaderLine[],
  frame: Frame,
  styles: Map<string, PolicyStyle>,
  band: Band,
  curves: readonly RegretCurve[],
  title: string,
  logY: boolean,
): string[] {
  const bottom = bottomOf(frame);
  const halves = curves.map((c) => bandHalfWidths(c, band));
  const highs: number[] = [];
  curves.forEach((c, k) => c.mean.forEach((m, i) => highs.push(m + (halves[k]?.[i] ?? 0))));
  const x = niceScale(e.setting.horizon, [frame.left, frame.left + frame.width]);
  const y = logY ? logRegretScale(curves, halves, highs, [bottom, frame.top]) : niceScale(Math.max(0, ...highs), [bottom, frame.top]);
  const out = panelHeader(header, frame);
  out.push(...yAxis(frame, y, { marks: logY }), ...xAxis(frame, x), ...axisLines(frame));
  curves.forEach((c, k) => {
    const half = halves[k];
    if (!half || c.t.length === 0) return;
    const edge = (sign: number) => c.t.map((t, i) => [x.at(t), y.at((c.mean[i] as number) + sign * (half[i] as number))] as const);
    out.push(bandMark(edge(1), edge(-1), (styles.get(c.policy) as PolicyStyle).colour, { 'data-band': c.policy }));
  });
  for (const c of curves) {
    if (c.t.length === 0) continue;
    out.push(line(c.t.map((t, i) => [x.at(t), y.at(c.mean[i] as number)] as const), styles.get(c.policy) as PolicyStyle, { 'data-policy': c.policy }));
  }
  if (curves.every((c) => c.t.length === 0)) out.push(noDataText(frame));
  out.push(xTitle(frame, 'round t'), yTitle(frame, title));
  return out;
}

/** Most decades a log axis of Fig. 1 spans below its top (Fig. 2's: TIME_DECADES). */
const MAX_REGRET_DECADES = 6;
const TIME_DECADES = 8;

/**
 * Fig. 1's log axis (--log-y): from the decade at or below the smallest positive mean to the one above
 * the highest band edge; zeros and lower band edges beneath it sit on it, and its label says "≤".
 */
function logRegretScale(curves: readonly RegretCurve[], halves: readonly (number[] | null)[], highs: readonly number[], range: Range): Scale {
  const means = curves.flatMap((c) => c.mean);
  const lows = curves.flatMap((c, k) => c.mean.map((m, i) => m - (halves[k]?.[i] ?? 0)));
  const [lo, hi] = decadeRange(means.filter((v) => v > 0), highs.filter((v) => v > 0), MAX_REGRET_DECADES);
  return decadeScale(lo, hi, range, [...means, ...lows].some((v) => v < 10 ** lo));
}

// ---------------------------------------------------------------------------------------------
// Fig. 2

/** Policy labels under the bars turn by this angle when they do not fit side by side. */
const LABEL_ANGLE = 40;

/** Fig. 2 as parts: mean per-round time (ms) per policy, ±1 std error bars; one panel per experiment. */
export function timeFigure(experiments: readonly ExperimentSummary[], timeAxis: TimeAxis = 'auto', claims: readonly ClaimRow[] = []): Figure {
  const policies = allPolicies(experiments);
  const styles = policyStyles(policies);
  const slot = Math.min(FRAME.width, ...experiments.map((e) => FRAME.width / Math.max(1, e.policies.length)));
  const longest = Math.max(0, ...policies.map((p) => textWidth(p)));
  const turned = longest > slot - 4;
  // Turned labels hang below the axis: width·sin(angle) plus a line's height.
  const labelDepth = turned ? longest * Math.sin((LABEL_ANGLE * Math.PI) / 180) + FONT_SIZE + 12 : 0;
  const headers = experiments.map((e, i) => headerLines(e, i, timeNote(e, claims)));
  const frame = frameBelow(headers);
  return {
    title: `Fig. 2. Mean per-round time (select + update) with ± 1 sample std${timeScaleText(experiments, timeAxis) === 'linear scale' ? '' : `, ${timeScaleText(experiments, timeAxis)}`}`,
    legend: policies.map((p) => ({ label: p, style: styles.get(p) as PolicyStyle, kind: 'box' })),
    panelWidth: PANEL_WIDTH,
    panelHeight: PANEL_HEIGHT + extraHeight(frame) + Math.max(0, Math.ceil(labelDepth - MARGIN.bottom + 8)),
    plotLeft: frame.left,
    panels: experiments.map((e, i) => ({ name: e.name, elements: timePanel(e, headers[i] as HeaderLine[], frame, styles, panelTimeAxis(e, timeAxis), turned) })),
  };
}

/** Fig. 2 as one SVG. */
export function renderTimeFigure(experiments: readonly ExperimentSummary[], options: SvgOptions = {}): string {
  return figureSvg(timeFigure(experiments, options.timeAxis ?? 'auto', options.claims), options.standalone !== false);
}

/** Fig. 2's time axis over `frame`; its top 16 px stay free for the value labels. */
function timeScale(e: ExperimentSummary, timeAxis: 'linear' | 'log', frame: Frame): Scale {
  const range = [bottomOf(frame), frame.top + 16] as const;
  if (timeAxis === 'linear') return niceScale(Math.max(0, ...e.policies.map((p) => p.roundMs.mean + p.roundMs.std).filter(Number.isFinite)), range);
  const positive: number[] = [];
  for (const p of e.policies) {
    for (const v of [p.roundMs.mean, p.roundMs.mean + p.roundMs.std, p.roundMs.mean - p.roundMs.std]) {
      if (Number.isFinite(v) && v > 0) positive.push(v);
    }
  }
  const [lo, hi] = positive.length === 0 ? [-3, 0] : decadeRange(positive, positive, TIME_DECADES);
  return decadeScale(lo, hi, range);
}

/**
 * Fig. 2's line above a panel: EOFD-MLogB's time reduction against OFUL-MLogB, stated only where the
 * report judged the experiment's claim (holds, does not hold, inconclusive); "not judged" where it did
 * not; nothing without a claim (the report's tables carry the numbers). With several OFUL-MLogB labels
 * (e.g. the incremental and the textbook solver) one reduction per judged label, each naming its
 * label and solver, one line each.
 */
export function timeNote(e: ExperimentSummary, claims: readonly ClaimRow[]): string | null {
  const rows = claims.filter((c) => c.experiment === e.name);
  if (rows.length === 0) return null;
  if (rows.every((c) => c.versus === null)) {
    const claim = rows[0] as ClaimRow;
    const reduction = e.comparison?.timeReductionPct ?? null;
    if (reduction === null) return null;
    if (claim.verdict === 'not judged') return 'time difference not judged (see the claims)';
    if (claim.verdict === 'not measured') return null;
    return `${EOFD}: ${describeTimeReduction(reduction)} than ${OFUL}`;
  }
  const judged = rows.filter((c) => c.verdict !== 'not judged' && c.verdict !== 'not measured' && c.timeReductionPct !== null);
  if (judged.length === 0) return rows.some((c) => c.verdict === 'not judged') ? 'time difference not judged (see the claims)' : null;
  const parts = judged.map((c) => `${describeTimeReduction((c.timeReductionPct as Estimate).estimate)} than ${c.reference} (${c.solver})`);
  // Two references make a line wider than the panel: then one line each.
  return `${EOFD}: ${parts.join(parts.length > 1 ? ',\n' : ', ')}`;
}

function timePanel(e: ExperimentSummary, header: readonly HeaderLine[], frame: Frame, styles: Map<string, PolicyStyle>, timeAxis: 'linear' | 'log', turned: boolean): string[] {
  const bottom = bottomOf(frame);
  const y = timeScale(e, timeAxis, frame);
  const x = slotScale(e.policies.map((p) => p.policy), [frame.left, frame.left + frame.width]);
  const out = panelHeader(header, frame);
  out.push(...yAxis(frame, y, { marks: timeAxis === 'log' }));
  const barWidth = Math.min(56, x.width * 0.6);
  e.policies.forEach((p, i) => {
    const cx = x.at(i);
    const m = p.roundMs.mean;
    const s = p.roundMs.std;
    const value = formatSig(m, 3);
    if (m > 0) {
      const yHigh = y.at(m + s);
      out.push(bar(cx, barWidth, y.at(m), bottom, (styles.get(p.policy) as PolicyStyle).colour, { 'data-bar': p.policy }));
      out.push(...errorBar(cx, yHigh, y.at(m - s)));
      out.push(text(cx, yHigh - 5, value, { anchor: 'middle' }));
    } else {
      out.push(text(cx, bottom - 5, value, { anchor: 'middle' }));
    }
    out.push(turned ? text(cx, bottom + 14, p.policy, { anchor: 'end', rotate: -LABEL_ANGLE }) : text(cx, bottom + 18, p.policy, { anchor: 'middle' }));
  });
  if (e.policies.length === 0) out.push(noDataText(frame));
  out.push(...axisLines(frame));
  if (!turned) out.push(xTitle(frame, 'policy'));
  out.push(yTitle(frame, timeAxis === 'log' ? 'per-round time (ms, log scale)' : 'per-round time (ms)'));
  return out;
}
