/**
 * Dense BLAS-style kernels on row-major Float64Array storage with explicit offsets and leading
 * dimensions (ld = distance between consecutive rows). Nothing here allocates; nothing validates its
 * arguments (callers are internal and the loops are hot). Every inner loop runs over contiguous memory.
 *
 * A call whose output lives in a `Workspace` memory runs the WebAssembly SIMD twin of the kernel
 * (simd.ts), which gives the same bits; the TypeScript below is the other backend and the reference.
 */
import { extent, inputHome, kernelHome } from './simd.js';

/**
 * Columns of k processed per pass in gemmNT: one pass keeps a panel of B rows (n × KC doubles) warm in
 * L2 while every pair of A rows streams past it. For k ≤ KC there is exactly one pass.
 */
const GEMM_NT_KC = 1024;

/**
 * Terms per sub-panel of the WebAssembly gemmNT (partial sums kept exactly in scratch between them): the
 * packed 4-row slices of A and B (8 KiB each) stay in L1 where 1024 terms' did not.
 */
const GEMM_NT_PACK_KC = 256;

/**
 * Rows of C per call of the WebAssembly gemmNT, a multiple of four (the TypeScript's row tiles): bounds
 * the scratch of partial sums (GEMM_NT_MC × the packed block's columns).
 */
const GEMM_NT_MC = 256;

/**
 * Columns of C per call of the WebAssembly gemmNNUpdate: a k×1024 panel of B (400 kB at k = 50) stays
 * in L2 while every row of C sweeps it, where whole rows of a wide B came from memory each time
 * (50×51,200×50: 40 → 30 ms here; 512 and 2048 measured the same within noise, 256 slower).
 */
const GEMM_NN_JC = 1024;

/**
 * Rows of B (terms of each sum) per call of the WebAssembly gemmNNUpdate, a multiple of four (the blocks
 * of terms), packed by blocks of 128 columns (256 KiB). 256 against 128: 32×1600×1600 (the
 * back-transformation's Vᵀ·Z) 11.8 → 13.1 GFLOP/s, 32×785×785 13.0 → 14.2, square shapes the same; 512
 * slower at 32×1600×1600 (9.9).
 */
const GEMM_NN_KC = 256;

/**
 * Doubles of a packed B block in the WebAssembly gemm kernels: `nc` columns × the sum's length, 256 KiB,
 * so that the block stays in L2 while every row tile of A sweeps it.
 */
const GEMM_PACK_DOUBLES = 32768;

/** At least the micro-tile's rows and columns (scripts/simd-kernels.mjs GEMM_MR, 2·GEMM_NV): padding of the packed panels. */
const GEMM_TILE_MAX = 8;

/** Columns of B per packed block for a sum of `len` terms over n columns: a multiple of GEMM_TILE_MAX. */
function packColumns(n: number, len: number): number {
  const fit = Math.floor(GEMM_PACK_DOUBLES / Math.max(len, 1) / GEMM_TILE_MAX) * GEMM_TILE_MAX;
  return Math.max(GEMM_TILE_MAX, Math.min(fit, Math.ceil(n / GEMM_TILE_MAX) * GEMM_TILE_MAX));
}

/** Doubles of scratch the packed kernels need for blocks of nc columns and sums of `len` terms. */
function packScratch(nc: number, len: number): number {
  return (nc + 2 * GEMM_TILE_MAX) * len + GEMM_TILE_MAX * GEMM_TILE_MAX;
}

/** Rows and columns of the tiles of `mirrorLower` (32×32 doubles: 8 KiB read, 32 rows' lines written). */
const MIRROR_TILE = 32;

/**
 * A[0..i, i] ← A[i, 0..i) for rows i0 ≤ i < i1 of A (at a[off], stride ld): the strict lower triangle's
 * rows mirrored into the upper, by MIRROR_TILE × MIRROR_TILE tiles (at n = 785 and 1600, 0.52 and 3.5 ms
 * against 0.68 and 3.7 row by row).
 */
export function mirrorLower(i0: number, i1: number, a: Float64Array, off: number, ld: number): void {
  for (let t0 = i0; t0 < i1; t0 += MIRROR_TILE) {
    const t1 = Math.min(i1, t0 + MIRROR_TILE);
    for (let j0 = 0; j0 < t1 - 1; j0 += MIRROR_TILE) {
      for (let i = Math.max(t0, j0 + 1); i < t1; i++) {
        const ri = off + i * ld;
        const end = Math.min(i, j0 + MIRROR_TILE);
        for (let j = j0; j < end; j++) a[off + j * ld + i] = a[ri + j];
      }
    }
  }
}

/** Σ x[xOff+i]·y[yOff+i] over i < n (4-way unrolled, separate accumulators). */
export function dot(n: number, x: Float64Array, xOff: number, y: Float64Array, yOff: number): number {
  const home = inputHome(x, y, n);
  if (home !== null) return home.kernels.dot(n, home.input(x, xOff, n), home.input(y, yOff, n));
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += x[xOff + i] * y[yOff + i];
    s1 += x[xOff + i + 1] * y[yOff + i + 1];
    s2 += x[xOff + i + 2] * y[yOff + i + 2];
    s3 += x[xOff + i + 3] * y[yOff + i + 3];
  }
  for (; i < n; i++) s0 += x[xOff + i] * y[yOff + i];
  return s0 + s1 + (s2 + s3);
}

/**
 * ‖x‖₂ exactly as `Math.hypot(...x)` computes it (V8: scale by the largest |x_i|, then a compensated
 * sum of squares), for any length: spreading a long array into Math.hypot overflows the call stack.
 */
export function hypot(x: ArrayLike<number>): number {
  let max = 0;
  for (let i = 0; i < x.length; i++) {
    const a = Math.abs(x[i] as number);
    if (a === Infinity) return Infinity;
    if (Number.isNaN(a)) return NaN;
    if (a > max) max = a;
  }
  if (max === 0) return 0;
  let sum = 0;
  let compensation = 0;
  for (let i = 0; i < x.length; i++) {
    const n = Math.abs(x[i] as number) / max;
    const summand = n * n - compensation;
    const preliminary = sum + summand;
    compensation = preliminary - sum - summand;
    sum = preliminary;
  }
  return Math.sqrt(sum) * max;
}

/** y[yOff..+n) += α·x[xOff..+n). */
export function axpy(
  n: number,
  alpha: number,
  x: Float64Array,
  xOff: number,
  y: Float64Array,
  yOff: number,
): void {
  if (alpha === 0) return;
  const home = kernelHome(y, n);
  if (home !== null) {
    home.kernels.axpy(n, alpha, home.input(x, xOff, n), home.address(y, yOff));
    return;
  }
  let i = 0;
  for (; i + 3 < n; i += 4) {
    y[yOff + i] += alpha * x[xOff + i];
    y[yOff + i + 1] += alpha * x[xOff + i + 1];
    y[yOff + i + 2] += alpha * x[xOff + i + 2];
    y[yOff + i + 3] += alpha * x[xOff + i + 3];
  }
  for (; i < n; i++) y[yOff + i] += alpha * x[xOff + i];
}

/** y[yOff..+m) = A·x for A m×n (row-major, leading dimension lda). */
export function gemv(
  m: number,
  n: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  x: Float64Array,
  xOff: number,
  y: Float64Array,
  yOff: number,
): void {
  const home = kernelHome(y, m * n);
  if (home !== null) {
    home.kernels.gemv(m, n, home.input(a, aOff, extent(m, n, lda)), lda, home.input(x, xOff, n), home.address(y, yOff));
    return;
  }
  for (let i = 0; i < m; i++) y[yOff + i] = dot(n, a, aOff + i * lda, x, xOff);
}

/** y[yOff..+n) = Aᵀ·x for A m×n (row-major, leading dimension lda), accumulated row by row. */
export function gemvT(
  m: number,
  n: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  x: Float64Array,
  xOff: number,
  y: Float64Array,
  yOff: number,
): void {
  const home = kernelHome(y, m * n);
  if (home !== null) {
    home.kernels.gemvT(m, n, home.input(a, aOff, extent(m, n, lda)), lda, home.input(x, xOff, m), home.address(y, yOff));
    return;
  }
  y.fill(0, yOff, yOff + n);
  let i = 0;
  // Two rows of A per sweep over y: half the loads and stores of y.
  for (; i + 1 < m; i += 2) {
    const x0 = x[xOff + i];
    const x1 = x[xOff + i + 1];
    const r0 = aOff + i * lda;
    const r1 = r0 + lda;
    for (let j = 0; j < n; j++) y[yOff + j] += x0 * a[r0 + j] + x1 * a[r1 + j];
  }
  if (i < m) {
    const x0 = x[xOff + i];
    const r0 = aOff + i * lda;
    for (let j = 0; j < n; j++) y[yOff + j] += x0 * a[r0 + j];
  }
}

/**
 * C (m×n) = A (m×k) · Bᵀ for B n×k: C[i][j] = ⟨row i of A, row j of B⟩. Register-blocked 4×4
 * (16 accumulators; 2×4 and 1×4 for the last rows), k split into panels of GEMM_NT_KC so the B panel
 * stays in cache.
 */
export function gemmNT(
  m: number,
  n: number,
  k: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
  c: Float64Array,
  cOff: number,
  ldc: number,
): void {
  gemmNTInto(m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, false);
}

/** C (m×n) += A (m×k) · Bᵀ for B n×k: `gemmNT` adding to C, each element's sum formed as there, then added. */
export function gemmNTUpdate(
  m: number,
  n: number,
  k: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
  c: Float64Array,
  cOff: number,
  ldc: number,
): void {
  gemmNTInto(m, n, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, true);
}

/** `gemmNT` (accumulate false) or `gemmNTUpdate` (true): the k panels, as WebAssembly or TypeScript. */
function gemmNTInto(
  m: number,
  n: number,
  k: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
  c: Float64Array,
  cOff: number,
  ldc: number,
  accumulate: boolean,
): void {
  const home = kernelHome(c, m * n * k);
  const kc = Math.min(k, GEMM_NT_KC, GEMM_NT_PACK_KC);
  const nc = packColumns(n, kc);
  // Partial sums between sub-panels (only when there are several): GEMM_NT_MC rows at most × nc ≤ 128.
  const partials = k > kc ? Math.ceil(Math.min(m, GEMM_NT_MC) / GEMM_TILE_MAX) * GEMM_TILE_MAX * (nc + GEMM_TILE_MAX) : 0;
  const work = home?.scratch(packScratch(nc, kc) + partials) ?? null;
  if (home !== null && work !== null) {
    const pa = home.input(a, aOff, extent(m, k, lda));
    const pb = home.input(b, bOff, extent(n, k, ldb));
    const pc = home.address(c, cOff);
    let p0 = 0;
    do {
      // Row blocks of GEMM_NT_MC (a multiple of four): the last holds row m − 1 and m's parity.
      for (let i0 = 0; i0 < m; i0 += GEMM_NT_MC) {
        const len = Math.min(k, p0 + GEMM_NT_KC) - p0;
        home.kernels.gemmNTPanel(Math.min(GEMM_NT_MC, m - i0), n, len, pa + 8 * (i0 * lda + p0), lda, pb + 8 * p0, ldb, pc + 8 * i0 * ldc, ldc, accumulate || p0 > 0 ? 1 : 0, work, nc, kc);
      }
      p0 += GEMM_NT_KC;
    } while (p0 < k);
    return;
  }
  if (k <= GEMM_NT_KC) {
    gemmNTPanel(m, n, 0, k, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate);
    return;
  }
  for (let p0 = 0; p0 < k; p0 += GEMM_NT_KC) {
    const p1 = Math.min(k, p0 + GEMM_NT_KC);
    gemmNTPanel(m, n, p0, p1, a, aOff, lda, b, bOff, ldb, c, cOff, ldc, accumulate || p0 > 0);
  }
}

/** C (=, or += when accumulate) A[:, p0..p1) · B[:, p0..p1)ᵀ: the register-blocked body of gemmNT. */
function gemmNTPanel(
  m: number,
  n: number,
  p0: number,
  p1: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
  c: Float64Array,
  cOff: number,
  ldc: number,
  accumulate: boolean,
): void {
  const len = p1 - p0;
  let i = 0;
  // Four rows of A against four rows of B: 16 accumulators, 8 loads per 16 multiply-adds.
  for (; i + 3 < m; i += 4) {
    const ra0 = aOff + i * lda + p0;
    const ra1 = ra0 + lda;
    const ra2 = ra1 + lda;
    const ra3 = ra2 + lda;
    const rc0 = cOff + i * ldc;
    const rc1 = rc0 + ldc;
    const rc2 = rc1 + ldc;
    const rc3 = rc2 + ldc;
    let j = 0;
    for (; j + 3 < n; j += 4) {
      const rb0 = bOff + j * ldb + p0;
      const rb1 = rb0 + ldb;
      const rb2 = rb1 + ldb;
      const rb3 = rb2 + ldb;
      let s00 = 0;
      let s01 = 0;
      let s02 = 0;
      let s03 = 0;
      let s10 = 0;
      let s11 = 0;
      let s12 = 0;
      let s13 = 0;
      let s20 = 0;
      let s21 = 0;
      let s22 = 0;
      let s23 = 0;
      let s30 = 0;
      let s31 = 0;
      let s32 = 0;
      let s33 = 0;
      for (let p = 0; p < len; p++) {
        const y0 = b[rb0 + p];
        const y1 = b[rb1 + p];
        const y2 = b[rb2 + p];
        const y3 = b[rb3 + p];
        const x0 = a[ra0 + p];
        s00 += x0 * y0;
        s01 += x0 * y1;
        s02 += x0 * y2;
        s03 += x0 * y3;
        const x1 = a[ra1 + p];
        s10 += x1 * y0;
        s11 += x1 * y1;
        s12 += x1 * y2;
        s13 += x1 * y3;
        const x2 = a[ra2 + p];
        s20 += x2 * y0;
        s21 += x2 * y1;
        s22 += x2 * y2;
        s23 += x2 * y3;
        const x3 = a[ra3 + p];
        s30 += x3 * y0;
        s31 += x3 * y1;
        s32 += x3 * y2;
        s33 += x3 * y3;
      }
      if (accumulate) {
        c[rc0 + j] += s00;
        c[rc0 + j + 1] += s01;
        c[rc0 + j + 2] += s02;
        c[rc0 + j + 3] += s03;
        c[rc1 + j] += s10;
        c[rc1 + j + 1] += s11;
        c[rc1 + j + 2] += s12;
        c[rc1 + j + 3] += s13;
        c[rc2 + j] += s20;
        c[rc2 + j + 1] += s21;
        c[rc2 + j + 2] += s22;
        c[rc2 + j + 3] += s23;
        c[rc3 + j] += s30;
        c[rc3 + j + 1] += s31;
        c[rc3 + j + 2] += s32;
        c[rc3 + j + 3] += s33;
      } else {
        c[rc0 + j] = s00;
        c[rc0 + j + 1] = s01;
        c[rc0 + j + 2] = s02;
        c[rc0 + j + 3] = s03;
        c[rc1 + j] = s10;
        c[rc1 + j + 1] = s11;
        c[rc1 + j + 2] = s12;
        c[rc1 + j + 3] = s13;
        c[rc2 + j] = s20;
        c[rc2 + j + 1] = s21;
        c[rc2 + j + 2] = s22;
        c[rc2 + j + 3] = s23;
        c[rc3 + j] = s30;
        c[rc3 + j + 1] = s31;
        c[rc3 + j + 2] = s32;
        c[rc3 + j + 3] = s33;
      }
    }
    for (; j < n; j++) {
      const rb0 = bOff + j * ldb + p0;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let p = 0; p < len; p++) {
        const y0 = b[rb0 + p];
        s0 += a[ra0 + p] * y0;
        s1 += a[ra1 + p] * y0;
        s2 += a[ra2 + p] * y0;
        s3 += a[ra3 + p] * y0;
      }
      if (accumulate) {
        c[rc0 + j] += s0;
        c[rc1 + j] += s1;
        c[rc2 + j] += s2;
        c[rc3 + j] += s3;
      } else {
        c[rc0 + j] = s0;
        c[rc1 + j] = s1;
        c[rc2 + j] = s2;
        c[rc3 + j] = s3;
      }
    }
  }
  // Two rows, then one, for the last m mod 4.
  for (; i + 1 < m; i += 2) {
    const ra0 = aOff + i * lda + p0;
    const ra1 = ra0 + lda;
    const rc0 = cOff + i * ldc;
    const rc1 = rc0 + ldc;
    let j = 0;
    for (; j + 3 < n; j += 4) {
      const rb0 = bOff + j * ldb + p0;
      const rb1 = rb0 + ldb;
      const rb2 = rb1 + ldb;
      const rb3 = rb2 + ldb;
      let s00 = 0;
      let s01 = 0;
      let s02 = 0;
      let s03 = 0;
      let s10 = 0;
      let s11 = 0;
      let s12 = 0;
      let s13 = 0;
      for (let p = 0; p < len; p++) {
        const x0 = a[ra0 + p];
        const x1 = a[ra1 + p];
        const y0 = b[rb0 + p];
        const y1 = b[rb1 + p];
        const y2 = b[rb2 + p];
        const y3 = b[rb3 + p];
        s00 += x0 * y0;
        s01 += x0 * y1;
        s02 += x0 * y2;
        s03 += x0 * y3;
        s10 += x1 * y0;
        s11 += x1 * y1;
        s12 += x1 * y2;
        s13 += x1 * y3;
      }
      if (accumulate) {
        c[rc0 + j] += s00;
        c[rc0 + j + 1] += s01;
        c[rc0 + j + 2] += s02;
        c[rc0 + j + 3] += s03;
        c[rc1 + j] += s10;
        c[rc1 + j + 1] += s11;
        c[rc1 + j + 2] += s12;
        c[rc1 + j + 3] += s13;
      } else {
        c[rc0 + j] = s00;
        c[rc0 + j + 1] = s01;
        c[rc0 + j + 2] = s02;
        c[rc0 + j + 3] = s03;
        c[rc1 + j] = s10;
        c[rc1 + j + 1] = s11;
        c[rc1 + j + 2] = s12;
        c[rc1 + j + 3] = s13;
      }
    }
    for (; j < n; j++) {
      const rb0 = bOff + j * ldb + p0;
      let s0 = 0;
      let s1 = 0;
      for (let p = 0; p < len; p++) {
        const y0 = b[rb0 + p];
        s0 += a[ra0 + p] * y0;
        s1 += a[ra1 + p] * y0;
      }
      if (accumulate) {
        c[rc0 + j] += s0;
        c[rc1 + j] += s1;
      } else {
        c[rc0 + j] = s0;
        c[rc1 + j] = s1;
      }
    }
  }
  if (i < m) {
    const ra0 = aOff + i * lda + p0;
    const rc0 = cOff + i * ldc;
    let j = 0;
    for (; j + 3 < n; j += 4) {
      const rb0 = bOff + j * ldb + p0;
      const rb1 = rb0 + ldb;
      const rb2 = rb1 + ldb;
      const rb3 = rb2 + ldb;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let p = 0; p < len; p++) {
        const x0 = a[ra0 + p];
        s0 += x0 * b[rb0 + p];
        s1 += x0 * b[rb1 + p];
        s2 += x0 * b[rb2 + p];
        s3 += x0 * b[rb3 + p];
      }
      if (accumulate) {
        c[rc0 + j] += s0;
        c[rc0 + j + 1] += s1;
        c[rc0 + j + 2] += s2;
        c[rc0 + j + 3] += s3;
      } else {
        c[rc0 + j] = s0;
        c[rc0 + j + 1] = s1;
        c[rc0 + j + 2] = s2;
        c[rc0 + j + 3] = s3;
      }
    }
    for (; j < n; j++) {
      const s = dot(len, a, ra0, b, bOff + j * ldb + p0);
      if (accumulate) c[rc0 + j] += s;
      else c[rc0 + j] = s;
    }
  }
}

/** C (m×n) = A (m×k) · B (k×n): C is zeroed, then `gemmNNUpdate` with α = 1. */
export function gemmNN(
  m: number,
  n: number,
  k: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
  c: Float64Array,
  cOff: number,
  ldc: number,
): void {
  const home = kernelHome(c, m * n);
  if (home !== null) home.kernels.zero(m, n, home.address(c, cOff), ldc);
  else for (let i = 0; i < m; i++) c.fill(0, cOff + i * ldc, cOff + i * ldc + n);
  gemmNNUpdate(m, n, k, 1, a, aOff, lda, b, bOff, ldb, c, cOff, ldc);
}

/**
 * C (m×n) += α·A (m×k) · B (k×n): each row of C gains Σ_p α·A[i,p]·(row p of B). Register-blocked 4×4:
 * one sweep along j updates four rows of C from four rows of B (16 multiply-adds per 8 loads and 4
 * stores, where one row at a time would need 3 memory operations per multiply-add).
 */
export function gemmNNUpdate(
  m: number,
  n: number,
  k: number,
  alpha: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  b: Float64Array,
  bOff: number,
  ldb: number,
  c: Float64Array,
  cOff: number,
  ldc: number,
): void {
  const home = kernelHome(c, m * n * k);
  const nc = packColumns(Math.min(n, GEMM_NN_JC), Math.min(k, GEMM_NN_KC));
  const work = home?.scratch(packScratch(nc, Math.min(k, GEMM_NN_KC))) ?? null;
  if (home !== null && work !== null) {
    const pa = home.input(a, aOff, extent(m, k, lda));
    const pb = home.input(b, bOff, extent(k, n, ldb));
    const pc = home.address(c, cOff);
    // Panels of GEMM_NN_KC rows × GEMM_NN_JC columns of B, so that B's panel stays in cache while every
    // row of C sweeps it. KC is a multiple of the kernel's 4 terms per step, so every element gets the
    // same sum in the same order as in one call.
    for (let j0 = 0; j0 < n; j0 += GEMM_NN_JC) {
      for (let p0 = 0; p0 < k; p0 += GEMM_NN_KC) {
        home.kernels.gemmNNUpdate(m, Math.min(GEMM_NN_JC, n - j0), Math.min(GEMM_NN_KC, k - p0), alpha, pa + 8 * p0, lda, pb + 8 * (p0 * ldb + j0), ldb, pc + 8 * j0, ldc, work, nc);
      }
    }
    return;
  }
  let i = 0;
  for (; i + 3 < m; i += 4) {
    const ra0 = aOff + i * lda;
    const ra1 = ra0 + lda;
    const ra2 = ra1 + lda;
    const ra3 = ra2 + lda;
    const rc0 = cOff + i * ldc;
    const rc1 = rc0 + ldc;
    const rc2 = rc1 + ldc;
    const rc3 = rc2 + ldc;
    let p = 0;
    for (; p + 3 < k; p += 4) {
      const a00 = alpha * a[ra0 + p];
      const a01 = alpha * a[ra0 + p + 1];
      const a02 = alpha * a[ra0 + p + 2];
      const a03 = alpha * a[ra0 + p + 3];
      const a10 = alpha * a[ra1 + p];
      const a11 = alpha * a[ra1 + p + 1];
      const a12 = alpha * a[ra1 + p + 2];
      const a13 = alpha * a[ra1 + p + 3];
      const a20 = alpha * a[ra2 + p];
      const a21 = alpha * a[ra2 + p + 1];
      const a22 = alpha * a[ra2 + p + 2];
      const a23 = alpha * a[ra2 + p + 3];
      const a30 = alpha * a[ra3 + p];
      const a31 = alpha * a[ra3 + p + 1];
      const a32 = alpha * a[ra3 + p + 2];
      const a33 = alpha * a[ra3 + p + 3];
      const rb0 = bOff + p * ldb;
      const rb1 = rb0 + ldb;
      const rb2 = rb1 + ldb;
      const rb3 = rb2 + ldb;
      for (let j = 0; j < n; j++) {
        const y0 = b[rb0 + j];
        const y1 = b[rb1 + j];
        const y2 = b[rb2 + j];
        const y3 = b[rb3 + j];
        c[rc0 + j] += a00 * y0 + a01 * y1 + a02 * y2 + a03 * y3;
        c[rc1 + j] += a10 * y0 + a11 * y1 + a12 * y2 + a13 * y3;
        c[rc2 + j] += a20 * y0 + a21 * y1 + a22 * y2 + a23 * y3;
        c[rc3 + j] += a30 * y0 + a31 * y1 + a32 * y2 + a33 * y3;
      }
    }
    for (; p < k; p++) {
      const x0 = alpha * a[ra0 + p];
      const x1 = alpha * a[ra1 + p];
      const x2 = alpha * a[ra2 + p];
      const x3 = alpha * a[ra3 + p];
      const rb = bOff + p * ldb;
      for (let j = 0; j < n; j++) {
        const y = b[rb + j];
        c[rc0 + j] += x0 * y;
        c[rc1 + j] += x1 * y;
        c[rc2 + j] += x2 * y;
        c[rc3 + j] += x3 * y;
      }
    }
  }
  // The last m mod 4 rows, one at a time, four rows of B per sweep.
  for (; i < m; i++) {
    const ra = aOff + i * lda;
    const rc = cOff + i * ldc;
    let p = 0;
    for (; p + 3 < k; p += 4) {
      const x0 = alpha * a[ra + p];
      const x1 = alpha * a[ra + p + 1];
      const x2 = alpha * a[ra + p + 2];
      const x3 = alpha * a[ra + p + 3];
      const rb0 = bOff + p * ldb;
      const rb1 = rb0 + ldb;
      const rb2 = rb1 + ldb;
      const rb3 = rb2 + ldb;
      for (let j = 0; j < n; j++) c[rc + j] += x0 * b[rb0 + j] + x1 * b[rb1 + j] + x2 * b[rb2 + j] + x3 * b[rb3 + j];
    }
    for (; p < k; p++) {
      const x0 = alpha * a[ra + p];
      const rb = bOff + p * ldb;
      for (let j = 0; j < n; j++) c[rc + j] += x0 * b[rb + j];
    }
  }
}

/** Row i of A (m×n) += (α·x[xOff + i·incx])·y for i < m: a rank-one update, rows by `axpy` (a zero coefficient skips its row). */
export function ger(
  m: number,
  n: number,
  alpha: number,
  x: Float64Array,
  xOff: number,
  incx: number,
  y: Float64Array,
  yOff: number,
  a: Float64Array,
  aOff: number,
  lda: number,
): void {
  const home = kernelHome(a, m * n);
  if (home !== null) {
    const px = home.input(x, xOff, extent(m, 1, incx));
    home.kernels.ger(m, n, alpha, px, incx, home.input(y, yOff, n), home.address(a, aOff), lda);
    return;
  }
  for (let i = 0; i < m; i++) axpy(n, alpha * x[xOff + i * incx], y, yOff, a, aOff + i * lda);
}

/**
 * C (cols×cols) = AᵀA for A rows×cols: rank-1 updates with the rows of A (two at a time) into the
 * lower triangle, then mirrored, so the output is exactly symmetric.
 */
export function gram(
  rows: number,
  cols: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  c: Float64Array,
  cOff: number,
  ldc: number,
): void {
  for (let i = 0; i < cols; i++) c.fill(0, cOff + i * ldc, cOff + i * ldc + i + 1);
  let r = 0;
  for (; r + 1 < rows; r += 2) {
    const r0 = aOff + r * lda;
    const r1 = r0 + lda;
    for (let i = 0; i < cols; i++) {
      const x0 = a[r0 + i];
      const x1 = a[r1 + i];
      const rc = cOff + i * ldc;
      for (let j = 0; j <= i; j++) c[rc + j] += x0 * a[r0 + j] + x1 * a[r1 + j];
    }
  }
  if (r < rows) {
    const r0 = aOff + r * lda;
    for (let i = 0; i < cols; i++) {
      const x0 = a[r0 + i];
      const rc = cOff + i * ldc;
      for (let j = 0; j <= i; j++) c[rc + j] += x0 * a[r0 + j];
    }
  }
  mirrorLower(0, cols, c, cOff, ldc);
}

/**
 * y[yOff..+m) = A·x for A symmetric m×m given by its lower triangle (row r: columns 0..r; the upper
 * triangle is not read), as LAPACK's dsymv with UPLO = 'L' in row-major order. Rows go in pairs (r,
 * r+1), r even: each row's dot with x keeps two accumulators (even and odd columns), and column k < r
 * of y gains the pair's x_r·a_rk + x_{r+1}·a_{r+1,k}; y[r] and y[r+1] are assigned when their rows are
 * reached, before later rows add to them. Two pairs share one sweep over y[0..r) (y_k + p01) + p23, the
 * same additions as two sweeps, with half the loads and stores of x and y.
 */
export function symvLower(
  m: number,
  a: Float64Array,
  aOff: number,
  lda: number,
  x: Float64Array,
  xOff: number,
  y: Float64Array,
  yOff: number,
): void {
  const home = kernelHome(y, (m * m) / 2);
  if (home !== null) {
    home.kernels.symvLower(m, home.input(a, aOff, extent(m, m, lda)), lda, home.input(x, xOff, m), home.address(y, yOff));
    return;
  }
  let r = 0;
  for (; r + 3 < m; r += 4) {
    const r0 = aOff + r * lda;
    const r1 = r0 + lda;
    const r2 = r1 + lda;
    const r3 = r2 + lda;
    const x0 = x[xOff + r];
    const x1 = x[xOff + r + 1];
    const x2 = x[xOff + r + 2];
    const x3 = x[xOff + r + 3];
    let s00 = 0;
    let s01 = 0;
    let s10 = 0;
    let s11 = 0;
    let s20 = 0;
    let s21 = 0;
    let s30 = 0;
    let s31 = 0;
    for (let k = 0; k < r; k += 2) {
      const a0 = a[r0 + k];
      const a1 = a[r0 + k + 1];
      const b0 = a[r1 + k];
      const b1 = a[r1 + k + 1];
      const c0 = a[r2 + k];
      const c1 = a[r2 + k + 1];
      const d0 = a[r3 + k];
      const d1 = a[r3 + k + 1];
      const xk0 = x[xOff + k];
      const xk1 = x[xOff + k + 1];
      s00 += a0 * xk0;
      s01 += a1 * xk1;
      s10 += b0 * xk0;
      s11 += b1 * xk1;
      s20 += c0 * xk0;
      s21 += c1 * xk1;
      s30 += d0 * xk0;
      s31 += d1 * xk1;
      y[yOff + k] = y[yOff + k] + (x0 * a0 + x1 * b0) + (x2 * c0 + x3 * d0);
      y[yOff + k + 1] = y[yOff + k + 1] + (x0 * a1 + x1 * b1) + (x2 * c1 + x3 * d1);
    }
    symvPairDiagonal(r, a, r0, r1, x, xOff, x0, x1, s00 + s01, s10, s11, y, yOff);
    // Rows r+2, r+3 in columns r, r+1 (their pair's sweep over y[0..r+2) reaching its last two columns).
    const c0 = a[r2 + r];
    const c1 = a[r2 + r + 1];
    const d0 = a[r3 + r];
    const d1 = a[r3 + r + 1];
    const xk0 = x[xOff + r];
    const xk1 = x[xOff + r + 1];
    s20 += c0 * xk0;
    s21 += c1 * xk1;
    s30 += d0 * xk0;
    s31 += d1 * xk1;
    y[yOff + r] += x2 * c0 + x3 * d0;
    y[yOff + r + 1] += x2 * c1 + x3 * d1;
    symvPairDiagonal(r + 2, a, r2, r3, x, xOff, x2, x3, s20 + s21, s30, s31, y, yOff);
  }
  if (r + 1 < m) {
    const r0 = aOff + r * lda;
    const r1 = r0 + lda;
    const x0 = x[xOff + r];
    const x1 = x[xOff + r + 1];
    let s00 = 0;
    let s01 = 0;
    let s10 = 0;
    let s11 = 0;
    for (let k = 0; k < r; k += 2) {
      const a0 = a[r0 + k];
      const a1 = a[r0 + k + 1];
      const b0 = a[r1 + k];
      const b1 = a[r1 + k + 1];
      const xk0 = x[xOff + k];
      const xk1 = x[xOff + k + 1];
      s00 += a0 * xk0;
      s01 += a1 * xk1;
      s10 += b0 * xk0;
      s11 += b1 * xk1;
      y[yOff + k] += x0 * a0 + x1 * b0;
      y[yOff + k + 1] += x0 * a1 + x1 * b1;
    }
    symvPairDiagonal(r, a, r0, r1, x, xOff, x0, x1, s00 + s01, s10, s11, y, yOff);
    r += 2;
  }
  if (r < m) {
    const r0 = aOff + r * lda;
    const x0 = x[xOff + r];
    let s00 = 0;
    let s01 = 0;
    for (let k = 0; k < r; k += 2) {
      const a0 = a[r0 + k];
      const a1 = a[r0 + k + 1];
      s00 += a0 * x[xOff + k];
      s01 += a1 * x[xOff + k + 1];
      y[yOff + k] += x0 * a0;
      y[yOff + k + 1] += x0 * a1;
    }
    y[yOff + r] = s00 + s01 + a[r0 + r] * x0;
  }
}

/**
 * The end of `symvLower`'s pair (r, r+1) (rows at a[r0], a[r1]), its dots over columns 0..r done (row
 * r's summed, `dot0`; row r+1's two accumulators): row r's diagonal, then row r+1's entry in column r
 * and its diagonal.
 */
function symvPairDiagonal(
  r: number,
  a: Float64Array,
  r0: number,
  r1: number,
  x: Float64Array,
  xOff: number,
  x0: number,
  x1: number,
  dot0: number,
  s10: number,
  s11: number,
  y: Float64Array,
  yOff: number,
): void {
  const b = a[r1 + r];
  y[yOff + r] = dot0 + a[r0 + r] * x0;
  y[yOff + r] += x1 * b;
  y[yOff + r + 1] = s10 + b * x[xOff + r] + s11 + a[r1 + r + 1] * x1;
}
