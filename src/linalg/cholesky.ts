/**
 * Cholesky factorisation A = LLᵀ of symmetric positive definite matrices (row-major, lower triangle),
 * solves with the factor, and the SPD inverse. Inner loops run along rows (contiguous memory).
 */

import { axpy, dot } from './blas.js';

/**
 * In place: the lower triangle of A (n×n at a[aOff], stride lda) becomes L with A = LLᵀ (upper triangle
 * untouched). Returns false, with `a` partially overwritten, if a pivot is ≤ 0 or non-finite.
 */
export function cholesky(n: number, a: Float64Array, aOff: number, lda: number): boolean {
  // Row-oriented Cholesky–Crout: L[i][j] = (A[i][j] − ⟨L[i][0..j), L[j][0..j)⟩) / L[j][j].
  for (let i = 0; i < n; i++) {
    const ri = aOff + i * lda;
    for (let j = 0; j < i; j++) {
      const rj = aOff + j * lda;
      a[ri + j] = (a[ri + j] - dot(j, a, ri, a, rj)) / a[rj + j];
    }
    const pivot = a[ri + i] - dot(i, a, ri, a, ri);
    if (!(pivot > 0 && pivot < Infinity)) return false;
    a[ri + i] = Math.sqrt(pivot);
  }
  return true;
}

/** Solves LLᵀ z = b in place in b[bOff..+n), L the lower-triangular factor from `cholesky`. */
export function choleskySolve(
  n: number,
  l: Float64Array,
  lOff: number,
  ldl: number,
  b: Float64Array,
  bOff: number,
): void {
  // Forward: L y = b, row by row.
  for (let i = 0; i < n; i++) {
    const ri = lOff + i * ldl;
    b[bOff + i] = (b[bOff + i] - dot(i, l, ri, b, bOff)) / l[ri + i];
  }
  solveLowerTransposed(n, l, lOff, ldl, b, bOff);
}

/** Solves Lᵀ z = b in place in b[bOff..+n) (back substitution), L lower triangular as from `cholesky`. */
export function solveLowerTransposed(
  n: number,
  l: Float64Array,
  lOff: number,
  ldl: number,
  b: Float64Array,
  bOff: number,
): void {
  // Column-oriented so that row i of L is read contiguously: b[0..i) −= z_i·L[i, 0..i).
  for (let i = n - 1; i >= 0; i--) {
    const ri = lOff + i * ldl;
    const zi = b[bOff + i] / l[ri + i];
    b[bOff + i] = zi;
    axpy(i, -zi, l, ri, b, bOff);
  }
}

/**
 * In place: L (lower, from `cholesky`) becomes the factor of LLᵀ + vvᵀ, by Givens-like rotations
 * (Golub and Van Loan, §6.5.4). O(n²); `v` (length n at vOff) is overwritten. Stable: it never
 * subtracts, so the factor stays that of a positive definite matrix.
 */
export function choleskyRankOneUpdate(
  n: number,
  l: Float64Array,
  lOff: number,
  ldl: number,
  v: Float64Array,
  vOff: number,
): void {
  for (let k = 0; k < n; k++) {
    const vk = v[vOff + k];
    if (vk === 0) continue;
    const dk = lOff + k * ldl + k;
    const lkk = l[dk];
    const r = Math.hypot(lkk, vk);
    const c = r / lkk;
    const s = vk / lkk;
    l[dk] = r;
    for (let i = k + 1; i < n; i++) {
      const li = lOff + i * ldl + k;
      const updated = (l[li] + s * v[vOff + i]) / c;
      l[li] = updated;
      v[vOff + i] = c * v[vOff + i] - s * updated;
    }
  }
}

/**
 * out = A⁻¹ for SPD A (n×n, `a` not modified; both triangles of out written, exactly symmetric), via
 * A⁻¹ = L⁻ᵀL⁻¹. work.length ≥ n·n + n. Returns false if A is not positive definite.
 */
export function spdInverse(
  n: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  out: Float64Array,
  outOff: number,
  ldo: number,
  work: Float64Array,
): boolean {
  if (work.length < n * n + n) {
    throw new Error(`spdInverse: work has length ${work.length}, needs n·n + n = ${n * n + n}`);
  }
  // work[0..n²) ← lower triangle of A (ld = n), then L.
  for (let i = 0; i < n; i++) {
    const ra = aOff + i * lda;
    const rw = i * n;
    for (let j = 0; j <= i; j++) work[rw + j] = a[ra + j];
  }
  if (!cholesky(n, work, 0, n)) return false;

  // In place, L ← X = L⁻¹ (lower triangular), row by row:
  // X[i][0..i) = −(1/L[i][i]) Σ_{k<i} L[i][k]·X[k][0..k], X[i][i] = 1/L[i][i].
  const t = n * n; // offset of the length-n scratch row
  for (let i = 0; i < n; i++) {
    const ri = i * n;
    work.fill(0, t, t + i);
    for (let k = 0; k < i; k++) {
      const lik = work[ri + k];
      if (lik === 0) continue;
      const rk = k * n;
      for (let j = 0; j <= k; j++) work[t + j] += lik * work[rk + j];
    }
    const inv = 1 / work[ri + i];
    for (let j = 0; j < i; j++) work[ri + j] = -inv * work[t + j];
    work[ri + i] = inv;
  }

  // A⁻¹ = XᵀX: rank-1 updates with the rows of X into the lower triangle of out, then mirror.
  for (let i = 0; i < n; i++) out.fill(0, outOff + i * ldo, outOff + i * ldo + i + 1);
  for (let k = 0; k < n; k++) {
    const rk = k * n;
    for (let i = 0; i <= k; i++) {
      const xki = work[rk + i];
      if (xki === 0) continue;
      const ro = outOff + i * ldo;
      for (let j = 0; j <= i; j++) out[ro + j] += xki * work[rk + j];
    }
  }
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < i; j++) out[outOff + j * ldo + i] = out[outOff + i * ldo + j];
  }
  return true;
}
