/**
 * Block frequent directions for rank-K Hessian updates, Alg. 1 (eq. (11), eq. (12), eq. (13), eq. (14), eq. (15)).
 *
 * The sketch is Z = λI + V Λ Vᵀ (eq. (11)); this class holds V (Kd×r, orthonormal columns, stored as
 * r rows `basis[k·Kd ..]` = v_k), Λ = diag(μ_1..μ_r) with every μ_k > 0, and ρ_{1:t}. Only directions
 * with positive weight are kept (r ≤ m), so zero-weight columns never enter a formula.
 *
 * Nothing Kd×Kd is ever formed. The SVD of [V Λ^{1/2}, B] (eq. (14)) is taken through its Gram matrix
 * [[Λ, Λ^{1/2}VᵀB], [BᵀVΛ^{1/2}, BᵀB]], which costs O(Kd·m·K) because V is orthonormal; the new basis
 * V' = [V Λ^{1/2}, B] Q Σ̄^{-1} is the only O(Kd·m·(m+K)) product of a round. For K = 1 the Gram
 * matrix is an arrowhead (diag Λ bordered by one row), decomposed in O(m²) (`AugmentedGramEigen`).
 *
 * V, its spare and every array a product writes live in the sketch's `workspace` (a WebAssembly memory
 * under the wasm backend), where the products run as SIMD kernels with the same results.
 *
 * Adaptive sketch size (params.m: adaptive, `AdaptiveSketchOptions`): m_t grows instead of discarding
 * mass that would break the budget Δ_t ≤ 1 + ε (see `grownSize` for the rule and its justification).
 */
import { ArrowheadEigen } from '../linalg/arrowhead.js';
import { axpy, dot, gemmNN, gemmNT, gemv, ger } from '../linalg/blas.js';
import { SymmetricEigen } from '../linalg/eigen.js';
import { cholesky, choleskySolve } from '../linalg/cholesky.js';
import { Workspace } from '../linalg/simd.js';

/** Eigenvalues of a Gram matrix at or below this multiple of n·ε·(largest) are rounding noise. */
const NOISE_FACTOR = 8;
/** The sketch size a request m gives in dimension n: V has orthonormal columns in R^n, so at most n of them. */
export function cappedSketchSize(m: number, dimension: number): number {
  return Math.min(m, dimension);
}

/**
 * An adaptive sketch size (params.m: adaptive): the budget ε on Δ_t = 1 + ρ_{1:t}/λ (Theorem 1), so
 * that Δ_t ≤ 1 + ε in every round, and the λ of that definition (the base λ, also under robust FD).
 */
export interface AdaptiveSketchOptions {
  /** ε > 0 (params.delta_max): the most Δ_t may exceed 1. */
  deltaMax: number;
  /** λ of Δ_t = 1 + ρ_{1:t}/λ. */
  regularization: number;
}

/**
 * The share of an adaptive sketch's budget ε that a sketch of size m may have used: 1 − 2^{−(j+1)}
 * for m in [2^j, 2^{j+1}) (1/2 at m = 1, 3/4 at m = 2 or 3, …), so every size class keeps half of
 * what the smaller ones left (Wen et al.'s dyadic shares; `FrequentDirections.grownSize`).
 */
export function budgetShare(m: number): number {
  return 1 - 0.5 ** (32 - Math.clz32(m));
}

/** How often (in updates) ‖VᵀV − I‖_max is measured, and the drift that triggers re-orthonormalisation. */
const ORTHONORMALITY_CHECK_INTERVAL = 32;
const ORTHONORMALITY_TOLERANCE = 1e-12;

export class FrequentDirections {
  /** d */
  readonly d: number;
  /** K */
  readonly K: number;
  /** Kd: dimension of the vectorised parameter. */
  readonly dimension: number;
  /** m_t: the most directions kept now (fixed, or grown by an adaptive sketch; at most Kd). */
  get sketchSize(): number {
    return this.size;
  }
  /** Directions the arrays are sized for (≥ m_t; doubles as an adaptive sketch grows). */
  get capacity(): number {
    return this.allocated;
  }
  /** r ≤ m: directions currently held (all with μ_k > 0). */
  rank = 0;
  /** V as rows: v_k = basis[k·Kd .. (k+1)·Kd). */
  basis: Float64Array;
  /** Λ: μ_1 ≥ … ≥ μ_r > 0. */
  eigenvalues: Float64Array;
  /** ρ_{1:t}: the discarded mass Σ σ̄²_{m+1} (Alg. 1, line 7). */
  sketchError = 0;
  /** Times V was re-orthonormalised after measurable drift. */
  reorthonormalisations = 0;

  /** Times m_t grew (adaptive sketch). */
  growths = 0;
  /** ε and λ of an adaptive sketch; null for a fixed m. */
  readonly adaptive: AdaptiveSketchOptions | null;

  private size: number;
  private allocated: number;
  private spareBasis: Float64Array;
  private gramEigen: AugmentedGramEigen;
  private projection: Float64Array;
  private oldCoefficients: Float64Array;
  private xCoefficients: Float64Array;
  private overlap: Float64Array;
  private readonly blockDots: Float64Array;
  /** `augmentedSolve`: E (r×K) and the K×K Schur complement, then its Cholesky factor. */
  private border: Float64Array;
  private readonly schur: Float64Array;
  /** √μ_k of the held directions (`update`) and Vᵀw (`sketchQuadraticForm`). */
  private roots: Float64Array;
  private coordinates: Float64Array;
  /** This round's action x, copied in once so every product over V reads it in place. */
  private readonly action: Float64Array;
  private updates = 0;
  /** Storage of V and of the arrays products over it write; the owner's policy may allocate there too. */
  readonly workspace: Workspace;

  /**
   * Robust frequent directions (Luo et al., 2019, "Robust frequent directions with application in
   * online learning"): the sketch's λ grows by half the discarded mass, λ_t = λ + ρ_{1:t}/2.
   */
  readonly robust: boolean;

  /** `sketchSize`: m, or an adaptive sketch's initial m_1 (`adaptive` given). */
  constructor(d: number, K: number, sketchSize: number, robust = false, adaptive: AdaptiveSketchOptions | null = null) {
    if (!Number.isInteger(sketchSize) || sketchSize < 1) {
      throw new RangeError(`sketch size m must be an integer ≥ 1, got ${sketchSize}`);
    }
    if (adaptive !== null) {
      if (!(Number.isFinite(adaptive.deltaMax) && adaptive.deltaMax > 0)) {
        throw new RangeError(`delta_max (ε of Δ_t ≤ 1 + ε) must be a finite number > 0, got ${adaptive.deltaMax}`);
      }
      if (!(Number.isFinite(adaptive.regularization) && adaptive.regularization > 0)) {
        throw new RangeError(`an adaptive sketch's λ must be a finite number > 0, got ${adaptive.regularization}`);
      }
    }
    this.robust = robust;
    this.adaptive = adaptive;
    this.d = d;
    this.K = K;
    this.dimension = K * d;
    this.size = cappedSketchSize(sketchSize, this.dimension);
    this.allocated = this.size;
    const m = this.size;
    // V, V's spare, the m×m products and x; grows later when a policy or a round's actions need more.
    this.workspace = new Workspace(8 * (2 * m * this.dimension + 2 * m * m + m * K + d) + 65536);
    const space = this.workspace;
    this.basis = space.float64(m * this.dimension);
    this.spareBasis = space.float64(m * this.dimension);
    this.eigenvalues = new Float64Array(m);
    this.gramEigen = new AugmentedGramEigen(m, K, space);
    this.projection = space.float64(m * K);
    this.oldCoefficients = space.float64(m * m);
    this.xCoefficients = new Float64Array(m * K);
    this.overlap = space.float64(m * m);
    this.blockDots = new Float64Array(K);
    this.border = new Float64Array(m * K);
    this.schur = new Float64Array(K * K);
    this.roots = new Float64Array(m);
    this.coordinates = space.float64(m);
    this.action = space.float64(d);
  }

  /** Bytes held by the sketch's arrays. */
  get stateBytes(): number {
    return (
      this.basis.byteLength +
      this.spareBasis.byteLength +
      this.eigenvalues.byteLength +
      this.action.byteLength +
      this.gramEigen.byteLength +
      this.projection.byteLength +
      this.oldCoefficients.byteLength +
      this.xCoefficients.byteLength +
      this.border.byteLength +
      this.schur.byteLength +
      this.roots.byteLength +
      this.coordinates.byteLength +
      this.overlap.byteLength
    );
  }

  /** P(x): out[i·r + k] = ⟨u_ki, x⟩, the projections of x on the d-blocks of each v_k (Lemma 1). */
  project(x: Float64Array, xOffset: number, out: Float64Array): Float64Array {
    const { rank: r, d, K, dimension } = this;
    for (let i = 0; i < K; i++) gemv(r, d, this.basis, i * d, dimension, x, xOffset, out, i * r);
    return out;
  }

  /** λ_t of Z_t = λ_t I + VΛVᵀ for the base λ: λ itself (FD), or λ + ρ_{1:t}/2 (robust FD). */
  regularization(base: number): number {
    return this.robust ? base + this.sketchError / 2 : base;
  }

  /**
   * out = Z^{-1/2} w for Z = λI + VΛVᵀ: λ^{-1/2}(I − VVᵀ)w + V(λI + Λ)^{-1/2}Vᵀw, i.e.
   * λ^{-1/2}w + Σ_k ((λ+μ_k)^{-1/2} − λ^{-1/2}) (v_kᵀw) v_k. O(Kd·r); `scratch` has length ≥ r.
   */
  inverseSquareRootApply(regularization: number, w: Float64Array, out: Float64Array, scratch: Float64Array): void {
    const { rank: r, dimension } = this;
    const root = 1 / Math.sqrt(regularization);
    gemv(r, dimension, this.basis, 0, dimension, w, 0, scratch, 0);
    for (let j = 0; j < dimension; j++) out[j] = root * w[j];
    for (let k = 0; k < r; k++) {
      axpy(dimension, (1 / Math.sqrt(regularization + this.eigenvalues[k]) - root) * scratch[k], this.basis, k * dimension, out, 0);
    }
  }

  /** c_k = 1/λ − 1/(μ_k + λ) = μ_k/(λ(λ+μ_k)): Woodbury, Z⁻¹ = (I − V Λ(λI+Λ)⁻¹ Vᵀ)/λ = I/λ − V diag(c) Vᵀ. */
  woodburyCoefficients(regularization: number, out: Float64Array): Float64Array {
    for (let k = 0; k < this.rank; k++) {
      const mu = this.eigenvalues[k];
      out[k] = mu / (regularization * (regularization + mu));
    }
    return out;
  }

  /** Σ_k μ_k (v_kᵀ w)²: the sketch's part of ‖w‖²_Z (add λ‖w‖² for the full norm). */
  sketchQuadraticForm(w: Float64Array): number {
    const coordinates = this.coordinates;
    gemv(this.rank, this.dimension, this.basis, 0, this.dimension, w, 0, coordinates, 0);
    let sum = 0;
    for (let k = 0; k < this.rank; k++) sum += this.eigenvalues[k] * coordinates[k] * coordinates[k];
    return sum;
  }

  /**
   * Gram matrix of C = [V Λ^{1/2}, F ⊗ x] ((r+K)×(r+K), row-major into `out`), given P(x) from
   * `project`, the K×K factor F and ‖x‖². Uses VᵀV = I: the top-left block is Λ.
   */
  augmentedGram(projection: Float64Array, factor: Float64Array, xNormSq: number, out: Float64Array): number {
    const { rank: r, K } = this;
    const n = r + K;
    out.fill(0, 0, n * n);
    this.gramBorder(projection, factor, out, r, n);
    for (let k = 0; k < r; k++) {
      out[k * n + k] = this.eigenvalues[k];
      for (let j = 0; j < K; j++) out[(r + j) * n + k] = out[k * n + r + j];
    }
    for (let i = 0; i < K; i++) {
      for (let j = 0; j < K; j++) out[(r + i) * n + r + j] = factorGram(K, factor, i, j) * xNormSq;
    }
    return n;
  }

  /** E = Λ^{1/2} P(x) F, the r×K off-diagonal block of `augmentedGram`, into out[offset + k·ld + j]. */
  private gramBorder(projection: Float64Array, factor: Float64Array, out: Float64Array, offset: number, ld: number): void {
    const { rank: r, K } = this;
    for (let k = 0; k < r; k++) {
      const root = Math.sqrt(this.eigenvalues[k]);
      for (let j = 0; j < K; j++) {
        let s = 0;
        for (let i = 0; i < K; i++) s += factor[i * K + j] * projection[i * r + k];
        out[offset + k * ld + j] = root * s;
      }
    }
  }

  /**
   * out = (λI + CᵀC)⁻¹ w for C = [V Λ^{1/2}, F ⊗ x] (length r+K), given P(x), F and ‖x‖². CᵀC is
   * [[Λ, E], [Eᵀ, FᵀF‖x‖²]] with E = Λ^{1/2} P F (`augmentedGram`), so block elimination of the
   * diagonal λI + Λ leaves the K×K Schur complement S = λI + FᵀF‖x‖² − Eᵀ(λI + Λ)⁻¹E, positive
   * definite like λI + CᵀC, solved by Cholesky (Golub & Van Loan §4.2, block LDLᵀ). O(rK²).
   */
  augmentedSolve(
    projection: Float64Array,
    factor: Float64Array,
    xNormSq: number,
    regularization: number,
    w: Float64Array,
    out: Float64Array,
  ): void {
    const { rank: r, K } = this;
    const border = this.border;
    const schur = this.schur;
    // E, and out[0..r) = (λI + Λ)⁻¹ w[0..r) for now.
    this.gramBorder(projection, factor, border, 0, K);
    for (let k = 0; k < r; k++) out[k] = w[k] / (regularization + this.eigenvalues[k]);
    for (let i = 0; i < K; i++) {
      for (let j = 0; j <= i; j++) {
        let s = 0;
        for (let k = 0; k < r; k++) s += (border[k * K + i] * border[k * K + j]) / (regularization + this.eigenvalues[k]);
        schur[i * K + j] = factorGram(K, factor, i, j) * xNormSq - s + (i === j ? regularization : 0);
      }
      let s = 0;
      for (let k = 0; k < r; k++) s += border[k * K + i] * out[k];
      out[r + i] = w[r + i] - s;
    }
    // S = LLᵀ, then L Lᵀ y = out[r..r+K). S is positive definite in exact arithmetic; at λ near the
    // rounding level of ‖CᵀC‖ cancellation can break that, which is an error, not a NaN in W.
    if (!cholesky(K, schur, 0, K)) {
      throw new Error(`FrequentDirections: the Newton step's K×K Schur complement is not positive definite (λ = ${regularization} is at the rounding level of the sketch)`);
    }
    choleskySolve(K, schur, 0, K, out, r);
    // out[0..r) = (λI + Λ)⁻¹ (w[0..r) − E y).
    for (let k = 0; k < r; k++) {
      let s = 0;
      for (let j = 0; j < K; j++) s += border[k * K + j] * out[r + j];
      out[k] -= s / (regularization + this.eigenvalues[k]);
    }
  }

  /** out = Cᵀ w for C = [V Λ^{1/2}, F ⊗ x] (length r+K). */
  augmentedTranspose(w: Float64Array, factor: Float64Array, x: Float64Array, out: Float64Array): void {
    const { rank: r, K, d, dimension } = this;
    gemv(r, dimension, this.basis, 0, dimension, w, 0, out, 0);
    for (let k = 0; k < r; k++) out[k] *= Math.sqrt(this.eigenvalues[k]);
    const blockDots = this.blockDots;
    for (let i = 0; i < K; i++) blockDots[i] = dot(d, x, 0, w, i * d);
    for (let j = 0; j < K; j++) {
      let s = 0;
      for (let i = 0; i < K; i++) s += factor[i * K + j] * blockDots[i];
      out[r + j] = s;
    }
  }

  /** out += C h for C = [V Λ^{1/2}, F ⊗ x] and h of length r+K. */
  augmentedApply(h: Float64Array, factor: Float64Array, x: Float64Array, out: Float64Array): void {
    const { rank: r, K, d, dimension } = this;
    for (let k = 0; k < r; k++) axpy(dimension, Math.sqrt(this.eigenvalues[k]) * h[k], this.basis, k * dimension, out, 0);
    for (let i = 0; i < K; i++) {
      let s = 0;
      for (let j = 0; j < K; j++) s += factor[i * K + j] * h[r + j];
      axpy(d, s, x, 0, out, i * d);
    }
  }

  /**
   * Alg. 1: adds the rank-K update (F ⊗ x)(F ⊗ x)ᵀ = ∇σ ⊗ x xᵀ (eq. (13), F from `hessianFactor`)
   * and keeps the top m directions, shrinking them by σ̄²_{m+1} (eq. (15)); ρ += σ̄²_{m+1}.
   * `knownProjection`: P(x) from `project`, when the caller already has it for this x and this sketch.
   */
  update(action: Float64Array, factor: Float64Array, knownProjection?: Float64Array): void {
    const { rank: r, K, d, dimension } = this;
    const x = this.action;
    for (let j = 0; j < d; j++) x[j] = action[j];
    const projection = knownProjection ?? this.project(x, 0, this.projection);
    const xNormSq = dot(d, x, 0, x, 0);
    // Alg. 1, line 3: SVD of [V Λ^{1/2}, B]ᵀ through the eigendecomposition of its Gram matrix.
    const n = this.gramEigen.decompose(this, projection, factor, xNormSq);
    const { values, vectors } = this.gramEigen;
    const noise = NOISE_FACTOR * n * Number.EPSILON * Math.max(values[0], 0);
    let m = this.size;
    if (this.adaptive !== null && n > m && m < dimension && values[m] > noise && !this.withinBudget(values[m], m)) {
      m = this.grownSize(m, n, values, noise);
      this.size = m;
      this.growths++;
      if (m > this.allocated) this.reserve(Math.min(dimension, Math.max(2 * this.allocated, m)));
    }
    // Alg. 1, lines 4–7. With m ≥ Kd the (m+1)-th singular value of a Kd-row matrix is exactly 0.
    let shrink = 0;
    if (n > m && m < dimension && values[m] > noise) shrink = values[m];
    this.sketchError += shrink;
    let newRank = 0;
    while (newRank < Math.min(m, n) && values[newRank] - shrink > noise) newRank++;

    // V' = [V Λ^{1/2}, F ⊗ x] Q_{:,1:r'} Σ̄^{-1}: coefficients on the old rows and on x's blocks.
    const oldCoefficients = this.oldCoefficients;
    const xCoefficients = this.xCoefficients;
    const roots = this.roots;
    for (let p = 0; p < r; p++) roots[p] = Math.sqrt(this.eigenvalues[p]);
    for (let k = 0; k < newRank; k++) {
      const invSigma = 1 / Math.sqrt(values[k]);
      for (let p = 0; p < r; p++) oldCoefficients[k * r + p] = vectors[p * n + k] * roots[p] * invSigma;
      for (let i = 0; i < K; i++) {
        let s = 0;
        for (let j = 0; j < K; j++) s += factor[i * K + j] * vectors[(r + j) * n + k];
        xCoefficients[k * K + i] = s * invSigma;
      }
    }
    const next = this.spareBasis;
    if (r > 0) gemmNN(newRank, dimension, r, oldCoefficients, 0, r, this.basis, 0, dimension, next, 0, dimension);
    else next.fill(0, 0, newRank * dimension);
    // Block i of v'_k += xCoefficients[k·K + i]·x: one rank-one update over the newRank·K blocks of length d.
    ger(newRank * K, d, 1, xCoefficients, 0, 1, x, 0, next, 0, d);
    this.spareBasis = this.basis;
    this.basis = next;
    for (let k = 0; k < newRank; k++) this.eigenvalues[k] = values[k] - shrink;
    this.eigenvalues.fill(0, newRank);
    this.rank = newRank;

    this.updates++;
    if (this.updates % ORTHONORMALITY_CHECK_INTERVAL === 0 && this.orthonormalityError() > ORTHONORMALITY_TOLERANCE) {
      this.reorthonormalise();
    }
  }

  /**
   * Whether a sketch of size m may discard σ̄² = `value`: (ρ_{1:t−1} + σ̄²)/λ within the share of ε of
   * m's dyadic size class (`budgetShare`). Floating point is monotone, so Δ_t = 1 + ρ_{1:t}/λ as
   * reported stays ≤ 1 + ε.
   */
  private withinBudget(value: number, m: number): boolean {
    const { deltaMax, regularization } = this.adaptive!;
    return (this.sketchError + value) / regularization <= deltaMax * budgetShare(m);
  }

  /**
   * The growth rule of an adaptive sketch: the smallest m' > m whose shrink σ̄²_{m'+1} (values[m'],
   * 0-based, of the Gram matrix of [V Λ^{1/2}, B_t]) still fits the budget of m' (`withinBudget`), or
   * whose (m'+1)-th value is zero (m' = r + K, the whole of [V Λ^{1/2}, B_t], or m' = Kd). So
   * ρ_{1:t} < ελ and Δ_t ≤ 1 + ε in every round, and m_t grows only when a discard would break the
   * budget, by at most K a round (and never past the rank of the Hessians seen).
   *
   * The budget is shared out dyadically: a sketch of size m in [2^j, 2^{j+1}) may have discarded at
   * most ελ(1 − 2^{−(j+1)}) in all (`budgetShare`), so half of ε is kept back at m = 1 and ελ/2^{j+1}
   * in class j. Spending all of ε greedily at a small m would leave no room to discard ever after, and
   * every later round's tail would force m_t up to the rank of the data at once; with the reserve, m_t
   * grows only as far as the discard rate at m_t fits what remains.
   *
   * Why this is sound. Alg. 1 with a larger m in one round is still one FD step: Lemma 3 (appendix,
   * V_{t+1}Λ_{t+1}V_{t+1}ᵀ ⪯ V_tΛ_tV_tᵀ + ∇²ℓ_t ⪯ V_{t+1}Λ_{t+1}V_{t+1}ᵀ + (ρ_{1:t} − ρ_{1:t−1})I) holds
   * round by round whatever m each round keeps, so Lemma 4 (VΛVᵀ ⪯ M_t ⪯ VΛVᵀ + ρ_{1:t}I) and
   * Lemma 5 follow by the same telescoping, and Theorem 1 holds with Δ_t = 1 + ρ_{1:t}/λ ≤ 1 + ε. In
   * Lemma 6 the rank of V_tΛ_tV_tᵀ is at most m_t, so eq. (27) and eq. (36) hold with m_t in round t
   * ((1 + a/m)^m grows with m, so m_T bounds every round); Theorem 2, eq. (28), then reads
   * Õ((1+ε)(Kd ln(1+ε) + m_T)√T). The idea of growing a sketch when its spectral error would exceed a
   * budget, over dyadic size classes (2^j) each with its own share of the error, with sizes doubling
   * so that growth costs amortised O(1), is Wen et al.'s dyadic block sketching (2024, "Matrix
   * sketching in bandits: current pitfalls and new framework", arXiv:2410.10258, DBSLinUCB). Here a
   * single FD sketch grows in place instead of starting a new block: V stays orthonormal (its new
   * columns come from the same eigendecomposition), m_t grows only as far as the budget needs, and the
   * arrays' capacity doubles (`reserve`), so no round costs more than O(Kd(m_t+K)²) and the copies
   * cost O(Kd·m_T) in all.
   */
  private grownSize(m: number, n: number, values: Float64Array, noise: number): number {
    const limit = Math.min(n, this.dimension);
    let grown = m + 1;
    while (grown < limit && values[grown] > noise && !this.withinBudget(values[grown], grown)) grown++;
    return grown;
  }

  /** Re-sizes every array held by direction count for `capacity` directions, keeping V's r rows and Λ. */
  private reserve(capacity: number): void {
    const { dimension, K, rank: r } = this;
    const space = this.workspace;
    const basis = space.float64(capacity * dimension);
    basis.set(this.basis.subarray(0, r * dimension));
    this.basis = basis;
    this.spareBasis = space.float64(capacity * dimension);
    const eigenvalues = new Float64Array(capacity);
    eigenvalues.set(this.eigenvalues.subarray(0, r));
    this.eigenvalues = eigenvalues;
    // The round's Gram eigenpairs stay readable: `update` holds the old solver's arrays until it ends.
    this.gramEigen = new AugmentedGramEigen(capacity, K, space);
    this.projection = space.float64(capacity * K);
    this.oldCoefficients = space.float64(capacity * capacity);
    this.xCoefficients = new Float64Array(capacity * K);
    this.border = new Float64Array(capacity * K);
    this.roots = new Float64Array(capacity);
    this.coordinates = space.float64(capacity);
    this.overlap = space.float64(capacity * capacity);
    this.allocated = capacity;
  }

  /** max |VᵀV − I| over the r held directions. */
  orthonormalityError(): number {
    const { rank: r, dimension } = this;
    if (r === 0) return 0;
    gemmNT(r, r, dimension, this.basis, 0, dimension, this.basis, 0, dimension, this.overlap, 0, r);
    let worst = 0;
    for (let i = 0; i < r; i++) {
      for (let j = 0; j < r; j++) {
        const e = Math.abs(this.overlap[i * r + j] - (i === j ? 1 : 0));
        if (e > worst) worst = e;
      }
    }
    return worst;
  }

  /** Modified Gram–Schmidt over v_1..v_r in order of decreasing weight (largest move least). */
  private reorthonormalise(): void {
    const { rank: r, dimension } = this;
    for (let pass = 0; pass < 2; pass++) {
      for (let k = 0; k < r; k++) {
        for (let p = 0; p < k; p++) {
          const c = dot(dimension, this.basis, p * dimension, this.basis, k * dimension);
          axpy(dimension, -c, this.basis, p * dimension, this.basis, k * dimension);
        }
        const norm = Math.sqrt(dot(dimension, this.basis, k * dimension, this.basis, k * dimension));
        for (let j = 0; j < dimension; j++) this.basis[k * dimension + j] /= norm;
      }
    }
    this.reorthonormalisations++;
  }
}

/** (FᵀF)_ij for the K×K factor F (row-major): the Gram matrix of F ⊗ x is FᵀF‖x‖². */
function factorGram(K: number, factor: Float64Array, i: number, j: number): number {
  let s = 0;
  for (let p = 0; p < K; p++) s += factor[p * K + i] * factor[p * K + j];
  return s;
}

/**
 * Eigendecomposition of the Gram matrix of C = [V Λ^{1/2}, F ⊗ x] ((r+K)×(r+K)), eigenvalues in
 * descending order into `values`, eigenvectors into the columns of `vectors` (row-major, ld = r+K).
 * For K = 1 the Gram matrix is the arrowhead [[Λ, w], [wᵀ, F²‖x‖²]] with w_k = √μ_k F ⟨v_k, x⟩,
 * solved by its secular equation in O(r²) (`ArrowheadEigen`); for K ≥ 2 it is formed and decomposed
 * densely in O((r+K)³).
 */
export class AugmentedGramEigen {
  readonly values: Float64Array;
  readonly vectors: Float64Array;
  private readonly gram: Float64Array;
  /** K = 1: the arrowhead's diagonal (Λ, then the corner F²‖x‖²) and border. */
  private readonly diagonal: Float64Array;
  private readonly border: Float64Array;
  private readonly dense: SymmetricEigen | null;
  private readonly arrowhead: ArrowheadEigen | null;

  /** Workspace for sketches of at most m directions and K outcomes; the dense solver's rotations in `space` when given. */
  constructor(m: number, K: number, space?: Workspace) {
    const n = m + K;
    this.values = new Float64Array(n);
    this.vectors = new Float64Array(n * n);
    this.gram = new Float64Array(K === 1 ? 0 : n * n);
    this.diagonal = new Float64Array(K === 1 ? m + 1 : 0);
    this.border = new Float64Array(K === 1 ? m : 0);
    this.dense = K === 1 ? null : new SymmetricEigen(n, space);
    this.arrowhead = K === 1 ? new ArrowheadEigen(n) : null;
  }

  get byteLength(): number {
    return this.values.byteLength + this.vectors.byteLength + this.gram.byteLength + this.diagonal.byteLength + this.border.byteLength;
  }

  /** Decomposes the Gram matrix of [V Λ^{1/2}, F ⊗ x] for `sketch`, given P(x) and ‖x‖²; returns its order. */
  decompose(sketch: FrequentDirections, projection: Float64Array, factor: Float64Array, xNormSq: number): number {
    if (this.arrowhead !== null) {
      const r = sketch.rank;
      const f = factor[0];
      for (let k = 0; k < r; k++) {
        const mu = sketch.eigenvalues[k];
        this.diagonal[k] = mu;
        this.border[k] = Math.sqrt(mu) * f * projection[k];
      }
      this.diagonal[r] = f * f * xNormSq;
      this.arrowhead.decompose(r, this.diagonal, 0, this.border, 0, this.values, this.vectors);
      return r + 1;
    }
    const n = sketch.augmentedGram(projection, factor, xNormSq, this.gram);
    this.dense!.decompose(n, this.gram, 0, n, this.values, this.vectors);
    return n;
  }
}

/**
 * Lemma 1, eq. (18): A(x)_ij = δ_ij ‖x‖²/λ − Σ_k c_k ⟨x,u_ki⟩⟨x,u_kj⟩ with c from `woodburyCoefficients`,
 * so that A(x) = (I_K ⊗ x)ᵀ Z⁻¹ (I_K ⊗ x) and ‖Z^{-1/2}(I_K ⊗ x)‖₂² = ‖A(x)‖₂. `projection` holds
 * ⟨x,u_ki⟩ at offset + i·blockStride + k·directionStride: by default the layout of `project` (K blocks
 * of r); `ActionCurvature` keeps direction-major rows (blockStride 1, directionStride K). O(rK²).
 */
export function lemma1Matrix(
  K: number,
  r: number,
  woodbury: Float64Array,
  projection: Float64Array,
  offset: number,
  xNormSq: number,
  regularization: number,
  out: Float64Array,
  blockStride = r,
  directionStride = 1,
): Float64Array {
  const diagonal = xNormSq / regularization;
  for (let i = 0; i < K; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      const pi = offset + i * blockStride;
      const pj = offset + j * blockStride;
      for (let k = 0; k < r; k++) s += woodbury[k] * projection[pi + k * directionStride] * projection[pj + k * directionStride];
      out[i * K + j] = out[j * K + i] = (i === j ? diagonal : 0) - s;
    }
  }
  return out;
}

/**
 * Lemma 1 for every action of a round at once: P(x) of each action (one gemm per d-block of V) and
 * ‖x‖², then A(x) = (I_K ⊗ x)ᵀ Z⁻¹ (I_K ⊗ x) of any of them on demand (`write`). The curvature input
 * of `OptimisticSelector` for the sketched policies. Scratch grows with the largest action set seen.
 */
export class ActionCurvature {
  private readonly sketch: FrequentDirections;
  private projections: Float64Array = new Float64Array(0);
  /** The round's features, copied beside V once so both products read them in place. */
  private features: Float64Array = new Float64Array(0);
  private normsSq = new Float64Array(0);
  /** c_k of `woodburyCoefficients` for this round's λ. */
  private woodbury: Float64Array;
  /** λ of the round (λ_t for robust FD). */
  private regularization = 1;

  constructor(sketch: FrequentDirections) {
    this.sketch = sketch;
    this.woodbury = new Float64Array(sketch.capacity);
  }

  get byteLength(): number {
    return this.projections.byteLength + this.features.byteLength + this.normsSq.byteLength + this.woodbury.byteLength;
  }

  /** Takes P(x) and ‖x‖² of `count` actions (rows of `features`, length d each) against the current sketch. */
  prepare(features: Float64Array, count: number, regularization: number): void {
    const { K, d, rank: r, capacity: m } = this.sketch;
    if (this.projections.length < count * K * m) this.projections = this.sketch.workspace.float64(count * K * m);
    if (this.woodbury.length < m) this.woodbury = new Float64Array(m);
    if (this.normsSq.length < count) this.normsSq = new Float64Array(count);
    if (this.features.length < count * d) this.features = this.sketch.workspace.float64(count * d);
    const x = this.features;
    if (features.length === count * d) x.set(features);
    else for (let j = 0; j < count * d; j++) x[j] = features[j];
    // Every d-block of every v_k against every x (Lemma 1's ⟨x, u_ki⟩): V's rows read as r·K rows of
    // length d, so row k·K + i is u_ki and one product gives action a's ⟨x, u_ki⟩ at a·Kr + k·K + i.
    if (r > 0) gemmNT(count, r * K, d, x, 0, d, this.sketch.basis, 0, d, this.projections, 0, K * r);
    for (let a = 0; a < count; a++) this.normsSq[a] = dot(d, x, a * d, x, a * d);
    this.sketch.woodburyCoefficients(regularization, this.woodbury);
    this.regularization = regularization;
  }

  /** A(x) of action `index` of the prepared round (K×K, row-major), eq. (18). */
  write(index: number, out: Float64Array): void {
    const { K, rank: r } = this.sketch;
    lemma1Matrix(K, r, this.woodbury, this.projections, index * K * r, this.normsSq[index], this.regularization, out, 1, K);
  }
}
