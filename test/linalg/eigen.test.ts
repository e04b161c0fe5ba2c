import { EigenvalueDecomposition } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { SymmetricEigen } from '../../src/linalg/index.js';
import {
  EPS,
  embed,
  frobenius,
  mulberry32,
  randomDense,
  randomOrthogonal,
  randomSymmetric,
  toMatrix,
  withSpectrum,
} from './fixtures.js';

/** Error constant c in the bounds ‖AV − VΛ‖ ≤ c·n·eps·‖A‖ and ‖VᵀV − I‖ ≤ c·n·eps. */
const C = 8;

interface Decomposition {
  values: Float64Array;
  vectors: Float64Array;
}

/** Decomposes A (given densely) embedded at an offset with a padded leading dimension. */
function decompose(A: number[][], solver = new SymmetricEigen(A.length)): Decomposition {
  const n = A.length;
  const a = embed(A, n, 3, n + 2, NaN); // padding is NaN: it must never be read
  const copy = Float64Array.from(a.buf);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  solver.decompose(n, a.buf, a.off, a.ld, values, vectors);
  expect(a.buf.every((x, i) => Object.is(x, copy[i]))).toBe(true); // a not modified
  return { values, vectors };
}

/** Checks the residual, orthonormality, descending order and the eigenvalues against ml-matrix. */
function checkDecomposition(A: number[][], { values, vectors }: Decomposition, known?: number[]): void {
  const n = A.length;
  const normA = frobenius(A);
  // ‖AV − VΛ‖_F
  let res = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += A[i][k] * vectors[k * n + j];
      const r = s - vectors[i * n + j] * values[j];
      res += r * r;
    }
  }
  expect(Math.sqrt(res)).toBeLessThanOrEqual(C * n * EPS * normA + Number.MIN_VALUE);
  // ‖VᵀV − I‖_F
  let orth = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += vectors[k * n + i] * vectors[k * n + j];
      const r = s - (i === j ? 1 : 0);
      orth += r * r;
    }
  }
  expect(Math.sqrt(orth)).toBeLessThanOrEqual(C * n * EPS);
  for (let j = 1; j < n; j++) expect(values[j]).toBeLessThanOrEqual(values[j - 1]);

  // Weyl: each eigenvalue is perturbed by at most ‖E‖₂ ≤ c·n·eps·‖A‖ in either solver.
  const tol = 2 * C * n * EPS * normA + Number.MIN_VALUE;
  const reference = new EigenvalueDecomposition(toMatrix(A), { assumeSymmetric: true }).realEigenvalues
    .slice()
    .sort((x, y) => y - x);
  for (let j = 0; j < n; j++) expect(Math.abs(values[j] - reference[j])).toBeLessThanOrEqual(tol);
  // Algorithm-independent invariants (ml-matrix runs the same JAMA tred2/tql2 recurrence, so its
  // eigenvalues are not a fully independent witness): Σλ = tr A and Σλ² = ‖A‖_F².
  let trace = 0;
  let sum = 0;
  let sumSq = 0;
  for (let j = 0; j < n; j++) {
    trace += A[j][j];
    sum += values[j];
    sumSq += values[j] * values[j];
  }
  expect(Math.abs(sum - trace)).toBeLessThanOrEqual(tol * Math.sqrt(n) + n * EPS * Math.abs(trace));
  expect(Math.abs(sumSq - normA * normA)).toBeLessThanOrEqual(4 * tol * normA + Number.MIN_VALUE);
  if (known) {
    const sorted = known.slice().sort((x, y) => y - x);
    for (let j = 0; j < n; j++) expect(Math.abs(values[j] - sorted[j])).toBeLessThanOrEqual(tol);
  }
}

describe('SymmetricEigen: bad arguments', () => {
  it('rejects a non-finite entry in the lower triangle, naming it', () => {
    const solver = new SymmetricEigen(4);
    const a = new Float64Array(16);
    a[2 * 4 + 1] = NaN;
    expect(() => solver.decompose(4, a, 0, 4, new Float64Array(4), new Float64Array(16))).toThrow(
      'SymmetricEigen: non-finite entry at (2, 1)',
    );
    a[2 * 4 + 1] = 0;
    a[3 * 4 + 3] = -Infinity;
    expect(() => solver.decompose(4, a, 0, 4, new Float64Array(4), new Float64Array(16))).toThrow(
      'SymmetricEigen: non-finite entry at (3, 3)',
    );
  });

  it('rejects n > maxN and invalid orders or sizes', () => {
    const solver = new SymmetricEigen(3);
    const big = new Float64Array(16);
    expect(() => solver.decompose(4, big, 0, 4, new Float64Array(4), new Float64Array(16))).toThrow(
      /exceeds the workspace's maxN = 3/,
    );
    expect(() => solver.decompose(-1, big, 0, 4, new Float64Array(4), new Float64Array(16))).toThrow(
      /non-negative integer/,
    );
    expect(() => solver.decompose(1.5, big, 0, 4, new Float64Array(4), new Float64Array(16))).toThrow(
      /non-negative integer/,
    );
    expect(() => solver.decompose(3, big, 8, 4, new Float64Array(3), new Float64Array(9))).toThrow(
      /does not fit/,
    );
    expect(() => solver.decompose(3, big, 0, 2, new Float64Array(3), new Float64Array(9))).toThrow(
      /does not fit/,
    );
    expect(() => solver.decompose(3, big, 0, 4, new Float64Array(2), new Float64Array(9))).toThrow(
      /output arrays too short/,
    );
    expect(() => new SymmetricEigen(-1)).toThrow(/maxN/);
    expect(() => new SymmetricEigen(2.5)).toThrow(/maxN/);
  });

  it('reads only the lower triangle: NaN above the diagonal is ignored', () => {
    const rand = mulberry32(7);
    const A = randomSymmetric(6, rand);
    const withNaN = A.map((row, i) => row.map((x, j) => (j > i ? NaN : x)));
    checkDecomposition(A, decompose(withNaN));
  });

  it('n = 0 is a no-op and n = 1 gives the entry and the unit vector', () => {
    const solver = new SymmetricEigen(2);
    const values = new Float64Array([5, 5]);
    const vectors = new Float64Array([5, 5, 5, 5]);
    solver.decompose(0, new Float64Array(0), 0, 0, values, vectors);
    expect(Array.from(values)).toEqual([5, 5]);
    solver.decompose(1, new Float64Array([9, -3.5]), 1, 1, values, vectors);
    expect(values[0]).toBe(-3.5);
    expect(vectors[0]).toBe(1);
  });
});

describe('SymmetricEigen: random symmetric matrices vs ml-matrix', () => {
  const rand = mulberry32(20240601);
  for (const n of [1, 2, 3, 5, 10, 40, 100]) {
    it(`n = ${n}`, () => {
      const A = randomSymmetric(n, rand);
      checkDecomposition(A, decompose(A));
    });
  }

  it('one workspace reused across orders (largest first, then smaller)', () => {
    const solver = new SymmetricEigen(12);
    for (const n of [12, 3, 7, 12, 1, 2]) {
      const A = randomSymmetric(n, rand);
      checkDecomposition(A, decompose(A, solver));
    }
  });

  it('n = 300', () => {
    const A = randomSymmetric(300, rand);
    checkDecomposition(A, decompose(A));
  });
});

describe('SymmetricEigen.tridiagonalize', () => {
  const rand = mulberry32(20261204);
  for (const n of [1, 2, 7, 130]) {
    it(`n = ${n}: T has A's eigenvalues and Frobenius norm (an orthogonal similarity)`, () => {
      const A = randomSymmetric(n, rand);
      const a = embed(A, n, 2, n + 1, NaN);
      const diagonal = new Float64Array(n);
      const offDiagonal = new Float64Array(n);
      new SymmetricEigen(n).tridiagonalize(n, a.buf, a.off, a.ld, diagonal, offDiagonal);
      const T = Array.from({ length: n }, (_, i) =>
        Array.from({ length: n }, (_, j) => (i === j ? diagonal[i] : i === j + 1 ? offDiagonal[i] : j === i + 1 ? offDiagonal[j] : 0)),
      );
      const normA = frobenius(A);
      expect(Math.abs(frobenius(T) - normA)).toBeLessThanOrEqual(C * n * EPS * normA);
      const expected = new EigenvalueDecomposition(toMatrix(A), { assumeSymmetric: true }).realEigenvalues.sort((x, y) => x - y);
      const got = new EigenvalueDecomposition(toMatrix(T), { assumeSymmetric: true }).realEigenvalues.sort((x, y) => x - y);
      for (let i = 0; i < n; i++) expect(Math.abs(got[i] - expected[i])).toBeLessThanOrEqual(C * n * EPS * normA);
      expect(offDiagonal[0]).toBe(0);
    });
  }
});

describe('SymmetricEigen: hard matrices', () => {
  const rand = mulberry32(99);

  it('diagonal (unsorted, with negative and zero entries)', () => {
    const d = [3, -1, 0, 7.5, 2, -4, 0, 1e-3];
    const A = d.map((x, i) => d.map((_, j) => (i === j ? x : 0)));
    const result = decompose(A);
    checkDecomposition(A, result, d);
    // Eigenvectors of a diagonal matrix are (signed) unit coordinate vectors.
    const n = d.length;
    for (let j = 0; j < n; j++) {
      let ones = 0;
      for (let i = 0; i < n; i++) if (Math.abs(Math.abs(result.vectors[i * n + j]) - 1) <= 1e-15) ones++;
      expect(ones).toBe(1);
    }
  });

  it('zero matrix and identity', () => {
    const zero = Array.from({ length: 5 }, () => new Array<number>(5).fill(0));
    checkDecomposition(zero, decompose(zero), [0, 0, 0, 0, 0]);
    const eye = zero.map((row, i) => row.map((_, j) => (i === j ? 1 : 0)));
    checkDecomposition(eye, decompose(eye), [1, 1, 1, 1, 1]);
  });

  it('repeated eigenvalues in a random basis', () => {
    const lambda = [2, 2, 2, -1, -1, 5, 5, 5, 5, 0.5, 2, 2];
    const A = withSpectrum(randomOrthogonal(lambda.length, rand), lambda);
    checkDecomposition(A, decompose(A), lambda);
  });

  it('rank-deficient PSD Gram matrices XᵀX', () => {
    for (const [rank, n] of [
      [1, 6],
      [3, 10],
      [7, 40],
    ]) {
      const X = randomDense(rank, n, rand);
      const A = Array.from({ length: n }, (_, i) =>
        Array.from({ length: n }, (_, j) => X.reduce((s, row) => s + row[i] * row[j], 0)),
      );
      const result = decompose(A);
      checkDecomposition(A, result);
      const tol = 2 * C * n * EPS * frobenius(A);
      for (let j = rank; j < n; j++) expect(Math.abs(result.values[j])).toBeLessThanOrEqual(tol);
      expect(result.values[rank - 1]).toBeGreaterThan(tol);
    }
  });

  it('eigenvalues spanning 1e-12 .. 1e6', () => {
    const n = 19;
    const lambda = Array.from({ length: n }, (_, i) => 10 ** (-12 + i));
    const A = withSpectrum(randomOrthogonal(n, rand), lambda);
    checkDecomposition(A, decompose(A), lambda);
  });

  it('arrowhead: diag(Λ) bordered by one row and column', () => {
    for (const n of [2, 9, 50]) {
      const A = Array.from({ length: n }, () => new Array<number>(n).fill(0));
      for (let i = 0; i < n - 1; i++) {
        A[i][i] = i % 3 === 0 ? 1 : 1 + i / n; // some repeated diagonal values
        A[n - 1][i] = 2 * rand() - 1;
        A[i][n - 1] = A[n - 1][i];
      }
      A[n - 1][n - 1] = 0.25;
      checkDecomposition(A, decompose(A));
    }
  });

  it('badly scaled entries (1e-150 and 1e150)', () => {
    for (const scale of [1e-150, 1e150]) {
      const A = randomSymmetric(8, rand).map((row) => row.map((x) => x * scale));
      checkDecomposition(A, decompose(A));
    }
  });
});
