/**
 * SymmetricEigen's divide-and-conquer path (order ≥ DIVIDE_AND_CONQUER_MIN_ORDER: tridiagonal
 * reduction, arrowhead merges, blocked back-transformation) and TridiagonalEigen alone, on the hard
 * cases of eigen.test.ts at orders that take that path: residual and orthogonality against the
 * c·n·ε bounds, eigenvalues against ml-matrix (an independent QL implementation).
 */
import { EigenvalueDecomposition } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { BLOCKED_REDUCTION_MIN_ORDER, DIVIDE_AND_CONQUER_MIN_ORDER, SymmetricEigen } from '../../src/linalg/eigen.js';
import { Workspace } from '../../src/linalg/simd.js';
import { TridiagonalEigen } from '../../src/linalg/tridiagonal.js';
import { EPS, frobenius, mulberry32, randomDense, randomOrthogonal, randomSymmetric, toMatrix, withSpectrum } from './fixtures.js';

/** Error constant c in ‖AV − VΛ‖_F ≤ c·n·ε·‖A‖_F and ‖VᵀV − I‖_F ≤ c·n·ε (as in eigen.test.ts). */
const C = 8;

function check(A: number[][], values: Float64Array, vectors: Float64Array, known?: number[]): void {
  const n = A.length;
  const normA = frobenius(A);
  let res = 0;
  let orth = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let av = 0;
      let vv = 0;
      for (let k = 0; k < n; k++) {
        av += A[i][k] * vectors[k * n + j];
        vv += vectors[k * n + i] * vectors[k * n + j];
      }
      res += (av - vectors[i * n + j] * values[j]) ** 2;
      orth += (vv - (i === j ? 1 : 0)) ** 2;
    }
  }
  expect(Math.sqrt(res)).toBeLessThanOrEqual(C * n * EPS * normA + Number.MIN_VALUE);
  expect(Math.sqrt(orth)).toBeLessThanOrEqual(C * n * EPS);
  for (let j = 1; j < n; j++) expect(values[j]).toBeLessThanOrEqual(values[j - 1]);
  const tol = 2 * C * n * EPS * normA + Number.MIN_VALUE;
  const reference = new EigenvalueDecomposition(toMatrix(A), { assumeSymmetric: true }).realEigenvalues.slice().sort((x, y) => y - x);
  for (let j = 0; j < n; j++) expect(Math.abs(values[j] - reference[j])).toBeLessThanOrEqual(tol);
  if (known) {
    const sorted = known.slice().sort((x, y) => y - x);
    for (let j = 0; j < n; j++) expect(Math.abs(values[j] - sorted[j])).toBeLessThanOrEqual(tol);
  }
}

function decompose(A: number[][]): { values: Float64Array; vectors: Float64Array } {
  const n = A.length;
  const a = Float64Array.from(A.flat());
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  new SymmetricEigen(n).decompose(n, a, 0, n, values, vectors);
  return { values, vectors };
}

function checkDense(A: number[][], known?: number[]): void {
  const { values, vectors } = decompose(A);
  check(A, values, vectors, known);
}

const N = DIVIDE_AND_CONQUER_MIN_ORDER + 7;

describe('TridiagonalEigen: bad arguments', () => {
  it('rejects an order above maxN or short outputs', () => {
    const solver = new TridiagonalEigen(4);
    const z = new Float64Array(25);
    expect(() => solver.decompose(5, z, z, z, z)).toThrow(/order must be an integer in 0\.\.4, got 5/);
    expect(() => solver.decompose(3, z, z, new Float64Array(2), z)).toThrow(/output arrays too short/);
  });
});

describe('TridiagonalEigen: divide and conquer on tridiagonal matrices', () => {
  const rand = mulberry32(5);
  for (const n of [1, 2, 3, 4, 7, 16, 33, 100]) {
    it(`random, n = ${n}`, () => {
      const diagonal = Float64Array.from({ length: n }, () => 2 * rand() - 1);
      const off = Float64Array.from({ length: n }, (_, i) => (i === 0 ? NaN : 2 * rand() - 1)); // off[0] is never read
      const A = Array.from({ length: n }, (_, i) =>
        Array.from({ length: n }, (_, j) => (i === j ? diagonal[i] : Math.abs(i - j) === 1 ? off[Math.max(i, j)] : 0)),
      );
      const values = new Float64Array(n);
      const vectors = new Float64Array(n * n);
      new TridiagonalEigen(n).decompose(n, diagonal, off, values, vectors);
      check(A, values, vectors);
    });
  }

  it('Wilkinson W21+ and a matrix that splits (zero off-diagonals)', () => {
    for (const split of [false, true]) {
      const n = 21;
      const diagonal = Float64Array.from({ length: n }, (_, i) => Math.abs(10 - i));
      const off = Float64Array.from({ length: n }, (_, i) => (split && i % 5 === 0 ? 0 : 1));
      const A = Array.from({ length: n }, (_, i) =>
        Array.from({ length: n }, (_, j) => (i === j ? diagonal[i] : Math.abs(i - j) === 1 ? off[Math.max(i, j)] : 0)),
      );
      const values = new Float64Array(n);
      const vectors = new Float64Array(n * n);
      new TridiagonalEigen(n).decompose(n, diagonal, off, values, vectors);
      check(A, values, vectors);
    }
  });
});

describe(`SymmetricEigen by divide and conquer (n ≥ ${DIVIDE_AND_CONQUER_MIN_ORDER})`, () => {
  const rand = mulberry32(77);

  it('random symmetric matrices', () => {
    for (const n of [N, 2 * N + 1]) checkDense(randomSymmetric(n, rand));
  });

  it('zero matrix, identity and an unsorted diagonal', () => {
    const zero = Array.from({ length: N }, () => new Array<number>(N).fill(0));
    checkDense(zero, new Array<number>(N).fill(0));
    checkDense(
      zero.map((row, i) => row.map((_, j) => (i === j ? 1 : 0))),
      new Array<number>(N).fill(1),
    );
    const d = Array.from({ length: N }, (_, i) => ((i * 37) % 11) - 5);
    checkDense(
      zero.map((row, i) => row.map((_, j) => (i === j ? d[i] : 0))),
      d,
    );
  });

  it('λI + a low-rank PSD part (the shape of OFUL-MLogB’s H̃): a cluster of n − rank equal eigenvalues', () => {
    for (const rank of [1, 5, 40]) {
      const X = randomDense(rank, N, rand);
      const A = Array.from({ length: N }, (_, i) =>
        Array.from({ length: N }, (_, j) => (i === j ? 3 : 0) + X.reduce((s, row) => s + row[i] * row[j], 0)),
      );
      const { values, vectors } = decompose(A);
      check(A, values, vectors);
      for (let j = rank; j < N; j++) expect(Math.abs(values[j] - 3)).toBeLessThanOrEqual(2 * C * N * EPS * frobenius(A));
    }
  });

  it('repeated eigenvalues in a random basis, and eigenvalues spanning 1e-12 .. 1e6', () => {
    const repeated = Array.from({ length: N }, (_, i) => [2, -1, 5, 0.5][i % 4]);
    checkDense(withSpectrum(randomOrthogonal(N, rand), repeated), repeated);
    const graded = Array.from({ length: N }, (_, i) => 10 ** (-12 + (18 * i) / (N - 1)));
    checkDense(withSpectrum(randomOrthogonal(N, rand), graded), graded);
  });

  it('badly scaled entries (1e-150 and 1e150)', () => {
    for (const scale of [1e-150, 1e150]) checkDense(randomSymmetric(N, rand).map((row) => row.map((x) => x * scale)));
  });
});

describe('SymmetricEigen.decomposeFactored: V kept as reflections × tridiagonal eigenvectors', () => {
  const rand = mulberry32(123);

  for (const n of [5, DIVIDE_AND_CONQUER_MIN_ORDER - 1, N, BLOCKED_REDUCTION_MIN_ORDER, 161, 2 * N + 1]) {
    it(`n = ${n}: the same eigenvalues as decompose, and V·c, Vᵀx as with the explicit V`, () => {
      const A = randomSymmetric(n, rand);
      const { values, vectors } = decompose(A);
      // Odd orders with the solver's arrays in a workspace (WebAssembly kernels).
      const solver = new SymmetricEigen(2 * N + 1, n % 2 === 1 ? new Workspace(1024, 'wasm') : undefined);
      const factoredValues = new Float64Array(n);
      solver.decomposeFactored(n, Float64Array.from(A.flat()), 0, n, factoredValues);
      const normA = frobenius(A);
      for (let j = 0; j < n; j++) expect(Math.abs(factoredValues[j] - values[j])).toBeLessThanOrEqual(2 * C * n * EPS * normA);

      const x = Float64Array.from({ length: n }, () => 2 * rand() - 1);
      const vtx = new Float64Array(n);
      solver.applyVectorsTransposed(x, vtx);
      const back = new Float64Array(n);
      solver.applyVectors(vtx, back);
      // V orthogonal: V Vᵀ x = x; and |Vᵀx| matches the explicit V column by column up to each column's sign.
      for (let i = 0; i < n; i++) expect(Math.abs(back[i] - x[i])).toBeLessThanOrEqual(C * n * EPS);
      for (let j = 0; j < n; j++) {
        let explicit = 0;
        for (let i = 0; i < n; i++) explicit += vectors[i * n + j] * x[i];
        // Columns of clustered eigenvalues may rotate within their cluster; random matrices have none.
        expect(Math.abs(Math.abs(vtx[j]) - Math.abs(explicit))).toBeLessThanOrEqual(1e-9);
      }
      // A V = V Λ through the factored form: A (V e_j) = λ_j (V e_j) for a few j.
      for (const j of [0, n >> 1, n - 1]) {
        const e = new Float64Array(n);
        e[j] = 1;
        const v = new Float64Array(n);
        solver.applyVectors(e, v);
        let res = 0;
        for (let i = 0; i < n; i++) {
          let av = 0;
          for (let k = 0; k < n; k++) av += A[i][k] * v[k];
          res += (av - factoredValues[j] * v[i]) ** 2;
        }
        expect(Math.sqrt(res)).toBeLessThanOrEqual(C * n * EPS * normA);
      }
    });
  }

  it('rejects an order outside 1..maxN', () => {
    expect(() => new SymmetricEigen(4).decomposeFactored(5, new Float64Array(25), 0, 5, new Float64Array(5))).toThrow(/order n must be an integer in 1\.\.4, got 5/);
  });
});
