/**
 * One update of each policy against the dense reference (as update-step.test.ts) at sizes that take
 * the large-matrix code paths: OFUL-MLogB's projection with Kd ≥ DIVIDE_AND_CONQUER_MIN_ORDER (divide
 * and conquer, eigenvectors kept factored) and EOFD-MLogB with K = 3 and m + K ≥ that order (the
 * Gram matrix by divide and conquer).
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { DIVIDE_AND_CONQUER_MIN_ORDER } from '../../src/linalg/eigen.js';
import { EofdMLogB } from '../../src/policies/eofd-mlogb.js';
import { OfulMLogB } from '../../src/policies/oful-mlogb.js';
import type { Policy } from '../../src/policies/policy.js';
import {
  denseInverse,
  denseProjection,
  jacobianDense,
  kronHessian,
  lowRankDense,
  maxAbsDiff,
  norm,
  randomVector,
  seededNormal,
  seededUniform,
  softmaxDense,
  timesX,
} from '../helpers/dense.js';
import { actionSet, makeSpec } from '../helpers/policies.js';

function denseUpdate(Z: Matrix, w: Float64Array, x: number[], outcome: number, eta: number, S: number) {
  const K = Z.rows / x.length;
  const sigma = softmaxDense(timesX(w, K, x));
  const coefficients = sigma.map((s, k) => s - (outcome === k + 1 ? 1 : 0));
  const gradient = coefficients.flatMap((c) => x.map((xa) => c * xa));
  const zTilde = Z.clone().add(kronHessian(jacobianDense(sigma), x).mul(eta));
  const step = denseInverse(zTilde).mmul(Matrix.columnVector(gradient)).to1DArray();
  const wPrime = Array.from(w, (v, i) => v - eta * step[i]);
  const projected = norm(wPrime) > S;
  return { next: projected ? denseProjection(zTilde, wPrime, S) : wPrime, projected };
}

function curvatureOf(policy: Policy, lambda: number): Matrix {
  if (policy instanceof EofdMLogB) {
    const { sketch } = policy;
    return lowRankDense(sketch.dimension, sketch.rank, sketch.basis, sketch.weights).add(Matrix.eye(sketch.dimension).mul(lambda));
  }
  const h = (policy as OfulMLogB).hessian;
  const n = Math.sqrt(h.length);
  return new Matrix(Array.from({ length: n }, (_, i) => Array.from(h.subarray(i * n, (i + 1) * n))));
}

describe('large sizes: one update against the dense reference', () => {
  const S = 0.3;
  const eta = 1.5;
  const lambda = 2;
  for (const [name, K, d, build] of [
    ['OFUL-MLogB', 1, DIVIDE_AND_CONQUER_MIN_ORDER + 4, (K: number, d: number) => new OfulMLogB(makeSpec(K, d, { radius: S }))],
    ['EOFD-MLogB', 3, 40, (K: number, d: number) => new EofdMLogB(makeSpec(K, d, { radius: S, sketchSize: DIVIDE_AND_CONQUER_MIN_ORDER }))],
  ] as const) {
    it(`${name}, K = ${K}, d = ${d}: eqs. (8)–(9) round by round, with projections`, () => {
      const policy = build(K, d);
      const normal = seededNormal(3);
      const uniform = seededUniform(4);
      let projected = 0;
      // K = 3 adds up to three directions per round: 40 rounds fill m + K ≥ DIVIDE_AND_CONQUER_MIN_ORDER.
      const rounds = K === 1 ? 12 : 40;
      for (let t = 1; t <= rounds; t++) {
        const rows = Array.from({ length: 4 }, () => randomVector(d, normal, 1));
        const index = policy.select(actionSet(rows), t);
        const x = rows[index];
        const outcome = Math.floor(uniform() * (K + 1));
        const expected = denseUpdate(curvatureOf(policy, lambda), Float64Array.from(policy.weights()), x, outcome, eta, S);
        const before = policy.stats().projections;
        policy.update(Float64Array.from(x), outcome);
        expect(policy.stats().projections > before).toBe(expected.projected);
        expect(maxAbsDiff(policy.weights(), expected.next)).toBeLessThan(1e-9);
        if (expected.projected) projected++;
      }
      expect(projected).toBeGreaterThan(3);
      if (policy instanceof EofdMLogB) expect(policy.sketch.rank + K).toBeGreaterThanOrEqual(DIVIDE_AND_CONQUER_MIN_ORDER);
    });
  }
});
