/**
 * MNL-UCB (Amani and Thrampoulidis, 2021, Alg. 1): the regularised maximum-likelihood estimate over the
 * whole history, eq. (7), and the first-order optimistic reward rᵀσ(θ̂x) + ε_t(x), eq. (5), with
 * ε_t(x) = γ_t ‖x‖_{V_t⁻¹}, eq. (22), V_t = κλI + Σ_{s<t} x_s x_sᵀ, eq. (18). With K = 1 this is the
 * UCB-GLM family (Li et al., 2017). The estimate is refitted every round by warm-started Newton steps
 * on the Kd×Kd Hessian, eq. (9) (Cholesky solve, Armijo backtracking), to ‖∇L‖ ≤ 1e-12·(1 + Σ‖x_s‖):
 * per round O(t·K²d² + K³d³) per Newton step, O(td + K²d²) memory. The projection of eq. (21) is not
 * taken: θ_t = θ̂_t (the paper's Remark 1 observes that θ̂_t ∈ Θ is frequent; eq. (21) is non-convex).
 *
 * In mode 'theory' the bonus of a unit-norm action is γ_t/√(κλ) up to a relative O(t/(κλ)): its part that
 * differs between actions is at most γ_t·λ_max(G_t)/(2(κλ)^{3/2}), G_t = Σ_{s<t} x_s x_sᵀ, i.e. it scales as 1/κ
 * (√κ in γ_t, (κλ)^{-3/2} from eq. (18)). With eq. (26)'s κ at S·D = 5 (3.3·10⁶ for K = 1) that is far below
 * the gaps between the actions' means, and the policy plays the greedy actions: their constants, not a bug.
 */
import type { ActionSet } from '../environments/environment.js';
import { dot, gemmNT, gemv, gemvT } from '../linalg/blas.js';
import { cholesky, choleskySolve } from '../linalg/cholesky.js';
import { softmaxWithNull } from '../model/logistic.js';
import { assertFiniteActions, assertFiniteState, assertOutcome, newtonRegularizationProblem } from './checks.js';
import { BonusSelector, DesignMatrix } from './design-matrix.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** Relative gradient tolerance of the MLE: ‖∇L(θ̂)‖₂ ≤ NEWTON_TOLERANCE·(1 + Σ_s ‖x_s‖₂). */
export const NEWTON_TOLERANCE = 1e-12;
/** Newton iterations per refit at most (warm-started, it converges in a few). */
export const NEWTON_MAX_ITERATIONS = 50;
/** Relative decrease of −L below which its rounding hides the Armijo test. */
const RESOLVABLE_DECREASE = 1e-10;
/** Default rounds between exact re-inversions of V_t. */
const DEFAULT_REFRESH_INTERVAL = 500;
/** First history capacity (rounds); doubled when full. */
const INITIAL_CAPACITY = 64;

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
  private readonly d: number;
  private readonly dimension: number;
  private readonly spec: PolicySpec;
  /** λ */
  private readonly regularization: number;
  /** 2RL√(κ(1+2S)) of eq. (22) in mode 'theory'; 1 otherwise. */
  private readonly bonusFactor: number;
  readonly design: DesignMatrix;
  private readonly selector: BonusSelector;
  /** θ̂_t (Kd), row-wise vectorised. */
  readonly current: Float64Array;
  private readonly trial: Float64Array;
  private readonly gradient: Float64Array;
  private readonly step: Float64Array;
  /** ∇²L(θ) (Kd×Kd), then its Cholesky factor. */
  private readonly hessian: Float64Array;
  private readonly sigma: Float64Array;
  private readonly logits: Float64Array;
  /** History x_1..x_{t−1}, stored transposed: d rows of `capacity` (feature a of round s at a·capacity + s). */
  private history: Float64Array;
  private outcomes: Int32Array;
  /** Per round s: z(s) (K rows of capacity), σ(s) (K rows), then scratch for scaled history. */
  private scores: Float64Array;
  private probabilities: Float64Array;
  private coefficients: Float64Array;
  private scaled: Float64Array;
  /** A_ij(s) of one Hessian block, per round. */
  private weights: Float64Array;
  private capacity = 0;
  private rounds = 0;
  /** Σ_s ‖x_s‖₂: the scale of the gradient's terms. */
  private historyScale = 0;
  private lastBeta = NaN;
  /** Newton iterations of the most recent refit. */
  lastIterations = 0;

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    const problem = mnlUcbRangeProblem(spec);
    if (problem !== null) throw new RangeError(problem);
    const { K, d } = spec;
    const n = K * d;
    this.K = K;
    this.d = d;
    this.dimension = n;
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
    const space = this.design.workspace;
    this.current = space.float64(n);
    this.trial = space.float64(n);
    this.gradient = space.float64(n);
    this.step = space.float64(n);
    this.hessian = space.float64(n * n);
    this.sigma = new Float64Array(K);
    this.logits = new Float64Array(K);
    this.history = new Float64Array(0);
    this.outcomes = new Int32Array(0);
    this.scores = new Float64Array(0);
    this.probabilities = new Float64Array(0);
    this.coefficients = new Float64Array(0);
    this.scaled = new Float64Array(0);
    this.weights = new Float64Array(0);
    this.grow(INITIAL_CAPACITY);
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
    const { K, d } = this;
    // Doubling: the workspace keeps the old buffers, at most as much again as the new ones.
    const space = this.design.workspace;
    const history = space.float64(d * capacity);
    for (let a = 0; a < d; a++) history.set(this.history.subarray(a * this.capacity, a * this.capacity + this.rounds), a * capacity);
    const outcomes = new Int32Array(capacity);
    outcomes.set(this.outcomes.subarray(0, this.rounds));
    this.history = history;
    this.outcomes = outcomes;
    this.scores = space.float64(K * capacity);
    this.probabilities = new Float64Array(K * capacity);
    this.coefficients = space.float64(K * capacity);
    this.scaled = space.float64(d * capacity);
    this.weights = new Float64Array(capacity);
    this.capacity = capacity;
  }

  /**
   * −L_t^λ(θ) of eq. (7) = −Σ_s ln σ_{y_s}(θx_s) + (λ/2)‖θ‖², at θ; fills σ(θx_s) and σ − e_y for every s.
   */
  private loss(theta: Float64Array): number {
    const { K, d, capacity, rounds: t, scores, probabilities, coefficients, sigma, logits } = this;
    for (let i = 0; i < K; i++) gemvT(d, t, this.history, 0, capacity, theta, i * d, scores, i * capacity);
    let total = (0.5 * this.regularization) * dot(this.dimension, theta, 0, theta, 0);
    for (let s = 0; s < t; s++) {
      for (let i = 0; i < K; i++) logits[i] = scores[i * capacity + s];
      const nullProbability = softmaxWithNull(K, logits, sigma);
      const y = this.outcomes[s];
      total -= Math.log(y === 0 ? nullProbability : sigma[y - 1]);
      for (let i = 0; i < K; i++) {
        probabilities[i * capacity + s] = sigma[i];
        coefficients[i * capacity + s] = sigma[i] - (y === i + 1 ? 1 : 0);
      }
    }
    return total;
  }

  /** θ̂_t = argmin −L_t^λ by damped Newton from θ̂_{t−1}. */
  private fit(): void {
    const { K, d, dimension: n, capacity, rounds: t, history, hessian, gradient, step, current, trial } = this;
    const lambda = this.regularization;
    const tolerance = NEWTON_TOLERANCE * (1 + this.historyScale);
    let value = this.loss(current);
    let iteration = 0;
    for (; iteration < NEWTON_MAX_ITERATIONS; iteration++) {
      // eq. (8) negated: ∇ = λθ + Σ_s (σ(s) − e_{y_s}) ⊗ x_s.
      for (let i = 0; i < K; i++) gemv(d, t, history, 0, capacity, this.coefficients, i * capacity, gradient, i * d);
      for (let j = 0; j < n; j++) gradient[j] += lambda * current[j];
      if (Math.sqrt(dot(n, gradient, 0, gradient, 0)) <= tolerance) break;
      // eq. (9): block (i, j) = Σ_s A_ij(s) x_s x_sᵀ with A = diag(σ) − σσᵀ, eq. (10).
      for (let i = 0; i < K; i++) {
        for (let j = 0; j <= i; j++) {
          const weights = this.weights;
          for (let s = 0; s < t; s++) {
            const si = this.probabilities[i * capacity + s];
            weights[s] = (i === j ? si : 0) - si * this.probabilities[j * capacity + s];
          }
          for (let a = 0; a < d; a++) {
            const row = a * capacity;
            for (let s = 0; s < t; s++) this.scaled[row + s] = weights[s] * history[row + s];
          }
          gemmNT(d, d, t, history, 0, capacity, this.scaled, 0, capacity, hessian, i * d * n + j * d, n);
        }
      }
      for (let j = 0; j < n; j++) hessian[j * n + j] += lambda;
      if (!cholesky(n, hessian, 0, n)) throw new Error(`${this.name}: the Hessian of the likelihood is not positive definite`);
      step.set(gradient);
      choleskySolve(n, hessian, 0, n, step, 0);
      // Armijo backtracking on −L. Once the Newton decrement ∇ᵀH⁻¹∇ is below what −L's rounding can
      // resolve, the full step is taken (there Newton converges quadratically).
      const decrease = dot(n, gradient, 0, step, 0);
      if (decrease <= RESOLVABLE_DECREASE * (1 + Math.abs(value))) {
        for (let j = 0; j < n; j++) current[j] -= step[j];
        value = this.loss(current);
        continue;
      }
      let size = 1;
      let next = value;
      for (let halving = 0; halving < 60; halving++) {
        for (let j = 0; j < n; j++) trial[j] = current[j] - size * step[j];
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
      this.scaled.byteLength +
      this.weights.byteLength;
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
    // The history (t·d), the Kd×Kd Hessian and its factor, V_t and V_t⁻¹ (d×d).
    bytes: ({ d, K, t }) => 8 * (t * (d + 2) + 2 * (K * d) ** 2 + 3 * d * d),
    probeProjection: false,
  },
  rangeProblem: (spec) => newtonRegularizationProblem('MNL-UCB', spec),
  create: (spec) => new MnlUcb(spec),
};
