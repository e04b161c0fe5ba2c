/**
 * The decision rule against dense formulas: eq. (16) for K = 1 and eq. (19) for K ≥ 2, with
 * ‖·‖_{Z⁻¹} and ‖Z^{-1/2}(I⊗x)‖₂² computed from an explicit inverse of each policy's curvature matrix.
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { EofdMLogB } from '../../src/policies/eofd-mlogb.js';
import { OfulMLogB } from '../../src/policies/oful-mlogb.js';
import { RandomPolicy } from '../../src/policies/random.js';
import { createPolicy } from '../../src/policies/registry.js';
import {
  denseInverse,
  jacobianDense,
  kronIdentity,
  randomVector,
  seededNormal,
  seededUniform,
  softmaxDense,
  symmetricEigenvalues,
  timesX,
} from '../helpers/dense.js';
import { actionSet, curvatureOf, makeSpec } from '../helpers/policies.js';


function denseScore(K: number, reward: number[], w: Float64Array, Zinv: Matrix, x: number[], beta: number): number {
  const z = timesX(w, K, x);
  const X = kronIdentity(K, x);
  const M = X.transpose().mmul(Zinv).mmul(X);
  if (K === 1) return z[0] + Math.sqrt(beta) * Math.sqrt(M.get(0, 0));
  const sigma = softmaxDense(z);
  const g = Matrix.columnVector(jacobianDense(sigma).map((row) => row.reduce((s, v, j) => s + v * reward[j], 0)));
  const gx = X.mmul(g);
  const first = Math.sqrt(gx.transpose().mmul(Zinv).mmul(gx).get(0, 0));
  const l1 = reward.reduce((s, r) => s + Math.abs(r), 0);
  return sigma.reduce((s, v, k) => s + v * reward[k], 0) + Math.sqrt(beta) * first + 0.5 * l1 * beta * symmetricEigenvalues(M)[0];
}

describe('policies: bad input', () => {
  it('rejects non-finite action features, naming the action and feature', () => {
    const policy = new EofdMLogB(makeSpec(2, 3));
    const actions = actionSet([
      [0.1, 0.2, 0.3],
      [0.1, Number.NaN, 0.3],
    ]);
    expect(() => policy.select(actions, 1)).toThrow(/action 1, feature 1 is NaN/);
    const oful = new OfulMLogB(makeSpec(2, 3));
    expect(() => oful.select(actionSet([[0, Infinity, 0]]), 1)).toThrow(/action 0, feature 1 is Infinity/);
  });
  it('rejects m < 1, S ≤ 0, a wrong reward length, and unknown names', () => {
    expect(() => new EofdMLogB(makeSpec(2, 3, { sketchSize: 0 }))).toThrow(/m must be an integer ≥ 1, got 0/);
    expect(() => new OfulMLogB(makeSpec(2, 3, { normBound: 0 }))).toThrow(/S must be a number in \[1e-30, 1e\+30\], got 0/);
    expect(() => new EofdMLogB(makeSpec(2, 3, { normBound: -1 }))).toThrow(/S must be a number in \[1e-30, 1e\+30\], got -1/);
    expect(() => new EofdMLogB(makeSpec(2, 3, { reward: Float64Array.of(1) }))).toThrow(/reward must list r_1..r_K \(2 values\), got 1/);
    expect(() => createPolicy('EOFD', makeSpec(1, 3))).toThrow(/unknown policy "EOFD"; expected one of EOFD-MLogB, OFUL-MLogB, Random/);
  });
  it('rejects an outcome outside 0..K', () => {
    const policy = new OfulMLogB(makeSpec(2, 3));
    expect(() => policy.update(Float64Array.of(1, 0, 0), 3)).toThrow(/outcome must be an integer in 0..2, got 3/);
  });
  it('Random needs its own seeded stream', () => {
    expect(() => new RandomPolicy(makeSpec(1, 3))).toThrow(/seeded uniform stream/);
  });
});

for (const name of ['EOFD-MLogB', 'OFUL-MLogB'] as const) {
  describe(`${name}: the decision rule`, () => {
    for (const K of [1, 2, 4]) {
      it(`chooses the argmax of the dense eq. (${K === 1 ? 16 : 19}) score (K = ${K})`, () => {
        const d = 5;
        const lambda = 2;
        const spec = makeSpec(K, d, { sketchSize: 4, beta: 'order' });
        const policy = createPolicy(name, spec);
        const normal = seededNormal(31 + K);
        const uniform = seededUniform(17 + K);
        const reward = Array.from(spec.reward);
        for (let t = 1; t <= 40; t++) {
          const rows = Array.from({ length: 8 }, () => randomVector(d, normal, 0.5 + uniform()));
          const Zinv = denseInverse(curvatureOf(policy, lambda));
          const w = Float64Array.from(policy.estimate());
          const index = policy.select(actionSet(rows), t);
          const beta = policy.stats().beta;
          const scores = rows.map((x) => denseScore(K, reward, w, Zinv, x, beta));
          const best = scores.indexOf(Math.max(...scores));
          expect(index).toBe(best);
          policy.update(Float64Array.from(rows[index]), Math.floor(uniform() * (K + 1)));
        }
      });
    }
  });
}

describe('ties', () => {
  for (const name of ['EOFD-MLogB', 'OFUL-MLogB'] as const) {
    for (const K of [1, 3]) {
      it(`${name}, K = ${K}: scores equal up to rounding are ties and go to the lowest index; a real difference wins`, () => {
        const x = [0.6, 0.8, 0];
        // In round 1 (W = 0, Z = λI) every unit-norm action scores the same in exact arithmetic; these
        // differ from x by one ulp-scale perturbation, which only rounding can tell apart.
        const nudged = x.map((v) => v * (1 + 4e-16));
        expect(createPolicy(name, makeSpec(K, 3)).select(actionSet([x, nudged, x]), 1)).toBe(0);
        expect(createPolicy(name, makeSpec(K, 3)).select(actionSet([x, x, nudged]), 1)).toBe(0);
        expect(createPolicy(name, makeSpec(K, 3)).select(actionSet([nudged, x]), 1)).toBe(0);
        // A longer action has a larger bonus ‖x‖_{Z⁻¹}: a difference of 1e-6 is not a tie.
        const longer = x.map((v) => v * (1 + 1e-6));
        expect(createPolicy(name, makeSpec(K, 3)).select(actionSet([x, longer]), 1)).toBe(1);
      });
    }
  }
});
