/**
 * The numbers of the report, per experiment and policy (Section 4: "means over 10 trials; shaded
 * regions and error bars show one sample standard deviation").
 *
 * - final regret: summary.csv's final_regret, mean ± sample std over trials;
 * - per-round time: per trial mean_select_ms + mean_update_ms (time spent inside the policy,
 *   DESIGN §4), then mean ± sample std over trials;
 * - state bytes, ρ_{1:T} (sketch_error) and projections taken: means over trials; Δ_T and β_T
 *   (eq. (27)/(36)) mean ± std;
 * - paired comparisons: every trial gives all policies the same actions and outcome uniforms, so
 *   policy A and reference B are compared trial by trial (A − B per trial, 95% Student-t interval of
 *   the mean difference, src/stats/paired.ts), in absolute terms and as % of B's mean;
 * - EOFD-MLogB against OFUL-MLogB (`comparison`): the means of that paired comparison;
 * - Fig. 1's curves: mean cumulative regret, its sample std and the half-width of the 95% interval
 *   of the mean at each round, over trials, downsampled to at most 500 evenly spaced rounds that
 *   include the first and the last.
 */
import type { ExperimentData, Progress, Provenance, Setting, Timing } from '../results/read.js';
import type { SummaryRow } from '../results/records.js';
import { mean, sampleStd } from '../stats/descriptive.js';
import { pairedDifference, pairedRelativeDifference, type PairedInterval } from '../stats/paired.js';

export type { PairedInterval } from '../stats/paired.js';

/** Policy names as the paper spells them; reports list policies in this order, then others by name. */
export const EOFD = 'EOFD-MLogB';
export const OFUL = 'OFUL-MLogB';
export const RANDOM = 'Random';
const POLICY_ORDER: readonly string[] = [EOFD, OFUL, RANDOM];

/** Most points a curve keeps (Fig. 1). */
export const MAX_CURVE_POINTS = 500;

/** Confidence level of every interval in the report. */
export const CONFIDENCE = 0.95;

export interface MeanStd {
  mean: number;
  /** Sample standard deviation (divisor n − 1); 0 for a single trial, which shows no spread. */
  std: number;
  /** Trials behind the mean (with one, `std` says nothing and is not printed). */
  n: number;
}

export interface PolicySummary {
  policy: string;
  trials: number;
  finalRegret: MeanStd;
  /** Per-round time in ms (select + update), mean ± std over trials of each trial's mean. */
  roundMs: MeanStd;
  /** Mean over trials of the mean select time (ms). */
  selectMs: number;
  /** Mean over trials of the mean update time (ms). */
  updateMs: number;
  /** Bytes of numerical state, mean over trials. */
  stateBytes: number;
  /** ρ_{1:T}, mean over trials (0 for exact policies). */
  sketchError: number;
  /** Projections taken (eq. (9)), mean over trials. */
  projections: number;
  /** ‖W_T − W*‖_F mean ± std, or null when any trial lacks it (W* unknown). */
  parameterError: MeanStd | null;
  /** Δ_T = 1 + ρ_{1:T}/λ mean ± std, or null when any trial lacks it (Random). */
  deltaT: MeanStd | null;
  /** β_T, the confidence radius at T, mean ± std, or null when any trial lacks it (Random). */
  betaT: MeanStd | null;
}

/**
 * Policy A against reference B over the trials both ran, paired by trial index. Every interval is
 * the 95% Student-t interval of the mean per-trial difference (ends NaN for fewer than 2 trials).
 */
export interface PairedComparison {
  policy: string;
  reference: string;
  /** Number of pairs. */
  trials: number;
  /** Final regret A − B. */
  regret: PairedInterval;
  /** 100·(A − B)/mean(B), final regret (NaN when mean(B) = 0). */
  regretPct: PairedInterval;
  /** Per-round time A − B, ms. */
  timeMs: PairedInterval;
  /** −100·(t_A − t_B)/mean(t_B): positive when A is faster (NaN when mean(t_B) = 0). */
  timeReductionPct: PairedInterval;
}

/** EOFD-MLogB measured against OFUL-MLogB in one experiment; a field is null when undefined (÷0). */
export interface Comparison {
  /** (mean_EOFD − mean_OFUL)/mean_OFUL·100, final regret. */
  regretOverheadPct: number | null;
  /** (1 − t_EOFD/t_OFUL)·100, mean per-round time. */
  timeReductionPct: number | null;
}

/** Fig. 1 data for one policy: rounds t (1-based) and the mean and spread of cumulative regret there. */
export interface RegretCurve {
  policy: string;
  t: number[];
  mean: number[];
  std: number[];
  /** Half-width of the 95% Student-t interval of the mean; null for fewer than 2 trials. */
  ci95: number[] | null;
}

export interface ExperimentSummary {
  name: string;
  dir: string;
  setting: Setting;
  derived: Record<string, unknown>;
  provenance: Provenance;
  /** How the units were timed (most units at once, load, cores); nulls when not recorded. */
  timing: Timing;
  /** Finished units of the planned ones; a run in progress is summarised on its finished units. */
  progress: Progress;
  /** The policies with at least one finished trial (all of them once the run is complete). */
  policies: PolicySummary[];
  /** null when EOFD-MLogB or OFUL-MLogB did not run in this experiment. */
  comparison: Comparison | null;
  /** Every ordered pair of distinct policies, in policy order (A, then B). */
  comparisons: PairedComparison[];
  curves: RegretCurve[];
}

export function meanStd(xs: ArrayLike<number>): MeanStd {
  return { mean: mean(xs), std: sampleStd(xs), n: xs.length };
}

/** mean ± std of per-trial values, or null when any trial lacks the value. */
function meanStdOrNull(values: readonly (number | null)[]): MeanStd | null {
  return values.every((v): v is number => v !== null) ? meanStd(values) : null;
}

/**
 * 0-based indices of at most `maxPoints` evenly spaced rounds out of `length`, always including the
 * first and the last: i_j = round(j·(length − 1)/(maxPoints − 1)). All rounds when length ≤ maxPoints.
 */
export function downsampleIndices(length: number, maxPoints: number = MAX_CURVE_POINTS): number[] {
  if (!Number.isInteger(length) || length < 0) throw new RangeError(`length must be an integer ≥ 0, got ${length}`);
  if (!Number.isInteger(maxPoints) || maxPoints < 2) throw new RangeError(`maxPoints must be an integer ≥ 2, got ${maxPoints}`);
  if (length <= maxPoints) return Array.from({ length }, (_, i) => i);
  const out: number[] = [];
  for (let j = 0; j < maxPoints; j++) out.push(Math.round((j * (length - 1)) / (maxPoints - 1)));
  return out;
}

/** Compares policy names: the paper's three first, in a fixed order, then the rest by name. */
export function comparePolicies(a: string, b: string): number {
  const ia = POLICY_ORDER.indexOf(a);
  const ib = POLICY_ORDER.indexOf(b);
  if (ia >= 0 || ib >= 0) return (ia < 0 ? Infinity : ia) - (ib < 0 ? Infinity : ib);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A trial's per-round time: time inside the policy, select + update (ms). */
function roundMsOf(row: SummaryRow): number {
  return row.meanSelectMs + row.meanUpdateMs;
}

function summarizePolicy(policy: string, rows: SummaryRow[]): PolicySummary {
  const pick = (f: (r: SummaryRow) => number) => rows.map(f);
  return {
    policy,
    trials: rows.length,
    finalRegret: meanStd(pick((r) => r.finalRegret)),
    roundMs: meanStd(pick(roundMsOf)),
    selectMs: mean(pick((r) => r.meanSelectMs)),
    updateMs: mean(pick((r) => r.meanUpdateMs)),
    stateBytes: mean(pick((r) => r.stateBytes)),
    sketchError: mean(pick((r) => r.sketchError)),
    projections: mean(pick((r) => r.projections)),
    parameterError: meanStdOrNull(rows.map((r) => r.parameterError)),
    deltaT: meanStdOrNull(rows.map((r) => r.deltaT)),
    betaT: meanStdOrNull(rows.map((r) => r.betaT)),
  };
}

/** −x: a reduction from a relative difference (mean and ends negated, ends swapped so low ≤ high). */
function negated(x: PairedInterval): PairedInterval {
  return { ...x, mean: -x.mean, low: -x.high, high: -x.low };
}

/**
 * A against B over the trials both ran, paired by trial index; null when they share no trial.
 * `rowsA` and `rowsB` are one policy's summary rows each.
 */
export function pairedComparison(rowsA: readonly SummaryRow[], rowsB: readonly SummaryRow[]): PairedComparison | null {
  const byTrial = new Map(rowsB.map((r) => [r.trial, r]));
  const pairs = rowsA.flatMap((a) => {
    const b = byTrial.get(a.trial);
    return b === undefined ? [] : [[a, b] as const];
  });
  const first = pairs[0];
  if (first === undefined) return null;
  const column = (side: 0 | 1, f: (r: SummaryRow) => number) => pairs.map((p) => f(p[side]));
  const regretA = column(0, (r) => r.finalRegret);
  const regretB = column(1, (r) => r.finalRegret);
  const timeA = column(0, roundMsOf);
  const timeB = column(1, roundMsOf);
  return {
    policy: first[0].policy,
    reference: first[1].policy,
    trials: pairs.length,
    regret: pairedDifference(regretA, regretB, CONFIDENCE),
    regretPct: pairedRelativeDifference(regretA, regretB, CONFIDENCE),
    timeMs: pairedDifference(timeA, timeB, CONFIDENCE),
    timeReductionPct: negated(pairedRelativeDifference(timeA, timeB, CONFIDENCE)),
  };
}

/** Every ordered pair (A, B) of distinct policies, A in `policies` order, then B. */
function allComparisons(policies: readonly string[], rows: readonly SummaryRow[]): PairedComparison[] {
  const of = (p: string) => rows.filter((r) => r.policy === p);
  return policies.flatMap((a) =>
    policies.filter((b) => b !== a).flatMap((b) => pairedComparison(of(a), of(b)) ?? []),
  );
}

/** The comparison of `policy` against `reference`, if both ran. */
export function findComparison(
  comparisons: readonly PairedComparison[],
  policy: string,
  reference: string,
): PairedComparison | undefined {
  return comparisons.find((c) => c.policy === policy && c.reference === reference);
}

/** EOFD-MLogB vs OFUL-MLogB as the means of their paired comparison (null percentages: ÷0). */
function headline(comparisons: readonly PairedComparison[]): Comparison | null {
  const c = findComparison(comparisons, EOFD, OFUL);
  if (c === undefined) return null;
  const finite = (x: number) => (Number.isFinite(x) ? x : null);
  return { regretOverheadPct: finite(c.regretPct.mean), timeReductionPct: finite(c.timeReductionPct.mean) };
}

/**
 * Mean, std and 95% half-width per kept round. The interval of a mean is the paired interval
 * against zero (one-sample t), so src/stats computes all three.
 */
function regretCurve(policy: string, series: Float64Array[], horizon: number): RegretCurve {
  const curve: RegretCurve = { policy, t: [], mean: [], std: [], ci95: series.length >= 2 ? [] : null };
  if (series.length === 0) return curve;
  const column = new Float64Array(series.length);
  const zeros = new Float64Array(series.length);
  for (const i of downsampleIndices(horizon)) {
    for (let k = 0; k < series.length; k++) column[k] = (series[k] as Float64Array)[i] as number;
    const interval = pairedDifference(column, zeros, CONFIDENCE);
    curve.t.push(i + 1);
    curve.mean.push(interval.mean);
    curve.std.push(interval.std);
    curve.ci95?.push(interval.high - interval.mean);
  }
  return curve;
}

/**
 * Rank of an experiment in the paper's order (Section 4, Fig. 1 and 2 panels (a), (b), (c)): MNIST
 * (real data) 0, synthetic multinomial (K ≥ 2) 1, synthetic binary (K = 1) 2, anything else 3.
 */
export function paperRank(setting: Setting): number {
  if (setting.environment === 'mnist') return 0;
  if (setting.environment === 'synthetic') return setting.K >= 2 ? 1 : 2;
  return 3;
}

/** The experiments in the paper's order; the given order within a rank (a stable sort). */
export function inPaperOrder<E extends { setting: Setting }>(experiments: readonly E[]): E[] {
  return [...experiments].sort((a, b) => paperRank(a.setting) - paperRank(b.setting));
}

export function summarizeExperiment(data: ExperimentData): ExperimentSummary {
  const ran = new Set(data.summary.map((r) => r.policy));
  const policies = data.setting.policies.filter((p) => ran.has(p)).sort(comparePolicies);
  const summaries = policies.map((p) => summarizePolicy(p, data.summary.filter((r) => r.policy === p)));
  const comparisons = allComparisons(policies, data.summary);
  const curves = policies.map((p) =>
    regretCurve(
      p,
      data.trials.filter((s) => s.policy === p).map((s) => s.cumRegret),
      data.setting.horizon,
    ),
  );
  return {
    name: data.name,
    dir: data.dir,
    setting: data.setting,
    derived: data.derived,
    provenance: data.provenance,
    timing: data.timing,
    progress: data.progress,
    policies: summaries,
    comparison: headline(comparisons),
    comparisons,
    curves,
  };
}
