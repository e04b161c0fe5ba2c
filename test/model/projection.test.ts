import { describe, expect, it } from 'vitest';
import { Matrix, solve } from 'ml-matrix';
import { homeOf, wasmAvailable, withBackend } from '../../src/linalg/simd.js';
import { ExactBallProjection, TrustRegionProjection, secularRoot } from '../../src/model/projection.js';
import { denseProjection, maxAbsDiff, norm, seededNormal, seededUniform } from '../helpers/dense.js';
import { EPS, mulberry32, randomOrthogonal, withSpectrum } from '../linalg/fixtures.js';

function f(a: number[], b: number[], nu: number): number {
  return a.reduce((s, ai, i) => s + ai / (b[i] + nu) ** 2, 0);
}

describe('secularRoot: edge cases', () => {
  it('solves a single term exactly: a/(b+ν)² = S² ⇒ ν = √a/S − b', () => {
    const nu = secularRoot(1, Float64Array.of(9), Float64Array.of(0.5), 1);
    expect(nu).toBeCloseTo(2.5, 14);
  });
});

describe('secularRoot: Lemma 2, eq. (24), to machine precision', () => {
  it('finds the root of f(ν) = S² for random problems spanning many scales', () => {
    const uniform = seededUniform(3);
    for (let trial = 0; trial < 200; trial++) {
      const n = 1 + Math.floor(uniform() * 40);
      const a = Array.from({ length: n }, () => 10 ** (6 * uniform() - 3));
      const b = Array.from({ length: n }, () => 10 ** (6 * uniform() - 2));
      const f0 = f(a, b, 0);
      const target = f0 * (0.001 + 0.99 * uniform());
      const nu = secularRoot(n, Float64Array.from(a), Float64Array.from(b), target);
      expect(nu).toBeGreaterThan(0);
      expect(Math.abs(f(a, b, nu) - target)).toBeLessThan(1e-12 * target);
    }
  });
});

describe('ExactBallProjection', () => {
  it('asks for its matrix before projecting', () => {
    expect(() => new ExactBallProjection(3).project(new Float64Array(3), 1)).toThrow(/fill matrix\(\) before eigenvalues\(\) or project\(\)/);
    expect(() => new ExactBallProjection(3).eigenvalues()).toThrow(/fill matrix\(\) before eigenvalues\(\) or project\(\)/);
  });

  it('equals the dense M-norm projection (ml-matrix eigenvectors, bisection on ν), lands on the sphere', () => {
    const normal = seededNormal(5);
    for (const n of [1, 4, 9]) {
      const b = Matrix.from1DArray(n, n, Array.from({ length: n * n }, () => normal()));
      const M = b.mmul(b.transpose()).add(Matrix.eye(n).mul(0.5));
      const point = Array.from({ length: n }, () => 3 * normal());
      const S = 0.5 * norm(point);
      const projection = new ExactBallProjection(n);
      projection.matrix().set(M.to1DArray());
      const got = Float64Array.from(point);
      projection.project(got, S);
      expect(maxAbsDiff(got, denseProjection(M, point, S))).toBeLessThan(1e-9 * (1 + norm(point)));
      expect(Math.abs(norm(got) - S)).toBeLessThan(1e-10 * S);
      expect(projection.byteLength).toBeGreaterThan(0);
    }
  });
});

/** M = Q diag(μ) Qᵀ with μ from 1 down to 1/condition (geometric), and a point ‖W′‖ = ratio·S, S = 1. */
function problem(n: number, condition: number, ratio: number, seed: number) {
  const rand = mulberry32(seed);
  const values = Array.from({ length: n }, (_, i) => (n === 1 ? 1 : condition ** (-i / (n - 1))));
  const matrix = Float64Array.from(withSpectrum(randomOrthogonal(n, rand), values).flat());
  const normal = seededNormal(seed + 1);
  const raw = Array.from({ length: n }, normal);
  const point = Float64Array.from(raw, (v) => (v / norm(raw)) * ratio);
  return { values, matrix, point, S: 1 };
}

/** Both projections of `point`; the trust-region one with its factorisation count and ν. */
function projectBoth(n: number, matrix: Float64Array, point: Float64Array, S: number) {
  const eigen = new ExactBallProjection(n);
  eigen.matrix().set(matrix);
  const byEigen = Float64Array.from(point);
  eigen.project(byEigen, S);
  const trust = new TrustRegionProjection(n);
  trust.matrix().set(matrix);
  const byTrust = Float64Array.from(point);
  trust.project(byTrust, S);
  return { byEigen, nuEigen: eigen.multiplier, byTrust, nu: trust.multiplier, factorizations: trust.factorizations, trust };
}

/** ‖M(W − W′) + νW‖: the KKT condition of eq. (9) at W, ν. */
function kktResidual(n: number, matrix: Float64Array, w: Float64Array, point: Float64Array, nu: number): number {
  const r = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = nu * w[i];
    for (let j = 0; j < n; j++) s += matrix[i * n + j] * (w[j] - point[j]);
    r[i] = s;
  }
  return norm(r);
}

describe('TrustRegionProjection: bad arguments', () => {
  it('asks for its matrix before projecting', () => {
    expect(() => new TrustRegionProjection(3).project(new Float64Array(3), 1)).toThrow(/fill matrix\(\) before project\(\)/);
  });

  it('rejects a floor that is negative or not a number', () => {
    expect(() => new TrustRegionProjection(3, { floor: -1 })).toThrow(/floor must be finite and ≥ 0, got -1/);
    expect(() => new TrustRegionProjection(3, { floor: NaN })).toThrow(/floor must be finite and ≥ 0, got NaN/);
  });

  it('says so when M + νI is not positive definite', () => {
    const projection = new TrustRegionProjection(2);
    projection.matrix().set([-1, 0, 0, -1]);
    expect(() => projection.project(Float64Array.of(1.5, 0), 1)).toThrow(/M \+ νI is not positive definite \(ν = \d/);
  });
});

describe('TrustRegionProjection: eq. (9) by Cholesky factorisations (Moré–Sorensen)', () => {
  it('leaves a point inside the ball as it is, without a factorisation', () => {
    const { matrix, point } = problem(4, 10, 0.9, 1);
    const projection = new TrustRegionProjection(4);
    projection.matrix().set(matrix);
    const got = Float64Array.from(point);
    projection.project(got, 1);
    expect(got).toEqual(point);
    expect(projection.factorizations).toBe(0);
  });

  for (const n of [1, 6, 40, 150]) {
    it(`n = ${n}, κ(M) = 100: equals the eigen-based projection far and barely outside the ball, ‖W‖ = S, in ≤ 6 factorisations`, () => {
      for (const ratio of [1 + 1e-9, 1 + 1e-6, 1.01, 1.5, 4, 1000]) {
        const { matrix, point, S } = problem(n, 100, ratio, n + Math.round(ratio));
        const { byEigen, nuEigen, byTrust, nu, factorizations } = projectBoth(n, matrix, point, S);
        expect(maxAbsDiff(byTrust, byEigen)).toBeLessThan(1e-12 * S);
        expect(Math.abs(norm(byTrust) - S)).toBeLessThan(1e-13 * S);
        // ν at machine precision, up to the cancellation in ‖W′‖ − S that sets it when barely outside.
        expect(Math.abs(nu - nuEigen)).toBeLessThan(64 * EPS * (ratio / (ratio - 1)) * nu);
        expect(kktResidual(n, matrix, byTrust, point, nu)).toBeLessThan(4 * n * EPS * ratio);
        expect(factorizations).toBeLessThanOrEqual(6);
      }
    });
  }

  it('returns W at the returned ν: (M + νI)⁻¹MW′ by a dense solve (ml-matrix) at that ν', () => {
    for (const [n, ratio] of [[6, 1.3], [40, 3], [40, 1 + 1e-7]] as const) {
      const { matrix, point, S } = problem(n, 1000, ratio, 7 * n);
      const { byTrust, nu } = projectBoth(n, matrix, point, S);
      const M = new Matrix(Array.from({ length: n }, (_, i) => Array.from(matrix.subarray(i * n, (i + 1) * n))));
      const reference = solve(M.clone().add(Matrix.eye(n).mul(nu)), M.mmul(Matrix.columnVector(Array.from(point)))).to1DArray();
      expect(maxAbsDiff(byTrust, reference)).toBeLessThan(1e-12 * S);
    }
  });

  for (const condition of [1e8, 1e12]) {
    it(`κ(M) = ${condition.toExponential(0)}: equals the eigen-based projection to 1e-11 when ν is not tiny, within ε·κ(M+νI) when it is`, () => {
      for (const n of [6, 40, 150]) {
        for (const ratio of [1 + 1e-6, 1.01, 1.5, 1000]) {
          const { values, matrix, point, S } = problem(n, condition, ratio, n + Math.round(ratio));
          const { byEigen, byTrust, nu } = projectBoth(n, matrix, point, S);
          // Both solve a problem whose condition number is κ(M + νI): the eigenvalue errors ε‖M‖ of the
          // one and the backward error of the Cholesky factor of the other move W by up to ε·κ(M+νI)·S.
          const kappa = (values[0] + nu) / (values[n - 1] + nu);
          const tolerance = Math.max(1e-11, EPS * kappa) * S;
          expect(maxAbsDiff(byTrust, byEigen)).toBeLessThan(tolerance);
          expect(Math.abs(norm(byTrust) - S)).toBeLessThan(tolerance);
          expect(kktResidual(n, matrix, byTrust, point, nu)).toBeLessThan(4 * n * EPS * ratio);
        }
      }
    });
  }

  it('counts its factorisations: 1–2 far outside, one from a warm start at the root, ≤ 3 from the last ν after a small change', () => {
    for (const n of [6, 40, 150]) {
      const far = problem(n, 100, 1000, n);
      expect(projectBoth(n, far.matrix, far.point, far.S).factorizations).toBeLessThanOrEqual(2);
      const { matrix, point, S } = problem(n, 1e4, 2, n);
      const { trust } = projectBoth(n, matrix, point, S);
      const cold = trust.factorizations;
      trust.project(Float64Array.from(point), S);
      expect(trust.factorizations - cold).toBe(1);
      const normal = seededNormal(n);
      const moved = point.map((v) => v * (1 + 1e-3 * normal()));
      for (let i = 0; i < n * n; i++) trust.matrix()[i] *= 1 + 1e-3 * (i % 7 === 0 ? 1 : 0) * (i % (n + 1) === 0 ? 1 : 0);
      trust.project(moved, S);
      expect(trust.factorizations - cold - 1).toBeLessThanOrEqual(3);
    }
  });

  it('uses a floor on M\'s spectrum (a lower bound on ν) and gives the same W', () => {
    const n = 40;
    const { values, matrix, point, S } = problem(n, 1e6, 3, 5);
    const { byTrust, nu } = projectBoth(n, matrix, point, S);
    const floored = new TrustRegionProjection(n, { floor: values[n - 1] });
    floored.matrix().set(matrix);
    const got = Float64Array.from(point);
    floored.project(got, S);
    expect(maxAbsDiff(got, byTrust)).toBeLessThan(1e-13 * S);
    expect(Math.abs(floored.multiplier - nu)).toBeLessThan(1e-13 * nu);
  });

  it.runIf(wasmAvailable())('keeps its arrays in a WebAssembly workspace and gives the same bits as under the js backend', () => {
    const n = 40;
    const { matrix, point, S } = problem(n, 1e3, 2, 9);
    const run = (choice: 'js' | 'wasm') =>
      withBackend(choice, () => {
        const projection = new TrustRegionProjection(n);
        projection.matrix().set(matrix);
        const got = Float64Array.from(point);
        projection.project(got, S);
        return { got, home: homeOf(projection.matrix()), bytes: projection.byteLength };
      });
    const js = run('js');
    const wasm = run('wasm');
    expect(js.home).toBeUndefined();
    expect(wasm.home).toBeDefined();
    expect(Array.from(wasm.got)).toEqual(Array.from(js.got));
    expect(wasm.bytes).toBe(8 * (2 * n * n + 4 * n));
  });
});
