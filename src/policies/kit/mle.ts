/**
 * The regularised maximum-likelihood estimate of the multinomial logit model over a stored history,
 * one implementation for every policy that fits it (MNL-UCB, GLM-UCB, Logistic-UCB-1, OFULog-r,
 * RS-GLinCB, RS-MNL):
 *   θ̂ = argmin_θ L(θ),  L(θ) = Σ_s −ln σ_{y_s}(θx_s) + (λ/2)‖θ‖²,
 * gradient λθ + Σ_s (σ(θx_s) − e_{y_s}) ⊗ x_s and Hessian λI + Σ_s ∇σ(θx_s) ⊗ x_s x_sᵀ, ∇σ = diag(σ) − σσᵀ
 * (the paper's eq. (8)–(10) with row-wise vectorisation, K non-null outcomes; K = 1 is logistic
 * regression, ℓ(z, y) = ln(1 + e^z) − yz). Damped Newton from the caller's θ: Cholesky solves, Armijo
 * backtracking while the Newton decrement ∇ᵀH⁻¹∇ is resolvable against L's rounding, full steps after
 * (quadratic convergence). The objective is strictly convex, so the answer does not depend on the start.
 *
 * The history is stored transposed (feature a of round s at a·capacity + s), so the gradient is K gemv
 * and each Hessian block one gemmNT over the t rounds: O(t·K²d² + K³d³) per Newton step, O(td + K²d²)
 * memory.
 */
import { dot, gemmNT, gemv, gemvT } from '../../linalg/blas.js';
import { cholesky, choleskySolve } from '../../linalg/cholesky.js';
import { Workspace } from '../../linalg/simd.js';
import { softmaxWithNull } from '../../model/logistic.js';

/** Relative gradient tolerance of `'gradient'` fits: ‖∇L(θ̂)‖₂ ≤ MLE_TOLERANCE·(1 + Σ_s ‖x_s‖₂). */
export const MLE_TOLERANCE = 1e-12;
/** Newton iterations per fit at most (warm-started, a fit takes a few). */
export const MLE_MAX_ITERATIONS = 100;
/** Newton decrement, relative to 1 + |L|, below which L's rounding hides the Armijo test: full steps. */
const RESOLVABLE_DECREASE = 1e-10;
/** First history capacity (rounds); doubled when full. */
const INITIAL_CAPACITY = 64;
const EPS = 2 ** -52;

/**
 * When a fit stops:
 * - `'gradient'`: at ‖∇L‖₂ ≤ MLE_TOLERANCE·(1 + Σ_s ‖x_s‖₂) (warm-started on a growing history, 3
 *   Hessians a fit against `'rounding'`'s 4, over 400 rounds at K = 1 and 3: what a policy that
 *   refits every round pays least for);
 * - `'rounding'`: once full Newton steps reach rounding (‖step‖ ≤ 4ε(1 + ‖θ‖)) or stop halving, for
 *   a policy whose root searches nest fits (OFULog-r) or whose radius reads ln det of the Hessian
 *   (Logistic-UCB-1): `factor` is then the Hessian's at an iterate within rounding of θ̂.
 */
export type MleStop = 'gradient' | 'rounding';

/** A linear term −s·xᵀθ added to L (OFULog-r's plan maximises xᵀθ over a sub-level set of L). */
export interface LinearTerm {
  x: Float64Array;
  s: number;
}

/**
 * Bytes a RegularizedMle holds after t rounds (a descriptor's cost.bytes): the transposed history and
 * its scaled copy (2td), the per-round scores, probabilities and coefficients (3tK) with the weights and
 * outcomes, the Kd×Kd factor and three Kd vectors.
 */
export function mleBytes(K: number, d: number, t: number): number {
  const n = K * d;
  return 8 * (t * (2 * d + 3 * K + 1) + n * n + 3 * n) + 4 * t;
}

export class RegularizedMle {
  readonly K: number;
  readonly d: number;
  /** Kd */
  readonly n: number;
  /** t: rounds stored. */
  rounds = 0;
  /** Newton iterations (Hessians formed) of the most recent fit. */
  lastIterations = 0;
  /** The Cholesky factor (lower) of the Hessian at the last Newton iterate of the most recent fit or `factorAt`. */
  readonly factor: Float64Array;
  private readonly workspace: Workspace;
  /** x_1..x_t, transposed: d rows of `capacity`. */
  private history: Float64Array;
  private outcomes: Int32Array;
  private capacity = 0;
  /** Σ_s ‖x_s‖₂: the scale of the gradient's terms. */
  private scale = 0;
  /** Per round s, at the θ of the last `loss`: z(s) (K rows of capacity), σ(s), σ(s) − e_{y_s}. */
  private scores: Float64Array;
  private probabilities: Float64Array;
  private coefficients: Float64Array;
  /** Scratch: one Hessian block's weights A_ij(s), and the history scaled by them. */
  private weights: Float64Array;
  private scaled: Float64Array;
  private readonly gradient: Float64Array;
  private readonly step: Float64Array;
  private readonly trial: Float64Array;
  private readonly sigma: Float64Array;
  private readonly logits: Float64Array;

  /** `workspace`: where the history and the Newton system live (a policy's, so its kernels share one memory). */
  constructor(K: number, d: number, workspace?: Workspace) {
    this.K = K;
    this.d = d;
    this.n = K * d;
    const n = this.n;
    this.workspace = workspace ?? new Workspace(8 * (n * n + 4 * n + INITIAL_CAPACITY * (2 * d + 2 * K)) + 65536);
    this.factor = this.workspace.float64(n * n);
    this.gradient = this.workspace.float64(n);
    this.step = this.workspace.float64(n);
    this.trial = this.workspace.float64(n);
    this.sigma = new Float64Array(K);
    this.logits = new Float64Array(K);
    this.history = new Float64Array(0);
    this.outcomes = new Int32Array(0);
    this.scores = new Float64Array(0);
    this.probabilities = new Float64Array(0);
    this.coefficients = new Float64Array(0);
    this.weights = new Float64Array(0);
    this.scaled = new Float64Array(0);
    this.grow(INITIAL_CAPACITY);
  }

  /** Copies the history into buffers of `capacity` rounds (doubling: the workspace keeps the old ones, at most as much again). */
  private grow(capacity: number): void {
    const { K, d, workspace } = this;
    const history = workspace.float64(d * capacity);
    for (let a = 0; a < d; a++) history.set(this.history.subarray(a * this.capacity, a * this.capacity + this.rounds), a * capacity);
    const outcomes = new Int32Array(capacity);
    outcomes.set(this.outcomes.subarray(0, this.rounds));
    this.history = history;
    this.outcomes = outcomes;
    this.scores = workspace.float64(K * capacity);
    this.probabilities = new Float64Array(K * capacity);
    this.coefficients = workspace.float64(K * capacity);
    this.scaled = workspace.float64(d * capacity);
    this.weights = new Float64Array(capacity);
    this.capacity = capacity;
  }

  /** Appends (x, y), y ∈ {0..K}, to the history. */
  add(x: Float64Array, outcome: number): void {
    const { d } = this;
    if (this.rounds === this.capacity) this.grow(2 * this.capacity);
    const s = this.rounds;
    for (let a = 0; a < d; a++) this.history[a * this.capacity + s] = x[a];
    this.outcomes[s] = outcome;
    this.rounds++;
    this.scale += Math.sqrt(dot(d, x, 0, x, 0));
  }

  /** L(θ) with ridge λ; leaves σ(θx_s) and σ − e_{y_s} of every round for the gradient and Hessian at θ. */
  loss(theta: Float64Array, lambda: number): number {
    const { K, d, capacity, rounds: t, scores, probabilities, coefficients, sigma, logits } = this;
    for (let i = 0; i < K; i++) gemvT(d, t, this.history, 0, capacity, theta, i * d, scores, i * capacity);
    let total = 0.5 * lambda * dot(this.n, theta, 0, theta, 0);
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

  /** out = ∇L = λθ + Σ_s (σ(s) − e_{y_s}) ⊗ x_s (eq. (8) negated), at the θ of the last `loss`. */
  private gradientAt(theta: Float64Array, lambda: number, out: Float64Array): void {
    const { K, d, capacity, rounds: t } = this;
    for (let i = 0; i < K; i++) gemv(d, t, this.history, 0, capacity, this.coefficients, i * capacity, out, i * d);
    for (let j = 0; j < this.n; j++) out[j] += lambda * theta[j];
  }

  /** out (Kd×Kd) = diagonal·I + Σ_s ∇σ(s) ⊗ x_s x_sᵀ, eq. (9)–(10), at the θ of the last `loss`. */
  private hessianAt(diagonal: number, out: Float64Array): void {
    const { K, d, n, capacity, rounds: t, history, probabilities, weights, scaled } = this;
    // Block (i, j) = Σ_s A_ij(s) x_s x_sᵀ, A = diag(σ) − σσᵀ; lower block triangle, then mirrored.
    for (let i = 0; i < K; i++) {
      for (let j = 0; j <= i; j++) {
        for (let s = 0; s < t; s++) {
          const si = probabilities[i * capacity + s];
          weights[s] = (i === j ? si : 0) - si * probabilities[j * capacity + s];
        }
        for (let a = 0; a < d; a++) {
          const row = a * capacity;
          for (let s = 0; s < t; s++) scaled[row + s] = weights[s] * history[row + s];
        }
        gemmNT(d, d, t, history, 0, capacity, scaled, 0, capacity, out, i * d * n + j * d, n);
      }
    }
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < r; c++) out[c * n + r] = out[r * n + c];
      out[r * n + r] += diagonal;
    }
  }

  /** out (Kd×Kd) = diagonal·I + Σ_s ∇σ(θx_s) ⊗ x_s x_sᵀ: the Hessian of L when diagonal = λ (RS-MNL's H at θ̂ with its own λ). */
  curvature(theta: Float64Array, diagonal: number, out: Float64Array): void {
    this.loss(theta, 0);
    this.hessianAt(diagonal, out);
  }

  /** `factor` ← the Cholesky factor of ∇²L(θ) with ridge λ. */
  factorAt(theta: Float64Array, lambda: number, name: string): void {
    this.loss(theta, lambda);
    this.hessianAt(lambda, this.factor);
    if (!cholesky(this.n, this.factor, 0, this.n)) throw new Error(`${name}: the Hessian of the likelihood is not positive definite`);
  }

  /** ln det of the matrix `factor` factors: 2 Σ ln diag. */
  logDetFactor(): number {
    let total = 0;
    for (let j = 0; j < this.n; j++) total += Math.log(this.factor[j * this.n + j]);
    return 2 * total;
  }

  /**
   * In place, θ ← argmin L(θ) (ridge λ) − s·xᵀθ (no linear term when `linear` is absent), by damped Newton
   * from θ until `stop` (see MleStop). Returns L(θ) without the linear term; `factor` holds the Cholesky
   * factor of the Hessian at the last iterate a step was computed from.
   */
  fit(theta: Float64Array, lambda: number, stop: MleStop, name: string, linear?: LinearTerm): number {
    const { n, gradient, step, trial, factor } = this;
    const tolerance = MLE_TOLERANCE * (1 + this.scale);
    let value = this.objective(theta, lambda, linear);
    // Whether the per-round caches (and `value`) are at θ: then, without a linear term, value is L(θ).
    let atTheta = true;
    let previousStep = Infinity;
    let iteration = 0;
    for (; iteration < MLE_MAX_ITERATIONS; iteration++) {
      this.gradientAt(theta, lambda, gradient);
      if (linear !== undefined) for (let j = 0; j < n; j++) gradient[j] -= linear.s * linear.x[j];
      if (stop === 'gradient' && Math.sqrt(dot(n, gradient, 0, gradient, 0)) <= tolerance) break;
      this.hessianAt(lambda, factor);
      if (!cholesky(n, factor, 0, n)) throw new Error(`${name}: the Hessian of the likelihood is not positive definite`);
      step.set(gradient);
      choleskySolve(n, factor, 0, n, step, 0);
      const decrease = dot(n, gradient, 0, step, 0);
      if (decrease <= RESOLVABLE_DECREASE * (1 + Math.abs(value))) {
        // Near the minimiser (quadratic convergence): the full step.
        for (let j = 0; j < n; j++) theta[j] -= step[j];
        if (stop === 'rounding') {
          const size = Math.sqrt(dot(n, step, 0, step, 0));
          if (size <= 4 * EPS * (1 + Math.sqrt(dot(n, theta, 0, theta, 0))) || size >= 0.5 * previousStep) {
            iteration++;
            atTheta = false;
            break;
          }
          previousStep = size;
        }
        value = this.objective(theta, lambda, linear);
        continue;
      }
      // Armijo backtracking on L.
      let size = 1;
      let next = value;
      for (let halving = 0; halving < 60; halving++) {
        for (let j = 0; j < n; j++) trial[j] = theta[j] - size * step[j];
        next = this.objective(trial, lambda, linear);
        if (next <= value - 1e-4 * size * decrease) break;
        size *= 0.5;
      }
      if (!(next <= value)) {
        iteration++;
        atTheta = false;
        break;
      }
      theta.set(trial);
      value = next;
    }
    this.lastIterations = iteration;
    return atTheta && linear === undefined ? value : this.loss(theta, lambda);
  }

  /** L(θ) (ridge λ) − s·xᵀθ; leaves the per-round caches at θ. */
  private objective(theta: Float64Array, lambda: number, linear: LinearTerm | undefined): number {
    return this.loss(theta, lambda) - (linear === undefined ? 0 : linear.s * dot(this.n, linear.x, 0, theta, 0));
  }

  get byteLength(): number {
    return (
      this.history.byteLength +
      this.outcomes.byteLength +
      this.scores.byteLength +
      this.probabilities.byteLength +
      this.coefficients.byteLength +
      this.weights.byteLength +
      this.scaled.byteLength +
      this.factor.byteLength +
      this.gradient.byteLength +
      this.step.byteLength +
      this.trial.byteLength
    );
  }
}
