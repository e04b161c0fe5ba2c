/**
 * The numbers of the report, per experiment and policy (Section 4: "means over 10 trials; shaded
 * regions and error bars show one sample standard deviation").
 *
 * - final regret: summary.csv's final_regret, mean ± sample std over trials;
 * - per-round time: per trial mean_select_ms + mean_update_ms (time spent inside the policy,
 *   DESIGN §4), then mean ± sample std over trials;
 * - state bytes, ρ_{1:T} (sketch_error) and projections taken: means over trials;
 * - EOFD-MLogB against OFUL-MLogB: regret overhead (mean_EOFD − mean_OFUL)/mean_OFUL·100 and
 *   per-round time reduction (1 − t_EOFD/t_OFUL)·100, both from the means above;
 * - Fig. 1's curves: mean cumulative regret and its sample std at each round, over trials,
 *   downsampled to at most 500 evenly spaced rounds that include the first and the last.
 */
import type { ExperimentData, Provenance, Setting } from '../results/read.js';
import type { SummaryRow } from '../results/records.js';
import { mean, sampleStd } from '../stats/descriptive.js';

/** Policy names as the paper spells them; reports list policies in this order, then others by name. */
export const EOFD = 'EOFD-MLogB';
export const OFUL = 'OFUL-MLogB';
export const RANDOM = 'Random';
const POLICY_ORDER: readonly string[] = [EOFD, OFUL, RANDOM];

/** Most points a curve keeps (Fig. 1). */
export const MAX_CURVE_POINTS = 500;

export interface MeanStd {
  mean: number;
  /** Sample standard deviation (divisor n − 1); 0 for a single trial, which shows no spread. */
  std: number;
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
}

/** EOFD-MLogB measured against OFUL-MLogB in one experiment; a field is null when undefined (÷0). */
export interface Comparison {
  /** (mean_EOFD − mean_OFUL)/mean_OFUL·100, final regret. */
  regretOverheadPct: number | null;
  /** (1 − t_EOFD/t_OFUL)·100, mean per-round time. */
  timeReductionPct: number | null;
}

/** Fig. 1 data for one policy: rounds t (1-based) and the mean and std of cumulative regret there. */
export interface RegretCurve {
  policy: string;
  t: number[];
  mean: number[];
  std: number[];
}

export interface ExperimentSummary {
  name: string;
  dir: string;
  setting: Setting;
  derived: Record<string, unknown>;
  provenance: Provenance;
  policies: PolicySummary[];
  /** null when EOFD-MLogB or OFUL-MLogB did not run in this experiment. */
  comparison: Comparison | null;
  curves: RegretCurve[];
}

export function meanStd(xs: ArrayLike<number>): MeanStd {
  return { mean: mean(xs), std: sampleStd(xs) };
}

/** (a − b)/b·100, or null when b = 0. */
export function overheadPct(a: number, b: number): number | null {
  return b === 0 ? null : ((a - b) / b) * 100;
}

/** (1 − a/b)·100, or null when b = 0. */
export function reductionPct(a: number, b: number): number | null {
  return b === 0 ? null : (1 - a / b) * 100;
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

function summarizePolicy(policy: string, rows: SummaryRow[]): PolicySummary {
  const pick = (f: (r: SummaryRow) => number) => rows.map(f);
  const parameterErrors = rows.map((r) => r.parameterError);
  return {
    policy,
    trials: rows.length,
    finalRegret: meanStd(pick((r) => r.finalRegret)),
    roundMs: meanStd(pick((r) => r.meanSelectMs + r.meanUpdateMs)),
    selectMs: mean(pick((r) => r.meanSelectMs)),
    updateMs: mean(pick((r) => r.meanUpdateMs)),
    stateBytes: mean(pick((r) => r.stateBytes)),
    sketchError: mean(pick((r) => r.sketchError)),
    projections: mean(pick((r) => r.projections)),
    parameterError: parameterErrors.every((e): e is number => e !== null) ? meanStd(parameterErrors) : null,
  };
}

function regretCurve(policy: string, series: Float64Array[], horizon: number): RegretCurve {
  const curve: RegretCurve = { policy, t: [], mean: [], std: [] };
  const column = new Float64Array(series.length);
  for (const i of downsampleIndices(horizon)) {
    for (let k = 0; k < series.length; k++) column[k] = (series[k] as Float64Array)[i] as number;
    curve.t.push(i + 1);
    curve.mean.push(mean(column));
    curve.std.push(sampleStd(column));
  }
  return curve;
}

export function summarizeExperiment(data: ExperimentData): ExperimentSummary {
  const policies = [...data.setting.policies].sort(comparePolicies);
  const summaries = policies.map((p) => summarizePolicy(p, data.summary.filter((r) => r.policy === p)));
  const eofd = summaries.find((s) => s.policy === EOFD);
  const oful = summaries.find((s) => s.policy === OFUL);
  const comparison: Comparison | null =
    eofd && oful
      ? {
          regretOverheadPct: overheadPct(eofd.finalRegret.mean, oful.finalRegret.mean),
          timeReductionPct: reductionPct(eofd.roundMs.mean, oful.roundMs.mean),
        }
      : null;
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
    policies: summaries,
    comparison,
    curves,
  };
}
