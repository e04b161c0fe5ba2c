import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { Ol2m } from '../../src/policies/ol2m.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { denseBonusDecision, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';
import { denseInverse, denseProjection, maxAbsDiff, norm, symmetricEigenvalues } from '../helpers/dense.js';

/** OL2M written out from Zhang et al. (2016) with dense matrices; β and γ_t as the authors' ol2m.py. */
class DenseOl2m implements ReferencePolicy {
  theta: number[];
  A: Matrix;
  readonly beta: number;

  constructor(private readonly spec: PolicySpec) {
    this.theta = new Array(spec.d).fill(0);
    this.A = Matrix.eye(spec.d).mul(spec.regularization);
    this.beta = 0.5 / (1 + Math.exp(spec.normBound));
  }

  radius(t: number): number {
    const { d, regularization: lambda, normBound: S, delta, beta, betaScale } = this.spec;
    if (typeof beta === 'number') return Math.sqrt(beta * betaScale);
    const logDet = symmetricEigenvalues(this.A).reduce((s, v) => s + Math.log(v), 0);
    const tau = Math.log((4 * Math.log(t + 1) * t ** 2) / delta);
    const squared = 8 * S + lambda * S ** 2 + (8 / this.beta + (16 * S) / 3) * tau + (2 / this.beta) * (logDet - d * Math.log(lambda));
    return Math.sqrt(squared * betaScale);
  }

  /** γ_t of the last decision. */
  lastRadius = NaN;

  decide(rows: number[][], t: number): number {
    this.lastRadius = this.radius(t);
    return denseBonusDecision(rows, this.theta, 1, Array.from(this.spec.reward), this.lastRadius, this.A);
  }

  learn(x: number[], outcome: number): void {
    const p = 1 / (1 + Math.exp(-x.reduce((s, v, a) => s + v * this.theta[a], 0)));
    this.A = this.A.add(Matrix.columnVector(x).mmul(Matrix.rowVector(x)).mul(this.beta / 2));
    const step = denseInverse(this.A).mmul(Matrix.columnVector(x.map((v) => (p - outcome) * v))).to1DArray();
    const unprojected = this.theta.map((v, a) => v - step[a]);
    this.theta = norm(unprojected) > this.spec.normBound ? denseProjection(this.A, unprojected, this.spec.normBound) : unprojected;
  }
}

describe('OL2M: bad arguments', () => {
  it('refuses K ≠ 1, an outcome outside {0, 1} and non-finite actions', () => {
    expect(() => new Ol2m(makeSpec(2, 3))).toThrow(/OL2M is a binary \(K = 1\) policy, got K = 2/);
    const policy = new Ol2m(makeSpec(1, 3));
    expect(() => policy.update(new Float64Array(3), 2)).toThrow(/outcome must be an integer in 0..1, got 2/);
    expect(() => policy.select(actionSet([[0, Infinity, 1]]), 1)).toThrow(/action 0, feature 1 is Infinity/);
  });
});

describe('OL2M decides as its dense reference', () => {
  const rounds = 250;
  const d = 6;
  for (const beta of ['theory', 0.4, 0.02] as BetaMode[]) {
    it(`beta = ${beta}: ${rounds} identical decisions and estimates, with projections taken`, () => {
      // ‖θ*‖ = 3 > S = 1: the steps press on the ball and the A-norm projection is taken.
      const trace = syntheticTrace(1, d, rounds, 77, 3);
      const spec = makeSpec(1, d, { regularization: 1, normBound: 1, beta });
      const policy = new Ol2m(spec);
      const reference = new DenseOl2m(spec);
      let worst = 0;
      const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, () => {
        worst = Math.max(worst, maxAbsDiff(policy.estimate(), reference.theta));
      });
      expect(firstDifference).toBe(-1);
      expect(worst).toBeLessThan(1e-9);
      expect(new Set(decisions).size).toBeGreaterThan(2);
      expect(policy.stats().projections).toBeGreaterThan(0);
      expect(policy.stats().beta).toBeCloseTo(reference.lastRadius ** 2, 6);
    });
  }
});

describe('OL2M: its matrix and estimate are those of the paper', () => {
  it('A_t = λI + Σ (β/2) x_s x_sᵀ, ln det A_t by the determinant lemma, and ‖θ_t‖ ≤ S every round', () => {
    const [d, rounds, lambda, S] = [5, 300, 0.8, 0.7];
    const policy = new Ol2m(makeSpec(1, d, { regularization: lambda, normBound: S, beta: 0.1, refreshInterval: 1_000_000 }));
    const env = new TraceEnvironment(syntheticTrace(1, d, rounds, 9, 2));
    let A = Matrix.eye(d).mul(lambda);
    let outside = 0;
    for (let t = 1; t <= rounds; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      const x = Array.from(actions.features.subarray(index * d, (index + 1) * d));
      policy.update(Float64Array.from(x), env.play(index).outcome);
      A = A.add(Matrix.columnVector(x).mmul(Matrix.rowVector(x)).mul(policy.curvature / 2));
      if (norm(policy.estimate()) > S * (1 + 1e-12)) outside++;
    }
    expect(policy.curvature).toBeCloseTo(1 / (2 * (1 + Math.exp(S))), 15);
    expect(maxAbsDiff(policy.design.matrix, A.to1DArray())).toBeLessThan(1e-12);
    const logDet = symmetricEigenvalues(A).reduce((s, v) => s + Math.log(v), 0);
    expect(Math.abs(policy.design.logDeterminant - logDet)).toBeLessThan(1e-10);
    const inverse = new Matrix(Array.from({ length: d }, (_, i) => Array.from(policy.design.inverse.subarray(i * d, (i + 1) * d))));
    expect(inverse.mmul(A).sub(Matrix.eye(d)).norm('frobenius')).toBeLessThan(1e-10);
    expect(outside).toBe(0);
    expect(policy.stats().projections).toBeGreaterThan(0);
  });
});
