import { CholeskyDecomposition, inverse } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { NB } from '../../src/linalg/cholesky.js';
import { cholesky, choleskyRankOneUpdate, choleskySolve, solveLowerTransposed, spdInverse } from '../../src/linalg/index.js';
import { Workspace, homeOf } from '../../src/linalg/simd.js';
import { EPS, embed, extract, frobenius, matmul, mulberry32, randomDense, randomOrthogonal, toMatrix, transpose, withSpectrum } from './fixtures.js';

/** Orders on both sides of the panel boundaries of the blocked algorithms, and one of many panels. */
const ORDERS = [1, 2, 3, 5, NB - 1, NB, NB + 1, 2 * NB + 3, 300];
/** Where the matrices live: plain arrays (TypeScript kernels) or a workspace memory (WebAssembly). */
const STORAGES = ['plain', 'workspace'] as const;
type Storage = (typeof STORAGES)[number];

/** `buf` itself, or a copy of it in a fresh wasm workspace. */
function place(buf: Float64Array, storage: Storage): Float64Array {
  if (storage === 'plain') return buf;
  const copy = new Workspace(8 * buf.length + 65536, 'wasm').float64(buf.length);
  copy.set(buf);
  return copy;
}

/** Bit patterns, so that −0 ≠ +0 and NaN payloads count. */
function bits(a: Float64Array): bigint[] {
  return Array.from(new BigInt64Array(a.buffer, a.byteOffset, a.length));
}

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

  it('blocked orders: a pivot failing in any panel, or a non-finite entry anywhere, returns false', () => {
    const n = 2 * NB + 3;
    const A = randomSpd(n, rand);
    const l = Float64Array.from(A.flat());
    expect(cholesky(n, l, 0, n)).toBe(true);
    // A[k][k] − 1.5·L[k][k]² leaves rows before k alone and makes pivot k negative.
    for (const k of [0, NB - 1, NB, NB + 1, 2 * NB, n - 1]) {
      const B = A.map((row) => row.slice());
      B[k][k] -= 1.5 * l[k * n + k] ** 2;
      for (const storage of STORAGES) {
        expect(cholesky(n, place(Float64Array.from(B.flat()), storage), 0, n), `pivot ${k} ${storage}`).toBe(false);
      }
      expect(invert(B), `pivot ${k}`).toBeNull();
    }
    for (const [i, j] of [
      [0, 0],
      [NB + 1, 3],
      [NB - 1, NB - 2],
      [2 * NB + 1, NB],
      [n - 1, 0],
      [n - 1, n - 1],
    ]) {
      for (const bad of [NaN, Infinity, -Infinity]) {
        const B = A.map((row) => row.slice());
        B[i][j] = bad;
        for (const storage of STORAGES) {
          expect(cholesky(n, place(Float64Array.from(B.flat()), storage), 0, n), `(${i}, ${j}) = ${bad} ${storage}`).toBe(false);
        }
        expect(invert(B), `(${i}, ${j}) = ${bad}`).toBeNull();
      }
    }
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
  for (const storage of STORAGES) {
    for (const n of ORDERS) {
      it(`n = ${n} (${storage}), at an offset with a padded leading dimension (padding NaN)`, () => {
        const A = randomSpd(n, rand);
        const ld = n + 3;
        // NaN in the padding and above the diagonal: neither may be read.
        const e = embed(A.map((row, i) => row.map((x, j) => (j > i ? NaN : x))), n, 2, ld, NaN);
        const buf = place(e.buf, storage);
        expect(homeOf(buf) !== undefined).toBe(storage === 'workspace');
        expect(cholesky(n, buf, e.off, ld)).toBe(true);

        const L = extract({ buf, off: e.off, ld }, n, n);
        const reference = new CholeskyDecomposition(toMatrix(A)).lowerTriangularMatrix.to2DArray();
        const normA = frobenius(A);
        let worst = 0;
        for (let i = 0; i < n; i++) {
          for (let j = 0; j <= i; j++) worst = Math.max(worst, Math.abs(L[i][j] - reference[i][j]));
        }
        // ‖ΔL‖ ≲ n·eps·‖L‖ for a well-conditioned A; ‖L‖_F² = tr A ≤ ‖A‖_F·√n.
        expect(worst).toBeLessThanOrEqual(8 * n * EPS * Math.sqrt(normA * Math.sqrt(n)));
        // Backward error: ‖LLᵀ − A‖ ≤ c·n·eps·‖A‖.
        const lower = L.map((row, i) => row.map((x, j) => (j <= i ? x : 0)));
        const LLt = matmul(lower, transpose(lower, n));
        let err = 0;
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) err += (LLt[i][j] - A[i][j]) ** 2;
        expect(Math.sqrt(err)).toBeLessThanOrEqual(4 * n * EPS * normA);

        // Solve against ml-matrix's solve, then check the residual ‖Az − b‖.
        const SENTINEL = -5.5;
        const rhs = Array.from({ length: n }, () => 2 * rand() - 1);
        const b = new Float64Array(n + 4).fill(SENTINEL);
        b.set(rhs, 3);
        choleskySolve(n, buf, e.off, ld, b, 3);
        expect(b[2]).toBe(SENTINEL);
        expect(b[3 + n]).toBe(SENTINEL);
        const z = Array.from(b.subarray(3, 3 + n));
        const zRef = new CholeskyDecomposition(toMatrix(A)).solve(toMatrix(rhs.map((x) => [x]))).getColumn(0);
        const zNorm = Math.hypot(...zRef);
        let zWorst = 0;
        for (let i = 0; i < n; i++) zWorst = Math.max(zWorst, Math.abs(z[i] - zRef[i]));
        expect(zWorst).toBeLessThanOrEqual(16 * n * EPS * zNorm);
        let res = 0;
        for (let i = 0; i < n; i++) {
          let s = -rhs[i];
          for (let j = 0; j < n; j++) s += A[i][j] * z[j];
          res += s * s;
        }
        expect(Math.sqrt(res)).toBeLessThanOrEqual(8 * n * EPS * normA * zNorm);
      });
    }
  }
});

describe('cholesky writes only the lower triangle', () => {
  const rand = mulberry32(7);
  for (const storage of STORAGES) {
    it(`orders ${[NB + 1, 2 * NB + 3, 300].join(', ')} (${storage}): upper triangle and padding keep their sentinels`, () => {
      for (const n of [NB + 1, 2 * NB + 3, 300]) {
        const A = randomSpd(n, rand);
        const ld = n + 3;
        const SENTINEL = -5.5;
        const e = embed(A.map((row, i) => row.map((x, j) => (j > i ? SENTINEL : x))), n, 2, ld, SENTINEL);
        const buf = place(e.buf, storage);
        expect(cholesky(n, buf, e.off, ld)).toBe(true);
        let touched = 0;
        for (let i = 0; i < buf.length; i++) {
          const row = Math.floor((i - e.off) / ld);
          const inLower = i >= e.off && row < n && i - e.off - row * ld <= row;
          if (!inLower && buf[i] !== SENTINEL) touched++;
        }
        expect(touched, `n = ${n}`).toBe(0);
      }
    });
  }
});

describe('spdInverse vs ml-matrix', () => {
  const rand = mulberry32(8);
  for (const storage of STORAGES) {
    for (const n of ORDERS) {
      it(`n = ${n} (${storage})`, () => {
        const A = randomSpd(n, rand);
        const ld = n + 2;
        // Padding and upper triangle NaN: never read.
        const a = place(embed(A.map((row, i) => row.map((x, j) => (j > i ? NaN : x))), n, 1, ld, NaN).buf, storage);
        const copy = Float64Array.from(a);
        const ldo = n + 1;
        const out = place(new Float64Array(3 + n * ldo).fill(-1), storage);
        const work = place(new Float64Array(n * n + n).fill(NaN), storage); // stale work: never read before written
        expect(spdInverse(n, a, 1, ld, out, 3, ldo, work)).toBe(true);
        expect(a.every((x, i) => Object.is(x, copy[i]))).toBe(true); // a not modified
        expect(out[2]).toBe(-1);

        const X = Array.from({ length: n }, (_, i) => Array.from(out.subarray(3 + i * ldo, 3 + i * ldo + n)));
        let asymmetric = 0;
        for (let i = 0; i < n; i++) {
          for (let j = 0; j < i; j++) if (X[j][i] !== X[i][j]) asymmetric++; // exactly symmetric
          expect(out[3 + i * ldo + n]).toBe(-1); // padding untouched
        }
        expect(asymmetric).toBe(0);
        const normA = frobenius(A);
        const normX = frobenius(X);
        const kappa = normA * normX; // ≥ κ₂(A)
        const reference = inverse(toMatrix(A)).to2DArray();
        let worst = 0;
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) worst = Math.max(worst, Math.abs(X[i][j] - reference[i][j]));
        expect(worst).toBeLessThanOrEqual(8 * n * EPS * kappa * normX);
        // ‖A·A⁻¹ − I‖ ≤ c·n·eps·κ.
        const AX = matmul(A, X);
        let err = 0;
        for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) err += (AX[i][j] - (i === j ? 1 : 0)) ** 2;
        expect(Math.sqrt(err)).toBeLessThanOrEqual(8 * n * EPS * kappa);
      });
    }
  }

  it('blocked order, κ = 1e10 (spectrum 1 … 1e-10 in a random basis): LLᵀ = A to n·eps·‖A‖, A·A⁻¹ = I to n·eps·κ', () => {
    const n = 2 * NB + 3;
    const rand = mulberry32(9);
    const A = withSpectrum(
      randomOrthogonal(n, rand),
      Array.from({ length: n }, (_, i) => 10 ** (-10 * (i / (n - 1)))),
    );
    const normA = frobenius(A);
    const l = Float64Array.from(A.flat());
    expect(cholesky(n, l, 0, n)).toBe(true);
    const lower = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (j <= i ? l[i * n + j] : 0)));
    const LLt = matmul(lower, transpose(lower, n));
    let err = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) err += (LLt[i][j] - A[i][j]) ** 2;
    expect(Math.sqrt(err)).toBeLessThanOrEqual(4 * n * EPS * normA);

    const out = invert(A);
    expect(out).not.toBeNull();
    const X = Array.from({ length: n }, (_, i) => Array.from(out!.subarray(i * n, i * n + n)));
    const kappa = normA * frobenius(X);
    const AX = matmul(A, X);
    let residual = 0;
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) residual += (AX[i][j] - (i === j ? 1 : 0)) ** 2;
    expect(Math.sqrt(residual)).toBeLessThanOrEqual(8 * n * EPS * kappa);
  });

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

describe('cholesky, spdInverse: both backends give the same bits', () => {
  const rand = mulberry32(31);
  it('plain arrays (TypeScript kernels) and workspace arrays (WebAssembly), one workspace for growing orders', () => {
    const space = new Workspace(1 << 16, 'wasm');
    for (const n of [NB + 1, 2 * NB + 3, 300]) {
      const A = randomSpd(n, rand);
      const ld = n + 1;
      const plain = embed(A, n, 1, ld, NaN).buf;
      const home = space.float64(plain.length);
      home.set(plain);
      expect(cholesky(n, plain, 1, ld)).toBe(true);
      expect(cholesky(n, home, 1, ld)).toBe(true);
      expect(bits(home), `cholesky n = ${n}`).toEqual(bits(plain));

      const a = Float64Array.from(A.flat());
      const plainOut = new Float64Array(n * n);
      const homeOut = space.float64(n * n);
      expect(spdInverse(n, a, 0, n, plainOut, 0, n, new Float64Array(n * n + n))).toBe(true);
      expect(spdInverse(n, a, 0, n, homeOut, 0, n, space.float64(n * n + n))).toBe(true);
      expect(bits(homeOut), `spdInverse n = ${n}`).toEqual(bits(plainOut));
    }
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
