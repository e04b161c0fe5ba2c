import { EigenvalueDecomposition } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { mirrorLower } from '../../src/linalg/blas.js';
import { BLOCKED_REDUCTION_MIN_ORDER } from '../../src/linalg/eigen.js';
import { SymmetricEigen } from '../../src/linalg/index.js';
import { Workspace } from '../../src/linalg/simd.js';
import {
  EPS,
  embed,
  frobenius,
  mulberry32,
  randomDense,
  randomOrthogonal,
  randomSymmetric,
  symmetricUniform,
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

describe('SymmetricEigen.eigenvalues (tred1/tql1)', () => {
  const rand = mulberry32(20261205);
  for (const n of [1, 2, 4, 5, 44, 95]) {
    it(`n = ${n}: decompose's values bit for bit, known spectrum, a not modified`, () => {
      const lambda = Array.from({ length: n }, () => 10 * symmetricUniform(rand));
      const A = withSpectrum(randomOrthogonal(n, rand), lambda);
      const a = embed(A, n, 3, n + 2, NaN);
      const copy = Float64Array.from(a.buf);
      const values = new Float64Array(n);
      const solver = new SymmetricEigen(n);
      solver.eigenvalues(n, a.buf, a.off, a.ld, values);
      expect(a.buf.every((x, i) => Object.is(x, copy[i]))).toBe(true);
      const full = decompose(A, solver);
      expect(Array.from(values)).toEqual(Array.from(full.values));
      const sorted = lambda.slice().sort((x, y) => y - x);
      const tol = 2 * C * n * EPS * frobenius(A);
      for (let j = 0; j < n; j++) expect(Math.abs(values[j] - sorted[j])).toBeLessThanOrEqual(tol);
      // Both backends: the same bits (the QL sweeps' rotations are skipped in either).
      const simdValues = new Float64Array(n);
      new SymmetricEigen(n, new Workspace(1024, 'wasm')).eigenvalues(n, a.buf, a.off, a.ld, simdValues);
      expect(Array.from(simdValues)).toEqual(Array.from(values));
    });
  }

  for (const n of [96, 130]) {
    it(`n = ${n} (QL without vectors where decompose takes divide and conquer): ml-matrix's eigenvalues and decomposeFactored's, both backends the same bits`, () => {
      const A = randomSymmetric(n, rand);
      const a = Float64Array.from(A.flat());
      const values = new Float64Array(n);
      new SymmetricEigen(n).eigenvalues(n, a, 0, n, values);
      const reference = new EigenvalueDecomposition(toMatrix(A), { assumeSymmetric: true }).realEigenvalues.sort((x, y) => y - x);
      const factored = new Float64Array(n);
      new SymmetricEigen(n).decomposeFactored(n, a, 0, n, factored);
      const tol = 2 * C * n * EPS * frobenius(A);
      for (let j = 0; j < n; j++) {
        expect(Math.abs(values[j] - reference[j])).toBeLessThanOrEqual(tol);
        expect(Math.abs(values[j] - factored[j])).toBeLessThanOrEqual(tol);
      }
      const simdValues = new Float64Array(n);
      new SymmetricEigen(n, new Workspace(1024, 'wasm')).eigenvalues(n, a, 0, n, simdValues);
      expect(Array.from(simdValues)).toEqual(Array.from(values));
    });
  }

  it('ends a factored decomposition that kept its reflections (applying it then throws)', () => {
    const n = 100;
    const a = Float64Array.from(randomSymmetric(n, rand).flat());
    const solver = new SymmetricEigen(n);
    const values = new Float64Array(n);
    const x = new Float64Array(n).fill(1);
    const out = new Float64Array(n);
    solver.decomposeFactored(n, a, 0, n, values);
    solver.applyVectors(x, out);
    solver.eigenvalues(n, a, 0, n, values);
    expect(() => solver.applyVectors(x, out)).toThrow(/no factored decomposition/);
    expect(() => solver.applyVectorsTransposed(x, out)).toThrow(/no factored decomposition/);
    expect(() => new SymmetricEigen(n).applyVectors(x, out)).toThrow(/no factored decomposition/);
  });

  it('rejects bad orders and short outputs', () => {
    const solver = new SymmetricEigen(3);
    expect(() => solver.eigenvalues(4, new Float64Array(16), 0, 4, new Float64Array(4))).toThrow(/integer in 1\.\.3/);
    expect(() => solver.eigenvalues(3, new Float64Array(9), 0, 3, new Float64Array(2))).toThrow(/too short/);
  });
});

describe('SymmetricEigen: the WebAssembly small-order path (reduction, QL sweeps) gives the TypeScript bits', () => {
  const rand = mulberry32(20261206);
  for (const n of [6, 44, 45]) {
    it(`n = ${n}: random, reducible (rows with nothing to reflect) and with a repeated eigenvalue`, () => {
      const random = randomSymmetric(n, rand);
      // Block diagonal with a decoupled last row: steps with scale = 0 in the reduction, and QL sweeps
      // that stop at a zero subdiagonal.
      const reducible = random.map((row, i) => row.map((x, j) => (i === n - 1 || j === n - 1 ? (i === j ? x : 0) : (i < n >> 1) === (j < n >> 1) ? x : 0)));
      const repeated = withSpectrum(randomOrthogonal(n, rand), Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 2 : i)));
      for (const A of [random, reducible, repeated]) {
        const plain = decompose(A);
        checkDecomposition(A, plain);
        const simd = decompose(A, new SymmetricEigen(n, new Workspace(1024, 'wasm')));
        expect(simd.values).toEqual(plain.values);
        expect(simd.vectors).toEqual(plain.vectors);
      }
    });
  }
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

  it('entries near the ends of the double range (1e-300, 1e300) through divide and conquer (n = 150)', () => {
    // ‖A‖² over- or underflows there, so the checks run on B = A/scale: eigenpairs of A are B's scaled.
    const n = 150;
    const B = randomSymmetric(n, rand);
    const normB = frobenius(B);
    for (const scale of [1e-300, 1e300]) {
      const { values, vectors } = decompose(B.map((row) => row.map((x) => x * scale)));
      let residual = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          let s = 0;
          for (let k = 0; k < n; k++) s += B[i][k] * vectors[k * n + j];
          residual += (s - vectors[i * n + j] * (values[j] / scale)) ** 2;
        }
      }
      expect(Math.sqrt(residual)).toBeLessThanOrEqual(C * n * EPS * normB);
      for (let j = 1; j < n; j++) expect(values[j]).toBeLessThanOrEqual(values[j - 1]);
    }
  });
});

/** The reduction's internals, for comparing the blocked reduction with tred2's loop on one matrix. */
interface ReductionInternals {
  w: Float64Array;
  d: Float64Array;
  e: Float64Array;
  load(n: number, a: Float64Array, aOff: number, lda: number): void;
  reduceUnblocked(n: number): void;
  reduceBlocked(n: number): void;
  reflect(n: number, i: number, x: Float64Array): void;
}

/** T (diagonal, T[i][i−1] for i ≥ 1) after one of the two reductions of A (n×n, ld = n). */
function reduceWith(solver: SymmetricEigen, blocked: boolean, n: number, a: Float64Array): { diagonal: number[]; offDiagonal: number[] } {
  const s = solver as unknown as ReductionInternals;
  s.load(n, a, 0, n);
  if (blocked) s.reduceBlocked(n);
  else {
    // At orders the blocked reduction takes, `load` copies only the lower triangle; tred2's loop reads both.
    mirrorLower(0, n, s.w, 0, n);
    s.reduceUnblocked(n);
  }
  return { diagonal: Array.from({ length: n }, (_, i) => s.w[i * n + i]!), offDiagonal: Array.from({ length: n }, (_, i) => (i === 0 ? 0 : s.e[i]!)) };
}

describe('SymmetricEigen: blocked Householder reduction (dsytrd/dlatrd)', () => {
  const rand = mulberry32(20261205);
  // Panels of 32 reflectors from row n−1 up: orders at the switch, and whose last panel is full, one
  // reflector long, or one short.
  const ORDERS = [BLOCKED_REDUCTION_MIN_ORDER - 1, BLOCKED_REDUCTION_MIN_ORDER, BLOCKED_REDUCTION_MIN_ORDER + 1, 160, 161, 162, 193];

  for (const n of ORDERS.slice(1)) {
    it(`n = ${n}: A = Q T Qᵀ with Q orthogonal (backward stable), both backends the same bits`, () => {
      const A = randomSymmetric(n, rand);
      const a = Float64Array.from(A.flat());
      const normA = frobenius(A);
      const results = [new SymmetricEigen(n), new SymmetricEigen(n, new Workspace(1024, 'wasm'))].map((solver) => {
        const { diagonal, offDiagonal } = reduceWith(solver, true, n, a);
        // Q's columns: Q e_k = P_{n−1}···P_1 e_k.
        const q = Array.from({ length: n }, (_, k) => {
          const x = new Float64Array(n);
          x[k] = 1;
          for (let i = 1; i < n; i++) (solver as unknown as ReductionInternals).reflect(n, i, x);
          return x;
        });
        return { diagonal, offDiagonal, q };
      });
      expect(results[1]!.diagonal).toEqual(results[0]!.diagonal);
      expect(results[1]!.offDiagonal).toEqual(results[0]!.offDiagonal);
      const { diagonal, offDiagonal, q } = results[0]!;
      // ‖A − Q T Qᵀ‖_F and ‖QᵀQ − I‖_F (q[k] is column k of Q).
      let residual = 0;
      let orthogonality = 0;
      for (let i = 0; i < n; i++) {
        for (let j = 0; j < n; j++) {
          let qtq = 0;
          let qtqt = 0;
          for (let k = 0; k < n; k++) {
            qtq += q[i]![k]! * q[j]![k]!;
            // (Q T Qᵀ)_ij = Σ_k Q_ik (T Qᵀ)_kj, T tridiagonal.
            let tq = diagonal[k]! * q[k]![j]!;
            if (k > 0) tq += offDiagonal[k]! * q[k - 1]![j]!;
            if (k + 1 < n) tq += offDiagonal[k + 1]! * q[k + 1]![j]!;
            qtqt += q[k]![i]! * tq;
          }
          residual += (A[i]![j]! - qtqt) ** 2;
          orthogonality += (qtq - (i === j ? 1 : 0)) ** 2;
        }
      }
      expect(Math.sqrt(residual)).toBeLessThanOrEqual(C * n * EPS * normA);
      expect(Math.sqrt(orthogonality)).toBeLessThanOrEqual(C * n * EPS);
      // The reduction's last column is e_n: row n−1 of Q is e_{n−1}ᵀ.
      for (let k = 0; k < n; k++) expect(q[k]![n - 1]).toBe(k === n - 1 ? 1 : 0);
    });
  }

  for (const n of ORDERS.slice(1)) {
    it(`n = ${n}: T does not depend on what W's upper triangle held (load copies only the lower)`, () => {
      const a = Float64Array.from(randomSymmetric(n, rand).flat());
      for (const space of [undefined, new Workspace(1024, 'wasm')]) {
        const fresh = reduceWith(new SymmetricEigen(n, space), true, n, a);
        const stale = new SymmetricEigen(n, space);
        (stale as unknown as ReductionInternals).w.fill(NaN);
        const diagonal = new Float64Array(n);
        const offDiagonal = new Float64Array(n);
        stale.tridiagonalize(n, a, 0, n, diagonal, offDiagonal);
        expect(Array.from(diagonal)).toEqual(fresh.diagonal);
        expect(Array.from(offDiagonal)).toEqual(fresh.offDiagonal);
        const w = (stale as unknown as ReductionInternals).w;
        for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) expect(w[i * n + j]).toBe(0);
      }
    });

    it(`n = ${n}: the same T as tred2's loop, as far as T is determined by A`, () => {
      // Both reductions fix Q's last column to e_n, so T is unique up to the off-diagonal's signs
      // (implicit Q theorem); but T is a forward-unstable function of A (Paige: like Lanczos, its
      // entries amplify rounding once Ritz values converge). So the bound is c·n·eps·‖A‖ or, where A's
      // reduction is sensitive, a few times how far tred2's own T moves when A moves by eps·‖A‖.
      const A = randomSymmetric(n, rand);
      const a = Float64Array.from(A.flat());
      const normA = frobenius(A);
      const perturbed = Float64Array.from(a);
      for (let i = 0; i < n; i++) {
        for (let j = 0; j <= i; j++) {
          const delta = (2 * rand() - 1) * EPS;
          perturbed[i * n + j]! += delta;
          if (j < i) perturbed[j * n + i]! += delta;
        }
      }
      const solver = new SymmetricEigen(n, new Workspace(1024, 'wasm'));
      const unblocked = reduceWith(solver, false, n, a);
      const moved = reduceWith(solver, false, n, perturbed);
      const blocked = reduceWith(solver, true, n, a);
      let sensitivity = 0;
      let difference = 0;
      for (let i = 0; i < n; i++) {
        sensitivity = Math.max(sensitivity, Math.abs(moved.diagonal[i]! - unblocked.diagonal[i]!), Math.abs(Math.abs(moved.offDiagonal[i]!) - Math.abs(unblocked.offDiagonal[i]!)));
        difference = Math.max(difference, Math.abs(blocked.diagonal[i]! - unblocked.diagonal[i]!), Math.abs(Math.abs(blocked.offDiagonal[i]!) - Math.abs(unblocked.offDiagonal[i]!)));
      }
      expect(difference).toBeLessThanOrEqual(Math.max(C * n * EPS * normA, 4 * sensitivity));
      // The first two panels (rows n−1 .. n−64), before rounding has been amplified, to c·n·eps·‖A‖ entry by entry.
      for (let i = n - 64; i < n; i++) {
        expect(Math.abs(blocked.diagonal[i]! - unblocked.diagonal[i]!)).toBeLessThanOrEqual(C * n * EPS * normA);
        expect(Math.abs(Math.abs(blocked.offDiagonal[i]!) - Math.abs(unblocked.offDiagonal[i]!))).toBeLessThanOrEqual(C * n * EPS * normA);
      }
    });
  }

  for (const n of ORDERS) {
    it(`n = ${n}: eigenpairs (residual, orthogonality, eigenvalues), and both backends the same bits`, () => {
      const A = randomSymmetric(n, rand);
      const plain = decompose(A);
      checkDecomposition(A, plain);
      const simd = decompose(A, new SymmetricEigen(n, new Workspace(1024, 'wasm')));
      expect(simd.values).toEqual(plain.values);
      expect(simd.vectors).toEqual(plain.vectors);
    });
  }

  it('rows with nothing to reflect: the first step, and one inside a panel (a reducible matrix)', () => {
    const n = 150;
    const A = randomSymmetric(n, rand);
    for (let j = 0; j < n - 1; j++) A[n - 1]![j] = A[j]![n - 1] = 0;
    checkDecomposition(A, decompose(A));
    // Block diagonal: the second block's reflectors keep rows 0..59 out, so row 60 (panel step 25)
    // reaches its turn with zeros before the diagonal.
    const B = A.map((row, i) => row.map((x, j) => ((i < 60) === (j < 60) ? x : 0)));
    checkDecomposition(B, decompose(B));
  });
});
