import { describe, expect, it } from 'vitest';
import { Matrix } from 'ml-matrix';
import { ExactBallProjection, secularRoot } from '../../src/model/projection.js';
import { denseProjection, maxAbsDiff, norm, seededNormal, seededUniform } from '../helpers/dense.js';

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
    expect(() => new ExactBallProjection(3).project(new Float64Array(3), 1)).toThrow(/fill matrix\(\) before decompose\(\) or project\(\)/);
    expect(() => new ExactBallProjection(3).decompose()).toThrow(/fill matrix\(\) before decompose\(\) or project\(\)/);
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
