/**
 * β = 0 (params.beta: 0) is greedy play: every policy plays the argmax of its estimate's expected
 * reward, computed densely here (rᵀσ(Wx); K = 1 and SOFUL: the linear score), ties to the lowest index.
 */
import { describe, expect, it } from 'vitest';
import { OptimisticSelector } from '../../../src/policies/kit/optimistic-selector.js';
import { createPolicy } from '../../../src/policies/registry.js';
import { Soful } from '../../../src/policies/soful.js';
import { Mulberry32Stream } from '../../../src/random/stream.js';
import { randomVector, seededNormal, seededUniform } from '../../helpers/dense.js';
import { actionSet, denseGreedyChoice, denseOutcome, makeSpec, roundWithDuplicate } from '../../helpers/policies.js';

describe('OptimisticSelector: bad input', () => {
  it('greedy scores an empty estimate as zero and breaks the tie to index 0', () => {
    const selector = new OptimisticSelector(2, 3, Float64Array.of(0.5, 1));
    expect(selector.greedy(actionSet([[1, 0, 0], [0, 1, 0]]), new Float64Array(6))).toBe(0);
  });
});

describe('β = 0 plays the greedy argmax', () => {
  for (const name of ['EOFD-MLogB', 'OFUL-MLogB', 'TS-MLogB', 'EOFD-TS', 'SOFUL'] as const) {
    for (const K of [1, 3]) {
      it(`${name}, K = ${K}: 150 rounds, each the dense argmax of the current estimate; β = 0 recorded`, () => {
        const d = 5;
        const stream = new Mulberry32Stream(8);
        const spec = makeSpec(K, d, { beta: 0, sketchSize: 4, uniform: () => stream.uniform() });
        const policy = createPolicy(name, spec);
        const reward = Array.from(spec.reward);
        const normal = seededNormal(50 + K);
        const u = seededUniform(51 + K);
        const wStar = randomVector(K * d, normal, 2);
        const chosen = new Set<number>();
        for (let t = 1; t <= 150; t++) {
          const rows = roundWithDuplicate(d, 6, normal, u);
          // SOFUL's estimate is θ ∈ R^d (a linear score, as for K = 1); the others' is W.
          const greedy =
            policy instanceof Soful ? denseGreedyChoice(1, [1], policy.theta, rows) : denseGreedyChoice(K, reward, policy.estimate(), rows);
          const index = policy.select(actionSet(rows), t);
          expect(index).toBe(greedy);
          expect(policy.stats().beta).toBe(0);
          chosen.add(index);
          const x = rows[index];
          policy.update(Float64Array.from(x), denseOutcome(wStar, K, x, u()));
        }
        expect(chosen.size).toBeGreaterThan(1);
      });
    }
  }
});
