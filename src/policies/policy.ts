import type { ActionSet } from '../environments/environment.js';

/** The policies this package implements, spelled as the paper spells them. */
export const POLICY_NAMES = ['EOFD-MLogB', 'OFUL-MLogB', 'Random'] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];

/** Counters a policy reports about itself (written to summaries and manifests). */
export interface PolicyStats {
  /** Bytes held by the policy's numerical state (typed arrays). */
  stateBytes: number;
  /** ρ_{1:t}: the sketch's accumulated discarded mass (0 for exact policies). */
  sketchError: number;
  /** Rounds in which the projection of eq. (9) was taken. */
  projections: number;
  /** β_t of the most recent selection (NaN before the first). */
  beta: number;
}

/** An online multinomial logistic bandit policy: select, then update with the observed outcome. */
export interface Policy {
  readonly name: PolicyName;
  /** Index (0-based) of the action to play in round t (1-based). Ties go to the lowest index. */
  select(actions: ActionSet, t: number): number;
  /** Learns from the played action `x` (length d) and its observed outcome y ∈ {0..K}. */
  update(x: Float64Array, outcome: number): void;
  stats(): PolicyStats;
  /** The current estimate W_t, row-wise vectorised (length Kd); empty for policies without one. */
  weights(): Float64Array;
}
