/**
 * Full eigendecomposition of a real symmetric matrix: Householder tridiagonalisation (tred2's loop,
 * or from order BLOCKED_REDUCTION_MIN_ORDER on LAPACK's blocked dsytrd/dlatrd), then
 * - below order DIVIDE_AND_CONQUER_MIN_ORDER: the implicit QL iteration with Wilkinson shifts — the
 *   EISPACK tred2/tql2 pair as transcribed in JAMA, rewritten for row-major storage;
 * - from that order on: divide and conquer on the tridiagonal matrix (`TridiagonalEigen`, arrowhead
 *   merges whose cost is matrix products), and the Householder reflections applied to its
 *   eigenvectors in blocks of BACK_TRANSFORM_BLOCK (compact WY form, LAPACK's dlarft/dlarfb), which
 *   replaces both tred2's accumulation of the reflections and QL's rotations of them.
 * `decomposeFactored` stops short of the back-transformation (V = Q·Z stays factored) for callers
 * that only multiply vectors by V and Vᵀ.
 *
 * JAMA keeps the orthogonal matrix V in columns and walks down them; here the working copy holds
 * W = Vᵀ, so each Householder update, each accumulation step and each Givens rotation of the QL sweep
 * runs along a row of W (contiguous memory). W is transposed into the caller's `vectors` at the end.
 */
import { gemmNN, gemmNNUpdate, gemmNT, gemmNTUpdate, gemv, gemvT, symvLower } from './blas.js';
import { homeOf, kernelHome, type Home, type Workspace } from './simd.js';
import { TridiagonalEigen } from './tridiagonal.js';

const EPS = 2 ** -52;
/** Smallest order decomposed by divide and conquer (below it QL is as fast and needs no extra workspace). */
export const DIVIDE_AND_CONQUER_MIN_ORDER = 96;
/** Householder reflections applied together in the divide-and-conquer path's back-transformation. */
const BACK_TRANSFORM_BLOCK = 32;
/** Smallest order reduced by the blocked Householder reduction (LAPACK dsytrd/dlatrd); below it tred2's loop. At 128 the blocked one already takes 0.6 ms against 1.0 (wasm, loaded machine). */
export const BLOCKED_REDUCTION_MIN_ORDER = 128;
/** Reflections per panel of the blocked reduction (dsytrd's nb). */
const REDUCTION_BLOCK = 32;
/** Rows of the trailing matrix per product in the blocked reduction's rank-2k update (only the lower triangle is needed). */
const REDUCTION_UPDATE_ROWS = 64;

/** Reusable workspace for the eigendecomposition of symmetric matrices of order ≤ maxN. */
export class SymmetricEigen {
  /** Largest order this workspace accepts. */
  readonly maxN: number;
  /** W = Vᵀ, the transposed accumulated orthogonal transform (n×n, ld = n). */
  private readonly w: Float64Array;
  /** Diagonal of the tridiagonal matrix, then the eigenvalues (unsorted). */
  private readonly d: Float64Array;
  /** Off-diagonal of the tridiagonal matrix. */
  private readonly e: Float64Array;
  /** Cosines and sines of the current QL sweep's Givens rotations (rotation i acts on rows i, i+1 of W). */
  private readonly rotC: Float64Array;
  private readonly rotS: Float64Array;
  /** Permutation putting the eigenvalues in descending order. */
  private readonly order: Int32Array;
  /** `decomposeFactored` below DIVIDE_AND_CONQUER_MIN_ORDER: V itself; the order, and whether V = Q·Z (reflections in W, Z in the tridiagonal solver). */
  private factors = new Float64Array(0);
  private factoredOrder = 0;
  private factoredWithReflections = false;
  /** Divide and conquer and the blocked back-transformation (null when maxN is below their order). */
  private readonly tridiagonal: TridiagonalEigen | null;
  /** The block's reflectors as rows (BACK_TRANSFORM_BLOCK × maxN) and as columns (maxN × BACK_TRANSFORM_BLOCK). */
  private readonly reflectorRows: Float64Array;
  private readonly reflectorColumns: Float64Array;
  /** The triangular factor T of the block's compact WY form, and Y = T·(reflector rows)·Z. */
  private readonly blockFactor: Float64Array;
  private readonly blockProducts: Float64Array;
  /** The block's reflectors' dot products (count × count) and T·(reflector rows) (count × maxN). */
  private readonly blockGram: Float64Array;
  private readonly blockWeighted: Float64Array;
  /**
   * The blocked reduction's panel: reflector p's vector u_p and its update vector w_p as rows 2p+1 and
   * 2p of panelRows (2·REDUCTION_BLOCK × maxN, ld = n), and for the trailing update as columns 2p and
   * 2p+1 of panelColumns (maxN × 2·REDUCTION_BLOCK), beside −w_p and −u_p in panelPartners, so that
   * panelPartners·panelColumnsᵀ = −Σ_p u_p w_pᵀ + w_p u_pᵀ; and its vectors (length maxN) and
   * coefficients (2·REDUCTION_BLOCK).
   */
  private readonly panelColumns: Float64Array;
  private readonly panelPartners: Float64Array;
  private readonly panelRows: Float64Array;
  private readonly panelProduct: Float64Array;
  private readonly panelScratch: Float64Array;
  private readonly panelCoefficients: Float64Array;

  /**
   * Allocates the workspace for matrices of order up to maxN (divide and conquer allocates its own on
   * first use); in `space` when given, so that the kernels over it run as WebAssembly.
   */
  constructor(maxN: number, space?: Workspace) {
    if (!Number.isInteger(maxN) || maxN < 0) {
      throw new Error(`SymmetricEigen: maxN must be a non-negative integer, got ${maxN}`);
    }
    this.maxN = maxN;
    this.w = space?.float64(maxN * maxN) ?? new Float64Array(maxN * maxN);
    this.d = space?.float64(maxN) ?? new Float64Array(maxN);
    this.e = space?.float64(maxN) ?? new Float64Array(maxN);
    this.rotC = space?.float64(maxN) ?? new Float64Array(maxN);
    this.rotS = space?.float64(maxN) ?? new Float64Array(maxN);
    this.order = new Int32Array(maxN);
    const large = maxN >= DIVIDE_AND_CONQUER_MIN_ORDER;
    const nb = BACK_TRANSFORM_BLOCK;
    this.tridiagonal = large ? new TridiagonalEigen(maxN, space) : null;
    /** An array of `length` doubles in `space` when given, or an empty one when not `needed`. */
    const array = (needed: boolean, length: number) => (needed ? space?.float64(length) ?? new Float64Array(length) : new Float64Array(0));
    this.reflectorRows = array(large, nb * maxN);
    this.reflectorColumns = array(large, maxN * nb);
    this.blockFactor = array(large, nb * nb);
    this.blockProducts = array(large, nb * maxN);
    this.blockGram = array(large, nb * nb);
    this.blockWeighted = array(large, nb * maxN);
    const blocked = maxN >= BLOCKED_REDUCTION_MIN_ORDER;
    this.panelColumns = array(blocked, maxN * 2 * REDUCTION_BLOCK);
    this.panelPartners = array(blocked, maxN * 2 * REDUCTION_BLOCK);
    this.panelRows = array(blocked, 2 * REDUCTION_BLOCK * maxN);
    this.panelProduct = array(blocked, maxN);
    this.panelScratch = array(blocked, maxN);
    this.panelCoefficients = array(blocked, 2 * REDUCTION_BLOCK);
  }

  /** Bytes of workspace this solver holds. */
  get byteLength(): number {
    return (
      this.w.byteLength +
      5 * this.d.byteLength +
      (this.tridiagonal?.byteLength ?? 0) +
      this.reflectorRows.byteLength +
      this.reflectorColumns.byteLength +
      this.blockFactor.byteLength +
      this.blockProducts.byteLength +
      this.blockGram.byteLength +
      this.blockWeighted.byteLength +
      this.panelColumns.byteLength +
      this.panelPartners.byteLength +
      this.panelRows.byteLength +
      this.panelProduct.byteLength +
      this.panelScratch.byteLength +
      this.panelCoefficients.byteLength +
      this.factors.byteLength
    );
  }

  /**
   * Eigendecomposition of the symmetric n×n matrix at a[aOff], row stride lda (only the lower triangle
   * is read; `a` is not modified): values[0..n) in descending order, `vectors` row-major n×n (ld = n)
   * with column j the unit eigenvector of values[j].
   */
  decompose(
    n: number,
    a: Float64Array,
    aOff: number,
    lda: number,
    values: Float64Array,
    vectors: Float64Array,
  ): void {
    if (!Number.isInteger(n) || n < 0) {
      throw new Error(`SymmetricEigen: order n must be a non-negative integer, got ${n}`);
    }
    if (n > this.maxN) {
      throw new Error(`SymmetricEigen: order n = ${n} exceeds the workspace's maxN = ${this.maxN}`);
    }
    if (n === 0) return;
    this.checkInput(n, a, aOff, lda);
    if (values.length < n || vectors.length < n * n) {
      throw new Error(`SymmetricEigen: output arrays too short for order ${n}`);
    }
    this.load(n, a, aOff, lda);
    if (n === 1) {
      values[0] = this.w[0];
      vectors[0] = 1;
      return;
    }
    this.reduce(n);
    if (this.tridiagonal !== null && n >= DIVIDE_AND_CONQUER_MIN_ORDER) {
      this.divideAndConquer(n, values, vectors);
      for (let first = 1; first < n; first += BACK_TRANSFORM_BLOCK) {
        this.applyReflections(n, first, Math.min(n, first + BACK_TRANSFORM_BLOCK), vectors);
      }
      return;
    }
    this.accumulate(n);
    this.diagonalize(n, true);
    this.writeSorted(n, values, vectors);
  }

  /**
   * The eigenvalues alone, in descending order into values[0..n) (EISPACK tred1/tql1, LAPACK's
   * dsytrd + dsterf work: `decompose`'s reduction, then the QL iteration without accumulating the
   * reflections or rotating W, at every order). Below DIVIDE_AND_CONQUER_MIN_ORDER the values are
   * `decompose`'s, bit for bit; from it on, they agree with divide and conquer's to rounding. Only the
   * lower triangle is read; `a` is not modified. Ends the validity of a `decomposeFactored` that kept
   * its reflections in W.
   */
  eigenvalues(n: number, a: Float64Array, aOff: number, lda: number, values: Float64Array): void {
    if (!Number.isInteger(n) || n < 1 || n > this.maxN) {
      throw new Error(`SymmetricEigen: order n must be an integer in 1..${this.maxN}, got ${n}`);
    }
    if (values.length < n) throw new Error(`SymmetricEigen: output array too short for order ${n}`);
    if (this.factoredWithReflections) this.factoredOrder = 0;
    this.checkInput(n, a, aOff, lda);
    this.load(n, a, aOff, lda);
    if (n === 1) {
      values[0] = this.w[0];
      return;
    }
    this.reduce(n);
    // tred1's output for tql1: T's diagonal (on W's) into d, e[1..n) as left by `reduce`.
    const d = this.d;
    for (let i = 0; i < n; i++) d[i] = this.w[i * n + i];
    this.e[0] = 0;
    this.diagonalize(n, false);
    this.writeSorted(n, values, null);
  }

  /**
   * Like `decompose`, but the eigenvectors stay inside, V = Q·Z with Q the reduction's Householder
   * reflections and Z the tridiagonal matrix's eigenvectors (from order DIVIDE_AND_CONQUER_MIN_ORDER
   * on; below it V itself): the O(n³) back-transformation Q·Z is never formed, and `applyVectors` /
   * `applyVectorsTransposed` multiply by V and Vᵀ in O(n²) instead. For callers that need V only
   * against a few vectors (OFUL-MLogB's projection). Valid until the next decomposition.
   */
  decomposeFactored(n: number, a: Float64Array, aOff: number, lda: number, values: Float64Array): void {
    if (!Number.isInteger(n) || n < 1 || n > this.maxN) {
      throw new Error(`SymmetricEigen: order n must be an integer in 1..${this.maxN}, got ${n}`);
    }
    this.factoredOrder = n;
    this.factoredWithReflections = this.tridiagonal !== null && n >= DIVIDE_AND_CONQUER_MIN_ORDER;
    if (!this.factoredWithReflections) {
      if (this.factors.length < n * n) this.factors = new Float64Array(this.maxN * this.maxN);
      this.decompose(n, a, aOff, lda, values, this.factors);
      return;
    }
    this.checkInput(n, a, aOff, lda);
    this.load(n, a, aOff, lda);
    this.reduce(n);
    this.tridiagonal!.decomposeFactored(n, this.tridiagonalDiagonal(n), this.e, values);
    checkFinite(n, values);
  }

  /**
   * The Householder reduction alone (what LAPACK's dsytrd computes): A = Q T Qᵀ with T tridiagonal, its
   * diagonal into diagonal[0..n) and T[i][i−1] into offDiagonal[i] for i = 1..n−1 (offDiagonal[0] = 0).
   * Only the lower triangle of A is read; `a` is not modified.
   */
  tridiagonalize(n: number, a: Float64Array, aOff: number, lda: number, diagonal: Float64Array, offDiagonal: Float64Array): void {
    if (!Number.isInteger(n) || n < 1 || n > this.maxN) {
      throw new Error(`SymmetricEigen: order n must be an integer in 1..${this.maxN}, got ${n}`);
    }
    if (diagonal.length < n || offDiagonal.length < n) throw new Error(`SymmetricEigen: output arrays too short for order ${n}`);
    this.checkInput(n, a, aOff, lda);
    this.load(n, a, aOff, lda);
    if (n > 1) this.reduce(n);
    for (let i = 0; i < n; i++) {
      diagonal[i] = this.w[i * n + i];
      offDiagonal[i] = i === 0 ? 0 : this.e[i];
    }
  }

  /** out = Vᵀx for the last `decomposeFactored` (x and out of length n, distinct arrays). */
  applyVectorsTransposed(x: Float64Array, out: Float64Array): void {
    const n = this.factoredOrder;
    if (n === 0) throw new Error('SymmetricEigen: no factored decomposition to apply (decomposeFactored first)');
    if (!this.factoredWithReflections) {
      gemvT(n, n, this.factors, 0, n, x, 0, out, 0);
      return;
    }
    // Qᵀx = P_1 P_2 ··· P_{n−1} x, then Zᵀ(Qᵀx).
    for (let k = 0; k < n; k++) out[k] = x[k];
    for (let i = n - 1; i >= 1; i--) this.reflect(n, i, out);
    this.tridiagonal!.applyTransposed(out);
  }

  /** out = V c for the last `decomposeFactored` (c and out of length n, distinct arrays). */
  applyVectors(c: Float64Array, out: Float64Array): void {
    const n = this.factoredOrder;
    if (n === 0) throw new Error('SymmetricEigen: no factored decomposition to apply (decomposeFactored first)');
    if (!this.factoredWithReflections) {
      gemv(n, n, this.factors, 0, n, c, 0, out, 0);
      return;
    }
    // Q(Zc) = P_{n−1} ··· P_1 (Zc).
    for (let k = 0; k < n; k++) out[k] = c[k];
    this.tridiagonal!.apply(out);
    for (let i = 1; i < n; i++) this.reflect(n, i, out);
  }

  /** x[0..i) ← P_i x = x − u (uᵀx)/h with u in row i of W before the diagonal and h = d[i] (h = 0: identity). */
  private reflect(n: number, i: number, x: Float64Array): void {
    const h = this.d[i];
    if (h === 0) return;
    const ri = i * n;
    let s = 0;
    for (let k = 0; k < i; k++) s += this.w[ri + k] * x[k];
    const f = s / h;
    for (let k = 0; k < i; k++) x[k] -= f * this.w[ri + k];
  }

  private checkInput(n: number, a: Float64Array, aOff: number, lda: number): void {
    if (lda < n || aOff < 0 || aOff + (n - 1) * lda + n > a.length) {
      throw new Error(
        `SymmetricEigen: matrix of order ${n} at offset ${aOff}, lda ${lda} does not fit in an array of length ${a.length}`,
      );
    }
  }

  /**
   * W ← A (symmetric, from the lower triangle), checking every entry read. The blocked reduction reads
   * and keeps only W's lower triangle (it zeroes the upper when done), so for it only that is copied.
   */
  private load(n: number, a: Float64Array, aOff: number, lda: number): void {
    const w = this.w;
    const upper = !this.reducesBlocked(n);
    for (let i = 0; i < n; i++) {
      const ra = aOff + i * lda;
      for (let j = 0; j <= i; j++) {
        const v = a[ra + j];
        if (!Number.isFinite(v)) {
          throw new Error(`SymmetricEigen: non-finite entry at (${i}, ${j})`);
        }
        w[i * n + j] = v;
        if (upper) w[j * n + i] = v;
      }
    }
  }

  /**
   * Householder reduction to tridiagonal form (EISPACK tred2, first half). Leaves the reflection of
   * step i (P_i = I − u uᵀ/h, u supported on 0..i−1) with u in row i of W before the diagonal and h in
   * d[i]; the tridiagonal matrix's diagonal on W's diagonal and its subdiagonal in e[1..n).
   */
  private reduce(n: number): void {
    if (this.reducesBlocked(n)) this.reduceBlocked(n);
    else this.reduceUnblocked(n);
  }

  /** Whether `reduce` takes the blocked path at order n. */
  private reducesBlocked(n: number): boolean {
    return n >= BLOCKED_REDUCTION_MIN_ORDER && this.panelColumns.length > 0;
  }

  /**
   * `reduce` one reflection at a time, as tred2 (below BLOCKED_REDUCTION_MIN_ORDER). Its WebAssembly
   * twin (`reduceUnblocked` in scripts/simd-kernels.mjs) writes d and e too: it runs only when W, d and
   * e live in one workspace.
   */
  private reduceUnblocked(n: number): void {
    const w = this.w;
    const d = this.d;
    const e = this.e;
    const home = kernelHome(w, (2 * n * n * n) / 3);
    if (home !== null && homeOf(d) === home && homeOf(e) === home) {
      home.kernels.reduceUnblocked(n, home.address(w, 0), home.address(d, 0), home.address(e, 0));
      return;
    }
    const last = (n - 1) * n;
    for (let j = 0; j < n; j++) d[j] = w[last + j];

    for (let i = n - 1; i > 0; i--) {
      // Scale row i to avoid under/overflow, then build the Householder vector in d[0..i).
      let scale = 0;
      let h = 0;
      for (let k = 0; k < i; k++) scale += Math.abs(d[k]);
      if (scale === 0) {
        e[i] = d[i - 1];
        for (let j = 0; j < i; j++) {
          d[j] = w[j * n + i - 1];
          w[j * n + i] = 0;
          w[i * n + j] = 0;
        }
      } else {
        for (let k = 0; k < i; k++) {
          d[k] /= scale;
          h += d[k] * d[k];
        }
        let f = d[i - 1];
        let g = Math.sqrt(h);
        if (f > 0) g = -g;
        e[i] = scale * g;
        h -= f * g;
        d[i - 1] = f - g;
        for (let j = 0; j < i; j++) e[j] = 0;

        // e ← (trailing block) · u, reading the block's upper triangle of W two rows at a time (each
        // load of e[k] and d[k] serves both rows).
        const ri = i * n;
        let j = 0;
        for (; j + 1 < i; j += 2) {
          const r0 = j * n;
          const r1 = r0 + n;
          const f0 = d[j];
          const f1 = d[j + 1];
          w[ri + j] = f0;
          w[ri + j + 1] = f1;
          const w01 = w[r0 + j + 1];
          let g0 = e[j] + w[r0 + j] * f0 + w01 * f1;
          e[j + 1] += w01 * f0;
          let g1 = e[j + 1] + w[r1 + j + 1] * f1;
          for (let k = j + 2; k < i; k++) {
            const a0 = w[r0 + k];
            const a1 = w[r1 + k];
            const dk = d[k];
            g0 += a0 * dk;
            g1 += a1 * dk;
            e[k] += a0 * f0 + a1 * f1;
          }
          e[j] = g0;
          e[j + 1] = g1;
        }
        if (j < i) {
          f = d[j];
          w[ri + j] = f;
          e[j] += w[j * n + j] * f;
        }
        f = 0;
        for (let j = 0; j < i; j++) {
          e[j] /= h;
          f += e[j] * d[j];
        }
        const hh = f / (h + h);
        for (let j = 0; j < i; j++) e[j] -= hh * d[j];

        // Rank-2 update of the trailing block, B ← B − u·eᵀ − e·uᵀ, two rows at a time; d[j] then takes
        // row j's entry in column i−1 (the next step's Householder vector).
        for (j = 0; j + 1 < i; j += 2) {
          const r0 = j * n;
          const r1 = r0 + n;
          const f0 = d[j];
          const g0 = e[j];
          const f1 = d[j + 1];
          const g1 = e[j + 1];
          w[r0 + j] -= f0 * e[j] + g0 * d[j];
          for (let k = j + 1; k < i; k++) {
            const ek = e[k];
            const dk = d[k];
            w[r0 + k] -= f0 * ek + g0 * dk;
            w[r1 + k] -= f1 * ek + g1 * dk;
          }
          d[j] = w[r0 + i - 1];
          w[r0 + i] = 0;
          d[j + 1] = w[r1 + i - 1];
          w[r1 + i] = 0;
        }
        if (j < i) {
          const r0 = j * n;
          w[r0 + j] -= 2 * d[j] * e[j];
          d[j] = w[r0 + i - 1];
          w[r0 + i] = 0;
        }
      }
      d[i] = h;
    }
  }

  /**
   * `reduce` in panels of REDUCTION_BLOCK reflections (LAPACK dsytrd/dlatrd, UPLO = 'U' in column-major
   * terms; Golub & Van Loan §5.1.7 for the WY idea): within a panel the trailing matrix is
   * A − Σ_p (u_p w_pᵀ + w_p u_pᵀ) with A as at the panel's start, so each step takes its row from A and
   * the panel, builds the reflector as tred2 does (scaled, P = I − u uᵀ/h), and its update vector
   * w = y − (yᵀu/2h)·u with y = (A − panel)·u/h, the level-2 part (symvLower on A's lower triangle). The
   * panel then reaches the rest of the matrix in one rank-2k update, a matrix product. Same output
   * layout as `reduce`; only the lower triangle is kept up to date, and the upper is zeroed at the end.
   */
  private reduceBlocked(n: number): void {
    const w = this.w;
    const d = this.d;
    const e = this.e;
    const ld = 2 * REDUCTION_BLOCK;
    const columns = this.panelColumns;
    const partners = this.panelPartners;
    const rows = this.panelRows;
    const y = this.panelProduct;
    const scratch = this.panelScratch;
    const t = this.panelCoefficients;
    for (let top = n - 1; top > 0; ) {
      const count = Math.min(REDUCTION_BLOCK, top);
      for (let j = 0; j < count; j++) {
        const i = top - j;
        const ri = i * n;
        const width = 2 * j;
        // Row i of the current matrix, through the diagonal: A's minus Σ_p u_p[i]·w_p + w_p[i]·u_p, the
        // panel's rows (w_p, u_p) weighted by their partners' entries in column i.
        if (j > 0) {
          for (let q = 0; q < width; q++) t[q] = rows[(q ^ 1) * n + i];
          gemvT(width, i + 1, rows, 0, n, t, 0, scratch, 0);
          for (let k = 0; k <= i; k++) w[ri + k] -= scratch[k];
        }
        let scale = 0;
        for (let k = 0; k < i; k++) scale += Math.abs(w[ri + k]);
        let h = 0;
        // The panel's rows 2j (w) and 2j+1 (u) receive this step's vectors.
        const ru = (width + 1) * n;
        const rw = width * n;
        if (scale === 0) {
          e[i] = w[ri + i - 1];
          for (let k = 0; k < i; k++) w[ri + k] = 0;
          rows.fill(0, ru, ru + i);
          rows.fill(0, rw, rw + i);
        } else {
          for (let k = 0; k < i; k++) {
            const x = w[ri + k] / scale;
            w[ri + k] = x;
            h += x * x;
          }
          const f = w[ri + i - 1];
          let g = Math.sqrt(h);
          if (f > 0) g = -g;
          e[i] = scale * g;
          h -= f * g;
          w[ri + i - 1] = f - g;
          // y = (A − panel)·u / h, then w = y − (yᵀu / 2h)·u (into the panel's row 2j). The panel's part is
          // Σ_p u_p (w_pᵀu) + w_p (u_pᵀu): the rows' dots with u, swapped in pairs, weight the rows.
          symvLower(i, w, 0, n, w, ri, y, 0);
          if (j > 0) {
            gemv(width, i, rows, 0, n, w, ri, t, 0);
            for (let q = 0; q < width; q += 2) {
              const swap = t[q];
              t[q] = t[q + 1];
              t[q + 1] = swap;
            }
            gemvT(width, i, rows, 0, n, t, 0, scratch, 0);
            for (let k = 0; k < i; k++) y[k] -= scratch[k];
          }
          let ff = 0;
          for (let k = 0; k < i; k++) {
            y[k] /= h;
            ff += y[k] * w[ri + k];
          }
          const hh = ff / (h + h);
          for (let k = 0; k < i; k++) {
            rows[ru + k] = w[ri + k];
            rows[rw + k] = y[k] - hh * w[ri + k];
          }
        }
        d[i] = h;
      }
      // Rows 0..m−1 (the lower triangle, by blocks of rows) −= Σ_p u_p w_pᵀ + w_p u_pᵀ, as
      // panelPartners · panelColumnsᵀ with (u_p, w_p) in panelColumns and (−w_p, −u_p) in panelPartners.
      const m = top - count + 1;
      const width = 2 * count;
      for (let k = 0; k < m; k++) {
        for (let q = 0; q < width; q += 2) {
          const wk = rows[q * n + k];
          const uk = rows[(q + 1) * n + k];
          columns[k * ld + q] = uk;
          columns[k * ld + q + 1] = wk;
          partners[k * ld + q] = -wk;
          partners[k * ld + q + 1] = -uk;
        }
      }
      for (let r0 = 0; r0 < m; r0 += REDUCTION_UPDATE_ROWS) {
        const r1 = Math.min(m, r0 + REDUCTION_UPDATE_ROWS);
        gemmNTUpdate(r1 - r0, r1, width, partners, r0 * ld, ld, columns, 0, ld, w, r0 * n, n);
      }
      top -= count;
    }
    for (let i = 0; i < n; i++) w.fill(0, i * n + i + 1, i * n + n);
  }

  /** tred2's second half: accumulates the reflections of `reduce` into W = Vᵀ; d, e become the tridiagonal matrix. */
  private accumulate(n: number): void {
    const w = this.w;
    const d = this.d;
    const e = this.e;
    // The WebAssembly twin writes d and e too: it runs only when all three live in one workspace.
    const home = kernelHome(w, (n * n * n) / 3);
    if (home !== null && homeOf(d) === home && homeOf(e) === home) {
      home.kernels.accumulate(n, home.address(w, 0), home.address(d, 0), home.address(e, 0));
      return;
    }
    const last = (n - 1) * n;
    for (let i = 0; i < n - 1; i++) {
      const ri = i * n;
      const ri1 = ri + n;
      w[ri + n - 1] = w[ri + i];
      w[ri + i] = 1;
      const h = d[i + 1];
      if (h !== 0) {
        // Rows j of the leading (i+1)×(i+1) block: w_j ← w_j − ⟨u, w_j⟩·u/h, u = row i+1 of W.
        // Two rows per pass share the loads of u and d.
        const len = i + 1;
        for (let k = 0; k < len; k++) d[k] = w[ri1 + k] / h;
        let j = 0;
        for (; j + 1 < len; j += 2) {
          const r0 = j * n;
          const r1 = r0 + n;
          let g0 = 0;
          let g1 = 0;
          for (let k = 0; k < len; k++) {
            const u = w[ri1 + k];
            g0 += u * w[r0 + k];
            g1 += u * w[r1 + k];
          }
          for (let k = 0; k < len; k++) {
            const dk = d[k];
            w[r0 + k] -= g0 * dk;
            w[r1 + k] -= g1 * dk;
          }
        }
        if (j < len) {
          const r0 = j * n;
          let g0 = 0;
          for (let k = 0; k < len; k++) g0 += w[ri1 + k] * w[r0 + k];
          for (let k = 0; k < len; k++) w[r0 + k] -= g0 * d[k];
        }
      }
      for (let k = 0; k <= i; k++) w[ri1 + k] = 0;
    }
    for (let j = 0; j < n; j++) {
      d[j] = w[j * n + n - 1];
      w[j * n + n - 1] = 0;
    }
    w[last + n - 1] = 1;
    e[0] = 0;
  }

  /**
   * Implicit QL iteration with Wilkinson shifts on the tridiagonal (d, e), rotating rows of W when
   * `withVectors` (EISPACK tql2; without, tql1).
   */
  private diagonalize(n: number, withVectors: boolean): void {
    const d = this.d;
    const e = this.e;
    // The sweeps' WebAssembly twin writes d and e too: it runs only when W, d and e live in one workspace.
    const home = withVectors ? kernelHome(this.w, n * n * n) : null;
    const sweepHome = home !== null && homeOf(d) === home && homeOf(e) === home ? home : null;
    for (let i = 1; i < n; i++) e[i - 1] = e[i];
    e[n - 1] = 0;

    const maxIterations = 30 * n;
    let iterations = 0;
    let f = 0;
    let tst1 = 0;
    for (let l = 0; l < n; l++) {
      // Find a small subdiagonal element.
      tst1 = Math.max(tst1, Math.abs(d[l]) + Math.abs(e[l]));
      let m = l;
      while (m < n - 1) {
        if (Math.abs(e[m]) <= EPS * tst1) break;
        m++;
      }
      // If m == l, d[l] is already an eigenvalue; otherwise iterate.
      if (m > l) {
        do {
          if (++iterations > maxIterations) {
            throw new Error(
              `SymmetricEigen: QL iteration did not converge in ${maxIterations} iterations (order ${n})`,
            );
          }
          // Wilkinson shift.
          const g = d[l];
          const p = (d[l + 1] - g) / (2 * e[l]);
          let r = hypot(p, 1);
          if (p < 0) r = -r;
          d[l] = e[l] / (p + r);
          d[l + 1] = e[l] * (p + r);
          const h = g - d[l];
          for (let i = l + 2; i < n; i++) d[i] -= h;
          f += h;
          this.qlSweep(n, l, m, withVectors, sweepHome);
        } while (Math.abs(e[l]) > EPS * tst1);
      }
      d[l] += f;
      e[l] = 0;
    }
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(d[i])) {
        throw new Error(`SymmetricEigen: non-finite eigenvalue (overflow) for order ${n}`);
      }
    }
  }

  /**
   * One implicit QL transformation of tql2 from row m up to l (after the shift): the
   * rotations' recurrence on (d, e), and when `withVectors` the rotations applied to rows of W; all of
   * it by the WebAssembly twin (`qlSweep` in scripts/simd-kernels.mjs, which applies each pair of
   * rotations behind the next pair's steps) when `home` is W's, d's and e's.
   */
  private qlSweep(n: number, l: number, m: number, withVectors: boolean, home: Home | null): void {
    const w = this.w;
    const d = this.d;
    const e = this.e;
    if (home !== null) {
      home.kernels.qlSweep(n, home.address(w, 0), home.address(d, 0), home.address(e, 0), l, m);
      return;
    }
    const rc = this.rotC;
    const rs = this.rotS;
    const dl1 = d[l + 1];
    let p = d[m];
    let c = 1;
    let c2 = c;
    let c3 = c;
    const el1 = e[l + 1];
    let s = 0;
    let s2 = 0;
    for (let i = m - 1; i >= l; i--) {
      c3 = c2;
      c2 = c;
      s2 = s;
      const g = c * e[i];
      const h = c * p;
      const r = hypot(p, e[i]);
      e[i + 1] = s * r;
      s = e[i] / r;
      c = p / r;
      p = c * d[i] - s * g;
      d[i + 1] = h + s * (c * g + s * d[i]);
      rc[i] = c;
      rs[i] = s;
    }
    if (withVectors) applyRotations(n, w, l, m, rc, rs);
    p = (-s * s2 * c3 * el1 * e[l]) / dl1;
    e[l] = s * p;
    d[l] = c * p;
  }

  /** Eigenvalues (descending) and eigenvectors Z of the tridiagonal matrix T of `reduce` (A = Q T Qᵀ) by divide and conquer. */
  private divideAndConquer(n: number, values: Float64Array, vectors: Float64Array): void {
    this.tridiagonal!.decompose(n, this.tridiagonalDiagonal(n), this.e, values, vectors);
    checkFinite(n, values);
  }

  /** T's diagonal, which `reduce` leaves on W's, as a vector (in rotC, free until the QL path needs it). */
  private tridiagonalDiagonal(n: number): Float64Array {
    const diagonal = this.rotC;
    for (let i = 0; i < n; i++) diagonal[i] = this.w[i * n + i];
    return diagonal;
  }

  /**
   * Z ← P_{last−1}···P_first·Z on rows 0..last−2 of Z (= vectors, n×n) in compact WY form: with
   * H_q = P_{last−1−q} (q = 0..count−1) and v_q its vector, H_0···H_{count−1} = I − V T Vᵀ where T is
   * upper triangular, T_qq = τ_q = 1/h, T_{0:q,q} = −τ_q T_{0:q,0:q} V_{:,0:q}ᵀ v_q (LAPACK dlarft).
   * Then Z ← Z − V ((T Vᵀ) Z): matrix products but for T's recurrence.
   */
  private applyReflections(n: number, first: number, last: number, z: Float64Array): void {
    const w = this.w;
    const count = last - first;
    const rows = last - 1;
    const vRows = this.reflectorRows; // count × rows (ld = rows)
    const vColumns = this.reflectorColumns; // rows × count (ld = count)
    const t = this.blockFactor; // count × count (ld = count)
    const gram = this.blockGram; // count × count (ld = count)
    const tv = this.blockWeighted; // count × rows (ld = rows)
    const y = this.blockProducts; // count × n (ld = n)
    for (let q = 0; q < count; q++) {
      const i = last - 1 - q;
      const h = this.d[i];
      const rv = q * rows;
      // u_i lives in row i of W before the diagonal; a zero h (nothing to reflect) is an identity.
      for (let k = 0; k < rows; k++) vRows[rv + k] = h !== 0 && k < i ? w[i * n + k] : 0;
      for (let k = 0; k < rows; k++) vColumns[k * count + q] = vRows[rv + k];
    }
    // Vᵀv_q for every pair at once (the reflectors' rows against each other).
    gemmNT(count, count, rows, vRows, 0, rows, vRows, 0, rows, gram, 0, count);
    for (let q = 0; q < count; q++) {
      const h = this.d[last - 1 - q];
      const tau = h !== 0 ? 1 / h : 0;
      // T_{0:q,q} = −τ T_{0:q,0:q} (V_{:,0:q}ᵀ v_q).
      for (let p = 0; p < q; p++) {
        let s = 0;
        for (let r = p; r < q; r++) s += t[p * count + r] * gram[r * count + q];
        t[p * count + q] = -tau * s;
      }
      t[q * count + q] = tau;
      for (let p = q + 1; p < count; p++) t[p * count + q] = 0;
    }
    // T Vᵀ, Y = (T Vᵀ) Z, Z −= V Y.
    gemmNN(count, rows, count, t, 0, count, vRows, 0, rows, tv, 0, rows);
    gemmNN(count, n, rows, tv, 0, rows, z, 0, n, y, 0, n);
    gemmNNUpdate(rows, n, count, -1, vColumns, 0, count, y, 0, n, z, 0, n);
  }

  /** Eigenvalues in descending order into values, and Wᵀ with columns permuted alike into vectors (when given). */
  private writeSorted(n: number, values: Float64Array, vectors: Float64Array | null): void {
    const d = this.d;
    const w = this.w;
    const order = this.order;
    // Insertion sort of indices by descending eigenvalue (stable; nearly sorted input is cheap).
    for (let i = 0; i < n; i++) {
      const di = d[i];
      let j = i - 1;
      while (j >= 0 && d[order[j]] < di) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = i;
    }
    for (let j = 0; j < n; j++) values[j] = d[order[j]];
    if (vectors === null) return;
    for (let j = 0; j < n; j++) {
      const src = order[j] * n;
      for (let r = 0; r < n; r++) vectors[r * n + j] = w[src + r];
    }
  }
}

function checkFinite(n: number, values: Float64Array): void {
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(values[i])) throw new Error(`SymmetricEigen: non-finite eigenvalue (overflow) for order ${n}`);
  }
}

/**
 * Applies one QL sweep's rotations to W: rotation i (for i = m−1 down to l) maps rows (i, i+1) to
 * (c·x − s·y, s·x + c·y). Two consecutive rotations share row i, so they are fused into one pass over
 * three rows: each row is loaded and stored once per pair instead of twice.
 */
function applyRotations(
  n: number,
  w: Float64Array,
  l: number,
  m: number,
  rc: Float64Array,
  rs: Float64Array,
): void {
  const home = kernelHome(w, (m - l) * n);
  if (home !== null) {
    home.kernels.rotateRows(n, home.address(w, 0), l, m, home.input(rc, 0, m), home.input(rs, 0, m));
    return;
  }
  let i = m - 1;
  for (; i - 1 >= l; i -= 2) {
    const c1 = rc[i];
    const s1 = rs[i];
    const c0 = rc[i - 1];
    const s0 = rs[i - 1];
    const r0 = (i - 1) * n;
    const r1 = r0 + n;
    const r2 = r1 + n;
    for (let k = 0; k < n; k++) {
      const x = w[r1 + k];
      const y = w[r2 + k];
      const z = w[r0 + k];
      w[r2 + k] = s1 * x + c1 * y;
      const x1 = c1 * x - s1 * y;
      w[r1 + k] = s0 * z + c0 * x1;
      w[r0 + k] = c0 * z - s0 * x1;
    }
  }
  if (i >= l) {
    const c = rc[i];
    const s = rs[i];
    const r0 = i * n;
    const r1 = r0 + n;
    for (let k = 0; k < n; k++) {
      const x = w[r0 + k];
      const y = w[r1 + k];
      w[r1 + k] = s * x + c * y;
      w[r0 + k] = c * x - s * y;
    }
  }
}

/** √(a² + b²) without destructive under/overflow. */
function hypot(a: number, b: number): number {
  const x = Math.abs(a);
  const y = Math.abs(b);
  if (x > y) {
    const t = y / x;
    return x * Math.sqrt(1 + t * t);
  }
  if (y === 0) return 0;
  const t = x / y;
  return y * Math.sqrt(1 + t * t);
}
