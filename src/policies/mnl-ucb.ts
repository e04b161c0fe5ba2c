/**
 * MNL-UCB (Amani and Thrampoulidis, 2021, Alg. 1): the regularised maximum-likelihood estimate over the
 * whole history, eq. (7), and the first-order optimistic reward rᵀσ(θ̂x) + ε_t(x), eq. (5), with
 * ε_t(x) = γ_t ‖x‖_{V_t⁻¹}, eq. (22), V_t = κλI + Σ_{s<t} x_s x_sᵀ, eq. (18). With K = 1 this is the
 * UCB-GLM family (Li et al., 2017). The estimate is refitted every round by warm-started Newton steps
 * on the Kd×Kd Hessian, eq. (9) (kit/mle.ts: Cholesky solves, Armijo backtracking), to
 * ‖∇L‖ ≤ 1e-12·(1 + Σ‖x_s‖):
 * per round O(t·K²d² + K³d³) per Newton step, O(td + K²d²) memory. The projection of eq. (21) is not
 * taken: θ_t = θ̂_t (the paper's Remark 1 observes that θ̂_t ∈ Θ is frequent; eq. (21) is non-convex).
 *
 * In mode 'theory' the bonus of a unit-norm action is γ_t/√(κλ) up to a relative O(t/(κλ)): its part that
 * differs between actions is at most γ_t·λ_max(G_t)/(2(κλ)^{3/2}), G_t = Σ_{s<t} x_s x_sᵀ, i.e. it scales as 1/κ
 * (√κ in γ_t, (κλ)^{-3/2} from eq. (18)). With eq. (26)'s κ at S·D = 5 (3.3·10⁶ for K = 1) that is far below
 * the gaps between the actions' means, and the policy plays the greedy actions: their constants, not a bug.
 */
import type { ActionSet } from '../environments/environment.js';
import { dot } from '../linalg/blas.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, newtonRegularizationProblem } from './kit/checks.js';
import { BonusSelector, DesignMatrix } from './kit/design-matrix.js';
import { mleBytes, RegularizedMle } from './kit/mle.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Default rounds between exact re-inversions of V_t. */
const DEFAULT_REFRESH_INTERVAL = 500;

/** Why MNL-UCB cannot run with `spec` (λ too small for its Newton system Σ A⊗xxᵀ + λI, eq. (9), in double precision), or null. */
export function mnlUcbRangeProblem(spec: Pick<PolicySpec, 'regularization' | 'maxActionNorm'>): string | null {
  return newtonRegularizationProblem('MNL-UCB', spec)?.detail ?? null;
}

/**
 * κ and L of Assumption 2 bounded as Section 3 does, for ‖x‖ ≤ D, ‖θ‖ ≤ S (so SX = S·D):
 * κ ≤ e^{SX}(1 + K e^{SX})², eq. (26) (their experiments use this bound), and
 * L ≤ e^{SX} / (1 + e^{SX} + (K−1)e^{−SX}).
 */
export function mnlProblemConstants(K: number, normBound: number, maxActionNorm: number): { kappa: number; smoothness: number } {
  const e = Math.exp(normBound * maxActionNorm);
  return { kappa: e * (1 + K * e) ** 2, smoothness: e / (1 + e + (K - 1) / e) };
}

/** β_t(δ) of Theorem 1: K^{3/2}d/√λ·ln(1 + t/(dλ)) + √(λ/K)/2 + 2K^{3/2}d/√λ·ln(2/δ) + √λ S. */
export function mnlConfidenceRadius(K: number, d: number, lambda: number, normBound: number, delta: number, t: number): number {
  const c = (K ** 1.5 * d) / Math.sqrt(lambda);
  return c * Math.log(1 + t / (d * lambda)) + Math.sqrt(lambda / K) / 2 + 2 * c * Math.log(2 / delta) + Math.sqrt(lambda) * normBound;
}

export class MnlUcb implements Policy {
  readonly name = 'MNL-UCB' as const;
  private readonly K: number;
  private readonly spec: PolicySpec;
  /** λ */
  private readonly regularization: number;
  /** 2RL√(κ(1+2S)) of eq. (22) in mode 'theory'; 1 otherwise. */
  private readonly bonusFactor: number;
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  /** θ̂_t (Kd), row-wise vectorised. */
  readonly current: Float64Array;
  /** The history and its regularised MLE, eq. (7) (refitted every round, warm-started at θ̂_{t−1}). */
  private readonly mle: RegularizedMle;
  private lastBeta = NaN;
  /** Newton iterations of the most recent refit. */
  lastIterations = 0;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    const problem = mnlUcbRangeProblem(spec);
    if (problem !== null) throw new RangeError(problem);
    const { K, d } = spec;
    this.K = K;
    this.spec = spec;
    this.regularization = spec.regularization;
    const { kappa, smoothness } = mnlProblemConstants(K, spec.normBound, spec.maxActionNorm);
    const theory = spec.beta === 'theory';
    const rewardNorm = Math.sqrt(dot(K, spec.reward, 0, spec.reward, 0));
    this.bonusFactor = theory ? 2 * rewardNorm * smoothness * Math.sqrt(kappa * (1 + 2 * spec.normBound * spec.maxActionNorm)) : 1;
    // eq. (18): V_1 = κλI; κ = 1 outside mode 'theory' (its radius carries no κ either).
    this.design = new DesignMatrix(d, (theory ? kappa : 1) * spec.regularization, spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    this.selector = new BonusSelector(K, d, spec.reward);
    // The estimate, the Newton system and the history the products read live beside V_t's matrices.
    this.current = this.design.workspace.float64(K * d);
    this.mle = new RegularizedMle(K, d, this.design.workspace);
  }

  /** β_t = γ_t²: (eq. (22)'s factor · β_t(δ) of Theorem 1)² in 'theory', β_t(δ)² in 'order', or the constant; times beta_scale. */
  betaAt(t: number): number {
    const { beta, betaScale, K, d, regularization, normBound, delta, maxActionNorm } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    const radius = this.bonusFactor * mnlConfidenceRadius(K, d, regularization, normBound * maxActionNorm, delta, t);
    return radius * radius * betaScale;
  }

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    this.lastBeta = this.betaAt(t);
    return this.selector.select(actions, this.current, Math.sqrt(this.lastBeta), this.design);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, this.K);
    this.mle.add(x, outcome);
    this.design.addOuter(1, x);
    // θ̂_t = argmin −L_t^λ of eq. (7), by damped Newton from θ̂_{t−1}.
    this.mle.fit(this.current, this.regularization, 'gradient', this.name);
    this.lastIterations = this.mle.lastIterations;
    assertFiniteState(this.name, this.current);
  }

  stats(): PolicyStats {
    const bytes = this.design.byteLength + this.selector.byteLength + this.current.byteLength + this.mle.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: 0, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const mnlUcbPolicy: PolicyDescriptor = {
  name: 'MNL-UCB',
  summary: 'batch regularised MLE over the whole history + first-order bonus (Amani and Thrampoulidis, 2021)',
  reference: 'Amani and Thrampoulidis, 2021',
  supports: { binary: true, multinomial: true },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // Amani and Thrampoulidis (2021): the radius of eq. (22) with Theorem 1's β_t(δ) and κ of eq. (26); δ = 0.01 (their Section 4).
  defaults: { beta: 'theory', delta: 0.01 },
  needsRandomStream: false,
  costRank: 3,
  cost: {
    round: 'O(t·K²d² + K³d³) per Newton step (a few, warm-started)',
    memory: 'O(td + K²d²)',
    // Two Newton steps (the Hessian over the t past rounds, its Cholesky factor) and the bonus ‖x‖_{V⁻¹}.
    flops: ({ d, K, actions, t }) => 2 * (2 * t * (K * d) ** 2 + (K * d) ** 3 / 3) + 2 * actions * (K * d + d * d),
    // The MLE (its history and Newton system), V_t, V_t⁻¹ and the selector's scratch (d×d each), θ̂.
    bytes: ({ d, K, t }) => mleBytes(K, d, t) + 8 * (4 * d * d + K * d),
    probeProjection: false,
  },
  rangeProblem: (spec) => newtonRegularizationProblem('MNL-UCB', spec),
  create: (spec) => new MnlUcb(spec),
};
