/**
 * Plain terminal tables: aligned columns, text left, numbers right. Colour (green "holds", red
 * "does not hold", yellow "inconclusive") only when asked for; `shouldColour` decides from the
 * stream and the environment: a TTY and no NO_COLOR (https://no-color.org: set to any non-empty
 * value disables colour).
 */
import { claimLabel, type ClaimRow, type Verdict } from './claims.js';
import { describeRandomCheck, differenceDecimals, formatAdjusted, formatBytes, formatDifference, formatMeanStd, formatP, formatShort, formatWithInterval } from './format.js';
import type { Report } from './report.js';
import { ratioEstimate, type Estimate } from '../stats/ratio.js';
import { EOFD, OFUL, type ExperimentSummary, type HolmTest } from './summarize.js';

export interface TableOptions {
  /** Per column: 'left' (default) or 'right'. */
  align?: readonly ('left' | 'right')[];
  /** Paints a cell after padding (so ANSI codes never disturb alignment). */
  paint?: (text: string, row: number, column: number) => string;
}

export function shouldColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** Width of a string as a terminal shows it (one column per code point; enough for this report). */
function width(text: string): number {
  return [...text].length;
}

/** An aligned table: header, a rule of dashes, rows; columns separated by two spaces. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[], options: TableOptions = {}): string {
  const widths = headers.map((h, c) => Math.max(width(h), ...rows.map((r) => width(r[c] ?? ''))));
  const line = (cellsOf: readonly string[], row: number) =>
    cellsOf
      .map((cell, c) => {
        const pad = ' '.repeat((widths[c] as number) - width(cell));
        const padded = options.align?.[c] === 'right' ? pad + cell : cell + pad;
        return row >= 0 && options.paint ? options.paint(padded, row, c) : padded;
      })
      .join('  ')
      .trimEnd();
  return [line(headers, -1), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map((r, i) => line(r, i))].join('\n') + '\n';
}

const RESET = '\u001b[0m';
/** ANSI colour of a verdict (none for not judged / not measured). */
const VERDICT_COLOUR: Partial<Record<Verdict, string>> = {
  holds: '\u001b[32m',
  'does not hold': '\u001b[31m',
  inconclusive: '\u001b[33m',
};

/** The paper's symbols for the manifest's derived hyperparameters. */
const PAPER_SYMBOLS: Readonly<Record<string, string>> = { lambda: 'λ', eta: 'η', delta: 'δ', beta: 'β', alpha: 'α' };

/** One line saying where and how an experiment ran. */
export function describeExperiment(e: ExperimentSummary): string {
  const s = e.setting;
  const derived = Object.entries(e.derived)
    .filter(([, v]) => typeof v === 'number' || typeof v === 'string')
    .map(([k, v]) => `${PAPER_SYMBOLS[k] ?? k} = ${typeof v === 'number' ? formatShort(v) : v}`)
    .join(', ');
  return (
    `${s.environment}, d = ${s.d}, K = ${s.K}, T = ${s.horizon}, ${s.trials} trial${s.trials === 1 ? '' : 's'}` +
    `${e.progress.complete ? '' : ' planned'}` +
    (derived ? `; ${derived}` : '')
  );
}

/**
 * For a run in progress: "in progress: 3 of 6 units finished (EOFD-MLogB 2, OFUL-MLogB 1, Random 0
 * trials); every number is on the finished trials only"; null once the run is complete.
 */
export function progressLine(e: ExperimentSummary): string | null {
  const p = e.progress;
  if (p.complete) return null;
  const done = new Map(e.policies.map((x) => [x.policy, x.trials]));
  const counts = e.setting.policies.map((policy) => `${policy} ${done.get(policy) ?? 0}`).join(', ');
  return `in progress: ${p.finishedUnits} of ${p.plannedUnits} units finished (${counts} trials); every number is on the finished trials only`;
}

export const POLICY_HEADERS = [
  'policy',
  'final regret',
  'ms/round',
  'state',
  'ρ_{1:T}',
  'projections',
  '‖W_T − W*‖_F',
  'Δ_T',
  'β_T',
] as const;

/** The policy table's headers: POLICY_HEADERS, and m_T when a policy of the experiment reports its final sketch size. */
export function policyHeaders(e: ExperimentSummary): string[] {
  return e.policies.some((p) => p.mT !== null) ? [...POLICY_HEADERS, 'm_T'] : [...POLICY_HEADERS];
}

/** The per-policy rows of one experiment, as text (the columns of `policyHeaders`). */
export function policyRows(e: ExperimentSummary): string[][] {
  const withM = e.policies.some((p) => p.mT !== null);
  return e.policies.map((p) => [
    p.policy,
    formatMeanStd(p.finalRegret),
    formatMeanStd(p.roundMs, 3),
    formatBytes(p.stateBytes),
    formatShort(p.sketchError),
    formatShort(p.projections),
    formatMeanStd(p.parameterError, 3),
    formatMeanStd(p.deltaT),
    formatMeanStd(p.betaT, 3),
    ...(withM ? [formatMeanStd(p.mT, 3)] : []),
  ]);
}

export const PAIRED_HEADERS = [
  'policy',
  'vs',
  'n',
  'regret difference [95% CI]',
  'Holm-adjusted CI',
  'p (Holm)',
  'regret',
  'regret as % of vs [95% CI]',
  'time ratio to vs [95% CI]',
  'Holm-adjusted CI',
  'p (Holm)',
  'time',
] as const;

/** Alignment of PAIRED_HEADERS' columns: labels and verdicts left, numbers right. */
export const PAIRED_ALIGN = PAIRED_HEADERS.map((_, c) => (c < 2 || c === 6 || c === 11 ? ('left' as const) : ('right' as const)));

/** "0.026 (0.052)": raw p and Holm's. */
function pColumn(t: HolmTest): string {
  return `${formatP(t.p)} (${formatP(t.adjustedP)})`;
}

/** The reported comparisons of one experiment: raw 95% intervals, Holm-adjusted ones beside, verdicts. */
export function pairedRows(e: ExperimentSummary): string[][] {
  return e.comparisons.map((c) => {
    const regret = c.regretTest;
    const time = c.timeTest;
    const regretDecimals = differenceDecimals(c.regret);
    // The time quantities are log ratios, shown as ratios t_policy/t_vs (back-transformed).
    const ratio = c.timeLogRatio === null ? null : ratioEstimate(c.timeLogRatio);
    const adjustedTime = time === null ? null : ratioEstimate(time.adjusted);
    const ratioDecimals = ratio === null ? 0 : differenceDecimals(ratio);
    return [
      c.policy,
      c.reference,
      String(c.trials),
      formatDifference(c.regret),
      formatAdjusted(regret.adjusted, regretDecimals),
      pColumn(regret),
      regret.verdict,
      percentCell(c.regretOverhead),
      time === null || ratio === null ? '–' : formatWithInterval(ratio, ratioDecimals, '×'),
      adjustedTime === null ? '–' : formatAdjusted(adjustedTime, ratioDecimals),
      time === null ? '–' : pColumn(time),
      time === null ? '–' : time.verdict,
    ];
  });
}

function percentCell(x: Estimate | null): string {
  return x === null ? '–' : formatWithInterval(x, 1, '%');
}

/** The sentence above an experiment's comparisons table: what is compared with what, and the families. */
export function comparisonsTitle(e: ExperimentSummary): string {
  const versus = e.reference === null ? 'every pair of policies' : `each policy against ${e.reference} (the reference)`;
  const note = e.referenceNote === null ? '' : ` (${e.referenceNote})`;
  return (
    `Paired by trial, ${versus}${note}. Families for Holm: the ${e.comparisons.length} comparison` +
    `${e.comparisons.length === 1 ? '' : 's'} of final regret, and those of per-round time (not against Random):`
  );
}

/** Notes under the comparisons table: why a ratio is not shown (time only where it is compared: not with Random). */
export function comparisonNotes(e: ExperimentSummary): string[] {
  const random = new Set(e.randomLabels);
  return e.comparisons.flatMap((c) => {
    const timeCompared = !random.has(c.policy) && !random.has(c.reference);
    return [c.regretRatioNote, timeCompared ? c.timeRatioNote : null]
      .filter((note): note is string => note !== null)
      .map((note) => `${c.policy} vs ${c.reference}: no ratio (${note})`);
  });
}

/** How the comparisons control multiplicity and what the columns mean (terminal and report.html). */
export const MULTIPLICITY_RULE =
  'Each table compares every policy with one reference (eofd report --reference LABEL; default the first learner ' +
  'of the experiment\'s policy list; --all-pairs for every pair). Multiplicity: within one experiment, the ' +
  'comparisons of one quantity (final regret; per-round time) form one family, controlled by Holm. Sorted by ' +
  'raw p (two-sided paired t test), the i-th smallest of m gets the interval at level 1 − 0.05/(m − i + 1), and ' +
  'from the first one Holm does not reject on, later ones keep that level; p (Holm) is the adjusted p. A ' +
  'Holm-adjusted interval excludes 0 exactly when Holm rejects at family-wise level 5%: the chance that a ' +
  'family shows any lower/higher verdict between policies that do not differ is at most 5%. The adjusted ' +
  'intervals are not simultaneous confidence intervals; the raw 95% intervals are beside them. The verdicts ' +
  '(lower, higher, inconclusive: policy against vs) are read from the adjusted interval. Ratios (regret as % of ' +
  'vs, time ratio) are per-trial log ratios, Student-t interval of their mean, back-transformed (exp).';

/**
 * "EOFD-MLogB vs OFUL-MLogB (paired, n = 3, 95% CIs from per-trial log ratios): per-round time reduction
 * 67.1% [59.0, 73.5], regret overhead 10.1% [7.6, 12.6]" (raw intervals), or null.
 */
export function comparisonLine(e: ExperimentSummary): string | null {
  const c = e.comparison;
  if (c === null) return null;
  return (
    `${EOFD} vs ${OFUL} (paired, n = ${c.trials}, 95% CIs from per-trial log ratios): per-round time reduction ` +
    `${percentCell(c.timeReduction)}, regret overhead ${percentCell(c.regretOverhead)}`
  );
}

/** One line per learner whose final regret is not shown below Random's. */
export function randomFlags(e: ExperimentSummary): string[] {
  return e.randomCheck
    .filter((c) => c.flagged)
    .map((c) => `warning: ${c.policy}'s final regret is not shown below ${c.random}'s: ${describeRandomCheck(c)}`);
}

export const CLAIM_HEADERS = [
  'claim',
  'paper',
  'n',
  'regret overhead % [95% CI]',
  'time reduction % [95% CI]',
  'verdict',
  'reason',
] as const;

/** Index of the verdict in CLAIM_HEADERS (for colour). */
export const VERDICT_COLUMN = CLAIM_HEADERS.indexOf('verdict');

/** One row per claim and experiment: EOFD-MLogB vs OFUL-MLogB, paired. */
export function claimRows(claims: readonly ClaimRow[]): string[][] {
  return claims.map((c) => [
    claimLabel(c),
    c.paper,
    c.trials === null ? '–' : String(c.trials),
    percentCell(c.regretOverheadPct),
    percentCell(c.timeReductionPct),
    c.verdict,
    c.reason,
  ]);
}

/** What the report judges claims on, in one sentence (terminal and report.html). */
export const CLAIMS_RULE =
  'EOFD-MLogB vs OFUL-MLogB, paired by trial; both numbers are ratios, with 95% intervals from per-trial log ' +
  'ratios (back-transformed). Each claim is one prespecified comparison and holds only when both intervals ' +
  'do, so they are not adjusted for multiplicity. holds: both 95% intervals inside the region; does not hold: ' +
  'one entirely outside; inconclusive: one straddles a threshold; not judged: fewer than 3 trials, a learner ' +
  'not shown below Random, or timings not taken one unit at a time.';

/** The whole report as terminal text. */
export function renderTerminal(report: Report, options: { colour: boolean }): string {
  const parts: string[] = [report.title, ''];
  for (const e of report.experiments) {
    const progress = progressLine(e);
    parts.push(`${e.name}  (${e.dir})${progress === null ? '' : '  IN PROGRESS'}`);
    parts.push(describeExperiment(e));
    if (progress !== null) parts.push(progress);
    parts.push('');
    const headers = policyHeaders(e);
    parts.push(formatTable(headers, policyRows(e), { align: ['left', ...headers.slice(1).map(() => 'right' as const)] }));
    const flags = randomFlags(e);
    if (flags.length > 0) parts.push(...flags, '');
    const line = comparisonLine(e);
    if (line !== null) parts.push(line, '');
    const paired = pairedRows(e);
    if (paired.length > 0) {
      parts.push(comparisonsTitle(e), '');
      parts.push(formatTable(PAIRED_HEADERS, paired, { align: PAIRED_ALIGN }));
      const notes = comparisonNotes(e);
      if (notes.length > 0) parts.push(...notes, '');
    }
  }
  if (report.experiments.some((e) => e.comparisons.length > 0)) parts.push(MULTIPLICITY_RULE, '');
  if (report.claims.length > 0) {
    parts.push("The paper's claims (Section 4)");
    parts.push(CLAIMS_RULE, '');
    const paint = (text: string, row: number, column: number): string => {
      const colour = column === VERDICT_COLUMN ? VERDICT_COLOUR[report.claims[row]?.verdict ?? 'not measured'] : undefined;
      return colour === undefined ? text : colour + text + RESET;
    };
    parts.push(formatTable(CLAIM_HEADERS, claimRows(report.claims), { paint: options.colour ? paint : undefined }));
  }
  return parts.join('\n');
}
