/**
 * The multinomial logistic link, eq. (1), on the K non-null coordinates (Appendix B.1).
 * All functions write into caller-provided arrays and allocate nothing.
 */

/**
 * σ(z) ∈ (0,1)^K, eq. (1): σ_k = exp(z_k) / (1 + Σ_j exp(z_j)), computed stably by subtracting
 * max(0, max z) before exponentiating. Returns σ_0 = 1 − Σ σ_k (the null outcome's probability).
 */
export function softmaxWithNull(K: number, z: Float64Array, out: Float64Array, zOffset = 0): number {
  let shift = 0;
  for (let k = 0; k < K; k++) if (z[zOffset + k] > shift) shift = z[zOffset + k];
  const nullTerm = Math.exp(-shift);
  let total = nullTerm;
  for (let k = 0; k < K; k++) {
    const e = Math.exp(z[zOffset + k] - shift);
    out[k] = e;
    total += e;
  }
  const inv = 1 / total;
  for (let k = 0; k < K; k++) out[k] *= inv;
  return nullTerm * inv;
}

/** ∇σ(z) = diag(σ) − σσᵀ (K×K, row-major) from σ = σ(z). */
export function softmaxJacobian(K: number, sigma: Float64Array, out: Float64Array): Float64Array {
  for (let i = 0; i < K; i++) {
    const si = sigma[i];
    for (let j = 0; j < K; j++) out[i * K + j] = (i === j ? si : 0) - si * sigma[j];
  }
  return out;
}

/** z = W x for W ∈ R^{K×d} stored row-wise (vec(W)[i·d + j] = W[i][j]). */
export function linearScores(
  K: number,
  d: number,
  weights: Float64Array,
  x: Float64Array,
  xOffset: number,
  out: Float64Array,
): Float64Array {
  for (let i = 0; i < K; i++) {
    let s = 0;
    const base = i * d;
    for (let j = 0; j < d; j++) s += weights[base + j] * x[xOffset + j];
    out[i] = s;
  }
  return out;
}

/** rᵀσ: expected reward of an outcome distribution (r_0 = 0 drops out). */
export function expectedReward(K: number, reward: Float64Array, sigma: Float64Array): number {
  let s = 0;
  for (let k = 0; k < K; k++) s += reward[k] * sigma[k];
  return s;
}

/**
 * The outcome rule shared by every sampling environment (DESIGN §1): with p = [σ_0, σ_1..σ_K],
 * y is the first k with u < p_0 + … + p_k, clamped to K.
 */
export function sampleOutcome(K: number, u: number, nullProbability: number, sigma: Float64Array): number {
  let cumulative = nullProbability;
  if (u < cumulative) return 0;
  for (let k = 0; k < K; k++) {
    cumulative += sigma[k];
    if (u < cumulative) return k + 1;
  }
  return K;
}

// The binary link (K = 1), as the K = 1 baselines write their losses: σ, its slope μ̇ and the log-loss.

/** σ(z) = 1/(1 + e^{−z}). */
export function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** μ̇(z) = σ(z)(1 − σ(z)), without cancellation for large |z|. */
export function logisticSlope(z: number): number {
  const e = Math.exp(-Math.abs(z));
  return e / ((1 + e) * (1 + e));
}

/** ℓ(z, y) = −y ln σ(z) − (1 − y) ln(1 − σ(z)) = ln(1 + e^z) − yz, computed stably. */
export function logisticLoss(z: number, y: number): number {
  return Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z))) - y * z;
}
