import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment, type Trace } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { RsMnl, rsMnlRegularization } from '../../src/policies/rs-mnl.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { argmaxLowestTie, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { denseInverse, jacobianDense, kronHessian, kronIdentity, maxAbsDiff, softmaxDense, symmetricEigenvalues, timesX } from '../helpers/dense.js';
import { denseCurvature, denseLogDet, denseMle } from '../helpers/dense-mle.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';

/**
 * RS-MNL written out with the authors' constants (RS_MNL.py): explicit H_t (Kd×Kd), ml-matrix inverses
 * and eigenvalues, the dense MLE of Σℓ + (λ/4)‖θ‖² at each switch and H_t rebuilt at it.
 */
class DenseRsMnl implements ReferencePolicy {
  H: Matrix;
  switchedLogDet = -Infinity;
  theta: number[];
  xs: number[][] = [];
  ys: number[] = [];
  switches = 0;
  readonly lambda: number;
  readonly gammaSq: number;
  readonly rewardNorm: number;

  constructor(private readonly spec: PolicySpec) {
    const { K, d, normBound: S, delta, beta, betaScale } = spec;
    const T = spec.horizon!;
    this.lambda = (K * d * Math.log(T)) / Math.sqrt(S);
    this.H = Matrix.eye(K * d).mul(this.lambda);
    this.theta = new Array(K * d).fill(0);
    this.rewardNorm = Math.hypot(...spec.reward);
    this.gammaSq = (typeof beta === 'number' ? beta : this.rewardNorm ** 2 * S * S * d * K * Math.log(T / delta)) * betaScale;
  }

  decide(rows: number[][]): number {
    const { K, d } = this.spec;
    if (denseLogDet(this.H) >= Math.log(2) + this.switchedLogDet) {
      this.theta = denseMle(K, d, this.xs, this.ys, this.lambda / 2);
      this.H = denseCurvature(this.theta, K, this.xs, this.lambda, d);
      this.switchedLogDet = denseLogDet(this.H);
      this.switches++;
    }
    const Hinv = denseInverse(this.H);
    const reward = Array.from(this.spec.reward);
    const gamma = Math.sqrt(this.gammaSq);
    return argmaxLowestTie(
      rows.map((x) => {
        const sigma = softmaxDense(timesX(this.theta, K, x));
        const g = jacobianDense(sigma).map((row) => row.reduce((s, v, j) => s + v * reward[j], 0));
        const I = kronIdentity(K, x);
        const M = I.transpose().mmul(Hinv).mmul(I);
        const first = Matrix.rowVector(g).mmul(M).mmul(Matrix.columnVector(g)).get(0, 0);
        const largest = symmetricEigenvalues(M)[0];
        return sigma.reduce((s, p, k) => s + p * reward[k], 0) + Math.sqrt(2) * gamma * Math.sqrt(first) + 6 * this.rewardNorm * this.gammaSq * largest;
      }),
    );
  }

  learn(x: number[], outcome: number): void {
    const { K } = this.spec;
    this.xs.push(x);
    this.ys.push(outcome);
    this.H = this.H.add(kronHessian(jacobianDense(softmaxDense(timesX(this.theta, K, x))), x));
  }
}

function withTies(trace: Trace): Trace {
  return { ...trace, rounds: trace.rounds.map((r) => ({ ...r, actions: [...r.actions, r.actions[0].slice()] })) };
}

function square(values: ArrayLike<number>, n: number): Matrix {
  return new Matrix(Array.from({ length: n }, (_, i) => Array.from(values).slice(i * n, (i + 1) * n)));
}

describe('RS-MNL: bad arguments', () => {
  it('refuses a spec without a horizon or with T = 1, outcomes outside {0..K} and non-finite actions', () => {
    expect(() => new RsMnl(makeSpec(2, 3))).toThrow(/RS-MNL needs the horizon T/);
    expect(() => new RsMnl(makeSpec(2, 3, { horizon: 1 }))).toThrow(/RS-MNL needs a horizon T ≥ 2/);
    const policy = new RsMnl(makeSpec(2, 3, { horizon: 100 }));
    expect(() => policy.update(new Float64Array(3), 3)).toThrow(/outcome must be an integer in 0..2, got 3/);
    expect(() => policy.update(new Float64Array(3), -1)).toThrow(/outcome must be an integer in 0..2, got -1/);
    expect(() => policy.select(actionSet([[0, Infinity, 1]]), 1)).toThrow(/action 0, feature 1 is Infinity/);
    expect(() => new RsMnl(makeSpec(2, 3, { horizon: 100, betaScale: 0 }))).toThrow(/beta_scale must be a number/);
  });

  it('λ = K d ln T/√S (theirs), whatever the spec’s λ', () => {
    expect(rsMnlRegularization(3, 4, 1000, 4)).toBeCloseTo((12 * Math.log(1000)) / 2, 12);
    expect(new RsMnl(makeSpec(3, 4, { horizon: 1000, normBound: 4, regularization: 7 })).regularization).toBeCloseTo((12 * Math.log(1000)) / 2, 12);
  });
});

describe('RS-MNL decides as its dense reference', () => {
  const rounds = 220;
  const cases: { K: number; d: number; beta: BetaMode; betaScale: number; normBound: number }[] = [
    { K: 1, d: 5, beta: 'theory', betaScale: 1, normBound: 2 },
    { K: 1, d: 5, beta: 0.05, betaScale: 1, normBound: 1 },
    { K: 3, d: 4, beta: 'theory', betaScale: 1, normBound: 1 },
    { K: 3, d: 4, beta: 'theory', betaScale: 1e-3, normBound: 3 },
  ];
  for (const { K, d, beta, betaScale, normBound } of cases) {
    it(`K = ${K}, d = ${d}, beta = ${beta} × ${betaScale}, S = ${normBound}: ${rounds} identical decisions (a tie every round), H_t and θ̂ as the reference's`, () => {
      const trace = withTies(syntheticTrace(K, d, rounds, 17 + K, 3));
      const spec = makeSpec(K, d, { normBound, beta, betaScale, delta: 0.05, horizon: 300 });
      const policy = new RsMnl(spec);
      const reference = new DenseRsMnl(spec);
      let worst = 0;
      const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, () => {
        worst = Math.max(worst, maxAbsDiff(policy.estimate(), reference.theta));
      });
      expect(firstDifference).toBe(-1);
      expect(decisions).toHaveLength(rounds);
      expect(decisions.filter((index, t) => index === trace.rounds[t].actions.length - 1)).toEqual([]);
      expect(new Set(decisions).size).toBeGreaterThan(2);
      // Both fits stop at ‖∇‖ ≤ 1e-12·(1 + Σ‖x_s‖) or better, with curvature ≥ λ/2.
      expect(worst).toBeLessThan(1e-10);
      expect(policy.switches).toBe(reference.switches);
      expect(policy.switches).toBeGreaterThan(2);
      // H_t after 220 rank-K updates (and rebuilds), and its Woodbury inverse, against the dense H_t.
      const n = K * d;
      const H = square(policy.hessian, n);
      expect(H.sub(reference.H).norm('frobenius')).toBeLessThan(1e-10 * reference.H.norm('frobenius'));
      expect(square(policy.inverse, n).mmul(reference.H).sub(Matrix.eye(n)).norm('frobenius')).toBeLessThan(1e-10);
      expect(Math.abs(policy.logDeterminant - denseLogDet(reference.H))).toBeLessThan(1e-9);
      expect(policy.stats().beta).toBeCloseTo(reference.gammaSq, 10);
    });
  }
});
