/**
 * DBSLinUCB (Wen, Yin, Zhang, Zhao, Zhang and Wei, 2024, "Matrix sketching in bandits: current pitfalls
 * and new framework", arXiv:2410.10258; its v2, ICLR 2026, is "Revisiting matrix sketching in linear
 * bandits: achieving sublinear regret via dyadic block sketching"): LinUCB on the observed reward whose
 * Gram matrix is a dyadic block sketch. As SOFUL (soful.ts), one θ ∈ R^d models E[r_y | x] ≈ θᵀx for
 * any K, and the played action maximises θ_tᵀx + √β_t ‖x‖_{V_t⁻¹}; only the sketch differs.
 *
 * Dyadic block sketching. The played actions are cut into blocks j = 0, 1, …; block j is sketched by
 * frequent directions of size ℓ_j = 2^j ℓ_0 (the project's `FrequentDirections`, K = 1 blocks, i.e.
 * classical FD), and V_t = λI + Σ_j B_jᵀB_j sums every block's sketch. A row x goes to the active block
 * unless its block mass would then exceed ε ℓ_0 / 2:
 *     ‖A_active‖_F² + ‖x‖² > ε ℓ_0 / 2   and   ℓ_active < d   ⇒   seal the block, open one of size 2ℓ_active.
 * FD's spectral error on a block is at most ‖A_j‖_F²/ℓ_j ≤ (εℓ_0/2)/(2^j ℓ_0) = ε/2^{j+1}, so the sum
 * over blocks stays below ε (the geometric split of the budget, ε_j = ε/2^{j+1} with ℓ_j = 2^jℓ_0, whose
 * product ε_jℓ_j = εℓ_0/2 is the constant threshold); a block with ℓ ≥ d is exact and never sealed.
 * The rule and the constant εℓ_0/2 are those of the code vendored in ekshustova/PSI_LinUCB
 * (frequent_directions.py, DyadicBlockSketching: line 255 the threshold, lines 261–274 the seal and the
 * doubling with C = 2; there blocks stop sealing at length 2(d+1), here at d, where FD is already exact:
 * the same matrices). Only the paper's abstracts (v1 and v2) could be read here, not its algorithm.
 *
 * Units: ε is an absolute spectral error there; here it is the project's budget Δ_t = 1 + ρ_{1:t}/λ ≤
 * 1 + ε (params.delta_max, as `m: adaptive` uses it), so the threshold is ελ ℓ_0/2 and Δ_t < 1 + ε in
 * every round. ℓ_0 is params.m (under `m: adaptive`, the default here, ℓ_0 = 1 and ε = delta_max).
 *
 * Sealed blocks never change, so they are folded into one exact eigen-form U_s M U_sᵀ (an
 * eigendecomposition of the Gram matrix of [U_s M^{1/2}, V_a Λ_a^{1/2}] at each seal, O(d L² + L³),
 * L = rank of the sum; there are at most log₂(d/ℓ_0) + 1 seals). Each round V_t = λ_t I + CᵀC with C the
 * L rows [√μ_k u_k; √λ_k v_k] of both parts, and Woodbury through the L×L matrix G = λ_t I + CCᵀ
 * (Cholesky): ‖x‖²_{V⁻¹} = (‖x‖² − ‖L_G⁻¹Cx‖²)/λ_t, θ = (b − Cᵀ G⁻¹ C b)/λ_t. Both bases are
 * orthonormal, so CCᵀ is diagonal but for its block √Λ_a V_aU_s √M, O(d·r_s·r_a) a round.
 *
 * √β_t is SOFUL's radius (`sofulRadius`: OFUL's, Abbasi-Yadkori et al. 2011 Thm. 2, with the sketch's
 * log-det) with m_t = min(d, Σ_j ℓ_j) (the rank the blocks can hold) and ρ = Σ_j ρ_j (every block's
 * discarded mass); a number in `beta` is a constant β (the vendored code takes β as a constant).
 * `sketch: rfd` uses λ_t = λ + ρ/2 (Luo et al. 2019) as SOFUL does.
 *
 * Per round O(|A_t|·dL + d·r_s·r_a + L³) (L = r_s + r_a ≤ min(d, Σ_j ℓ_j) + ℓ_active); memory O(dL).
 */
import type { ActionSet } from '../environments/environment.js';
import { axpy, dot, gemmNT, gemv } from '../linalg/blas.js';
import { cholesky } from '../linalg/cholesky.js';
import { SymmetricEigen } from '../linalg/eigen.js';
import { FrequentDirections } from '../sketch/frequent-directions.js';
import { assertFiniteActions, assertFiniteState, assertOutcome } from './kit/checks.js';
import { OptimisticSelector } from './kit/optimistic-selector.js';
import { type Policy, type PolicyDescriptor, type PolicyStats, paramKeys, REGULARIZATION_KEYS, RADIUS_KEYS, SKETCH_KEYS } from './policy.js';
import { sofulRadius } from './soful.js';
import { DEFAULT_DELTA_MAX, type PolicySpec, validatePolicySpec } from './spec.js';

/** Eigenvalues of a Gram matrix at or below this multiple of n·ε·(largest) are rounding noise (as the sketch's). */
const NOISE_FACTOR = 8;

export class DbsLinUcb implements Policy {
  readonly name = 'DBSLinUCB' as const;
  /** The active block's FD sketch (size ℓ_active, capped at d). */
  active: FrequentDirections;
  /** ‖A_active‖_F²: the mass of the rows fed to the active block. */
  private activeMass = 0;
  /** ℓ_active as requested (doubles at each seal). */
  private activeLength: number;
  /** Σ_j ℓ_j over every block opened so far. */
  private totalLength: number;
  /** ε λ ℓ_0 / 2: the block mass that seals a block. */
  readonly sealThreshold: number;
  /** Blocks sealed so far. */
  seals = 0;
  /** U_s as rows (rank r_s, orthonormal) and M = diag(μ): Σ_{sealed j} B_jᵀB_j = U_s M U_sᵀ. */
  private sealedBasis = new Float64Array(0);
  private sealedWeights = new Float64Array(0);
  private sealedRank = 0;
  /** Σ_{sealed j} ρ_j. */
  private sealedError = 0;
  /** θ_t = V_t⁻¹ b_t. */
  readonly theta: Float64Array;
  /** b_t = Σ_{s<t} r_{y_s} x_s. */
  readonly responses: Float64Array;
  /** The Cholesky factor of G = λ_t I + CCᵀ (L×L, L = r_s + r_a) for C = [M^{1/2}U_sᵀ; Λ_a^{1/2}V_aᵀ]. */
  private gram = new Float64Array(0);
  private rows = 0;
  /** V_aU_s (r_a × r_s): the only block of CCᵀ that is not diagonal. */
  private cross = new Float64Array(0);
  /** Row scales of C: √μ_i, then √λ_k. */
  private scales = new Float64Array(0);
  /** C x of every action of the round (count × L), and C b. */
  private products = new Float64Array(0);
  private normsSq = new Float64Array(0);
  private coordinates = new Float64Array(0);
  private regularizationNow: number;
  private readonly K: number;
  private readonly d: number;
  private readonly regularization: number;
  private readonly robust: boolean;
  private readonly spec: PolicySpec;
  private readonly selector: OptimisticSelector;
  private readonly unitFactor = Float64Array.of(1);
  private lastBeta = NaN;
  private readonly empty = new Float64Array(0);

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    const { K, d } = spec;
    this.K = K;
    this.d = d;
    this.spec = spec;
    this.regularization = spec.regularization;
    this.regularizationNow = spec.regularization;
    this.robust = spec.sketchVariant === 'rfd';
    const epsilon = spec.adaptiveSketch?.deltaMax ?? DEFAULT_DELTA_MAX;
    this.sealThreshold = (epsilon * spec.regularization * spec.sketchSize) / 2;
    this.activeLength = spec.sketchSize;
    this.totalLength = spec.sketchSize;
    this.active = new FrequentDirections(d, 1, spec.sketchSize);
    this.theta = new Float64Array(d);
    this.responses = new Float64Array(d);
    this.selector = new OptimisticSelector(1, d, Float64Array.of(1));
  }

  /** m_t = min(d, Σ_j ℓ_j): the rank the blocks can hold. */
  sketchSize(): number {
    return Math.min(this.d, this.totalLength);
  }

  /** ρ_{1:t} = Σ_j ρ_j. */
  get sketchError(): number {
    return this.sealedError + this.active.sketchError;
  }

  select(actions: ActionSet, t: number): number {
    assertFiniteActions(actions);
    const { d } = this;
    const count = actions.count;
    const L = this.rows;
    const rs = this.sealedRank;
    if (this.products.length < count * L) this.products = new Float64Array(count * L);
    if (this.normsSq.length < count) this.normsSq = new Float64Array(count);
    const z = this.products;
    // C x for every action: U_s x and V_a x, each row scaled by √μ or √λ_k.
    if (rs > 0) gemmNT(count, rs, d, actions.features, 0, d, this.sealedBasis, 0, d, z, 0, L);
    if (L > rs) gemmNT(count, L - rs, d, actions.features, 0, d, this.active.basis, 0, d, z, rs, L);
    for (let a = 0; a < count; a++) {
      for (let i = 0; i < L; i++) z[a * L + i] *= this.scales[i];
      this.normsSq[a] = dot(d, actions.features, a * d, actions.features, a * d);
    }
    this.lastBeta = this.confidenceRadius(t);
    return this.selector.select(actions, this.theta, this.lastBeta, (index, out) => {
      out[0] = this.inverseNormSq(index);
    });
  }

  /** ‖x‖²_{V⁻¹} = (‖x‖² − ‖L_G⁻¹ C x‖²)/λ_t for action `index` of the prepared round. */
  private inverseNormSq(index: number): number {
    const L = this.rows;
    const z = this.products;
    const off = index * L;
    const g = this.gram;
    let reduction = 0;
    // Forward substitution L_G y = Cx in place (the round's products are not read again).
    for (let i = 0; i < L; i++) {
      const yi = (z[off + i] - dot(i, g, i * L, z, off)) / g[i * L + i];
      z[off + i] = yi;
      reduction += yi * yi;
    }
    return (this.normsSq[index] - reduction) / this.regularizationNow;
  }

  /** β_t (the square of SOFUL's radius with m_t and ρ of the blocks), or the constant β; times beta_scale. */
  confidenceRadius(t: number): number {
    const { beta, betaScale } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    return sofulRadius(this.spec, this.d, this.sketchSize(), this.sketchError, t) ** 2 * betaScale;
  }

  update(x: Float64Array, outcome: number): void {
    assertOutcome(outcome, this.K);
    const { d } = this;
    const r = outcome === 0 ? 0 : this.spec.reward[outcome - 1];
    axpy(d, r, x, 0, this.responses, 0);
    const mass = dot(d, x, 0, x, 0);
    // frequent_directions.py lines 261–274: the row would overfill the active block, so seal it.
    if (this.activeMass + mass > this.sealThreshold && this.active.sketchSize < d) {
      this.seal();
      this.activeLength *= 2;
      this.totalLength += this.activeLength;
      this.active = new FrequentDirections(d, 1, Math.min(this.activeLength, d));
      this.activeMass = 0;
    }
    this.active.update(x, this.unitFactor);
    this.activeMass += mass;
    this.prepare();
    assertFiniteState(this.name, this.theta);
  }

  /**
   * Writes CCᵀ (+ λ_t I when `lambda` > 0) for C = [M^{1/2}U_sᵀ; Λ_a^{1/2}V_aᵀ] into `gram` (L×L, lower
   * triangle): diag(μ), diag(λ_k) and the cross block √λ_k √μ_i ⟨v_k, u_i⟩, since U_s and V_a are
   * each orthonormal. Sets `rows` and `scales`; returns L. O(d·r_s·r_a).
   */
  private buildGram(lambda: number): number {
    const { d, active } = this;
    const rs = this.sealedRank;
    const ra = active.rank;
    const L = rs + ra;
    if (this.gram.length < L * L) this.gram = new Float64Array(L * L);
    if (this.scales.length < L) this.scales = new Float64Array(2 * L);
    if (this.cross.length < ra * rs) this.cross = new Float64Array(ra * rs);
    for (let i = 0; i < rs; i++) this.scales[i] = Math.sqrt(this.sealedWeights[i]);
    for (let k = 0; k < ra; k++) this.scales[rs + k] = Math.sqrt(active.eigenvalues[k]);
    const g = this.gram;
    g.fill(0, 0, L * L);
    for (let i = 0; i < rs; i++) g[i * L + i] = this.sealedWeights[i] + lambda;
    for (let k = 0; k < ra; k++) g[(rs + k) * L + rs + k] = active.eigenvalues[k] + lambda;
    if (rs > 0 && ra > 0) {
      gemmNT(ra, rs, d, active.basis, 0, d, this.sealedBasis, 0, d, this.cross, 0, rs);
      for (let k = 0; k < ra; k++) {
        for (let i = 0; i < rs; i++) g[(rs + k) * L + i] = this.scales[rs + k] * this.scales[i] * this.cross[k * rs + i];
      }
    }
    this.rows = L;
    return L;
  }

  /** Folds the active block into the sealed eigen-form: eigendecomposition of the Gram matrix of C. */
  private seal(): void {
    const { d, active } = this;
    this.seals++;
    this.sealedError += active.sketchError;
    const rs = this.sealedRank;
    const L = this.buildGram(0);
    if (L === 0) return;
    const g = this.gram;
    for (let i = 0; i < L; i++) for (let j = i + 1; j < L; j++) g[i * L + j] = g[j * L + i];
    // A seal happens at most log₂(d/ℓ_0) + 1 times: its solver and arrays are allocated here.
    const values = new Float64Array(L);
    const vectors = new Float64Array(L * L);
    new SymmetricEigen(L).decompose(L, g, 0, L, values, vectors);
    const noise = NOISE_FACTOR * L * Number.EPSILON * Math.max(values[0], 0);
    let rank = 0;
    while (rank < Math.min(L, d) && values[rank] > noise) rank++;
    // u'_k = Cᵀ q_k / √σ_k = (Σ_i q_ik √μ_i u_i + Σ_j q_{r_s+j,k} √λ_j v_j)/√σ_k (orthonormal), μ'_k = σ_k.
    const basis = new Float64Array(rank * d);
    for (let k = 0; k < rank; k++) {
      const inv = 1 / Math.sqrt(values[k]);
      for (let i = 0; i < rs; i++) axpy(d, vectors[i * L + k] * this.scales[i] * inv, this.sealedBasis, i * d, basis, k * d);
      for (let j = 0; j < L - rs; j++) axpy(d, vectors[(rs + j) * L + k] * this.scales[rs + j] * inv, active.basis, j * d, basis, k * d);
    }
    this.sealedBasis = basis;
    this.sealedWeights = values.slice(0, rank);
    this.sealedRank = rank;
  }

  /** After an update: G = λ_t I + CCᵀ and its Cholesky factor, and θ = (b − Cᵀ G⁻¹ C b)/λ_t. */
  private prepare(): void {
    const { d, active } = this;
    this.regularizationNow = this.robust ? this.regularization + this.sketchError / 2 : this.regularization;
    const lambda = this.regularizationNow;
    const L = this.buildGram(lambda);
    const rs = this.sealedRank;
    const g = this.gram;
    if (!cholesky(L, g, 0, L)) throw new Error(`${this.name}: λI + CCᵀ is not positive definite (λ = ${lambda})`);
    // G⁻¹ C b by two triangular solves on the lower factor.
    if (this.coordinates.length < L) this.coordinates = new Float64Array(2 * L);
    const c = this.coordinates;
    if (rs > 0) gemv(rs, d, this.sealedBasis, 0, d, this.responses, 0, c, 0);
    if (L > rs) gemv(L - rs, d, active.basis, 0, d, this.responses, 0, c, rs);
    for (let i = 0; i < L; i++) c[i] *= this.scales[i];
    for (let i = 0; i < L; i++) c[i] = (c[i] - dot(i, g, i * L, c, 0)) / g[i * L + i];
    for (let i = L - 1; i >= 0; i--) {
      const ci = c[i] / g[i * L + i];
      c[i] = ci;
      axpy(i, -ci, g, i * L, c, 0);
    }
    // θ = (b − Cᵀc)/λ_t, Cᵀc = Σ_i √μ_i c_i u_i + Σ_k √λ_k c_k v_k.
    const theta = this.theta;
    theta.set(this.responses);
    for (let i = 0; i < rs; i++) axpy(d, -this.scales[i] * c[i], this.sealedBasis, i * d, theta, 0);
    for (let k = 0; k < L - rs; k++) axpy(d, -this.scales[rs + k] * c[rs + k], active.basis, k * d, theta, 0);
    for (let j = 0; j < d; j++) theta[j] /= lambda;
  }

  stats(): PolicyStats {
    const bytes =
      this.active.stateBytes +
      this.sealedBasis.byteLength +
      this.sealedWeights.byteLength +
      this.gram.byteLength +
      this.cross.byteLength +
      this.scales.byteLength +
      this.coordinates.byteLength +
      this.theta.byteLength +
      this.responses.byteLength +
      this.products.byteLength +
      this.normsSq.byteLength;
    return {
      stateBytes: bytes,
      sketchError: this.sketchError,
      projections: 0,
      beta: this.lastBeta,
      delta: 1 + this.sketchError / this.regularization,
    };
  }

  /** Empty: θ ∈ R^d models the reward, not the logistic W (as SOFUL). */
  estimate(): Float64Array {
    return this.empty;
  }
}

export const dbsLinUcbPolicy: PolicyDescriptor = {
  name: 'DBSLinUCB',
  summary: 'dyadic-block-sketched LinUCB (Wen et al., 2024): linear UCB on the observed reward, FD blocks of doubling size within a spectral-error budget',
  reference: 'Wen et al., 2024',
  supports: { binary: true, multinomial: true },
  reads: paramKeys(REGULARIZATION_KEYS, RADIUS_KEYS, SKETCH_KEYS),
  // ℓ_0 = 1 and ε = params.delta_max: the budget is what the block rule keeps (a numeric m is ℓ_0, with ε = 0.1).
  defaults: { m: 'adaptive' },
  sketchDimension: (d) => d,
  needsRandomStream: false,
  costRank: 0,
  cost: {
    round: 'O(|A_t|·dL + d·r_s·r_a + L³), L = r_s + r_a ≤ 2·min(d, Σ_j ℓ_j)',
    memory: 'O(dL)',
    // Scores (Cx and a triangular solve per action), the cross block and Cholesky factor of G, θ, the active FD step.
    flops: ({ d, m, actions }) => {
      const L = Math.min(2 * d, 2 * Math.max(m, 1));
      return actions * (2 * d * L + L * L) + (d * L * L) / 2 + (L * L * L) / 3 + 4 * d * L + 2 * d * Math.min(m, d) ** 2;
    },
    // U_s, G, the products of a round and the active block's FD arrays.
    bytes: ({ d, m, actions }) => {
      const L = Math.min(2 * d, 2 * Math.max(m, 1));
      return 8 * (d * L + L * L + actions * L + 2 * d * Math.min(m, d) + 4 * d);
    },
    probeProjection: false,
  },
  create: (spec) => new DbsLinUcb(spec),
};
