/**
 * One update of each policy against the dense reference (as update-step.test.ts) at sizes that take
 * the large-matrix code paths: OFUL-MLogB's projection with Kd ≥ DIVIDE_AND_CONQUER_MIN_ORDER (divide
 * and conquer, eigenvectors kept factored) and EOFD-MLogB with K = 3 and m + K ≥ that order (the
 * Gram matrix by divide and conquer).
 */
import { describe, expect, it } from 'vitest';
import { DIVIDE_AND_CONQUER_MIN_ORDER } from '../../src/linalg/eigen.js';
import { EofdMLogB } from '../../src/policies/eofd-mlogb.js';
import { OfulMLogB } from '../../src/policies/oful-mlogb.js';
import {
  maxAbsDiff,
  randomVector,
  seededNormal,
  seededUniform,
} from '../helpers/dense.js';
import { actionSet, curvatureOf, denseUpdate, makeSpec } from '../helpers/policies.js';



describe('large sizes: one update against the dense reference', () => {
  const S = 0.3;
  const eta = 1.5;
  const lambda = 2;
  for (const [name, K, d, build] of [
    ['OFUL-MLogB', 1, DIVIDE_AND_CONQUER_MIN_ORDER + 4, (K: number, d: number) => new OfulMLogB(makeSpec(K, d, { normBound: S }))],
    ['EOFD-MLogB', 3, 40, (K: number, d: number) => new EofdMLogB(makeSpec(K, d, { normBound: S, sketchSize: DIVIDE_AND_CONQUER_MIN_ORDER }))],
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
        const expected = denseUpdate(curvatureOf(policy, lambda), Float64Array.from(policy.estimate()), x, outcome, eta, S);
        const before = policy.stats().projections;
        policy.update(Float64Array.from(x), outcome);
        expect(policy.stats().projections > before).toBe(expected.projected);
        expect(maxAbsDiff(policy.estimate(), expected.next)).toBeLessThan(1e-9);
        if (expected.projected) projected++;
      }
      expect(projected).toBeGreaterThan(3);
      if (policy instanceof EofdMLogB) expect(policy.sketch.rank + K).toBeGreaterThanOrEqual(DIVIDE_AND_CONQUER_MIN_ORDER);
    });
  }
});
