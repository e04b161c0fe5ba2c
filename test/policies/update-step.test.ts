/**
 * One round's update of each policy against the dense reference: Z̃ = Z + η∇²ℓ(W_t) formed explicitly,
 * W' = W − ηZ̃⁻¹∇ℓ by a dense inverse, and the projection of eq. (9) by eigendecomposition and bisection.
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
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

/** The dense reference of eqs. (8)–(9) from the curvature matrix Z before the round. */
function denseUpdate(Z: Matrix, w: Float64Array, x: number[], outcome: number, eta: number, S: number) {
  const K = Z.rows / x.length;
  const sigma = softmaxDense(timesX(w, K, x));
  const coefficients = sigma.map((s, k) => s - (outcome === k + 1 ? 1 : 0));
  const gradient = coefficients.flatMap((c) => x.map((xa) => c * xa));
  const zTilde = Z.clone().add(kronHessian(jacobianDense(sigma), x).mul(eta));
  const step = denseInverse(zTilde).mmul(Matrix.columnVector(gradient)).to1DArray();
  const wPrime = Array.from(w, (v, i) => v - eta * step[i]);
  const projected = norm(wPrime) > S;
  return { next: projected ? denseProjection(zTilde, wPrime, S) : wPrime, projected, wPrime };
}

function curvatureOf(policy: Policy, lambda: number): Matrix {
  if (policy instanceof EofdMLogB) {
    const { sketch } = policy;
    return lowRankDense(sketch.dimension, sketch.rank, sketch.basis, sketch.weights).add(Matrix.eye(sketch.dimension).mul(lambda));
  }
  const oful = policy as OfulMLogB;
  const n = Math.sqrt(oful.hessian.length);
  return new Matrix(Array.from({ length: n }, (_, i) => Array.from(oful.hessian.subarray(i * n, (i + 1) * n))));
}

for (const [name, build] of [
  ['EOFD-MLogB', (K: number, d: number, S: number) => new EofdMLogB(makeSpec(K, d, { radius: S, sketchSize: 5 }))],
  ['OFUL-MLogB', (K: number, d: number, S: number) => new OfulMLogB(makeSpec(K, d, { radius: S }))],
] as const) {
  describe(`${name}: one update against the dense reference`, () => {
    for (const K of [1, 3]) {
      it(`matches eqs. (8)–(9) round by round, projecting or not (K = ${K})`, () => {
        const d = 6;
        const S = 0.8;
        const eta = 1.5;
        const lambda = 2;
        const policy = build(K, d, S);
        const normal = seededNormal(11 + K);
        const uniform = seededUniform(5 + K);
        let projected = 0;
        let free = 0;
        for (let t = 1; t <= 80; t++) {
          const rows = Array.from({ length: 6 }, () => randomVector(d, normal, 1));
          const index = policy.select(actionSet(rows), t);
          const x = rows[index];
          const outcome = Math.floor(uniform() * (K + 1));
          const expected = denseUpdate(curvatureOf(policy, lambda), Float64Array.from(policy.weights()), x, outcome, eta, S);
          const before = policy.stats().projections;
          policy.update(Float64Array.from(x), outcome);
          const didProject = policy.stats().projections > before;
          expect(didProject).toBe(expected.projected);
          expect(maxAbsDiff(policy.weights(), expected.next)).toBeLessThan(1e-9);
          if (didProject) {
            projected++;
            expect(Math.abs(norm(policy.weights()) - S)).toBeLessThan(1e-9);
          } else {
            free++;
            expect(maxAbsDiff(policy.weights(), expected.wPrime)).toBeLessThan(1e-9);
          }
        }
        expect(projected).toBeGreaterThan(5);
        expect(free).toBeGreaterThan(5);
      });
    }
  });
}
