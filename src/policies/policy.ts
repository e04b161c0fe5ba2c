import type { ActionSet } from '../environments/environment.js';
import type { PolicySpec } from './spec.js';

/** Counters a policy reports about itself (written to summaries and manifests). */
export interface PolicyStats {
  /** Bytes held by the policy's numerical state (typed arrays). */
  stateBytes: number;
  /** ρ_{1:t}: the sketch's accumulated discarded mass (0 for exact policies). */
  sketchError: number;
  /** Rounds in which the projection of eq. (9) was taken. */
  projections: number;
  /** β_t of the most recent selection (NaN before the first, and for policies without one). */
  beta: number;
  /** Δ_t = 1 + ρ_{1:t}/λ (1 for exact policies; NaN for policies without λ). */
  delta: number;
}

/** An online multinomial logistic bandit policy: select, then update with the observed outcome. */
export interface Policy {
  /** As the registry spells it (the paper's spelling: `EOFD-MLogB`). */
  readonly name: string;
  /** Index (0-based) of the action to play in round t (1-based). Ties go to the lowest index. */
  select(actions: ActionSet, t: number): number;
  /** Learns from the played action `x` (length d) and its observed outcome y ∈ {0..K}. */
  update(x: Float64Array, outcome: number): void;
  stats(): PolicyStats;
  /** The current estimate W_t, row-wise vectorised (length Kd); empty for policies without one. */
  estimate(): Float64Array;
}

/** A hyperparameter of the PolicySpec that a policy reads (so a sweep or grid over it means something). */
export type TunableParameter = 'lambda' | 'eta' | 'm' | 'beta' | 'beta_rank' | 'S' | 'delta';

/** The size of a problem, as a policy's cost estimates read it. */
export interface ProblemShape {
  /** d */
  d: number;
  /** K */
  K: number;
  /** m (a sketched policy's sketch size, capped at Kd; Kd for exact ones). */
  m: number;
  /** |A_t| */
  actions: number;
  /** The round t (for policies whose cost grows with the history). */
  t: number;
}

/** What a round costs: O-notation for people, estimates for the bench's caps. */
export interface PolicyCost {
  /** Per-round time, O-notation (README, `eofd list`). */
  readonly round: string;
  /** State, O-notation. */
  readonly memory: string;
  /** Estimated floating-point operations of round t (rare projections excepted). */
  flops(shape: ProblemShape): number;
  /** Estimated bytes of numerical state at round t. */
  bytes(shape: ProblemShape): number;
  /** A rare dense projection (eq. (9)) that the bench times with a probe in which every update projects. */
  readonly probeProjection: boolean;
}

/**
 * A policy as configs, the runner, the bench and `eofd list` know it. Each policy file exports one;
 * registry.ts lists them.
 */
export interface PolicyDescriptor {
  /** The name in configs, CSVs and plots, spelled as the paper spells it. */
  readonly name: string;
  /** One line for `eofd list` and the docs. */
  readonly summary: string;
  /** Where it comes from: authors and year of its paper ('—' for references that have none). */
  readonly reference: string;
  /** Which problems it can play: K = 1 (binary) and K ≥ 2 (multinomial). */
  readonly supports: { readonly binary: boolean; readonly multinomial: boolean };
  /** The spec's hyperparameters it reads. */
  readonly tunable: readonly TunableParameter[];
  /** Draws from its own seeded stream (spec.uniform), which the runner then seeds per trial. */
  readonly needsRandomStream: boolean;
  /** Relative cost per round, to run the slowest units first (a larger rank runs earlier). */
  readonly costRank: number;
  readonly cost: PolicyCost;
  create(spec: PolicySpec): Policy;
}
