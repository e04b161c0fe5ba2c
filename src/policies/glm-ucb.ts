/**
 * GLM-UCB (Filippi, Cappé, Garivier and Szepesvári, NeurIPS 2010) for the logistic link (K = 1 only),
 * as the authors' harness plays it (criteo-research/logistic_bandit at d5e8aa2,
 * logbexp/algorithms/glm_ucb.py; line numbers are that file's):
 * - θ̂_t = argmin_θ Σ_{s<t} ℓ(θᵀx_s, y_s) + (λ/2)‖θ‖², the ℓ2-regularised maximum-likelihood estimate,
 *   ℓ the logistic loss (its gradient and Hessian, lines 83–88);
 * - V_t = λI + Σ_{s<t} x_sx_sᵀ (lines 48, 113);
 * - x_t = argmax μ(θ̂_tᵀx)·r_1 + ρ(t)‖x‖_{V_t⁻¹} (lines 128–135), with
 *   ρ(t) = (κ/4)·√(2 ln(1/δ) + ln det V_t − d ln λ) + √λ·S and κ = 1/μ̇(S·D), the inverse of the
 *   smallest slope of μ on the ball (lines 54, 118–126; 1/4 is the logistic link's largest slope). The
 *   paper's own text could not be read here, so these constants are the code's, not checked against it.
 * Three of glm_ucb.py's quirks are switched off: it runs 5 undamped Newton steps a round (line 82), here
 *   the estimate is solved (warm-started Newton steps with Armijo backtracking, Cholesky solves) to
 *   ‖∇‖ ≤ 1e-12·(1 + Σ_s‖x_s‖); it refits only every 5th round after round 200 (line 79, lazy_update_fr
 *   = 5), here every round; and it starts from θ̂ and θ̃ drawn from N(0, I) (lines 50–51), here θ̂_1 = 0,
 *   the minimiser of the regularised loss of no data. The paper's projection step (θ̃_t, a non-convex
 *   problem; lines 94–101, off by default there, do_proj = False) is not taken: θ̃_t = θ̂_t. λ is the
 *   config's (glm_ucb.py: λ = d, line 47). Per round O(t·d² + d³) per Newton step (a few, warm-started)
 *   and O(|A_t|d²) for the decision; O(td + d²) memory.
 */
import type { ActionSet } from '../environments/environment.js';
import { dot, gemmNT, gemv, gemvT } from '../linalg/blas.js';
import { cholesky, choleskySolve } from '../linalg/cholesky.js';
import { assertFiniteActions, assertFiniteState, assertOutcome } from './checks.js';
import { BonusSelector, DesignMatrix } from './design-matrix.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Relative gradient tolerance of the MLE: ‖∇L(θ̂)‖₂ ≤ GLM_UCB_TOLERANCE·(1 + Σ_s ‖x_s‖₂). */
export const GLM_UCB_TOLERANCE = 1e-12;
/** Newton iterations per refit at most (warm-started, it converges in a few). */
const MAX_NEWTON_ITERATIONS = 50;
/** Relative decrease of the loss below which its rounding hides the Armijo test. */
const RESOLVABLE_DECREASE = 1e-10;
/** Default rounds between exact re-inversions of V_t. */
const DEFAULT_REFRESH_INTERVAL = 500;
/** First history capacity (rounds); doubled when full. */
const INITIAL_CAPACITY = 64;

/** κ = 1/μ̇(S·D): the inverse of the smallest slope of the logistic link on the ball (glm_ucb.py line 54). */
export function glmUcbKappa(normBound: number, maxActionNorm: number): number {
  const e = Math.exp(-normBound * maxActionNorm);
  return ((1 + e) * (1 + e)) / e;
}

/**
 * ρ(t) as glm_ucb.py's update_ucb_bonus computes it (lines 122–125):
 * (κ/4)·√(2 ln(1/δ) + ln det V_t − d ln λ) + √λ·S.
 */
export function glmUcbRadius(kappa: number, d: number, lambda: number, normBound: number, delta: number, logDetV: number): number {
  return 0.25 * kappa * Math.sqrt(Math.max(0, 2 * Math.log(1 / delta) + logDetV - d * Math.log(lambda))) + Math.sqrt(lambda) * normBound;
}

/** σ(z) = 1/(1 + e^{−z}), without overflow for large |z|. */
function sigmoid(z: number): number {
  if (z >= 0) return 1 / (1 + Math.exp(-z));
  const e = Math.exp(z);
  return e / (1 + e);
}

export class GlmUcb implements Policy {
  readonly name = 'GLM-UCB' as const;
  private readonly d: number;
  private readonly spec: PolicySpec;
  /** λ */
  private readonly regularization: number;
  /** κ = 1/μ̇(S·D) */
  readonly kappa: number;
  /** V_t */
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  /** θ̂_t */
  readonly current: Float64Array;
  private readonly trial: Float64Array;
  private readonly gradient: Float64Array;
  private readonly step: Float64Array;
  /** ∇²L(θ) (d×d), then its Cholesky factor. */
  private readonly hessian: Float64Array;
  /** History x_1..x_{t−1}, stored transposed: d rows of `capacity` (feature a of round s at a·capacity + s). */
  private history: Float64Array;
  private outcomes: Int32Array;
  /** θᵀx_s, μ(θᵀx_s) and μ(θᵀx_s) − y_s per round; μ̇-scaled history for the Hessian. */
  private scores: Float64Array;
  private probabilities: Float64Array;
  private coefficients: Float64Array;
  private scaled: Float64Array;
  private capacity = 0;
  private rounds = 0;
  /** Σ_s ‖x_s‖₂: the scale of the gradient's terms. */
  private historyScale = 0;
  private lastBeta = NaN;
  /** Newton iterations of the most recent refit. */
  lastIterations = 0;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    if (spec.K !== 1) throw new RangeError(`GLM-UCB is a binary (K = 1) policy, got K = ${spec.K}`);
    const { d } = spec;
    this.d = d;
    this.spec = spec;
    this.regularization = spec.regularization;
    this.kappa = glmUcbKappa(spec.normBound, spec.maxActionNorm);
    this.design = new DesignMatrix(d, spec.regularization, spec.refreshInterval ?? DEFAULT_REFRESH_INTERVAL);
    this.selector = new BonusSelector(1, d, spec.reward);
    // κ = 1/μ̇(S·D) grows as e^{SD}: for large S·D the radius is infinite and every decision a tie.
    if (!Number.isFinite(this.betaAt())) {
      throw new RangeError(
        `GLM-UCB needs a finite radius in double precision; S·D = ${spec.normBound * spec.maxActionNorm} gives κ = ${this.kappa}, β_1 = ${this.betaAt()}: lower params.S or give a numeric beta`,
      );
    }
    // The estimate, the Newton system and the history the products read live beside V_t's matrices.
    const space = this.design.workspace;
    this.current = space.float64(d);
    this.trial = space.float64(d);
    this.gradient = space.float64(d);
    this.step = space.float64(d);
    this.hessian = space.float64(d * d);
    this.history = new Float64Array(0);
    this.outcomes = new Int32Array(0);
    this.scores = new Float64Array(0);
    this.probabilities = new Float64Array(0);
    this.coefficients = new Float64Array(0);
    this.scaled = new Float64Array(0);
    this.grow(INITIAL_CAPACITY);
  }

  /** β_t = ρ(t)² (glm_ucb.py's radius, which has no hidden constants) in 'theory' and 'order', or the constant; times beta_scale. */
  betaAt(): number {
    const { beta, betaScale, d, normBound, delta } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    const radius = glmUcbRadius(this.kappa, d, this.regularization, normBound, delta, this.design.logDeterminant);
    return radius * radius * betaScale;
  }

  select(actions: ActionSet, _t: number): number {
    assertFiniteActions(actions);
    this.lastBeta = this.betaAt();
    return this.selector.select(actions, this.current, Math.sqrt(this.lastBeta), this.design);
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, 1);
    const { d } = this;
    if (this.rounds === this.capacity) this.grow(2 * this.capacity);
    const s = this.rounds;
    for (let a = 0; a < d; a++) this.history[a * this.capacity + s] = x[a];
    this.outcomes[s] = outcome;
    this.rounds++;
    this.historyScale += Math.sqrt(dot(d, x, 0, x, 0));
    this.design.addOuter(1, x);
    this.fit();
    assertFiniteState(this.name, this.current);
  }

  /** Copies the history into buffers of `capacity` rounds. */
  private grow(capacity: number): void {
    const { d } = this;
    // Doubling: the workspace keeps the old buffers, at most as much again as the new ones.
    const space = this.design.workspace;
    const history = space.float64(d * capacity);
    for (let a = 0; a < d; a++) history.set(this.history.subarray(a * this.capacity, a * this.capacity + this.rounds), a * capacity);
    const outcomes = new Int32Array(capacity);
    outcomes.set(this.outcomes.subarray(0, this.rounds));
    this.history = history;
    this.outcomes = outcomes;
    this.scores = space.float64(capacity);
    this.probabilities = new Float64Array(capacity);
    this.coefficients = space.float64(capacity);
    this.scaled = space.float64(d * capacity);
    this.capacity = capacity;
  }

  /**
   * L(θ) = Σ_s ℓ(θᵀx_s, y_s) + (λ/2)‖θ‖², ℓ(z, y) = ln(1 + e^z) − yz; fills μ(θᵀx_s) and μ(θᵀx_s) − y_s.
   */
  private loss(theta: Float64Array): number {
    const { d, capacity, rounds: t, scores, probabilities, coefficients } = this;
    gemvT(d, t, this.history, 0, capacity, theta, 0, scores, 0);
    let total = 0.5 * this.regularization * dot(d, theta, 0, theta, 0);
    for (let s = 0; s < t; s++) {
      const z = scores[s];
      const y = this.outcomes[s];
      total += Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z))) - y * z;
      const p = sigmoid(z);
      probabilities[s] = p;
      coefficients[s] = p - y;
    }
    return total;
  }

  /** θ̂_t = argmin L by damped Newton from θ̂_{t−1} (glm_ucb.py lines 81–89, run to convergence). */
  private fit(): void {
    const { d, capacity, rounds: t, history, hessian, gradient, step, current, trial, scaled } = this;
    const lambda = this.regularization;
    const tolerance = GLM_UCB_TOLERANCE * (1 + this.historyScale);
    let value = this.loss(current);
    let iteration = 0;
    for (; iteration < MAX_NEWTON_ITERATIONS; iteration++) {
      // ∇L = λθ + Σ_s (μ(θᵀx_s) − y_s) x_s (line 85).
      gemv(d, t, history, 0, capacity, this.coefficients, 0, gradient, 0);
      for (let j = 0; j < d; j++) gradient[j] += lambda * current[j];
      if (Math.sqrt(dot(d, gradient, 0, gradient, 0)) <= tolerance) break;
      // ∇²L = Σ_s μ̇(θᵀx_s) x_sx_sᵀ + λI (lines 86–87).
      for (let a = 0; a < d; a++) {
        const row = a * capacity;
        for (let s = 0; s < t; s++) {
          const p = this.probabilities[s];
          scaled[row + s] = p * (1 - p) * history[row + s];
        }
      }
      gemmNT(d, d, t, history, 0, capacity, scaled, 0, capacity, hessian, 0, d);
      for (let j = 0; j < d; j++) hessian[j * d + j] += lambda;
      if (!cholesky(d, hessian, 0, d)) throw new Error(`${this.name}: the Hessian of the likelihood is not positive definite`);
      step.set(gradient);
      choleskySolve(d, hessian, 0, d, step, 0);
      // Armijo backtracking on L. Once the Newton decrement ∇ᵀH⁻¹∇ is below what L's rounding can
      // resolve, the full step is taken (there Newton converges quadratically).
      const decrease = dot(d, gradient, 0, step, 0);
      if (decrease <= RESOLVABLE_DECREASE * (1 + Math.abs(value))) {
        for (let j = 0; j < d; j++) current[j] -= step[j];
        value = this.loss(current);
        continue;
      }
      let size = 1;
      let next = value;
      for (let halving = 0; halving < 60; halving++) {
        for (let j = 0; j < d; j++) trial[j] = current[j] - size * step[j];
        next = this.loss(trial);
        if (next <= value - 1e-4 * size * decrease) break;
        size *= 0.5;
      }
      if (!(next <= value)) {
        this.loss(current);
        break;
      }
      current.set(trial);
      value = next;
    }
    this.lastIterations = iteration;
  }

  stats(): PolicyStats {
    const bytes =
      this.design.byteLength +
      this.selector.byteLength +
      this.hessian.byteLength +
      4 * this.current.byteLength +
      this.history.byteLength +
      this.outcomes.byteLength +
      this.scores.byteLength +
      this.probabilities.byteLength +
      this.coefficients.byteLength +
      this.scaled.byteLength;
    return { stateBytes: bytes, sketchError: 0, projections: 0, beta: this.lastBeta, delta: NaN };
  }

  estimate(): Float64Array {
    return this.current;
  }
}

export const glmUcbPolicy: PolicyDescriptor = {
  name: 'GLM-UCB',
  summary: 'regularised maximum likelihood over the whole history + UCB bonus (Filippi et al., 2010); K = 1 only',
  reference: 'Filippi et al., 2010',
  supports: { binary: true, multinomial: false },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS),
  // criteo-research/logistic_bandit glm_ucb.py:54, :118-126 (its radius; no other mode) and δ = 0.05 (scripts/generate_configs.py:21).
  defaults: { beta: 'theory', delta: 0.05 },
  needsRandomStream: false,
  costRank: 3,
  cost: {
    round: 'O(t·d² + d³) per Newton step (a few, warm-started), O(|A_t|·d²) for the decision',
    memory: 'O(td + d²)',
    // Two Newton steps (the Hessian over the t past rounds, its Cholesky factor) and the bonus ‖x‖_{V⁻¹}.
    flops: ({ d, actions, t }) => 2 * (2 * t * d * d + (d * d * d) / 3) + 2 * actions * d * d,
    // The history (t·d twice: it and its scaled copy), the d×d Hessian, V_t, V_t⁻¹ and the refresh workspace.
    bytes: ({ d, t }) => 8 * (t * (2 * d + 3) + 4 * d * d),
    probeProjection: false,
  },
  create: (spec) => new GlmUcb(spec),
};
