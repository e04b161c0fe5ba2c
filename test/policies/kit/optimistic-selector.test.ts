/**
 * β = 0 (params.beta: 0) is greedy play: every policy plays the argmax of its estimate's expected
 * reward, computed densely here (rᵀσ(Wx); K = 1 and SOFUL: the linear score), ties to the lowest index.
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it, vi } from 'vitest';
import { SymmetricEigen } from '../../../src/linalg/eigen.js';
import { OptimisticSelector, TIE_TOLERANCE } from '../../../src/policies/kit/optimistic-selector.js';
import { createPolicy } from '../../../src/policies/registry.js';
import { Soful } from '../../../src/policies/soful.js';
import { Mulberry32Stream } from '../../../src/random/stream.js';
import { jacobianDense, randomVector, seededNormal, seededUniform, softmaxDense, symmetricEigenvalues } from '../../helpers/dense.js';
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

/** Eq. (19) for every action, densely (ml-matrix's eigenvalues), and the tie rule: the lowest index within TIE_TOLERANCE of the best. */
function denseOptimisticChoice(K: number, reward: number[], W: Float64Array, rows: number[][], curvatures: number[][][], beta: number): number {
  const rewardL1 = reward.reduce((s, r) => s + Math.abs(r), 0);
  const scores = rows.map((x, a) => {
    const z = Array.from({ length: K }, (_, i) => x.reduce((s, xj, j) => s + W[i * x.length + j]! * xj, 0));
    const sigma = softmaxDense(z);
    const jacobian = jacobianDense(sigma);
    const g = jacobian.map((row) => row.reduce((s, v, j) => s + v * reward[j]!, 0));
    const M = new Matrix(curvatures[a]!);
    const firstOrder = g.reduce((s, gi, i) => s + gi * g.reduce((t, gj, j) => t + M.get(i, j) * gj, 0), 0);
    const expected = sigma.reduce((s, p, i) => s + p * reward[i]!, 0);
    return expected + Math.sqrt(beta) * Math.sqrt(Math.max(0, firstOrder)) + 0.5 * rewardL1 * beta * symmetricEigenvalues(M)[0]!;
  });
  const best = Math.max(...scores);
  return scores.findIndex((s) => s >= best - TIE_TOLERANCE * Math.abs(best));
}

describe('K ≥ 2: ‖M(x)‖₂ only for actions that can still win', () => {
  it('picks what scoring every action exactly picks (dense reference), with far fewer eigenproblems; equal actions still tie to the lowest index', () => {
    const normal = seededNormal(91);
    const u = seededUniform(92);
    const eigenvalues = vi.spyOn(SymmetricEigen.prototype, 'eigenvalues');
    let rounds = 0;
    let solved = 0;
    const chosen = new Set<number>();
    try {
      for (const K of [2, 3, 4]) {
        const d = 4;
        const reward = Array.from({ length: K }, (_, i) => (i + 1) / K);
        const selector = new OptimisticSelector(K, d, Float64Array.from(reward));
        for (let round = 0; round < 60; round++) {
          const count = 2 + (round % 9);
          const rows = Array.from({ length: count }, () => randomVector(d, normal, 1));
          // M(x) = BBᵀ + εI: spread from nearly rank one to well conditioned; some rounds repeat an action exactly.
          const curvatures = rows.map(() => {
            const B = Matrix.from1DArray(K, K, randomVector(K * K, normal, 0.2 + 2 * u()));
            return B.mmul(B.transpose()).add(Matrix.eye(K).mul(1e-3)).to2DArray();
          });
          if (round % 4 === 0) {
            rows[count - 1] = rows[0]!.slice();
            curvatures[count - 1] = curvatures[0]!.map((r) => r.slice());
          }
          const W = Float64Array.from(randomVector(K * d, normal, 2 * u()));
          const beta = [0.01, 0.3, 3][round % 3]!;
          const before = eigenvalues.mock.calls.length;
          const index = selector.select(actionSet(rows), W, beta, (a, out) => out.set(curvatures[a]!.flat()));
          solved += eigenvalues.mock.calls.length - before;
          rounds += count;
          expect(index, `K = ${K}, round ${round}`).toBe(denseOptimisticChoice(K, reward, W, rows, curvatures, beta));
          chosen.add(index);
        }
      }
    } finally {
      eigenvalues.mockRestore();
    }
    expect(chosen.size).toBeGreaterThan(3);
    // Far fewer eigenproblems than actions (all of them, before the bounds).
    expect(solved).toBeLessThan(0.5 * rounds);
    expect(solved).toBeGreaterThanOrEqual(180);
  });

  it('identical actions are all scored exactly and the first is chosen', () => {
    const K = 3;
    const selector = new OptimisticSelector(K, 2, Float64Array.of(0.2, 0.5, 1));
    const M = [2, 0.5, 0.1, 0.5, 1, 0.2, 0.1, 0.2, 0.7];
    const rows = [[0.3, 0.4], [0.3, 0.4], [0.3, 0.4]];
    const eigenvalues = vi.spyOn(SymmetricEigen.prototype, 'eigenvalues');
    try {
      expect(selector.select(actionSet(rows), Float64Array.of(1, 0, 0, 1, 0.5, 0.5), 0.5, (_, out) => out.set(M))).toBe(0);
      expect(eigenvalues).toHaveBeenCalledTimes(3);
    } finally {
      eigenvalues.mockRestore();
    }
  });
});
