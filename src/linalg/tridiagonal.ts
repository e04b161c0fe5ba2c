/**
 * Eigendecomposition of a symmetric tridiagonal matrix by divide and conquer with arrowhead merges
 * (Gu and Eisenstat, "A divide-and-conquer algorithm for the symmetric tridiagonal eigenproblem",
 * SIMAX 1995). Splitting T at a middle row k,
 *
 *     T = [ T_L   b·e_last   0       ]      T_L = Q_L D_L Q_Lᵀ,  T_R = Q_R D_R Q_Rᵀ  (recursively),
 *         [  ·     t_kk     c·e_firstᵀ]
 *         [  0    c·e_first  T_R     ]
 *
 * and changing basis with blkdiag(Q_L, 1, Q_R) leaves the arrowhead [[diag(D_L, D_R), z], [zᵀ, t_kk]]
 * with z = (b·(last row of Q_L), c·(first row of Q_R)). Its eigenvectors U (`ArrowheadEigen`, O(m²))
 * give T's as Q = blkdiag(Q_L, 1, Q_R)·U. A merge needs only the first and last rows of its children's
 * Q, so there are two ways to finish:
 * - `decompose` forms every Q with two matrix products per merge, about (4/3)n³ flops in gemm;
 * - `decomposeFactored` keeps the tree of U's (about 2n² numbers; columns unnormalised, with their
 *   scales) and the first and last rows of each block (O(m²) per merge); `apply` and
 *   `applyTransposed` then multiply a vector by the eigenvector matrix in O(n²) (LAPACK's
 *   dlaed7/dlaeda keep eigenvectors in the same factored form).
 */
import { ArrowheadEigen } from './arrowhead.js';
import { gemmNN } from './blas.js';
import type { Workspace } from './simd.js';

export class TridiagonalEigen {
  readonly maxN: number;
  private readonly arrowhead: ArrowheadEigen;
  /** The merge's arrowhead (diagonal with the corner last, border) and its eigenvalues. */
  private readonly arrowDiagonal: Float64Array;
  private readonly arrowBorder: Float64Array;
  private readonly arrowValues: Float64Array;
  /** Eigenvalues of the solved blocks, at their indices (descending within a block). */
  private readonly blockValues: Float64Array;
  /** First and last rows of each solved block's eigenvector matrix, at the block's indices. */
  private readonly firstRow: Float64Array;
  private readonly lastRow: Float64Array;
  /** Scratch rows and vectors of length maxN. */
  private readonly scratchA: Float64Array;
  private readonly scratchB: Float64Array;
  /** `decompose`: every block's eigenvectors (the caller's output, block [lo, hi) at rows and columns lo..hi−1), the merge's U and a product Q_L·U or Q_R·U. */
  private blocks: Float64Array = new Float64Array(0);
  private arrowVectors: Float64Array = new Float64Array(0);
  private product: Float64Array = new Float64Array(0);
  /** `decomposeFactored`: every merge's U (m×m, unnormalised columns) then its m column scales, the one splitting at k stored from treeOffset[k]. */
  private tree: Float64Array = new Float64Array(0);
  private readonly treeOffset: Int32Array;
  private treeUsed = 0;
  private factored = false;
  private order = 0;
  /** T/σ with σ a power of two near max |T_ij| (exact; LAPACK's dstedc scales alike), and σ. */
  private readonly diagonal: Float64Array;
  private readonly offDiagonal: Float64Array;
  private scale = 1;
  /** Where `decompose`'s product buffers live (their matrix products then run as WebAssembly). */
  private readonly space: Workspace | undefined;

  /** Workspace for orders up to maxN; `decompose`'s two maxN² buffers, allocated on first use, in `space` when given. */
  constructor(maxN: number, space?: Workspace) {
    if (!Number.isInteger(maxN) || maxN < 0) throw new Error(`TridiagonalEigen: maxN must be a non-negative integer, got ${maxN}`);
    this.maxN = maxN;
    this.arrowhead = new ArrowheadEigen(maxN);
    this.arrowDiagonal = new Float64Array(maxN);
    this.arrowBorder = new Float64Array(maxN);
    this.arrowValues = new Float64Array(maxN);
    this.blockValues = new Float64Array(maxN);
    this.firstRow = new Float64Array(maxN);
    this.lastRow = new Float64Array(maxN);
    this.scratchA = new Float64Array(maxN);
    this.scratchB = new Float64Array(maxN);
    this.treeOffset = new Int32Array(maxN);
    this.diagonal = new Float64Array(maxN);
    this.offDiagonal = new Float64Array(maxN);
    this.space = space;
  }

  /** Bytes of workspace held (the factored tree and the product buffers once allocated). */
  get byteLength(): number {
    return 11 * 8 * this.maxN + this.arrowVectors.byteLength + this.product.byteLength + this.tree.byteLength;
  }

  /**
   * T with diagonal[0..n) and offDiagonal[i] = T[i][i−1] for i = 1..n−1 (offDiagonal[0] is not read):
   * values[0..n) in descending order, `vectors` row-major n×n (ld = n), column j the eigenvector of values[j].
   */
  decompose(n: number, diagonal: Float64Array, offDiagonal: Float64Array, values: Float64Array, vectors: Float64Array): void {
    this.begin(n, diagonal, offDiagonal, values);
    if (vectors.length < n * n) throw new Error(`TridiagonalEigen: output arrays too short for order ${n}`);
    if (n === 0) return;
    if (this.product.length < this.maxN * this.maxN) {
      const size = this.maxN * this.maxN;
      this.arrowVectors = this.space?.float64(size) ?? new Float64Array(size);
      this.product = this.space?.float64(size) ?? new Float64Array(size);
    }
    this.factored = false;
    this.blocks = vectors;
    this.solve(0, n);
    for (let i = 0; i < n; i++) values[i] = this.blockValues[i] * this.scale;
  }

  /**
   * Like `decompose`, but the eigenvector matrix Z stays factored; multiply by it with `apply` and
   * `applyTransposed` (valid until the next decomposition).
   */
  decomposeFactored(n: number, diagonal: Float64Array, offDiagonal: Float64Array, values: Float64Array): void {
    this.begin(n, diagonal, offDiagonal, values);
    if (n === 0) return;
    const needed = treeSize(this.maxN);
    if (this.tree.length < needed) this.tree = new Float64Array(needed);
    this.factored = true;
    this.treeUsed = 0;
    this.solve(0, n);
    for (let i = 0; i < n; i++) values[i] = this.blockValues[i] * this.scale;
  }

  /** x[0..n) ← Zᵀx for the last `decomposeFactored` (coordinates in the order of its eigenvalues). */
  applyTransposed(x: Float64Array): void {
    if (!this.factored) throw new Error('TridiagonalEigen: applyTransposed needs decomposeFactored first');
    this.transposedOn(0, this.order, x);
  }

  /** x[0..n) ← Z x for the last `decomposeFactored`. */
  apply(x: Float64Array): void {
    if (!this.factored) throw new Error('TridiagonalEigen: apply needs decomposeFactored first');
    this.applyOn(0, this.order, x);
  }

  private begin(n: number, diagonal: Float64Array, offDiagonal: Float64Array, values: Float64Array): void {
    if (!Number.isInteger(n) || n < 0 || n > this.maxN) throw new Error(`TridiagonalEigen: order must be an integer in 0..${this.maxN}, got ${n}`);
    if (values.length < n) throw new Error(`TridiagonalEigen: output arrays too short for order ${n}`);
    this.order = n;
    // Merges square T's entries (the arrowhead's ‖z‖²): entries near the ends of the double range
    // would overflow or underflow there, so T is solved as T/σ and the eigenvalues scaled back.
    let largest = 0;
    for (let i = 0; i < n; i++) largest = Math.max(largest, Math.abs(diagonal[i]), i > 0 ? Math.abs(offDiagonal[i]) : 0);
    // 2^±1022 at most, so that both σ and 1/σ are normal numbers.
    this.scale = largest > 0 && Number.isFinite(largest) ? 2 ** Math.min(1022, Math.max(-1022, Math.round(Math.log2(largest)))) : 1;
    const inverse = 1 / this.scale;
    for (let i = 0; i < n; i++) {
      this.diagonal[i] = diagonal[i] * inverse;
      this.offDiagonal[i] = i > 0 ? offDiagonal[i] * inverse : 0;
    }
  }

  /** Solves the block [lo, hi): eigenvalues into blockValues[lo..hi) (descending), eigenvectors as the mode keeps them. */
  private solve(lo: number, hi: number): void {
    if (hi - lo === 1) {
      this.blockValues[lo] = this.diagonal[lo];
      this.firstRow[lo] = 1;
      this.lastRow[lo] = 1;
      if (!this.factored) this.blocks[lo * this.order + lo] = 1;
      return;
    }
    const k = lo + ((hi - lo) >> 1);
    if (k > lo) this.solve(lo, k);
    if (hi > k + 1) this.solve(k + 1, hi);

    const left = k - lo;
    const right = hi - k - 1;
    const m = hi - lo;
    const arrowDiagonal = this.arrowDiagonal;
    const arrowBorder = this.arrowBorder;
    const b = left > 0 ? this.offDiagonal[k] : 0;
    const c = right > 0 ? this.offDiagonal[k + 1] : 0;
    for (let j = 0; j < left; j++) {
      arrowDiagonal[j] = this.blockValues[lo + j];
      arrowBorder[j] = b * this.lastRow[lo + j];
    }
    for (let j = 0; j < right; j++) {
      arrowDiagonal[left + j] = this.blockValues[k + 1 + j];
      arrowBorder[left + j] = c * this.firstRow[k + 1 + j];
    }
    arrowDiagonal[m - 1] = this.diagonal[k];
    let u: Float64Array;
    let uOff: number;
    if (this.factored) {
      u = this.tree;
      uOff = this.treeUsed;
      this.treeOffset[k] = uOff;
      this.treeUsed += m * m + m;
      this.arrowhead.decompose(m - 1, arrowDiagonal, 0, arrowBorder, 0, this.arrowValues, u, uOff, u, uOff + m * m);
    } else {
      u = this.arrowVectors;
      uOff = 0;
      this.arrowhead.decompose(m - 1, arrowDiagonal, 0, arrowBorder, 0, this.arrowValues, u, uOff);
    }
    for (let j = 0; j < m; j++) this.blockValues[lo + j] = this.arrowValues[j];

    // The block's first row is (Q_L's first row, 0, 0)·U, its last (0, 0, Q_R's last row)·U; with an
    // empty side that row is the corner's, U's last row.
    const first = this.scratchA;
    const last = this.scratchB;
    rowTimes(left > 0 ? left : 0, this.firstRow, lo, u, uOff, m, left > 0 ? 0 : m - 1, first);
    rowTimes(right > 0 ? right : 0, this.lastRow, k + 1, u, uOff, m, right > 0 ? left : m - 1, last);
    if (this.factored) {
      for (let j = 0; j < m; j++) {
        first[j] *= u[uOff + m * m + j];
        last[j] *= u[uOff + m * m + j];
      }
    }
    for (let j = 0; j < m; j++) {
      this.firstRow[lo + j] = first[j];
      this.lastRow[lo + j] = last[j];
    }
    if (!this.factored) this.multiplyOut(lo, k, hi, u);
  }

  /** `decompose`: rows lo..k−1 ← Q_L·U[0..left), row k ← U's corner row, rows k+1..hi−1 ← Q_R·U[left..m−1). */
  private multiplyOut(lo: number, k: number, hi: number, u: Float64Array): void {
    const ld = this.order;
    const blocks = this.blocks;
    const product = this.product;
    const left = k - lo;
    const right = hi - k - 1;
    const m = hi - lo;
    if (left > 0) {
      gemmNN(left, m, left, blocks, lo * ld + lo, ld, u, 0, m, product, 0, m);
      for (let i = 0; i < left; i++) copyRow(m, product, i * m, blocks, (lo + i) * ld + lo);
    }
    copyRow(m, u, (m - 1) * m, blocks, k * ld + lo);
    if (right > 0) {
      gemmNN(right, m, right, blocks, (k + 1) * ld + k + 1, ld, u, left * m, m, product, 0, m);
      for (let i = 0; i < right; i++) copyRow(m, product, i * m, blocks, (k + 1 + i) * ld + lo);
    }
  }

  /** x[lo..hi) ← Q_blockᵀ x[lo..hi): the children first, then Uᵀ on (left coordinates, right coordinates, x_k). */
  private transposedOn(lo: number, hi: number, x: Float64Array): void {
    if (hi - lo === 1) return;
    const k = lo + ((hi - lo) >> 1);
    if (k > lo) this.transposedOn(lo, k, x);
    if (hi > k + 1) this.transposedOn(k + 1, hi, x);
    const m = hi - lo;
    const left = k - lo;
    const a = this.scratchA;
    for (let j = 0; j < left; j++) a[j] = x[lo + j];
    for (let j = left; j < m - 1; j++) a[j] = x[lo + j + 1];
    a[m - 1] = x[k];
    // x[lo + j] = s_j Σ_i U[i][j] a[i], accumulated row by row of U.
    const u = this.tree;
    const base = this.treeOffset[k];
    for (let j = 0; j < m; j++) x[lo + j] = 0;
    for (let i = 0; i < m; i++) {
      const ai = a[i];
      if (ai === 0) continue;
      const row = base + i * m;
      for (let j = 0; j < m; j++) x[lo + j] += u[row + j] * ai;
    }
    for (let j = 0; j < m; j++) x[lo + j] *= u[base + m * m + j];
  }

  /** x[lo..hi) ← Q_block x[lo..hi): U first, scattered to (left, corner k, right), then the children. */
  private applyOn(lo: number, hi: number, x: Float64Array): void {
    if (hi - lo === 1) return;
    const k = lo + ((hi - lo) >> 1);
    const m = hi - lo;
    const left = k - lo;
    const u = this.tree;
    const base = this.treeOffset[k];
    const b = this.scratchB;
    // U·diag(s)·x: the column scales on x first.
    for (let j = 0; j < m; j++) x[lo + j] *= u[base + m * m + j];
    for (let i = 0; i < m; i++) {
      let s = 0;
      const row = base + i * m;
      for (let j = 0; j < m; j++) s += u[row + j] * x[lo + j];
      b[i] = s;
    }
    for (let j = 0; j < left; j++) x[lo + j] = b[j];
    x[k] = b[m - 1];
    for (let j = left; j < m - 1; j++) x[lo + j + 1] = b[j];
    if (k > lo) this.applyOn(lo, k, x);
    if (hi > k + 1) this.applyOn(k + 1, hi, x);
  }
}

/** out[0..m) = Σ_{i<count} row[rowOff + i]·U[uRow + i][:] (count = 0: U's row uRow itself). */
function rowTimes(count: number, row: Float64Array, rowOff: number, u: Float64Array, uOff: number, m: number, uRow: number, out: Float64Array): void {
  if (count === 0) {
    copyRow(m, u, uOff + uRow * m, out, 0);
    return;
  }
  for (let j = 0; j < m; j++) out[j] = 0;
  for (let i = 0; i < count; i++) {
    const r = row[rowOff + i];
    if (r === 0) continue;
    const base = uOff + (uRow + i) * m;
    for (let j = 0; j < m; j++) out[j] += r * u[base + j];
  }
}

/** Numbers the factored tree of order n holds: Σ (m² + m) over its merges. */
function treeSize(n: number): number {
  if (n <= 1) return 0;
  const k = n >> 1;
  return n * n + n + treeSize(k) + treeSize(n - k - 1);
}

/** to[toOff..+n) = from[fromOff..+n) (no subarray views: nothing allocated). */
function copyRow(n: number, from: Float64Array, fromOff: number, to: Float64Array, toOff: number): void {
  for (let j = 0; j < n; j++) to[toOff + j] = from[fromOff + j];
}
