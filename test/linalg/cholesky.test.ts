import { CholeskyDecomposition, inverse } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { cholesky, choleskyRankOneUpdate, choleskySolve, solveLowerTransposed, spdInverse } from '../../src/linalg/index.js';
import { EPS, embed, extract, frobenius, matmul, mulberry32, randomDense, toMatrix, transpose } from './fixtures.js';

/** A random well-conditioned SPD matrix G Gᵀ + n·I (G uniform in [−1, 1]). */
function randomSpd(n: number, rand: () => number): number[][] {
  const g = randomDense(n, n, rand);
  const a = matmul(g, transpose(g, n));
  for (let i = 0; i < n; i++) {
    a[i][i] += n;
    for (let j = 0; j < i; j++) a[j][i] = a[i][j];
  }
  return a;
}

/** spdInverse of A into a fresh n×n array; null if it reports "not positive definite". */
function invert(A: number[][]): Float64Array | null {
  const n = A.length;
  const out = new Float64Array(n * n);
  return spdInverse(n, Float64Array.from(A.flat()), 0, n, out, 0, n, new Float64Array(n * n + n)) ? out : null;
}

describe('cholesky, spdInverse: bad arguments', () => {
  const rand = mulberry32(5);

  it('returns false for indefinite, semidefinite and zero matrices', () => {
    const indefinite = [
      [1, 2],
      [2, 1],
    ];
    const X = randomDense(2, 5, rand);
    const semidefinite = matmul(transpose(X, 5), X); // rank 2 in R^{5×5}
    const zero = [
      [0, 0],
      [0, 0],
    ];
    const negative = [[-1]];
    for (const A of [indefinite, semidefinite, zero, negative]) {
      const n = A.length;
      expect(cholesky(n, Float64Array.from(A.flat()), 0, n)).toBe(false);
      expect(invert(A)).toBeNull();
    }
  });

  it('returns false for a non-finite entry anywhere in the lower triangle', () => {
    const A = randomSpd(6, rand);
    for (const [i, j] of [
      [0, 0],
      [3, 1],
      [5, 4],
      [5, 5],
    ]) {
      for (const bad of [NaN, Infinity, -Infinity]) {
        const B = A.map((row) => row.slice());
        B[i][j] = bad;
        expect(cholesky(6, Float64Array.from(B.flat()), 0, 6)).toBe(false);
        expect(invert(B)).toBeNull();
      }
    }
  });

  it('ignores the upper triangle (NaN above the diagonal is harmless)', () => {
    const A = randomSpd(5, rand);
    const B = A.map((row, i) => row.map((x, j) => (j > i ? NaN : x)));
    const b = Float64Array.from(B.flat());
    expect(cholesky(5, b, 0, 5)).toBe(true);
    for (let i = 0; i < 5; i++) for (let j = i + 1; j < 5; j++) expect(b[i * 5 + j]).toBeNaN();
    expect(invert(B)).not.toBeNull();
  });

  it('spdInverse throws when work is too short; n = 0 succeeds', () => {
    const A = randomSpd(3, rand);
    expect(() =>
      spdInverse(3, Float64Array.from(A.flat()), 0, 3, new Float64Array(9), 0, 3, new Float64Array(11)),
    ).toThrow(/work has length 11, needs n·n \+ n = 12/);
    expect(cholesky(0, new Float64Array(0), 0, 0)).toBe(true);
    expect(spdInverse(0, new Float64Array(0), 0, 0, new Float64Array(0), 0, 0, new Float64Array(0))).toBe(true);
  });
});

describe('cholesky, choleskySolve vs ml-matrix', () => {
  const rand = mulberry32(6);
  for (const n of [1, 2, 3, 5, 10, 50, 200]) {
    it(`n = ${n}, embedded at an offset with a padded leading dimension`, () => {
      const A = randomSpd(n, rand);
      const SENTINEL = -5.5;
      const ld = n + 3;
      const a = embed(A, n, 2, ld, SENTINEL);
      const original = Float64Array.from(a.buf);
      expect(cholesky(n, a.buf, a.off, ld)).toBe(true);

      const L = extract(a, n, n);
      const reference = new CholeskyDecomposition(toMatrix(A)).lowerTriangularMatrix.to2DArray();
      const normA = frobenius(A);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j <= i; j++) {
          // ‖ΔL‖ ≲ n·eps·‖L‖ for a well-conditioned A; ‖L‖_F² = tr A ≤ ‖A‖_F·√n.
          expect(Math.abs(L[i][j] - reference[i][j])).toBeLessThanOrEqual(8 * n * EPS * Math.sqrt(normA * Math.sqrt(n)));
        }
        // Upper triangle and padding untouched.
        for (let j = i + 1; j < ld; j++) expect(a.buf[a.off + i * ld + j]).toBe(original[a.off + i * ld + j]);
      }
      expect(a.buf[0]).toBe(SENTINEL);
      // Backward error: ‖LLᵀ − A‖ ≤ c·n·eps·‖A‖.
      const lower = L.map((row, i) => row.map((x, j) => (j <= i ? x : 0)));
      const LLt = matmul(lower, transpose(lower, n));
      let err = 0;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) err += (LLt[i][j] - A[i][j]) ** 2;
      expect(Math.sqrt(err)).toBeLessThanOrEqual(4 * n * EPS * normA);

      // Solve against ml-matrix's solve, then check the residual ‖Az − b‖.
      const rhs = Array.from({ length: n }, () => 2 * rand() - 1);
      const b = new Float64Array(n + 4).fill(SENTINEL);
      b.set(rhs, 3);
      choleskySolve(n, a.buf, a.off, ld, b, 3);
      expect(b[2]).toBe(SENTINEL);
      expect(b[3 + n]).toBe(SENTINEL);
      const z = Array.from(b.subarray(3, 3 + n));
      const zRef = new CholeskyDecomposition(toMatrix(A)).solve(toMatrix(rhs.map((x) => [x]))).getColumn(0);
      const zNorm = Math.hypot(...zRef);
      for (let i = 0; i < n; i++) expect(Math.abs(z[i] - zRef[i])).toBeLessThanOrEqual(16 * n * EPS * zNorm);
      let res = 0;
      for (let i = 0; i < n; i++) {
        let s = -rhs[i];
        for (let j = 0; j < n; j++) s += A[i][j] * z[j];
        res += s * s;
      }
      expect(Math.sqrt(res)).toBeLessThanOrEqual(8 * n * EPS * normA * zNorm);
    });
  }
});

describe('spdInverse vs ml-matrix', () => {
  const rand = mulberry32(8);
  for (const n of [1, 2, 3, 5, 10, 50, 200]) {
    it(`n = ${n}`, () => {
      const A = randomSpd(n, rand);
      const ld = n + 2;
      const a = embed(A, n, 1, ld, NaN).buf; // padding is NaN: it must never be read
      const copy = Float64Array.from(a);
      const ldo = n + 1;
      const out = new Float64Array(3 + n * ldo).fill(-1);
      const work = new Float64Array(n * n + n);
      expect(spdInverse(n, a, 1, ld, out, 3, ldo, work)).toBe(true);
      expect(a.every((x, i) => Object.is(x, copy[i]))).toBe(true); // a not modified
      expect(out[2]).toBe(-1);

      const X = Array.from({ length: n }, (_, i) => Array.from(out.subarray(3 + i * ldo, 3 + i * ldo + n)));
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < i; j++) expect(X[j][i]).toBe(X[i][j]); // exactly symmetric
        expect(out[3 + i * ldo + n]).toBe(-1); // padding untouched
      }
      const normA = frobenius(A);
      const normX = frobenius(X);
      const kappa = normA * normX; // ≥ κ₂(A)
      const reference = inverse(toMatrix(A)).to2DArray();
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) expect(Math.abs(X[i][j] - reference[i][j])).toBeLessThanOrEqual(8 * n * EPS * kappa * normX);
      }
      // ‖A·A⁻¹ − I‖ ≤ c·n·eps·κ.
      const AX = matmul(A, X);
      let err = 0;
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) err += (AX[i][j] - (i === j ? 1 : 0)) ** 2;
      expect(Math.sqrt(err)).toBeLessThanOrEqual(8 * n * EPS * kappa);
    });
  }

  it('an ill-conditioned SPD matrix (Hilbert, n = 8) still inverts to within κ·eps', () => {
    const n = 8;
    const H = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => 1 / (i + j + 1)));
    const out = invert(H);
    expect(out).not.toBeNull();
    const X = Array.from({ length: n }, (_, i) => Array.from(out!.subarray(i * n, i * n + n)));
    const kappa = frobenius(H) * frobenius(X); // ≈ 1.5e10
    const AX = matmul(H, X);
    let err = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) err += (AX[i][j] - (i === j ? 1 : 0)) ** 2;
    expect(Math.sqrt(err)).toBeLessThanOrEqual(8 * n * EPS * kappa);
  });
});

describe('choleskyRankOneUpdate, solveLowerTransposed', () => {
  const rand = mulberry32(23);
  it('updated factor equals the fresh Cholesky factor of A + vvᵀ (ml-matrix), over 20 successive updates', () => {
    const n = 7;
    const A = randomSpd(n, rand);
    const l = Float64Array.from(A.flat());
    expect(cholesky(n, l, 0, n)).toBe(true);
    for (let i = 0; i < n; i++) l.fill(0, i * n + i + 1, (i + 1) * n);
    const dense = toMatrix(A);
    for (let step = 0; step < 20; step++) {
      const v = Array.from({ length: n }, () => 2 * rand() - 1);
      for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) dense.set(i, j, dense.get(i, j) + v[i] * v[j]);
      choleskyRankOneUpdate(n, l, 0, n, Float64Array.from(v), 0);
      const expected = new CholeskyDecomposition(dense).lowerTriangularMatrix.to1DArray();
      let worst = 0;
      for (let i = 0; i < n * n; i++) worst = Math.max(worst, Math.abs(l[i] - expected[i]));
      // Entries are O(√(n + steps)) ≈ 5; each update adds O(nε) rounding to them.
      expect(worst).toBeLessThan(1e-12);
    }
    // Lᵀ z = b by back substitution: Lᵀ z reproduces b.
    const b = Array.from({ length: n }, () => rand());
    const z = Float64Array.from(b);
    solveLowerTransposed(n, l, 0, n, z, 0);
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let k = i; k < n; k++) s += l[k * n + i] * z[k];
      expect(Math.abs(s - b[i])).toBeLessThan(1e-12);
    }
  });
  it('a zero vector leaves the factor unchanged', () => {
    const l = Float64Array.of(2, 0, 1, 3);
    choleskyRankOneUpdate(2, l, 0, 2, new Float64Array(2), 0);
    expect(Array.from(l)).toEqual([2, 0, 1, 3]);
  });
});
