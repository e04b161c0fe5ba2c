/**
 * The logistic loss ℓ_t(W) = −ln σ_{y_t}(W x_t) and its derivatives in factored form (Appendix B.1):
 * ∇ℓ_t(W) = (σ − e_y) ⊗ x and ∇²ℓ_t(W) = ∇σ ⊗ x xᵀ. Nothing here allocates.
 */
import type { SymmetricEigen } from '../linalg/eigen.js';

/** The K coefficients c = σ − e_y of the gradient ∇ℓ = c ⊗ x (e_0 = 0: the null outcome). */
export function gradientCoefficients(K: number, sigma: Float64Array, outcome: number, out: Float64Array): Float64Array {
  for (let k = 0; k < K; k++) out[k] = sigma[k];
  if (outcome > 0) out[outcome - 1] -= 1;
  return out;
}

/**
 * F = P (s·D)^{1/2} for s·∇σ = P (sD) Pᵀ, eq. (12)/(20), so that s·∇²ℓ = (F ⊗ x)(F ⊗ x)ᵀ, eq. (13).
 * `jacobian` is ∇σ (K×K); F is written row-major K×K (column j = √(s·D_j) p_j). Tiny negative
 * eigenvalues from rounding are clamped to 0 (∇σ is positive semidefinite).
 */
export function hessianFactor(
  K: number,
  jacobian: Float64Array,
  scale: number,
  eigen: SymmetricEigen,
  values: Float64Array,
  vectors: Float64Array,
  out: Float64Array,
): Float64Array {
  if (K === 1) {
    out[0] = Math.sqrt(Math.max(0, scale * jacobian[0]));
    return out;
  }
  eigen.decompose(K, jacobian, 0, K, values, vectors);
  for (let j = 0; j < K; j++) {
    const root = Math.sqrt(Math.max(0, scale * values[j]));
    for (let i = 0; i < K; i++) out[i * K + j] = vectors[i * K + j] * root;
  }
  return out;
}
