/**
 * The logistic model at one (W, x) pair: z = Wx, σ(z), ∇σ(z) and the Hessian factor F with
 * s·∇σ ⊗ x xᵀ = (F ⊗ x)(F ⊗ x)ᵀ. Both policies evaluate it at W_t (gradient step, eq. (8), eq. (20))
 * and at W_{t+1} (curvature update, Alg. 1). Buffers are allocated once.
 */
import { SymmetricEigen } from '../linalg/eigen.js';
import { gradientCoefficients, hessianFactor } from './loss.js';
import { linearScores, softmaxJacobian, softmaxWithNull } from './logistic.js';

export class LocalModel {
  readonly K: number;
  readonly d: number;
  /** z = W x */
  readonly scores: Float64Array;
  /** σ(z), non-null coordinates. */
  readonly sigma: Float64Array;
  /** ∇σ(z) = diag(σ) − σσᵀ */
  readonly jacobian: Float64Array;
  /** σ − e_y: the gradient is ∇ℓ = (σ − e_y) ⊗ x. */
  readonly gradient: Float64Array;
  /** F = P (s·D)^{1/2} (K×K). */
  readonly factor: Float64Array;
  private readonly eigen: SymmetricEigen;
  private readonly eigenValues: Float64Array;
  private readonly eigenVectors: Float64Array;

  constructor(K: number, d: number) {
    this.K = K;
    this.d = d;
    this.scores = new Float64Array(K);
    this.sigma = new Float64Array(K);
    this.jacobian = new Float64Array(K * K);
    this.gradient = new Float64Array(K);
    this.factor = new Float64Array(K * K);
    this.eigen = new SymmetricEigen(K);
    this.eigenValues = new Float64Array(K);
    this.eigenVectors = new Float64Array(K * K);
  }

  /** Evaluates z, σ, ∇σ at (W, x) and the gradient coefficients for outcome y. */
  evaluate(weights: Float64Array, x: Float64Array, outcome: number): this {
    linearScores(this.K, this.d, weights, x, 0, this.scores);
    softmaxWithNull(this.K, this.scores, this.sigma);
    softmaxJacobian(this.K, this.sigma, this.jacobian);
    gradientCoefficients(this.K, this.sigma, outcome, this.gradient);
    return this;
  }

  /** F with (F ⊗ x)(F ⊗ x)ᵀ = scale · ∇σ ⊗ x xᵀ (eq. (12), eq. (13), eq. (20)). */
  hessianFactor(scale: number): Float64Array {
    return hessianFactor(this.K, this.jacobian, scale, this.eigen, this.eigenValues, this.eigenVectors, this.factor);
  }
}
