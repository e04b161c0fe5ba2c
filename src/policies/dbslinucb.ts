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
 * (Cholesky): ‖x‖²_{V⁻¹} = (‖x‖² − ‖L_G⁻¹Cx‖²)/λ_t, θ = (b − Cᵀ G⁻¹ C b)/λ_t.
 *
 * √β_t is SOFUL's radius (`sofulRadius`: OFUL's, Abbasi-Yadkori et al. 2011 Thm. 2, with the sketch's
 * log-det) with m_t = min(d, Σ_j ℓ_j) (the rank the blocks can hold) and ρ = Σ_j ρ_j (every block's
 * discarded mass); a number in `beta` is a constant β (the vendored code takes β as a constant).
 * `sketch: rfd` uses λ_t = λ + ρ/2 (Luo et al. 2019) as SOFUL does.
 *
 * Per round O(|A_t|·dL + dL² + L³) (L ≤ min(d, Σ_j ℓ_j) + ℓ_active); memory O(dL).
 */
import type { ActionSet } from '../environments/environment.js';
import { axpy, dot, gemmNT, gemv, gemvT } from '../linalg/blas.js';
import { cholesky } from '../linalg/cholesky.js';
import { SymmetricEigen } from '../linalg/eigen.js';
import { FrequentDirections } from '../sketch/frequent-directions.js';
import { assertFiniteActions, assertFiniteState, assertOutcome } from './checks.js';
import { OptimisticSelector } from './optimistic-selector.js';
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
  private sealedBasis: Float64Array;
  private sealedWeights: Float64Array;
  private sealedRank = 0;
  /** Σ_{sealed j} ρ_j. */
  private sealedError = 0;
  /** θ_t = V_t⁻¹ b_t. */
  readonly theta: Float64Array;
  /** b_t = Σ_{s<t} r_{y_s} x_s. */
  readonly responses: Float64Array;
  /** C (L rows of d) and the Cholesky factor of G = λ_t I + CCᵀ (L×L). */
  private factor: Float64Array;
  private gram: Float64Array;
  private rows = 0;
  /** C x of every action of the round (count × L), and Cb. */
  private products = new Float64Array(0);
  private normsSq = new Float64Array(0);
  private readonly coordinates: Float64Array;
  private regularizationNow: number;
  private readonly K: number;
  private readonly d: number;
  private readonly regularization: number;
  private readonly robust: boolean;
  private readonly spec: PolicySpec;
  private readonly selector: OptimisticSelector;
  private readonly unitFactor = Float64Array.of(1);
  private readonly sealEigen: SymmetricEigen;
  private readonly sealValues: Float64Array;
  private readonly sealVectors: Float64Array;
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
    // The sum of the blocks has rank ≤ d, and C holds at most d sealed rows and d active ones.
    this.sealedBasis = new Float64Array(d * d);
    this.sealedWeights = new Float64Array(d);
    this.factor = new Float64Array(2 * d * d);
    this.gram = new Float64Array(4 * d * d);
    this.coordinates = new Float64Array(2 * d);
    this.sealEigen = new SymmetricEigen(2 * d);
    this.sealValues = new Float64Array(2 * d);
    this.sealVectors = new Float64Array(4 * d * d);
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
    if (this.products.length < count * L) this.products = new Float64Array(count * L);
    if (this.normsSq.length < count) this.normsSq = new Float64Array(count);
    if (L > 0) gemmNT(count, L, d, actions.features, 0, d, this.factor, 0, d, this.products, 0, L);
    for (let a = 0; a < count; a++) this.normsSq[a] = dot(d, actions.features, a * d, actions.features, a * d);
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

  /** Folds the active block into the sealed eigen-form: eigendecomposition of the Gram matrix of C. */
  private seal(): void {
    const { d } = this;
    const L = this.stackRows();
    this.seals++;
    this.sealedError += this.active.sketchError;
    if (L === 0) return;
    const gram = this.gram;
    gemmNT(L, L, d, this.factor, 0, d, this.factor, 0, d, gram, 0, L);
    this.sealEigen.decompose(L, gram, 0, L, this.sealValues, this.sealVectors);
    const values = this.sealValues;
    const noise = NOISE_FACTOR * L * Number.EPSILON * Math.max(values[0], 0);
    let rank = 0;
    while (rank < Math.min(L, d) && values[rank] > noise) rank++;
    // u_k = Cᵀ q_k / √σ_k (orthonormal), μ_k = σ_k.
    this.sealedBasis.fill(0, 0, rank * d);
    for (let k = 0; k < rank; k++) {
      const inv = 1 / Math.sqrt(values[k]);
      for (let i = 0; i < L; i++) axpy(d, this.sealVectors[i * L + k] * inv, this.factor, i * d, this.sealedBasis, k * d);
      this.sealedWeights[k] = values[k];
    }
    this.sealedRank = rank;
  }

  /** C = [√μ_k u_k (sealed); √λ_k v_k (active)] as rows of `factor`; returns L. */
  private stackRows(): number {
    const { d, active } = this;
    let L = 0;
    for (let k = 0; k < this.sealedRank; k++, L++) {
      const s = Math.sqrt(this.sealedWeights[k]);
      for (let j = 0; j < d; j++) this.factor[L * d + j] = s * this.sealedBasis[k * d + j];
    }
    for (let k = 0; k < active.rank; k++, L++) {
      const s = Math.sqrt(active.eigenvalues[k]);
      for (let j = 0; j < d; j++) this.factor[L * d + j] = s * active.basis[k * d + j];
    }
    return L;
  }

  /** After an update: C, the Cholesky factor of G = λ_t I + CCᵀ, and θ = (b − Cᵀ G⁻¹ C b)/λ_t. */
  private prepare(): void {
    const { d } = this;
    const L = this.stackRows();
    this.rows = L;
    this.regularizationNow = this.robust ? this.regularization + this.sketchError / 2 : this.regularization;
    const lambda = this.regularizationNow;
    const g = this.gram;
    gemmNT(L, L, d, this.factor, 0, d, this.factor, 0, d, g, 0, L);
    for (let i = 0; i < L; i++) g[i * L + i] += lambda;
    if (!cholesky(L, g, 0, L)) throw new Error(`${this.name}: λI + CCᵀ is not positive definite (λ = ${lambda})`);
    // G⁻¹ C b by two triangular solves on the lower factor.
    const c = this.coordinates;
    gemv(L, d, this.factor, 0, d, this.responses, 0, c, 0);
    for (let i = 0; i < L; i++) c[i] = (c[i] - dot(i, g, i * L, c, 0)) / g[i * L + i];
    for (let i = L - 1; i >= 0; i--) {
      const ci = c[i] / g[i * L + i];
      c[i] = ci;
      axpy(i, -ci, g, i * L, c, 0);
    }
    const theta = this.theta;
    if (L > 0) gemvT(L, d, this.factor, 0, d, c, 0, theta, 0);
    else theta.fill(0);
    for (let j = 0; j < d; j++) theta[j] = (this.responses[j] - theta[j]) / lambda;
  }

  stats(): PolicyStats {
    const bytes =
      this.active.stateBytes +
      this.sealedBasis.byteLength +
      this.sealedWeights.byteLength +
      this.factor.byteLength +
      this.gram.byteLength +
      this.coordinates.byteLength +
      this.theta.byteLength +
      this.responses.byteLength +
      this.products.byteLength +
      this.normsSq.byteLength +
      this.sealEigen.byteLength +
      this.sealValues.byteLength +
      this.sealVectors.byteLength;
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
    round: 'O(|A_t|·dL + dL² + L³), L ≤ 2·min(d, Σ_j ℓ_j)',
    memory: 'O(d²)',
    // Scores (Cx and a triangular solve per action), CCᵀ and its Cholesky factor, θ, the active FD step.
    flops: ({ d, m, actions }) => {
      const L = Math.min(2 * d, 2 * Math.max(m, 1));
      return actions * (2 * d * L + L * L) + 2 * d * L * L + (L * L * L) / 3 + 4 * d * L + 2 * d * Math.min(m, d) ** 2;
    },
    // U_s, C, G, the seal's eigendecomposition and the active block's FD arrays.
    bytes: ({ d, m, actions }) => 8 * (d * d + 2 * d * d + 8 * d * d + actions * 2 * Math.min(2 * d, 2 * m) + 2 * d * Math.min(m, d)),
    probeProjection: false,
  },
  create: (spec) => new DbsLinUcb(spec),
};
