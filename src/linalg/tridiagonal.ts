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
 * give T's as blkdiag(Q_L, 1, Q_R)·U: two matrix products, the only O(m³) work of a merge. In total
 * about (4/3)n³ flops in gemm, against ≈ 3n³ per QL sweep count for the implicit QL iteration.
 */
import { ArrowheadEigen } from './arrowhead.js';
import { gemmNN } from './blas.js';

export class TridiagonalEigen {
  readonly maxN: number;
  private readonly arrowhead: ArrowheadEigen;
  /** Eigenvectors of the solved blocks (the caller's output): block [lo, hi) holds its own at rows and columns lo..hi−1. */
  private blocks: Float64Array = new Float64Array(0);
  /** The merge's arrowhead (diagonal with the corner last, border), its eigenvalues and eigenvectors (ld = its order). */
  private readonly arrowDiagonal: Float64Array;
  private readonly arrowBorder: Float64Array;
  private readonly arrowValues: Float64Array;
  private readonly arrowVectors: Float64Array;
  /** A product Q_L·U or Q_R·U before it is copied into `blocks`. */
  private readonly product: Float64Array;
  /** Eigenvalues of the solved blocks, at their indices (descending within a block). */
  private readonly blockValues: Float64Array;
  private diagonal: Float64Array = new Float64Array(0);
  private offDiagonal: Float64Array = new Float64Array(0);
  private ld = 0;

  constructor(maxN: number) {
    if (!Number.isInteger(maxN) || maxN < 0) throw new Error(`TridiagonalEigen: maxN must be a non-negative integer, got ${maxN}`);
    this.maxN = maxN;
    this.arrowhead = new ArrowheadEigen(maxN);
    this.arrowDiagonal = new Float64Array(maxN);
    this.arrowBorder = new Float64Array(maxN);
    this.arrowValues = new Float64Array(maxN);
    this.arrowVectors = new Float64Array(maxN * maxN);
    this.product = new Float64Array(maxN * maxN);
    this.blockValues = new Float64Array(maxN);
  }

  /** Bytes of workspace held. */
  get byteLength(): number {
    return 4 * this.arrowDiagonal.byteLength + this.arrowVectors.byteLength + this.product.byteLength + 16 * 8 * this.maxN;
  }

  /**
   * T with diagonal[0..n) and offDiagonal[i] = T[i][i−1] for i = 1..n−1 (offDiagonal[0] is not read):
   * values[0..n) in descending order, `vectors` row-major n×n (ld = n), column j the eigenvector of values[j].
   */
  decompose(n: number, diagonal: Float64Array, offDiagonal: Float64Array, values: Float64Array, vectors: Float64Array): void {
    if (!Number.isInteger(n) || n < 0 || n > this.maxN) throw new Error(`TridiagonalEigen: order must be an integer in 0..${this.maxN}, got ${n}`);
    if (n === 0) return;
    if (values.length < n || vectors.length < n * n) throw new Error(`TridiagonalEigen: output arrays too short for order ${n}`);
    this.diagonal = diagonal;
    this.offDiagonal = offDiagonal;
    this.blocks = vectors;
    this.ld = n;
    this.solve(0, n);
    for (let i = 0; i < n; i++) values[i] = this.blockValues[i];
  }

  /** Solves the block [lo, hi): its eigenvalues into blockValues[lo..hi) (descending), vectors into `blocks`. */
  private solve(lo: number, hi: number): void {
    const ld = this.ld;
    const blocks = this.blocks;
    if (hi - lo === 1) {
      this.blockValues[lo] = this.diagonal[lo];
      blocks[lo * ld + lo] = 1;
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
      arrowBorder[j] = b * blocks[(k - 1) * ld + lo + j];
    }
    for (let j = 0; j < right; j++) {
      arrowDiagonal[left + j] = this.blockValues[k + 1 + j];
      arrowBorder[left + j] = c * blocks[(k + 1) * ld + k + 1 + j];
    }
    arrowDiagonal[m - 1] = this.diagonal[k];
    const u = this.arrowVectors;
    this.arrowhead.decompose(m - 1, arrowDiagonal, 0, arrowBorder, 0, this.arrowValues, u);

    // Rows lo..k−1: Q_L·U[0..left); row k: U's corner row; rows k+1..hi−1: Q_R·U[left..m−1).
    const product = this.product;
    if (left > 0) {
      gemmNN(left, m, left, blocks, lo * ld + lo, ld, u, 0, m, product, 0, m);
      for (let i = 0; i < left; i++) copyRow(m, product, i * m, blocks, (lo + i) * ld + lo);
    }
    copyRow(m, u, (m - 1) * m, blocks, k * ld + lo);
    if (right > 0) {
      gemmNN(right, m, right, blocks, (k + 1) * ld + k + 1, ld, u, left * m, m, product, 0, m);
      for (let i = 0; i < right; i++) copyRow(m, product, i * m, blocks, (k + 1 + i) * ld + lo);
    }
    for (let j = 0; j < m; j++) this.blockValues[lo + j] = this.arrowValues[j];
  }
}

/** to[toOff..+n) = from[fromOff..+n) (no subarray views: nothing allocated). */
function copyRow(n: number, from: Float64Array, fromOff: number, to: Float64Array, toOff: number): void {
  for (let j = 0; j < n; j++) to[toOff + j] = from[fromOff + j];
}
