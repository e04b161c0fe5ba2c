/**
 * The regularised maximum-likelihood estimate over a stored history, refitted only when a policy asks:
 * what the limited-adaptivity baselines (RS-GLinCB, RS-MNL) compute at their few update rounds.
 *   θ̂ = argmin_θ Σ_s −ln σ_{y_s}(θx_s) + (ρ/2)‖θ‖²,
 * gradient ρθ + Σ_s (σ(θx_s) − e_{y_s}) ⊗ x_s and Hessian ρI + Σ_s ∇σ(θx_s) ⊗ x_s x_sᵀ (row-wise
 * vectorisation, K non-null outcomes; K = 1 is logistic regression). Damped Newton from the caller's
 * start, Cholesky solves and Armijo backtracking, to ‖∇‖ ≤ MLE_TOLERANCE·(1 + Σ_s ‖x_s‖₂): the objective
 * is strictly convex, so the answer does not depend on the start. O(t·K²d²) per Newton step, O(td) memory.
 */
import { dot, ger } from '../linalg/blas.js';
import { cholesky, choleskySolve } from '../linalg/cholesky.js';
import { Workspace } from '../linalg/simd.js';
import { softmaxJacobian, softmaxWithNull } from '../model/logistic.js';

/** Relative gradient tolerance of the fit. */
export const MLE_TOLERANCE = 1e-12;
/** Newton iterations per fit at most. */
export const MLE_MAX_ITERATIONS = 100;
/** Relative decrease of the objective below which its rounding hides the Armijo test: the full step is taken. */
const RESOLVABLE_DECREASE = 1e-10;
/** Rows per panel of a diagonal block's lower-triangle update in `curvature`. */
const LOWER_PANEL_ROWS = 32;
/** First history capacity (rounds); doubled when full. */
const INITIAL_CAPACITY = 64;

export class HistoryMle {
  private readonly K: number;
  private readonly d: number;
  private readonly n: number;
  /** ρ: the ridge of the objective (its gradient's ρθ). */
  private readonly ridge: number;
  /** x_1..x_t, row s at s·d. */
  private features: Float64Array;
  private outcomes: Int32Array;
  private capacity = 0;
  /** t: rounds stored. */
  rounds = 0;
  /** Σ_s ‖x_s‖₂: the scale of the gradient's terms. */
  private scale = 0;
  private readonly gradient: Float64Array;
  private readonly step: Float64Array;
  private readonly trial: Float64Array;
  /** The Newton system (Kd×Kd), then its Cholesky factor. */
  private readonly hessian: Float64Array;
  private readonly z: Float64Array;
  private readonly sigma: Float64Array;
  private readonly jacobian: Float64Array;
  /** Newton iterations of the most recent fit. */
  lastIterations = 0;
  /** Where the Newton system and the history live (WebAssembly memory under the wasm backend). */
  private readonly workspace: Workspace;

  constructor(K: number, d: number, ridge: number) {
    this.K = K;
    this.d = d;
    this.n = K * d;
    this.ridge = ridge;
    this.workspace = new Workspace(8 * (this.n * this.n + INITIAL_CAPACITY * d) + 65536);
    this.features = new Float64Array(0);
    this.outcomes = new Int32Array(0);
    this.gradient = new Float64Array(this.n);
    this.step = new Float64Array(this.n);
    this.trial = new Float64Array(this.n);
    this.hessian = this.workspace.float64(this.n * this.n);
    this.z = new Float64Array(K);
    this.sigma = new Float64Array(K);
    this.jacobian = new Float64Array(K * K);
    this.grow(INITIAL_CAPACITY);
  }

  private grow(capacity: number): void {
    // Doubling: the workspace keeps the old buffer, at most as much again as the new one.
    const features = this.workspace.float64(capacity * this.d);
    features.set(this.features.subarray(0, this.rounds * this.d));
    const outcomes = new Int32Array(capacity);
    outcomes.set(this.outcomes.subarray(0, this.rounds));
    this.features = features;
    this.outcomes = outcomes;
    this.capacity = capacity;
  }

  /** Appends (x, y) to the history. */
  add(x: Float64Array, outcome: number): void {
    if (this.rounds === this.capacity) this.grow(2 * this.capacity);
    this.features.set(x.subarray(0, this.d), this.rounds * this.d);
    this.outcomes[this.rounds] = outcome;
    this.rounds++;
    this.scale += Math.sqrt(dot(this.d, x, 0, x, 0));
  }

  /** σ(θx_s) into this.sigma; returns σ_0. */
  private probabilities(theta: Float64Array, s: number): number {
    const { K, d, z } = this;
    for (let i = 0; i < K; i++) z[i] = dot(d, theta, i * d, this.features, s * d);
    return softmaxWithNull(K, z, this.sigma);
  }

  /** The objective at θ. */
  private objective(theta: Float64Array): number {
    let total = 0.5 * this.ridge * dot(this.n, theta, 0, theta, 0);
    for (let s = 0; s < this.rounds; s++) {
      const nullProbability = this.probabilities(theta, s);
      const y = this.outcomes[s];
      total -= Math.log(y === 0 ? nullProbability : this.sigma[y - 1]);
    }
    return total;
  }

  /** The gradient at θ into this.gradient. */
  private fillGradient(theta: Float64Array): void {
    const { K, d, n, gradient } = this;
    for (let j = 0; j < n; j++) gradient[j] = this.ridge * theta[j];
    for (let s = 0; s < this.rounds; s++) {
      this.probabilities(theta, s);
      const y = this.outcomes[s];
      for (let i = 0; i < K; i++) {
        const c = this.sigma[i] - (y === i + 1 ? 1 : 0);
        for (let a = 0; a < d; a++) gradient[i * d + a] += c * this.features[s * d + a];
      }
    }
  }

  /**
   * out (Kd×Kd) = diagonal·I + Σ_s ∇σ(θx_s) ⊗ x_s x_sᵀ: the Hessian of the objective when diagonal = ρ,
   * and RS-MNL's H at θ̂ (its own λ).
   */
  curvature(theta: Float64Array, diagonal: number, out: Float64Array): void {
    const { K, d, n, jacobian } = this;
    out.fill(0, 0, n * n);
    for (let s = 0; s < this.rounds; s++) {
      this.probabilities(theta, s);
      softmaxJacobian(K, this.sigma, jacobian);
      for (let i = 0; i < K; i++) {
        // Lower block triangle only; mirrored below. A diagonal block's rank-one update stops, panel by
        // panel of rows, at the panel's last column: half the work, and each element of the lower
        // triangle gets the same products in the same order as a full update gives it.
        for (let j = 0; j < i; j++) ger(d, d, jacobian[i * K + j], this.features, s * d, 1, this.features, s * d, out, i * d * n + j * d, n);
        const c = jacobian[i * K + i];
        const block = i * d * n + i * d;
        for (let r0 = 0; r0 < d; r0 += LOWER_PANEL_ROWS) {
          const rows = Math.min(LOWER_PANEL_ROWS, d - r0);
          ger(rows, r0 + rows, c, this.features, s * d + r0, 1, this.features, s * d, out, block + r0 * n, n);
        }
      }
    }
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < r; c++) out[c * n + r] = out[r * n + c];
      out[r * n + r] += diagonal;
    }
  }

  /** θ ← θ̂ by damped Newton from θ (left as it is when the history is empty and θ = 0 is the answer). */
  fit(theta: Float64Array): void {
    const { n, gradient, step, trial, hessian } = this;
    const tolerance = MLE_TOLERANCE * (1 + this.scale);
    let value = this.objective(theta);
    let iteration = 0;
    for (; iteration < MLE_MAX_ITERATIONS; iteration++) {
      this.fillGradient(theta);
      if (Math.sqrt(dot(n, gradient, 0, gradient, 0)) <= tolerance) break;
      this.curvature(theta, this.ridge, hessian);
      if (!cholesky(n, hessian, 0, n)) throw new Error('the Hessian of the likelihood is not positive definite');
      step.set(gradient);
      choleskySolve(n, hessian, 0, n, step, 0);
      const decrease = dot(n, gradient, 0, step, 0);
      if (decrease <= RESOLVABLE_DECREASE * (1 + Math.abs(value))) {
        for (let j = 0; j < n; j++) theta[j] -= step[j];
        value = this.objective(theta);
        continue;
      }
      let size = 1;
      let next = value;
      for (let halving = 0; halving < 60; halving++) {
        for (let j = 0; j < n; j++) trial[j] = theta[j] - size * step[j];
        next = this.objective(trial);
        if (next <= value - 1e-4 * size * decrease) break;
        size *= 0.5;
      }
      if (!(next <= value)) break;
      theta.set(trial);
      value = next;
    }
    this.lastIterations = iteration;
  }

  get byteLength(): number {
    return (
      this.features.byteLength +
      this.outcomes.byteLength +
      this.hessian.byteLength +
      this.gradient.byteLength +
      this.step.byteLength +
      this.trial.byteLength +
      this.z.byteLength +
      this.sigma.byteLength +
      this.jacobian.byteLength
    );
  }
}
