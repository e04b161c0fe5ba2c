/**
 * The confidence radius β_t(δ) of Theorem 1 in the three modes of DESIGN §2:
 * - 'theory': eq. (36) exactly, including its running sum over past rounds;
 * - 'order':  eq. (27) with all hidden constants 1;
 * - a number ≥ 0: a constant radius; 0 is greedy play (no exploration bonus: the optimistic
 *   policies play argmax rᵀσ(W_t x), the Thompson-sampling ones play W̃ = W_t).
 * `scale` (beta_scale) multiplies any of them.
 */
import { dot } from '../linalg/blas.js';

/** The named modes; any number ≥ 0 is a constant radius (0: greedy). */
export const BETA_MODES = ['theory', 'order'] as const;
export type BetaMode = (typeof BETA_MODES)[number] | number;

/**
 * Which rank and Δ a sketched policy puts into β: 'sketch' (its sketch size m and
 * Δ_t = 1 + ρ_{1:t}/λ, eq. (27) and eq. (36) as the paper defines them for EOFD-MLogB) or 'full' (rank Kd
 * and Δ = 1: OFUL-MLogB's radius, so that a comparison can hold the radius formula fixed).
 */
export const BETA_RANKS = ['sketch', 'full'] as const;
export type BetaRank = (typeof BETA_RANKS)[number];

export interface ConfidenceRadiusSpec {
  mode: BetaMode;
  /** beta_scale: multiplies β_t. */
  scale: number;
  /** d */
  d: number;
  /** K */
  K: number;
  /** The sketch's rank in β: min(m, Kd) for EOFD-MLogB, Kd for OFUL-MLogB (an adaptive sketch passes m_t to `value`). */
  rank: number;
  /** λ */
  regularization: number;
  /** η */
  stepSize: number;
  /** S */
  normBound: number;
  /** D */
  maxActionNorm: number;
  /** δ */
  delta: number;
}

/** β_t for one policy run. `value(t, ρ)` is pure; `accumulate` feeds the running sum of eq. (36). */
export class ConfidenceRadius {
  private readonly spec: ConfidenceRadiusSpec;
  /** L: upper bound of ∇σ (Assumption 2): 1/4 for K = 1, 1/2 for K ≥ 2. */
  private readonly smoothness: number;
  /** Σ_{s<t} [2√6 η L S ‖(W_{s+1} − W_s)x_s‖² + (24ηKd/λ − 1)‖W_{s+1} − W_s‖²_{Z_s}], eq. (36). */
  private runningSum = 0;

  constructor(spec: ConfidenceRadiusSpec) {
    const { mode, scale } = spec;
    if (typeof mode === 'number' && !(Number.isFinite(mode) && mode >= 0)) {
      throw new RangeError(`beta: a constant radius must be a finite number ≥ 0 (0: greedy), got ${mode}`);
    }
    if (typeof mode !== 'number' && mode !== 'theory' && mode !== 'order') {
      throw new RangeError(`beta: expected 'theory', 'order' or a number ≥ 0 (0: greedy), got ${JSON.stringify(mode)}`);
    }
    if (!(Number.isFinite(scale) && scale > 0)) {
      throw new RangeError(`beta_scale: expected a positive finite number, got ${scale}`);
    }
    this.spec = spec;
    this.smoothness = spec.K === 1 ? 0.25 : 0.5;
  }

  /** Whether `accumulate` must be fed (only eq. (36) has a running sum). */
  get needsRunningSum(): boolean {
    return this.spec.mode === 'theory';
  }

  /**
   * Adds round s's terms to the running sum of eq. (36): `predictionStepSq` = ‖(W_{s+1} − W_s)x_s‖²,
   * `curvatureStepSq` = ‖W_{s+1} − W_s‖²_{Z_s} (Z_s: the curvature matrix before round s's update).
   */
  accumulate(predictionStepSq: number, curvatureStepSq: number): void {
    const { stepSize: eta, normBound: S, K, d, regularization: lambda } = this.spec;
    this.runningSum +=
      2 * Math.sqrt(6) * eta * this.smoothness * S * predictionStepSq +
      ((24 * eta * K * d) / lambda - 1) * curvatureStepSq;
  }

  /**
   * β_t for round t ≥ 1 given the current sketching error ρ (ρ_{1:t−1}; 0 for exact policies) and
   * the sketch's rank m_t (default: the spec's; an adaptive sketch passes the size it has reached).
   * Floored at 0: a negative running sum in eq. (36) leaves no exploration bonus.
   */
  value(t: number, sketchError: number, rank = this.spec.rank): number {
    const { mode, scale } = this.spec;
    let beta: number;
    if (typeof mode === 'number') beta = mode;
    else if (mode === 'order') beta = this.order(t, sketchError, rank);
    else beta = this.theory(t, sketchError, rank);
    return Math.max(0, beta * scale);
  }

  // eq. (27), constants 1: Δ · ln²(K+1) · ln(t+1) · (m ln(t+1) + Kd ln Δ + ln(1/δ))
  private order(t: number, sketchError: number, rank: number): number {
    const { K, d, regularization: lambda, delta } = this.spec;
    const Delta = 1 + sketchError / lambda;
    const logK = Math.log(K + 1);
    const logT = Math.log(t + 1);
    return Delta * logK * logK * logT * (rank * logT + K * d * Math.log(Delta) + Math.log(1 / delta));
  }

  // eq. (36), written for β_{s+1} with s = t − 1 and W_1 = 0; Δ^{λ/2} read as 1 + 2ρ/λ.
  private theory(t: number, sketchError: number, m: number): number {
    const { K, d, regularization: lambda, stepSize: eta, normBound: S, maxActionNorm: D, delta } =
      this.spec;
    const s = t - 1;
    const logK = Math.log(K + 1);
    const Delta = 1 + sketchError / lambda;
    const DeltaHalf = 1 + (2 * sketchError) / lambda;
    const initial = lambda * S * S;
    const martingale =
      2 * eta * (D * S + logK + 2 * Math.log((K + 1) * s + 2)) * (5 / 4 + 4 * Math.log(Math.sqrt(1 + 2 * s) / delta)) +
      2 * eta * (2 + logK);
    const sketch =
      ((Math.sqrt(6) * eta) / (12 * K * d)) *
      lambda *
      Delta *
      (K * d * Math.log(DeltaHalf) + m * Math.log(1 + (2 * D * D * s) / (m * lambda)));
    return initial + martingale + sketch + this.runningSum;
  }
}

/**
 * The step of round s for eq. (36)'s running sum: writes diff = W_{s+1} − W_s (row-wise vectorised)
 * and returns ‖(W_{s+1} − W_s)x_s‖².
 */
export function parameterStep(
  K: number,
  d: number,
  previous: Float64Array,
  next: Float64Array,
  x: Float64Array,
  diff: Float64Array,
): number {
  const n = K * d;
  for (let j = 0; j < n; j++) diff[j] = next[j] - previous[j];
  let predictionSq = 0;
  for (let i = 0; i < K; i++) {
    const v = dot(d, diff, i * d, x, 0);
    predictionSq += v * v;
  }
  return predictionSq;
}
