/**
 * Plain terminal tables: aligned columns, text left, numbers right. Colour (green "holds", red
 * "does not hold", yellow "inconclusive") only when asked for; `shouldColour` decides from the
 * stream and the environment: a TTY and no NO_COLOR (https://no-color.org: set to any non-empty
 * value disables colour).
 */
import { claimLabel, controlSummary, halfSummary, type ClaimRow, type Verdict } from './claims.js';
import { describeRandomCheck, differenceDecimals, formatAdjusted, formatBytes, formatDifference, formatMeanStd, formatP, formatShort, formatWithInterval } from './format.js';
import { identicalText } from './identical.js';
import type { Report } from './report.js';
import { ratioEstimate, type Estimate } from '../stats/ratio.js';
import { EOFD, OFUL, type ExperimentSummary, type HolmTest } from './summarize.js';
import { displayWidth, wrapText, wrapWords } from './wrap.js';

export { displayWidth, wrapText, wrapWords } from './wrap.js';

export interface TableOptions {
  /** Per column: 'left' (default) or 'right'. */
  align?: readonly ('left' | 'right')[];
  /** Paints a cell after padding (so ANSI codes never disturb alignment). */
  paint?: (text: string, row: number, column: number) => string;
  /** Fit the table into a terminal's width (absent: the complete table, one line per row). */
  fit?: TableFit;
}

/** How formatTable fits a terminal: wrap cells, and leave out the least important columns when wrapping is not enough. */
export interface TableFit {
  /** Terminal columns no line may exceed. */
  width: number;
  /** Columns that may be left out, least important first; the others are only wrapped. */
  drop?: readonly number[];
  /** Where the columns left out are shown, for the note: "eofd report --wide, or --json". */
  seeAll: string;
}

export function shouldColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** The width of the terminal `stream` writes to, or undefined when it is not a terminal (a pipe, a file: output stays complete). */
export function terminalWidth(stream: { isTTY?: boolean; columns?: number }): number | undefined {
  if (stream.isTTY !== true) return undefined;
  const { columns } = stream;
  return columns !== undefined && Number.isInteger(columns) && columns > 0 ? columns : undefined;
}

/** `text` wrapped to `width` columns, or unchanged without a width (output that is not a terminal's). */
export function fitText(text: string, width: number | undefined): string {
  return width === undefined ? text : wrapText(text, width).join('\n');
}

/** Spaces between columns. */
const GAP = 2;
/** A column is never wrapped onto more lines than this just to keep a less important one. */
const MAX_WRAP_LINES = 3;

/**
 * Which columns to keep and how wide to make them so a table fits `width`: all at their natural widths
 * when they fit; else each wrapped down to its minimum, leaving out the `drop` columns in order while
 * even the minima do not fit (and then, should the `narrowest` widths — the widest character, 1 by
 * default — still not fit, the last ones);
 * spare columns go first to the columns that need fewest to stand whole, then to those wrapped most.
 */
export function fitColumns(
  natural: readonly number[],
  minimum: readonly number[],
  width: number,
  drop: readonly number[] = [],
  narrowest: readonly number[] = natural.map(() => 1),
): { kept: number[]; widths: number[] } {
  const total = (ws: readonly number[]) => ws.reduce((a, b) => a + b, 0) + GAP * Math.max(0, ws.length - 1);
  const kept = natural.map((_, c) => c);
  if (total(natural) <= width) return { kept, widths: [...natural] };
  const at = (ws: readonly number[]) => kept.map((c) => ws[c] as number);
  for (const c of drop) {
    if (total(at(minimum)) <= width) break;
    if (kept.includes(c)) kept.splice(kept.indexOf(c), 1);
  }
  while (kept.length > 1 && total(at(narrowest)) > width) kept.pop();
  const widths = at(minimum);
  const floors = at(narrowest);
  // Cut words: narrow the widest column that can still narrow, until the table fits.
  while (total(widths) > width) {
    const room = widths.map((w, i) => (w > (floors[i] as number) ? w : -1));
    const widest = room.indexOf(Math.max(...room));
    if ((room[widest] as number) < 0) break;
    widths[widest]--;
  }
  const deficit = (i: number) => (natural[kept[i] as number] as number) - (widths[i] as number);
  let spare = width - total(widths);
  // First the columns that need least to stand whole, then a column at a time to the one wrapped most.
  for (const i of widths.map((_, i) => i).sort((a, b) => deficit(a) - deficit(b))) {
    if (deficit(i) > 0 && deficit(i) <= spare) {
      spare -= deficit(i);
      widths[i] = natural[kept[i] as number] as number;
    }
  }
  for (; spare > 0; spare--) {
    const deficits = widths.map((_, i) => deficit(i));
    const most = deficits.indexOf(Math.max(...deficits));
    if ((deficits[most] as number) <= 0) break;
    widths[most]++;
  }
  return { kept, widths };
}

/** The narrowest a column wraps to: its longest word, or a third of its natural width, at most a third of the terminal. */
function minimumWidth(cells: readonly string[], natural: number, width: number): number {
  const longestWord = Math.max(1, ...cells.flatMap((cell) => wrapWords(cell).map(displayWidth)));
  return Math.max(widestCharacter(cells), Math.min(natural, Math.max(longestWord, Math.ceil(natural / MAX_WRAP_LINES)), Math.floor(width / 3)));
}

/** The columns of the widest character in `cells` (2 with an East Asian wide one, else 1). */
function widestCharacter(cells: readonly string[]): number {
  return Math.max(1, ...cells.flatMap((cell) => [...cell].map(displayWidth)));
}

/**
 * An aligned table: header, a rule of dashes, rows; columns separated by two spaces. With `fit`, no
 * line is wider than `fit.width`: cells wrap, and columns left out are named in a note under the table.
 */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[], options: TableOptions = {}): string {
  const columns = headers.map((h, c) => [h, ...rows.map((r) => r[c] ?? '')]);
  const natural = columns.map((cells) => Math.max(...cells.map(displayWidth)));
  const fit = options.fit;
  const { kept, widths } =
    fit === undefined
      ? { kept: natural.map((_, c) => c), widths: natural }
      : fitColumns(
          natural,
          columns.map((cells, c) => minimumWidth(cells, natural[c] as number, fit.width)),
          fit.width,
          fit.drop,
          columns.map(widestCharacter),
        );
  const lines = (cellsOf: readonly string[], row: number): string[] => {
    const wrapped = kept.map((c, i) => {
      const cell = cellsOf[c] ?? '';
      const w = widths[i] as number;
      return displayWidth(cell) <= w ? [cell] : wrapText(cell, w);
    });
    const height = Math.max(...wrapped.map((w) => w.length));
    return Array.from({ length: height }, (_, k) =>
      kept
        .map((c, i) => {
          const text = wrapped[i]?.[k] ?? '';
          const pad = ' '.repeat(Math.max(0, (widths[i] as number) - displayWidth(text)));
          const padded = options.align?.[c] === 'right' ? pad + text : text + pad;
          return row >= 0 && options.paint ? options.paint(padded, row, c) : padded;
        })
        .join(' '.repeat(GAP))
        .trimEnd(),
    );
  };
  const out = [...lines(headers, -1), widths.map((w) => '-'.repeat(w)).join(' '.repeat(GAP)), ...rows.flatMap((r, i) => lines(r, i))];
  const dropped = [...new Set(headers.filter((_, c) => !kept.includes(c)))];
  if (fit !== undefined && dropped.length > 0) {
    out.push(...wrapText(`not shown, to fit ${fit.width} columns: ${dropped.join(', ')} (${fit.seeAll})`, fit.width));
  }
  return out.join('\n') + '\n';
}

const RESET = '\u001b[0m';
/** ANSI colour of a verdict (none for not judged / not measured). */
const VERDICT_COLOUR: Partial<Record<Verdict, string>> = {
  holds: '\u001b[32m',
  'does not hold': '\u001b[31m',
  'cannot judge at this size': '\u001b[33m',
  inconclusive: '\u001b[33m',
};

/** The paper's symbols for the manifest's derived hyperparameters. */
const PAPER_SYMBOLS: Readonly<Record<string, string>> = { lambda: 'λ', eta: 'η', delta: 'δ', beta: 'β', alpha: 'α' };

/** The experiment's values that follow from S (α = 2(1 + S·D) + ln(K+1), λ0 = √K·α·S, η0): not the labels' when S is one of theirs. */
const FROM_S: readonly string[] = ['alpha', 'lambda0', 'eta0'];

/** `λ = 34.83`: a hyperparameter by its paper symbol. */
function hyperparameter(key: string, value: number | string): string {
  return `${PAPER_SYMBOLS[key] ?? key} = ${typeof value === 'number' ? formatShort(value) : value}`;
}

/**
 * The manifest's derived.policies: per label the hyperparameters it ran with (`eofd run --params`
 * gives each label its own l, e, λ, η); empty for manifests without it.
 */
function labelHyperparameters(e: ExperimentSummary): [label: string, values: Record<string, unknown>][] {
  const policies = e.derived.policies;
  if (typeof policies !== 'object' || policies === null) return [];
  return Object.entries(policies as Record<string, unknown>).filter((entry): entry is [string, Record<string, unknown>] => typeof entry[1] === 'object' && entry[1] !== null);
}

/**
 * The hyperparameters a label ran with that are not the experiment's for every label that reads them
 * (derived.policies against the experiment's derived values), in the order labels record them; the
 * values that follow from S go with S.
 */
export function perLabelKeys(e: ExperimentSummary): string[] {
  const labels = labelHyperparameters(e);
  const keys = [...new Set(labels.flatMap(([, values]) => Object.keys(values)))].filter((k) => k !== 'policy');
  const differs = keys.filter((key) => {
    const given = labels.filter(([, values]) => key in values).map(([, values]) => values[key]);
    const shared = key in e.derived ? e.derived[key] : given[0];
    return given.some((v) => v !== shared);
  });
  return differs.includes('S') ? [...differs, ...FROM_S.filter((k) => !differs.includes(k))] : differs;
}

/** One line saying where and how an experiment ran; hyperparameters a label ran with its own value of are left to perLabelLine. */
export function describeExperiment(e: ExperimentSummary): string {
  const s = e.setting;
  const own = new Set(perLabelKeys(e));
  const derived = Object.entries(e.derived)
    .filter((entry): entry is [string, number | string] => (typeof entry[1] === 'number' || typeof entry[1] === 'string') && !own.has(entry[0]))
    .map(([k, v]) => hyperparameter(k, v))
    .join(', ');
  return (
    `${s.environment}, d = ${s.d}, K = ${s.K}, T = ${s.horizon}, ${s.trials} trial${s.trials === 1 ? '' : 's'}` +
    `${e.progress.complete ? '' : ' planned'}` +
    (derived ? `; ${derived}` : '')
  );
}

/**
 * "per label: EOFD-MLogB λ = 34.83, l = −0.5; OFUL-MLogB λ = 246.3, l = 0.5": the
 * hyperparameters of perLabelKeys as each label ran them (a label that reads none is left out); null
 * when every label ran the experiment's.
 */
export function perLabelLine(e: ExperimentSummary): string | null {
  const keys = perLabelKeys(e).filter((k) => !FROM_S.includes(k));
  if (keys.length === 0) return null;
  const parts = labelHyperparameters(e)
    .map(([label, values]) => {
      const shown = keys.filter((k) => typeof values[k] === 'number' || typeof values[k] === 'string').map((k) => hyperparameter(k, values[k] as number | string));
      return shown.length === 0 ? null : `${label} ${shown.join(', ')}`;
    })
    .filter((part): part is string => part !== null);
  return `per label: ${parts.join('; ')}`;
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
  const partial = e.partial.length === 0 ? '' : `; rows marked partial are units not finished (${e.partial.length}), their rounds so far, never judged`;
  return `in progress: ${p.finishedUnits} of ${p.plannedUnits} units finished (${counts} trials); every number is on the finished trials only${partial}`;
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
  ]).concat(
    // A run in progress's unfinished units: regret and time so far, marked, never judged.
    e.partial.map((u) => [
      `${u.policy} trial ${u.trial} (partial: ${u.rounds} of ${e.setting.horizon} rounds)`,
      `${formatShort(u.cumRegret)} so far`,
      formatShort(u.roundMs, 3),
      ...Array.from({ length: withM ? 7 : 6 }, () => '–'),
    ]),
  );
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
  const n = e.comparisons.length;
  // Labels that decided alike are one regret test (summarize.ts holmTests).
  const shared = e.identical.length === 0 ? '' : ', policies that decided alike counted once';
  return (
    `Paired by trial, ${versus}${note}. Families for Holm: the ${n} comparison` +
    `${n === 1 ? '' : 's'} of final regret${shared}, and those of per-round time (not against Random):`
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
  'comparisons of one quantity (final regret; per-round time) form one family, controlled by Holm; policies ' +
  'that decided alike (the same actions throughout) are one decision sequence, so their regret tests count once (and a ' +
  'policy against one that decided as it did is no test: identical). Sorted by ' +
  'raw p (two-sided paired t test), the i-th smallest of m gets the interval at level 1 − 0.05/(m − i + 1), and ' +
  'from the first one Holm does not reject on, later ones keep that level; p (Holm) is the adjusted p. A ' +
  'Holm-adjusted interval excludes 0 exactly when Holm rejects at family-wise level 5%: the chance that a ' +
  'family shows any lower/higher verdict between policies that do not differ is at most 5%. The adjusted ' +
  'intervals are not simultaneous confidence intervals; the raw 95% intervals are beside them. The verdicts ' +
  '(lower, higher, inconclusive: policy against vs) are read from the adjusted interval; identical: the same final ' +
  'regret in every trial. Ratios (regret as % of ' +
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
  'time reduction % [95% CI]',
  'time: direction; paper',
  'regret overhead % [95% CI]',
  'regret: direction; paper',
  'Random in its place',
  'verdict',
  'reason',
] as const;

/** Index of the verdict in CLAIM_HEADERS (for colour). */
export const VERDICT_COLUMN = CLAIM_HEADERS.indexOf('verdict');

/** One row per claim, experiment and OFUL-MLogB label: EOFD-MLogB vs that label, paired. */
export function claimRows(claims: readonly ClaimRow[]): string[][] {
  return claims.map((c) => [
    claimLabel(c),
    c.paper,
    c.trials === null ? '–' : String(c.trials),
    percentCell(c.timeReductionPct),
    halfSummary(c, 'time'),
    percentCell(c.regretOverheadPct),
    halfSummary(c, 'regret'),
    controlSummary(c, (x) => formatWithInterval(x, 1, '%')),
    c.verdict,
    c.reason,
  ]);
}

/** What the report judges claims on (terminal and report.html); the README and docs/guide.md say the same. */
export const CLAIMS_RULE =
  'EOFD-MLogB vs OFUL-MLogB, paired by trial; both numbers are ratios, with 95% intervals from per-trial log ' +
  'ratios (back-transformed). Direction: faster / slower (the time interval entirely on one side of 0% reduction), ' +
  'more / less regret, identical (the same regret in every trial), else inconclusive. Paper: where the paper\'s ' +
  'number lies relative to the interval, inside, below or above (0% for "comparable regret"). Rules: ≈X needs X ' +
  'inside (and faster, for time); >X needs the interval above X; "comparable" needs it within ±20%. Random in ' +
  'its place: the regret rule applied to Random instead of EOFD-MLogB against the same OFUL-MLogB; it should fail. ' +
  'holds: both halves meet their rules and Random fails the regret rule; does not hold: a half is excluded by its ' +
  'interval; cannot judge at this size: the regret half meets its rule but Random is not shown to fail it; ' +
  'inconclusive: otherwise; not judged: ' +
  'fewer than 3 trials, a learner not shown below Random, no Random, or timings taken with several units at once. ' +
  'Each claim is one prespecified comparison and holds only when both halves do, so the intervals are not adjusted ' +
  'for multiplicity.';

/** Said after CLAIMS_RULE when some row names the OFUL-MLogB it compares against. */
export const CLAIMS_VERSUS_RULE =
  'Each claim is judged against every OFUL-MLogB label the experiment ran, one row each, naming its solver: ' +
  "textbook recomputes H⁻¹ and eq. (9)'s eigendecomposition every round (the paper's O(K³d³) cost), " +
  'incremental (the default) updates H⁻¹ by Woodbury.';

/** CLAIMS_RULE, and CLAIMS_VERSUS_RULE when some row names its OFUL-MLogB label. */
export function claimsRule(claims: readonly ClaimRow[]): string {
  return claims.some((c) => c.versus !== null) ? `${CLAIMS_RULE} ${CLAIMS_VERSUS_RULE}` : CLAIMS_RULE;
}

export interface TerminalOptions {
  colour: boolean;
  /** The terminal's columns: tables fit them and text wraps (absent: every line complete, as for a pipe). */
  width?: number;
}

/** Where the columns a narrow terminal leaves out are shown. */
const SEE_ALL = 'see them with --wide or --json';
/** The columns a narrow terminal leaves out, least important first. */
const POLICY_DROP = ['projections', 'Δ_T', 'ρ_{1:T}', 'β_T', '‖W_T − W*‖_F', 'm_T', 'state'];
/** By index (PAIRED_HEADERS repeats names): the Holm-adjusted CIs, the p-values, n, regret as % of vs, the time ratio. */
const PAIRED_DROP = [4, 9, 5, 10, 2, 7, 8];
const CLAIM_DROP = (['paper', 'n', 'reason', 'Random in its place', 'regret overhead % [95% CI]', 'time reduction % [95% CI]'] as const).map((h) => CLAIM_HEADERS.indexOf(h));

/** One line per group of policies whose regret curves coincide, with what was compared. */
export function identicalLines(e: ExperimentSummary): string[] {
  return e.identical.map((group) => identicalText(e, group, true));
}

/** The whole report as terminal text. */
export function renderTerminal(report: Report, options: TerminalOptions): string {
  const width = options.width;
  const text = (line: string): string => fitText(line, width);
  const fit = (drop: readonly number[]): TableFit | undefined => (width === undefined ? undefined : { width, drop, seeAll: SEE_ALL });
  const parts: string[] = [text(report.title), ''];
  for (const e of report.experiments) {
    const progress = progressLine(e);
    // The status before the folder: a long path is what a narrow terminal cuts, never the status.
    parts.push(text(`${e.name}${progress === null ? '' : '  IN PROGRESS'}  (${e.dir})`));
    parts.push(text(describeExperiment(e)));
    const own = perLabelLine(e);
    if (own !== null) parts.push(text(own));
    if (progress !== null) parts.push(text(progress));
    parts.push('');
    const headers = policyHeaders(e);
    const policyDrop = POLICY_DROP.map((h) => headers.indexOf(h)).filter((c) => c >= 0);
    parts.push(formatTable(headers, policyRows(e), { align: ['left', ...headers.slice(1).map(() => 'right' as const)], fit: fit(policyDrop) }));
    const same = identicalLines(e);
    if (same.length > 0) parts.push(...same.map(text), '');
    const flags = randomFlags(e);
    if (flags.length > 0) parts.push(...flags.map(text), '');
    const line = comparisonLine(e);
    if (line !== null) parts.push(text(line), '');
    const paired = pairedRows(e);
    if (paired.length > 0) {
      parts.push(text(comparisonsTitle(e)), '');
      parts.push(formatTable(PAIRED_HEADERS, paired, { align: PAIRED_ALIGN, fit: fit(PAIRED_DROP) }));
      const notes = comparisonNotes(e);
      if (notes.length > 0) parts.push(...notes.map(text), '');
    }
  }
  if (report.experiments.some((e) => e.comparisons.length > 0)) parts.push(text(MULTIPLICITY_RULE), '');
  if (report.claims.length > 0) {
    parts.push("The paper's claims (Section 4)");
    parts.push(text(claimsRule(report.claims)), '');
    const paint = (cell: string, row: number, column: number): string => {
      const colour = column === VERDICT_COLUMN ? VERDICT_COLOUR[report.claims[row]?.verdict ?? 'not measured'] : undefined;
      return colour === undefined ? cell : colour + cell + RESET;
    };
    parts.push(formatTable(CLAIM_HEADERS, claimRows(report.claims), { paint: options.colour ? paint : undefined, fit: fit(CLAIM_DROP) }));
  }
  return parts.join('\n');
}
