/**
 * Cholesky factorisation A = LLᵀ of symmetric positive definite matrices (row-major, lower triangle),
 * solves with the factor, and the SPD inverse. Above BLOCKED_ORDER the factorisation and the inverse are
 * LAPACK's blocked algorithms (dpotrf; dpotri = dtrtri + dlauum) with their bulk in `gemmNT`, which runs
 * as WebAssembly SIMD when its output lies in a Workspace; below it, the unblocked loops.
 */

import { axpy, dot, gemmNT, gemmNTUpdate, mirrorLower } from './blas.js';
import { homeOf, type Home } from './simd.js';

/** Panel width of the blocked algorithms (dpotrf's NB). */
export const NB = 32;
/** Orders above which the blocked algorithms run (at or below, one panel: the unblocked loops). */
const BLOCKED_ORDER = NB;
/** Width at which the panel's triangular solve (NB halved, both powers of two) is plain substitution, written out. */
const TRSM_BASE = 4;

/**
 * In place: the lower triangle of A (n×n at a[aOff], stride lda) becomes L with A = LLᵀ (upper triangle
 * untouched). Returns false, with `a` partially overwritten, if a pivot is ≤ 0 or non-finite. Above
 * BLOCKED_ORDER it keeps n·NB doubles of scratch beside `a` (in its workspace), allocated once.
 */
export function cholesky(n: number, a: Float64Array, aOff: number, lda: number): boolean {
  if (n <= BLOCKED_ORDER) return choleskyUnblocked(n, a, aOff, lda);
  return choleskyBlocked(n, a, aOff, lda, scratchFor(a, n * NB), 0, NB);
}

/** dpotf2, row-oriented Cholesky–Crout: L[i][j] = (A[i][j] − ⟨L[i][0..j), L[j][0..j)⟩) / L[j][j]. */
function choleskyUnblocked(n: number, a: Float64Array, aOff: number, lda: number): boolean {
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

/**
 * dpotrf (lower, left-looking by panels of NB columns): the panel A[j0.., J] −= L[j0.., 0..j0)·L[J, 0..j0)ᵀ
 * (dsyrk and dgemm in one gemmNT, through the scratch T), then dpotf2 on the diagonal block and the
 * triangular solve L21 = A21·L11⁻ᵀ (dtrsm). T (t[tOff], stride ldt ≥ NB) holds n × NB doubles.
 */
function choleskyBlocked(
  n: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  t: Float64Array,
  tOff: number,
  ldt: number,
): boolean {
  for (let j0 = 0; j0 < n; j0 += NB) {
    const jb = Math.min(NB, n - j0);
    const rows = n - j0;
    const d = aOff + j0 * lda + j0;
    if (j0 > 0) {
      const panel = aOff + j0 * lda;
      gemmNT(rows, jb, j0, a, panel, lda, a, panel, lda, t, tOff, ldt);
      // The diagonal block's lower triangle only, then the rows below it whole.
      for (let r = 0; r < jb; r++) subtract(1, r + 1, t, tOff + r * ldt, ldt, a, d + r * lda, lda);
      subtract(rows - jb, jb, t, tOff + jb * ldt, ldt, a, d + jb * lda, lda);
    }
    if (!choleskyUnblocked(jb, a, d, lda)) return false;
    if (rows > jb) solveRightLowerTransposed(rows - jb, jb, a, d, lda, a, d + jb * lda, lda, t, tOff, ldt);
  }
  return true;
}

/**
 * dtrsm (right, lower, transposed): X (m×w at x[xOff], stride ldx) ← X·L⁻ᵀ, L the w×w lower triangle at
 * l[lOff], w = NB (a panel with rows below it) or a half of it, down to TRSM_BASE. Recursive halving:
 * X₁ ← X₁L₁₁⁻ᵀ; X₂ −= X₁L₂₁ᵀ (gemmNTUpdate with −L₂₁ in T); X₂ ← X₂L₂₂⁻ᵀ.
 */
function solveRightLowerTransposed(
  m: number,
  w: number,
  l: Float64Array,
  lOff: number,
  ldl: number,
  x: Float64Array,
  xOff: number,
  ldx: number,
  t: Float64Array,
  tOff: number,
  ldt: number,
): void {
  if (w === TRSM_BASE) {
    // Row by row: x[c] = (x[c] − Σ_{p<c} x[p]·L[c][p]) / L[c][c], for four columns with L in registers.
    const l00 = l[lOff];
    const l10 = l[lOff + ldl];
    const l11 = l[lOff + ldl + 1];
    const l20 = l[lOff + 2 * ldl];
    const l21 = l[lOff + 2 * ldl + 1];
    const l22 = l[lOff + 2 * ldl + 2];
    const l30 = l[lOff + 3 * ldl];
    const l31 = l[lOff + 3 * ldl + 1];
    const l32 = l[lOff + 3 * ldl + 2];
    const l33 = l[lOff + 3 * ldl + 3];
    for (let i = 0; i < m; i++) {
      const rx = xOff + i * ldx;
      const x0 = x[rx] / l00;
      const x1 = (x[rx + 1] - x0 * l10) / l11;
      const x2 = (x[rx + 2] - x0 * l20 - x1 * l21) / l22;
      x[rx] = x0;
      x[rx + 1] = x1;
      x[rx + 2] = x2;
      x[rx + 3] = (x[rx + 3] - x0 * l30 - x1 * l31 - x2 * l32) / l33;
    }
    return;
  }
  const h = w / 2;
  solveRightLowerTransposed(m, h, l, lOff, ldl, x, xOff, ldx, t, tOff, ldt);
  // X₂ + X₁(−L₂₁)ᵀ: each element's sum negated exactly, so X₂ − X₁L₂₁ᵀ to the bit, in one gemmNTUpdate.
  for (let j = 0; j < h; j++) {
    const rl = lOff + (h + j) * ldl;
    for (let p = 0; p < h; p++) t[tOff + j * ldt + p] = -l[rl + p];
  }
  gemmNTUpdate(m, h, h, x, xOff, ldx, t, tOff, ldt, x, xOff + h, ldx);
  solveRightLowerTransposed(m, h, l, lOff + h * ldl + h, ldl, x, xOff + h, ldx, t, tOff, ldt);
}

/** X (rows×cols at x[xOff], stride ldx) −= T (at t[tOff], stride ldt). */
function subtract(rows: number, cols: number, t: Float64Array, tOff: number, ldt: number, x: Float64Array, xOff: number, ldx: number): void {
  for (let i = 0; i < rows; i++) {
    const rx = xOff + i * ldx;
    const rt = tOff + i * ldt;
    for (let c = 0; c < cols; c++) x[rx + c] -= t[rt + c];
  }
}

/** Per workspace memory (and one for ordinary arrays), the scratch of `cholesky`'s blocked path. */
const scratches = new WeakMap<Home, Float64Array>();
let ordinaryScratch = new Float64Array(0);

/**
 * At least `length` doubles of scratch where `a` lives, so that the kernels writing it run on the same
 * backend without copying `a`. Allocated when first needed and kept (grown when an order is larger).
 */
function scratchFor(a: Float64Array, length: number): Float64Array {
  const home = homeOf(a);
  if (home === undefined) {
    if (ordinaryScratch.length < length) ordinaryScratch = new Float64Array(length);
    return ordinaryScratch;
  }
  let scratch = scratches.get(home);
  if (scratch === undefined || scratch.length < length) {
    scratch = home.allocate(length);
    scratches.set(home, scratch);
  }
  return scratch;
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
 * A⁻¹ = L⁻ᵀL⁻¹ (dpotri). work.length ≥ n·n + n; `a` is read only before out is written. Returns false
 * if A is not positive definite.
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
  // work[0..n²) ← lower triangle of A (ld = n), then L; work[n²..n²+n) is a scratch row.
  for (let i = 0; i < n; i++) {
    const ra = aOff + i * lda;
    const rw = i * n;
    for (let j = 0; j <= i; j++) work[rw + j] = a[ra + j];
  }
  if (n <= BLOCKED_ORDER) {
    if (!choleskyUnblocked(n, work, 0, n)) return false;
    invertLowerUnblocked(n, work, 0, n, n * n);
    lowerGramUnblocked(n, work, out, outOff, ldo);
  } else {
    // `out` is the scratch of the factorisation and of the inversion until it receives the result.
    if (!choleskyBlocked(n, work, 0, n, out, outOff, ldo)) return false;
    invertLowerBlocked(n, work, out, outOff, ldo);
    lowerGramBlocked(n, work, out, outOff, ldo);
    return true;
  }
  mirrorLower(0, n, out, outOff, ldo);
  return true;
}

/**
 * dtrti2, row by row: in place, the lower triangle L (n×n at w[off], stride ld) becomes X = L⁻¹, with
 * X[i][0..i) = −(1/L[i][i]) Σ_{k<i} L[i][k]·X[k][0..k] and X[i][i] = 1/L[i][i]; w[tmp..tmp+n) is scratch.
 */
function invertLowerUnblocked(n: number, w: Float64Array, off: number, ld: number, tmp: number): void {
  for (let i = 0; i < n; i++) {
    const ri = off + i * ld;
    w.fill(0, tmp, tmp + i);
    for (let k = 0; k < i; k++) {
      const lik = w[ri + k];
      if (lik === 0) continue;
      const rk = off + k * ld;
      for (let j = 0; j <= k; j++) w[tmp + j] += lik * w[rk + j];
    }
    const inv = 1 / w[ri + i];
    for (let j = 0; j < i; j++) w[ri + j] = -inv * w[tmp + j];
    w[ri + i] = inv;
  }
}

/**
 * dtrtri (lower, blocked, panels from the last): X = L⁻¹ in place in w (n×n, ld n), with the diagonal
 * blocks by dtrti2 (zeroed above their diagonal) and X21 = −X22·L21·X11 as X22·Qᵀ, Q = (−X11ᵀ)·L21ᵀ, both
 * by gemmNT. The scratch s (s[sOff], stride lds ≥ n) holds NB × n doubles.
 */
function invertLowerBlocked(n: number, w: Float64Array, s: Float64Array, sOff: number, lds: number): void {
  for (let j0 = Math.floor((n - 1) / NB) * NB; j0 >= 0; j0 -= NB) {
    const jb = Math.min(NB, n - j0);
    const m = n - j0 - jb;
    const d = j0 * n + j0;
    invertLowerUnblocked(jb, w, d, n, n * n);
    for (let i = 0; i < jb; i++) w.fill(0, d + i * n + i + 1, d + i * n + jb);
    if (m === 0) continue;
    const p = sOff + m; // −X11ᵀ, jb×jb, beside Q
    for (let r = 0; r < jb; r++) for (let c = 0; c < jb; c++) s[p + r * lds + c] = -w[d + c * n + r];
    gemmNT(jb, m, jb, s, p, lds, w, d + jb * n, n, s, sOff, lds);
    // Rows of X22 by panels, each up to the end of its diagonal block (zero beyond).
    for (let k0 = j0 + jb; k0 < n; k0 += NB) {
      const kb = Math.min(NB, n - k0);
      gemmNT(kb, jb, k0 + kb - j0 - jb, w, k0 * n + j0 + jb, n, s, sOff, lds, w, k0 * n + j0, n);
    }
  }
}

/** dlauu2: the lower triangle of out = XᵀX for X lower triangular in w (n×n, ld n), by rank-1 updates with its rows. */
function lowerGramUnblocked(n: number, w: Float64Array, out: Float64Array, outOff: number, ldo: number): void {
  for (let i = 0; i < n; i++) out.fill(0, outOff + i * ldo, outOff + i * ldo + i + 1);
  for (let k = 0; k < n; k++) {
    const rk = k * n;
    for (let i = 0; i <= k; i++) {
      const xki = w[rk + i];
      if (xki === 0) continue;
      const ro = outOff + i * ldo;
      for (let j = 0; j <= i; j++) out[ro + j] += xki * w[rk + j];
    }
  }
}

/**
 * dlauum: out = XᵀX = UUᵀ (both triangles), U = Xᵀ moved into the upper triangle of w (zeros below, where read),
 * block row I by one gemmNT: out[I, 0..i0+ib) = U[I, i0..n)·U[0..i0+ib, i0..n)ᵀ (the diagonal block
 * whole), then mirrored into column block I while it is in cache.
 */
function lowerGramBlocked(n: number, w: Float64Array, out: Float64Array, outOff: number, ldo: number): void {
  mirrorLower(0, n, w, 0, n);
  for (let i0 = 0; i0 < n; i0 += NB) {
    const ib = Math.min(NB, n - i0);
    // The products read U[·, i0..n) of rows up to i0+ib: below the diagonal only the diagonal block's.
    for (let i = i0 + 1; i < i0 + ib; i++) w.fill(0, i * n + i0, i * n + i);
    gemmNT(ib, i0 + ib, n - i0, w, i0 * n + i0, n, w, i0, n, out, outOff + i0 * ldo, ldo);
    mirrorLower(i0, i0 + ib, out, outOff, ldo);
  }
}
