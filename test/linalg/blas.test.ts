import { describe, expect, it } from 'vitest';
import { mirrorLower, symvLower } from '../../src/linalg/blas.js';
import { axpy, dot, gemmNN, gemmNT, gemv, gemvT, gram, hypot } from '../../src/linalg/index.js';
import { seededNormal } from '../helpers/dense.js';
import { EPS, embed, extract, mulberry32, randomDense, symmetricUniform } from './fixtures.js';

const SIZES = [0, 1, 2, 3, 5, 7, 8, 13];
const SENTINEL = -777.25;

/** Every cell of buf outside the rows×cols block at (off, ld) still holds the sentinel. */
function untouchedOutside(buf: Float64Array, off: number, ld: number, rows: number, cols: number): boolean {
  for (let idx = 0; idx < buf.length; idx++) {
    const rel = idx - off;
    const inside = rel >= 0 && Math.floor(rel / ld) < rows && rel % ld < cols;
    if (!inside && buf[idx] !== SENTINEL) return false;
  }
  return true;
}

/** Error bound for a length-k sum of products: γ_k·Σ|x_p y_p| with a safety factor. */
function sumBound(k: number, absSum: number): number {
  return 2 * (k + 1) * EPS * absSum + Number.MIN_VALUE;
}

describe('blas: degenerate and bad arguments', () => {
  it('zero lengths are no-ops and dot of nothing is 0', () => {
    const x = new Float64Array([1, 2, 3]);
    const y = new Float64Array([SENTINEL, SENTINEL, SENTINEL]);
    expect(dot(0, x, 0, x, 0)).toBe(0);
    axpy(0, 2, x, 0, y, 0);
    gemv(0, 3, x, 0, 3, x, 0, y, 0);
    gemvT(1, 0, x, 0, 3, x, 0, y, 0);
    gemmNT(0, 3, 3, x, 0, 3, x, 0, 3, y, 0, 3);
    gemmNN(3, 0, 1, x, 0, 1, x, 0, 0, y, 0, 0);
    gram(3, 0, x, 0, 1, y, 0, 0);
    expect(Array.from(y)).toEqual([SENTINEL, SENTINEL, SENTINEL]);
  });

  it('an empty inner dimension writes zeros (gemmNT, gemmNN, gemv, gemvT, gram)', () => {
    const none = new Float64Array(0);
    const c = new Float64Array(6).fill(SENTINEL);
    gemmNT(2, 3, 0, none, 0, 0, none, 0, 0, c, 0, 3);
    expect(Array.from(c)).toEqual([0, 0, 0, 0, 0, 0]);
    c.fill(SENTINEL);
    gemmNN(2, 3, 0, none, 0, 0, none, 0, 3, c, 0, 3);
    expect(Array.from(c)).toEqual([0, 0, 0, 0, 0, 0]);
    c.fill(SENTINEL);
    gemv(3, 0, none, 0, 0, none, 0, c, 0);
    expect(Array.from(c.subarray(0, 3))).toEqual([0, 0, 0]);
    c.fill(SENTINEL);
    gemvT(0, 3, none, 0, 3, none, 0, c, 0);
    expect(Array.from(c.subarray(0, 3))).toEqual([0, 0, 0]);
    c.fill(SENTINEL);
    gram(0, 2, none, 0, 2, c, 0, 2);
    expect(Array.from(c.subarray(0, 4))).toEqual([0, 0, 0, 0]);
  });

  it('a NaN in an input reaches every output that depends on it', () => {
    const rand = mulberry32(11);
    for (const [m, n, k] of [
      [5, 7, 3],
      [4, 8, 13],
    ]) {
      const a = Float64Array.from({ length: m * k }, rand);
      const b = Float64Array.from({ length: n * k }, rand);
      a[(m - 1) * k + (k - 1)] = NaN; // last row of A
      const c = new Float64Array(m * n);
      gemmNT(m, n, k, a, 0, k, b, 0, k, c, 0, n);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) expect(Number.isNaN(c[i * n + j])).toBe(i === m - 1);
      }
      const bb = Float64Array.from({ length: k * n }, rand);
      bb[0] = NaN; // B[0][0] feeds column 0 of every row
      gemmNN(m, n, k, Float64Array.from({ length: m * k }, rand), 0, k, bb, 0, n, c, 0, n);
      for (let i = 0; i < m; i++) {
        for (let j = 0; j < n; j++) expect(Number.isNaN(c[i * n + j])).toBe(j === 0);
      }
    }
  });
});

describe('blas: dot, axpy', () => {
  const rand = mulberry32(1);
  for (const n of [...SIZES, 64, 1001]) {
    it(`n = ${n} with offsets`, () => {
      const x = Float64Array.from({ length: n + 3 }, () => 2 * rand() - 1);
      const y = Float64Array.from({ length: n + 5 }, () => 2 * rand() - 1);
      let ref = 0;
      let abs = 0;
      for (let i = 0; i < n; i++) {
        ref += x[3 + i] * y[2 + i];
        abs += Math.abs(x[3 + i] * y[2 + i]);
      }
      expect(Math.abs(dot(n, x, 3, y, 2) - ref)).toBeLessThanOrEqual(sumBound(n, abs));

      const before = Float64Array.from(y);
      axpy(n, -0.75, x, 3, y, 2);
      for (let i = 0; i < y.length; i++) {
        const inside = i >= 2 && i < 2 + n;
        const want = inside ? before[i] - 0.75 * x[i + 1] : before[i];
        expect(Math.abs(y[i] - want)).toBeLessThanOrEqual(2 * EPS * (Math.abs(before[i]) + 1));
      }
    });
  }
});

describe('blas: gemv, gemvT vs naive loops', () => {
  const rand = mulberry32(2);
  for (const m of SIZES) {
    for (const n of SIZES) {
      it(`${m}×${n}`, () => {
        const aOff = 1 + ((m + n) % 4);
        const lda = n + (m % 3);
        const A = randomDense(m, n, rand);
        const a = embed(A, n, aOff, lda, SENTINEL);
        const x = Float64Array.from({ length: Math.max(m, n) + 2 }, () => 2 * rand() - 1);

        const y = new Float64Array(m + 4).fill(SENTINEL);
        gemv(m, n, a.buf, aOff, lda, x, 2, y, 3);
        expect(y[0]).toBe(SENTINEL);
        for (let i = 0; i < m; i++) {
          let ref = 0;
          let abs = 0;
          for (let j = 0; j < n; j++) {
            ref += A[i][j] * x[2 + j];
            abs += Math.abs(A[i][j] * x[2 + j]);
          }
          expect(Math.abs(y[3 + i] - ref)).toBeLessThanOrEqual(sumBound(n, abs));
        }
        expect(y[3 + m]).toBe(SENTINEL);

        const z = new Float64Array(n + 4).fill(SENTINEL);
        gemvT(m, n, a.buf, aOff, lda, x, 1, z, 2);
        expect(z[1]).toBe(SENTINEL);
        for (let j = 0; j < n; j++) {
          let ref = 0;
          let abs = 0;
          for (let i = 0; i < m; i++) {
            ref += A[i][j] * x[1 + i];
            abs += Math.abs(A[i][j] * x[1 + i]);
          }
          expect(Math.abs(z[2 + j] - ref)).toBeLessThanOrEqual(sumBound(m, abs));
        }
        expect(z[2 + n]).toBe(SENTINEL);
      });
    }
  }
});

/** Checks C = A·op(B) against the naive sum, entry by entry, with the γ_k bound. */
function checkProduct(
  m: number,
  n: number,
  k: number,
  A: number[][],
  bAt: (p: number, j: number) => number,
  c: Float64Array,
  cOff: number,
  ldc: number,
): void {
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let ref = 0;
      let abs = 0;
      for (let p = 0; p < k; p++) {
        ref += A[i][p] * bAt(p, j);
        abs += Math.abs(A[i][p] * bAt(p, j));
      }
      const got = c[cOff + i * ldc + j];
      if (!(Math.abs(got - ref) <= sumBound(k, abs))) {
        throw new Error(`C[${i}][${j}] = ${got}, reference ${ref} (m=${m}, n=${n}, k=${k})`);
      }
    }
  }
}

describe('blas: gemmNT, gemmNN vs naive loops on every edge shape', () => {
  const rand = mulberry32(3);
  for (const m of SIZES) {
    it(`m = ${m}, all n, k ∈ {0,1,2,3,5,7,8,13}, offsets and padded leading dimensions`, () => {
      for (const n of SIZES) {
        for (const k of SIZES) {
          const A = randomDense(m, k, rand);
          const lda = k + 1 + ((m + n) % 3);
          const a = embed(A, k, 2, lda, SENTINEL);

          // gemmNT: B is n×k.
          const Bt = randomDense(n, k, rand);
          const ldb = k + (n % 2);
          const b = embed(Bt, k, 3, ldb, SENTINEL);
          const ldc = n + 2;
          const c = embed(randomDense(m, n, rand), n, 1, ldc, SENTINEL);
          gemmNT(m, n, k, a.buf, a.off, a.ld, b.buf, b.off, b.ld, c.buf, c.off, c.ld);
          checkProduct(m, n, k, A, (p, j) => Bt[j][p], c.buf, c.off, ldc);
          expect(untouchedOutside(c.buf, c.off, ldc, m, n)).toBe(true);

          // gemmNN: B is k×n.
          const B = randomDense(k, n, rand);
          const ldb2 = n + 1;
          const b2 = embed(B, n, 1, ldb2, SENTINEL);
          const c2 = embed(randomDense(m, n, rand), n, 4, ldc, SENTINEL);
          gemmNN(m, n, k, a.buf, a.off, a.ld, b2.buf, b2.off, b2.ld, c2.buf, c2.off, c2.ld);
          checkProduct(m, n, k, A, (p, j) => B[p][j], c2.buf, c2.off, ldc);
          expect(untouchedOutside(c2.buf, c2.off, ldc, m, n)).toBe(true);
        }
      }
    });
  }

  it('gemmNT with k larger than one cache panel (k = 2500) and odd m, n', () => {
    const [m, n, k] = [5, 7, 2500];
    const A = randomDense(m, k, rand);
    const Bt = randomDense(n, k, rand);
    const a = embed(A, k, 3, k + 5, SENTINEL);
    const b = embed(Bt, k, 1, k + 2, SENTINEL);
    const c = embed(randomDense(m, n, rand), n, 2, n + 3, SENTINEL);
    gemmNT(m, n, k, a.buf, a.off, a.ld, b.buf, b.off, b.ld, c.buf, c.off, c.ld);
    checkProduct(m, n, k, A, (p, j) => Bt[j][p], c.buf, c.off, c.ld);
    expect(untouchedOutside(c.buf, c.off, c.ld, m, n)).toBe(true);
  });

  it('gemmNT and gemmNN agree with each other on a mid-sized product (20×78×785)', () => {
    const [m, n, k] = [20, 78, 785];
    const A = randomDense(m, k, rand);
    const B = randomDense(k, n, rand);
    const a = embed(A, k, 0, k);
    const b = embed(B, n, 0, n);
    const bt = new Float64Array(n * k);
    for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) bt[j * k + p] = B[p][j];
    const c1 = new Float64Array(m * n);
    const c2 = new Float64Array(m * n);
    gemmNT(m, n, k, a.buf, 0, k, bt, 0, k, c1, 0, n);
    gemmNN(m, n, k, a.buf, 0, k, b.buf, 0, n, c2, 0, n);
    checkProduct(m, n, k, A, (p, j) => B[p][j], c1, 0, n);
    checkProduct(m, n, k, A, (p, j) => B[p][j], c2, 0, n);
  });
});

/**
 * symvLower's specified order of operations, one pair of rows (r, r+1) per sweep: each row's dot in two
 * accumulators (even and odd columns) and y_k += x_r·a_rk + x_{r+1}·a_{r+1,k} for k < r; then the pair's
 * diagonal block. The kernel may sweep several pairs at once but must give these bits.
 */
function symvLowerByPairs(m: number, a: Float64Array, aOff: number, lda: number, x: Float64Array, xOff: number, y: Float64Array, yOff: number): void {
  for (let r = 0; r < m; r += 2) {
    const r0 = aOff + r * lda;
    const x0 = x[xOff + r]!;
    let s00 = 0;
    let s01 = 0;
    if (r + 1 === m) {
      for (let k = 0; k < r; k += 2) {
        s00 += a[r0 + k]! * x[xOff + k]!;
        s01 += a[r0 + k + 1]! * x[xOff + k + 1]!;
        y[yOff + k] += x0 * a[r0 + k]!;
        y[yOff + k + 1] += x0 * a[r0 + k + 1]!;
      }
      y[yOff + r] = s00 + s01 + a[r0 + r]! * x0;
      break;
    }
    const r1 = r0 + lda;
    const x1 = x[xOff + r + 1]!;
    let s10 = 0;
    let s11 = 0;
    for (let k = 0; k < r; k += 2) {
      s00 += a[r0 + k]! * x[xOff + k]!;
      s01 += a[r0 + k + 1]! * x[xOff + k + 1]!;
      s10 += a[r1 + k]! * x[xOff + k]!;
      s11 += a[r1 + k + 1]! * x[xOff + k + 1]!;
      y[yOff + k] += x0 * a[r0 + k]! + x1 * a[r1 + k]!;
      y[yOff + k + 1] += x0 * a[r0 + k + 1]! + x1 * a[r1 + k + 1]!;
    }
    const b = a[r1 + r]!;
    y[yOff + r] = s00 + s01 + a[r0 + r]! * x0;
    s10 += b * x[xOff + r]!;
    y[yOff + r] += x1 * b;
    y[yOff + r + 1] = s10 + s11 + a[r1 + r + 1]! * x1;
  }
}

describe('blas: symvLower', () => {
  it('gives the bits of the pair-by-pair order for every m mod 4, offsets and lda > m, reading only the lower triangle', () => {
    const rand = mulberry32(21);
    for (const m of [...Array.from({ length: 71 }, (_, i) => i), 128, 129, 130, 131, 257]) {
      const lda = m + (m % 3);
      const aOff = m % 5;
      const a = new Float64Array(aOff + m * lda + 1).fill(NaN);
      for (let i = 0; i < m; i++) for (let k = 0; k <= i; k++) a[aOff + i * lda + k] = symmetricUniform(rand);
      const x = Float64Array.from({ length: m + 3 }, () => symmetricUniform(rand));
      const y = new Float64Array(m + 4).fill(SENTINEL);
      const expected = y.slice();
      symvLower(m, a, aOff, lda, x, 3, y, 1);
      symvLowerByPairs(m, a, aOff, lda, x, 3, expected, 1);
      expect(Array.from(new BigInt64Array(y.buffer)), `m=${m}`).toEqual(Array.from(new BigInt64Array(expected.buffer)));
      expect(y.every((v, i) => (i >= 1 && i <= m ? Number.isFinite(v) : v === SENTINEL)), `m=${m}`).toBe(true);
    }
  });
});

describe('blas: mirrorLower', () => {
  it('writes A[j][i] = A[i][j] for j < i exactly for the rows asked (tiles of any alignment), nothing else', () => {
    for (const [n, i0, i1] of [[0, 0, 0], [1, 0, 1], [5, 0, 5], [70, 0, 70], [70, 33, 65], [70, 31, 32], [100, 64, 100]] as const) {
      const ld = n + 3;
      const off = 2;
      const a = Float64Array.from({ length: off + n * ld + 1 }, (_, k) => k);
      const before = a.slice();
      mirrorLower(i0, i1, a, off, ld);
      for (let k = 0; k < a.length; k++) {
        const r = k - off;
        const [row, col] = [Math.floor(r / ld), r % ld];
        // Written: (row, col) with row < col, col a row i0 ≤ col < i1 of the lower triangle, inside the n×n block.
        const written = r >= 0 && row < n && col < n && row < col && col >= i0 && col < i1;
        expect(a[k], `n=${n} [${i0}, ${i1}) at (${row}, ${col})`).toBe(written ? before[off + col * ld + row] : before[k]);
      }
    }
  });
});

describe('blas: gram vs naive loops', () => {
  const rand = mulberry32(4);
  for (const rows of SIZES) {
    it(`rows = ${rows}, all cols`, () => {
      for (const cols of SIZES) {
        const A = randomDense(rows, cols, rand);
        const a = embed(A, cols, 2, cols + 3, SENTINEL);
        const ldc = cols + 1;
        const c = embed(randomDense(cols, cols, rand), cols, 3, ldc, SENTINEL);
        gram(rows, cols, a.buf, a.off, a.ld, c.buf, c.off, ldc);
        // AᵀA = (Aᵀ)(Aᵀ)ᵀ: row i of Aᵀ is column i of A.
        checkProduct(
          cols,
          cols,
          rows,
          Array.from({ length: cols }, (_, i) => A.map((r) => r[i])),
          (p, j) => A[p][j],
          c.buf,
          c.off,
          ldc,
        );
        const C = extract(c, cols, cols);
        for (let i = 0; i < cols; i++) for (let j = 0; j < i; j++) expect(C[j][i]).toBe(C[i][j]);
        expect(untouchedOutside(c.buf, c.off, ldc, cols, cols)).toBe(true);
      }
    });
  }
});

describe('hypot', () => {
  it('equals Math.hypot bit for bit, at any scale, and handles zero, Infinity and NaN', () => {
    const normal = seededNormal(77);
    for (const n of [1, 2, 3, 10, 100, 785]) {
      for (const scale of [1, 1e-200, 1e200]) {
        const x = Array.from({ length: n }, () => normal() * scale);
        expect(hypot(x)).toBe(Math.hypot(...x));
        expect(hypot(Float64Array.from(x))).toBe(Math.hypot(...x));
      }
    }
    expect(hypot([])).toBe(0);
    expect(hypot([0, -0])).toBe(0);
    expect(hypot([1, Infinity, NaN])).toBe(Infinity);
    expect(hypot([1, NaN])).toBeNaN();
  });

  it('takes vectors too long to spread into Math.hypot', () => {
    const n = 300_000;
    const x = new Float64Array(n).fill(2);
    expect(() => Math.hypot(...x)).toThrow(RangeError);
    expect(hypot(x)).toBeCloseTo(2 * Math.sqrt(n), 9);
  });
});
