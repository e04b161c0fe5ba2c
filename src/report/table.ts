/**
 * Plain terminal tables: aligned columns, text left, numbers right. Colour (green "holds", red
 * "does not hold", yellow "inconclusive") only when asked for; `shouldColour` decides from the
 * stream and the environment: a TTY and no NO_COLOR (https://no-color.org: set to any non-empty
 * value disables colour).
 */
import { claimLabel, type ClaimRow, type Verdict } from './claims.js';
import { decimalsFor, formatBytes, formatMeanStd, formatPct, formatShort, formatSig, formatWithInterval } from './format.js';
import type { Report } from './report.js';
import { RANDOM, type ExperimentSummary, type PairedInterval } from './summarize.js';

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

/** The per-policy rows of one experiment, as text. */
export function policyRows(e: ExperimentSummary): string[][] {
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
  ]);
}

export const PAIRED_HEADERS = [
  'policy',
  'vs',
  'n',
  'regret difference [95% CI]',
  'as % of vs [95% CI]',
  'time reduction % [95% CI]',
] as const;

/** An absolute difference with 3 significant digits of its largest end. */
function formatDifference(x: PairedInterval): string {
  const scale = Math.max(...[x.mean, x.low, x.high].filter(Number.isFinite).map(Math.abs), 0);
  return formatWithInterval(x, decimalsFor(scale, 3));
}

/** Each learner (every policy but Random) against each other policy, paired by trial. */
export function pairedRows(e: ExperimentSummary): string[][] {
  return e.comparisons
    .filter((c) => c.policy !== RANDOM)
    .map((c) => [
      c.policy,
      c.reference,
      String(c.trials),
      formatDifference(c.regret),
      formatWithInterval(c.regretPct, 1, '%'),
      // Against Random (no model, microseconds a round) a time reduction says nothing.
      c.reference === RANDOM ? '–' : formatWithInterval(c.timeReductionPct, 1, '%'),
    ]);
}

/** The sentence above the paired table. */
export const PAIRED_TITLE =
  'Paired by trial (every trial gives all policies the same actions and outcome uniforms); 95% Student-t intervals:';

/** "EOFD-MLogB vs OFUL-MLogB: regret overhead +12.3%, per-round time reduction 78.2%", or null. */
export function comparisonLine(e: ExperimentSummary): string | null {
  const c = e.comparison;
  if (c === null) return null;
  const reduction = c.timeReductionPct === null ? '–' : `${formatSig(c.timeReductionPct, 3)}%`;
  return `EOFD-MLogB vs OFUL-MLogB: regret overhead ${formatPct(c.regretOverheadPct)}, per-round time reduction ${reduction}`;
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
  const interval = (x: PairedInterval | null) => (x === null ? '–' : formatWithInterval(x, 1, '%'));
  return claims.map((c) => [
    claimLabel(c),
    c.paper,
    c.trials === null ? '–' : String(c.trials),
    interval(c.regretOverheadPct),
    interval(c.timeReductionPct),
    c.verdict,
    c.reason,
  ]);
}

/** What the report judges claims on, in one sentence (terminal and report.html). */
export const CLAIMS_RULE =
  'EOFD-MLogB vs OFUL-MLogB, paired by trial. holds: both 95% intervals inside the region; does not hold: ' +
  'one entirely outside; inconclusive: one straddles a threshold; not judged: fewer than 3 trials, a learner ' +
  'not below Random, or timings not taken one unit at a time.';

/** The whole report as terminal text. */
export function renderTerminal(report: Report, options: { colour: boolean }): string {
  const parts: string[] = [];
  for (const e of report.experiments) {
    const progress = progressLine(e);
    parts.push(`${e.name}  (${e.dir})${progress === null ? '' : '  IN PROGRESS'}`);
    parts.push(describeExperiment(e));
    if (progress !== null) parts.push(progress);
    parts.push('');
    parts.push(formatTable(POLICY_HEADERS, policyRows(e), { align: ['left', ...POLICY_HEADERS.slice(1).map(() => 'right' as const)] }));
    const line = comparisonLine(e);
    if (line !== null) parts.push(line, '');
    const paired = pairedRows(e);
    if (paired.length > 0) {
      parts.push(PAIRED_TITLE, '');
      parts.push(formatTable(PAIRED_HEADERS, paired, { align: ['left', 'left', 'right', 'right', 'right', 'right'] }));
    }
  }
  parts.push("The paper's claims (Section 4)");
  parts.push(CLAIMS_RULE, '');
  const paint = (text: string, row: number, column: number): string => {
    const colour = column === VERDICT_COLUMN ? VERDICT_COLOUR[report.claims[row]?.verdict ?? 'not measured'] : undefined;
    return colour === undefined ? text : colour + text + RESET;
  };
  parts.push(formatTable(CLAIM_HEADERS, claimRows(report.claims), { paint: options.colour ? paint : undefined }));
  return parts.join('\n');
}
