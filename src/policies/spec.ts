import { BETA_RANKS, type BetaMode, type BetaRank } from '../model/beta.js';
import { deriveHyperparameters, HYPERPARAMETER_DEFAULTS } from '../model/hyperparameters.js';
import type { OptionValues } from '../base/options.js';

/** Everything a policy needs to be built; validated by `validatePolicySpec`. */
export interface PolicySpec {
  /** d: feature dimension. */
  d: number;
  /** K: number of non-null outcomes. */
  K: number;
  /** r_1..r_K (r_0 = 0 is implicit). */
  reward: Float64Array;
  /** S: bound on ‖W‖_F (the parameter domain of eq. (9)). */
  normBound: number;
  /** λ */
  regularization: number;
  /** η */
  stepSize: number;
  /** m of the sketched policies (capped at the dimension sketched); with `adaptiveSketch`, the initial m_1. */
  sketchSize: number;
  /** params.m: adaptive: m_t grows so that Δ_t = 1 + ρ_{1:t}/λ ≤ 1 + ε in every round (ε = deltaMax, params.delta_max). */
  adaptiveSketch?: { deltaMax: number };
  /** β mode (DESIGN §2). */
  beta: BetaMode;
  /** beta_scale */
  betaScale: number;
  /** beta_rank: a sketched policy's rank and Δ in β ('sketch': m and 1 + ρ/λ; 'full': Kd and 1). */
  betaRank: BetaRank;
  /** δ */
  delta: number;
  /** D: bound on action norms. */
  maxActionNorm: number;
  /** OFUL-MLogB: rounds between exact re-inversions of H (Woodbury drift control). */
  refreshInterval?: number;
  /** T: the horizon, which the limited-adaptivity baselines' constants read (RS-GLinCB, RS-MNL: ln(T/δ), λ). */
  horizon?: number;
  /** The sketched policies' frequent directions: 'fd' (Alg. 1, the default) or 'rfd' (robust FD, λ_t = λ + ρ/2). */
  sketchVariant?: SketchVariant;
  /**
   * The policy's own keys (PolicyDescriptor.options) as resolved, defaults filled in; read through
   * `policyOption` (absent, or a key left out: its declared default).
   */
  options?: OptionValues;
  /** Random and the Thompson-sampling policies: the policy's own uniform stream on [0, 1). */
  uniform?: () => number;
}

/**
 * Bounds that keep every product a policy forms finite: λ, η, S and D enter squared and multiplied
 * (eq. (25)'s (λ+ν)², β's ln terms), and regret sums rewards over up to 10⁸ rounds.
 */
export const SPEC_LIMITS = {
  /** Smallest λ, η, S or D. */
  minScale: 1e-30,
  /** Largest λ, η, S or D. */
  maxScale: 1e30,
  /** Largest reward r_k. */
  maxReward: 1e12,
} as const;

/** params.sketch: plain frequent directions, or robust frequent directions (Luo et al., 2019). */
export const SKETCH_VARIANTS = ['fd', 'rfd'] as const;
export type SketchVariant = (typeof SKETCH_VARIANTS)[number];

function requirePositive(name: string, value: number): void {
  if (!(typeof value === 'number' && Number.isFinite(value) && value >= SPEC_LIMITS.minScale && value <= SPEC_LIMITS.maxScale)) {
    throw new RangeError(`${name} must be a number in [${SPEC_LIMITS.minScale}, ${SPEC_LIMITS.maxScale}], got ${value}`);
  }
}

function requireInteger(name: string, value: number, min: number): void {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`);
  }
}

/** Throws a RangeError naming the first invalid field. */
export function validatePolicySpec(spec: PolicySpec): void {
  requireInteger('d', spec.d, 1);
  requireInteger('K', spec.K, 1);
  if (spec.reward.length !== spec.K) {
    throw new RangeError(`reward must list r_1..r_K (${spec.K} values), got ${spec.reward.length}`);
  }
  spec.reward.forEach((r, k) => {
    if (!(Number.isFinite(r) && r >= 0 && r <= SPEC_LIMITS.maxReward)) {
      throw new RangeError(`reward r_${k + 1} must be a number in [0, ${SPEC_LIMITS.maxReward}], got ${r}`);
    }
  });
  requirePositive('S', spec.normBound);
  // D before λ and η: they are derived from it (α = 2(1 + S·D) + ln(K+1)).
  requirePositive('D (largest action norm)', spec.maxActionNorm);
  requirePositive('lambda', spec.regularization);
  requirePositive('eta', spec.stepSize);
  requireInteger('m', spec.sketchSize, 1);
  if (spec.adaptiveSketch !== undefined && !(Number.isFinite(spec.adaptiveSketch.deltaMax) && spec.adaptiveSketch.deltaMax > 0)) {
    throw new RangeError(`delta_max must be a finite number > 0, got ${spec.adaptiveSketch.deltaMax}`);
  }
  requirePositive('beta_scale', spec.betaScale);
  if (!BETA_RANKS.includes(spec.betaRank)) throw new RangeError(`beta_rank must be 'sketch' or 'full', got ${JSON.stringify(spec.betaRank)}`);
  if (!(spec.delta > 0 && spec.delta < 1)) throw new RangeError(`delta must lie in (0, 1), got ${spec.delta}`);
  if (spec.refreshInterval !== undefined) requireInteger('refreshInterval', spec.refreshInterval, 1);
  if (spec.horizon !== undefined) requireInteger('horizon', spec.horizon, 1);
  if (spec.sketchVariant !== undefined && !SKETCH_VARIANTS.includes(spec.sketchVariant)) {
    throw new RangeError(`sketch must be 'fd' or 'rfd', got ${JSON.stringify(spec.sketchVariant)}`);
  }
}

/** Full reward vector r_0..r_K → r_1..r_K, rejecting r_0 ≠ 0 (Assumption 1). */
export function nonNullRewards(rewards: readonly number[]): Float64Array {
  if (rewards.length < 2) throw new RangeError(`reward must list r_0..r_K (at least 2 values), got ${rewards.length}`);
  if (rewards[0] !== 0) throw new RangeError(`reward r_0 must be 0 (the null outcome), got ${rewards[0]}`);
  return Float64Array.from(rewards.slice(1));
}

/** What an application (or the runner) knows about its problem; everything else takes Section 4's defaults. */
export interface PolicyOptions {
  d: number;
  K: number;
  /** r_0..r_K with r_0 = 0 (K = 1: [0, 1]). */
  reward: readonly number[];
  /** S: bound on ‖W*‖_F (default 1). */
  normBound?: number;
  /** D: bound on action norms (default 1). */
  maxActionNorm?: number;
  /** Horizon T for δ = 1/T (default 10,000). */
  horizon?: number;
  /** δ (default 1/T). */
  delta?: number;
  /** m (default ⌊Kd/10⌋; capped at Kd); with `adaptiveSketch`, the initial m_1 (default 1). */
  sketchSize?: number;
  /** An adaptive sketch size with the budget Δ_t ≤ 1 + deltaMax (params.m: adaptive, params.delta_max). */
  adaptiveSketch?: { deltaMax: number };
  /** β mode (default 'order', eq. (27)). */
  beta?: BetaMode;
  betaScale?: number;
  /** beta_rank (default 'sketch'). */
  betaRank?: BetaRank;
  /** λ and η directly, or through the (l, e) scaling of Section 4. */
  regularization?: number;
  stepSize?: number;
  l?: number;
  e?: number;
  /** OFUL-MLogB: rounds between exact re-inversions of H. */
  refreshInterval?: number;
  /** The sketched policies' frequent directions (default 'fd'). */
  sketchVariant?: SketchVariant;
  /** The policy's own keys (PolicyDescriptor.options, e.g. OFUL-MLogB's oful_solver; absent: their defaults). */
  options?: OptionValues;
  /**
   * A uniform stream on [0, 1) for policies that draw (Random, the Thompson-sampling policies); one from
   * `uniformOf(stream)` lets a snapshot (policies/snapshot.ts) save its position.
   */
  uniform?: () => number;
}

/** m_1 of an adaptive sketch: it starts from one direction and grows as its budget requires. */
export const ADAPTIVE_INITIAL_SKETCH_SIZE = 1;

/**
 * params.delta_max's default ε = 0.1: Δ_T ≤ 1.1, so the Kd ln Δ_T of eq. (27)/(28) is at most
 * Kd ln 1.1 ≈ Kd/10.5, no more than the m = ⌊Kd/10⌋ of Section 4's fixed sketch.
 */
export const DEFAULT_DELTA_MAX = 0.1;

/** The horizon the library assumes for δ = 1/T when none is given. */
export const DEFAULT_LIBRARY_HORIZON = 10_000;

/** The PolicySpec factory of the library and the bench: λ, η, m and δ derived as Section 4 does (the runner's come from experiment/setup.ts, resolved per policy entry). */
export function policySpec(options: PolicyOptions): PolicySpec {
  const normBound = options.normBound ?? HYPERPARAMETER_DEFAULTS.S;
  const maxActionNorm = options.maxActionNorm ?? 1;
  const derived = deriveHyperparameters({
    d: options.d,
    K: options.K,
    normBound,
    maxActionNorm,
    horizon: options.horizon ?? DEFAULT_LIBRARY_HORIZON,
    l: options.l,
    e: options.e,
    regularization: options.regularization,
    stepSize: options.stepSize,
    sketchSize: options.adaptiveSketch !== undefined ? (options.sketchSize ?? ADAPTIVE_INITIAL_SKETCH_SIZE) : options.sketchSize,
    delta: options.delta,
  });
  const reward = nonNullRewards(options.reward);
  if (reward.length !== options.K) throw new RangeError(`reward must list r_0..r_K (${options.K + 1} values), got ${options.reward.length}`);
  const spec: PolicySpec = {
    d: options.d,
    K: options.K,
    reward,
    normBound,
    regularization: derived.regularization,
    stepSize: derived.stepSize,
    sketchSize: derived.sketchSize,
    beta: options.beta ?? HYPERPARAMETER_DEFAULTS.beta,
    betaScale: options.betaScale ?? HYPERPARAMETER_DEFAULTS.betaScale,
    betaRank: options.betaRank ?? HYPERPARAMETER_DEFAULTS.betaRank,
    delta: derived.delta,
    maxActionNorm,
    horizon: options.horizon ?? DEFAULT_LIBRARY_HORIZON,
  };
  if (options.adaptiveSketch !== undefined) spec.adaptiveSketch = { deltaMax: options.adaptiveSketch.deltaMax };
  if (options.refreshInterval !== undefined) spec.refreshInterval = options.refreshInterval;
  if (options.sketchVariant !== undefined) spec.sketchVariant = options.sketchVariant;
  if (options.options !== undefined) spec.options = { ...options.options };
  if (options.uniform !== undefined) spec.uniform = options.uniform;
  return spec;
}
