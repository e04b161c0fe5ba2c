/**
 * What one round and one trial produce (DESIGN §4), and the columns they are written under. The
 * runner writes these and the report, merge and resume read them: one definition for both sides.
 */

/** One row of `<policy>/trial-<i>.csv`; times are spent inside the policy only. */
export interface RoundRecord {
  t: number;
  /** 0-based index into the round's action set. */
  action: number;
  /** |A_t|: how many actions the round offered. */
  actions: number;
  outcome: number;
  reward: number;
  /** Pseudo-regret, eq. (2): bestReward − the played action's expected reward. */
  regret: number;
  /** max_{x∈A_t} rᵀσ(W*x), the expected reward regret is measured against; null when the environment does not report it. */
  bestReward: number | null;
  cumRegret: number;
  /** Wall time of `select`, ms. */
  selectMs: number;
  /** Wall time of `update`, ms. */
  updateMs: number;
  /** m_t: a sketched policy's sketch size when it selected (grows under params.m: adaptive); null for the others. */
  m: number | null;
}

/** Per-trial figures for `summary.csv`. */
export interface TrialSummary {
  finalRegret: number;
  meanSelectMs: number;
  meanUpdateMs: number;
  medianSelectMs: number;
  medianUpdateMs: number;
  meanRoundMs: number;
  stateBytes: number;
  /** ρ_{1:T} */
  sketchError: number;
  projections: number;
  /** ‖W_T − W*‖_F, or null when W* is unknown or the policy keeps no estimate. */
  parameterError: number | null;
  /** Δ_T = 1 + ρ_{1:T}/λ (1 for exact policies), or null for a policy without λ. */
  deltaT: number | null;
  /** β_T, the confidence radius of the last round, or null for a policy without one. */
  betaT: number | null;
  /** m_T: a sketched policy's final sketch size (the size an adaptive sketch reached); null or absent for the others (and in units written before it existed). */
  mT?: number | null;
}

/** One row of summary.csv: a unit's TrialSummary and its identity. */
export interface SummaryRow extends TrialSummary {
  policy: string;
  trial: number;
}

export const TRIAL_COLUMNS = [
  'trial',
  'policy',
  't',
  'action',
  'actions',
  'outcome',
  'reward',
  'regret',
  'best_reward',
  'cum_regret',
  'select_ms',
  'update_ms',
  'm',
] as const;

/** Trial columns a reader accepts as absent (files written before they existed). */
export const OPTIONAL_TRIAL_COLUMNS: readonly string[] = ['actions', 'best_reward', 'm'];

export const SUMMARY_COLUMNS = [
  'policy',
  'trial',
  'final_regret',
  'mean_select_ms',
  'mean_update_ms',
  'median_select_ms',
  'median_update_ms',
  'mean_round_ms',
  'state_bytes',
  'sketch_error',
  'projections',
  'parameter_error',
  'delta_T',
  'beta_T',
  'm_T',
] as const;

/** Columns a reader accepts as absent (files written before they existed): they read as null. */
export const OPTIONAL_SUMMARY_COLUMNS: readonly string[] = ['delta_T', 'beta_T', 'm_T'];

/** Full round-trip precision (JavaScript's shortest text that parses back to the same double). */
export function exact(x: number): string {
  return String(x);
}

/** Milliseconds with 4 decimals (0.1 µs): the resolution per-round timings deserve. */
export function milliseconds(x: number): string {
  return x.toFixed(4);
}

/** summary.csv's cells of one unit, in SUMMARY_COLUMNS order. */
export function summaryCells(policy: string, trial: number, s: TrialSummary): string[] {
  return [
    policy,
    String(trial),
    exact(s.finalRegret),
    s.meanSelectMs.toFixed(6),
    s.meanUpdateMs.toFixed(6),
    s.medianSelectMs.toFixed(6),
    s.medianUpdateMs.toFixed(6),
    s.meanRoundMs.toFixed(6),
    String(s.stateBytes),
    exact(s.sketchError),
    String(s.projections),
    s.parameterError === null ? '' : exact(s.parameterError),
    s.deltaT === null ? '' : exact(s.deltaT),
    s.betaT === null ? '' : exact(s.betaT),
    s.mT === null || s.mT === undefined ? '' : String(s.mT),
  ];
}

/** A trial CSV's cells of one round, in TRIAL_COLUMNS order. */
export function roundCells(trial: string, policy: string, record: RoundRecord): string[] {
  return [
    trial,
    policy,
    String(record.t),
    String(record.action),
    String(record.actions),
    String(record.outcome),
    exact(record.reward),
    exact(record.regret),
    record.bestReward === null ? '' : exact(record.bestReward),
    exact(record.cumRegret),
    milliseconds(record.selectMs),
    milliseconds(record.updateMs),
    record.m === null ? '' : String(record.m),
  ];
}
