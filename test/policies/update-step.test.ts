/**
 * One round's update of each policy against the dense reference: Z̃ = Z + η∇²ℓ(W_t) formed explicitly,
 * W' = W − ηZ̃⁻¹∇ℓ by a dense inverse, and the projection of eq. (9) by eigendecomposition and bisection.
 */
import { describe, expect, it } from 'vitest';
import { EofdMLogB } from '../../src/policies/eofd-mlogb.js';
import { OfulMLogB } from '../../src/policies/oful-mlogb.js';
import {
  maxAbsDiff,
  norm,
  randomVector,
  seededNormal,
  seededUniform,
} from '../helpers/dense.js';
import { actionSet, curvatureOf, denseUpdate, makeSpec } from '../helpers/policies.js';



for (const [name, build] of [
  ['EOFD-MLogB', (K: number, d: number, S: number) => new EofdMLogB(makeSpec(K, d, { normBound: S, sketchSize: 5 }))],
  ['OFUL-MLogB', (K: number, d: number, S: number) => new OfulMLogB(makeSpec(K, d, { normBound: S }))],
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
          const expected = denseUpdate(curvatureOf(policy, lambda), Float64Array.from(policy.estimate()), x, outcome, eta, S);
          const before = policy.stats().projections;
          policy.update(Float64Array.from(x), outcome);
          const didProject = policy.stats().projections > before;
          expect(didProject).toBe(expected.projected);
          expect(maxAbsDiff(policy.estimate(), expected.next)).toBeLessThan(1e-9);
          if (didProject) {
            projected++;
            expect(Math.abs(norm(policy.estimate()) - S)).toBeLessThan(1e-9);
          } else {
            free++;
            expect(maxAbsDiff(policy.estimate(), expected.wPrime)).toBeLessThan(1e-9);
          }
        }
        expect(projected).toBeGreaterThan(5);
        expect(free).toBeGreaterThan(5);
      });
    }
  });
}
