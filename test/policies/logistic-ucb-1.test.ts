import { CholeskyDecomposition, Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment, type Trace } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { logChiSquareCdf } from '../../src/policies/kit/radius.js';
import { LogisticUcb1 } from '../../src/policies/logistic-ucb-1.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { denseBonusDecision, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { maxAbsDiff, norm } from '../helpers/dense.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';

const sigma = (z: number) => 1 / (1 + Math.exp(-z));
const dotDense = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, v, i) => s + v * b[i], 0);
const outer = (x: number[]) => Matrix.columnVector(x).mmul(Matrix.rowVector(x));

/** F_d(x) for even d in closed form: P(k, u) = 1 − e^{−u} Σ_{j<k} u^j/j!, k = d/2, u = x/2. */
function chiSquareCdfEven(d: number, x: number): number {
  const u = x / 2;
  let term = 1;
  let sum = 1;
  for (let j = 1; j < d / 2; j++) {
    term *= u / j;
    sum += term;
  }
  return 1 - Math.exp(-u) * sum;
}

/** F_d(x) by composite Simpson integration of the χ²_d density in v = √t (smooth: v^{d−1}e^{−v²/2}), for odd d. */
function chiSquareCdfSimpson(d: number, x: number): number {
  let logGamma = d % 2 === 0 ? 0 : 0.5 * Math.log(Math.PI);
  for (let v = d % 2 === 0 ? 1 : 0.5; v < d / 2 - 0.25; v++) logGamma += Math.log(v);
  const integrand = (v: number) => (v === 0 ? 0 : 2 * Math.exp((d - 1) * Math.log(v) - (v * v) / 2 - (d / 2) * Math.log(2) - logGamma));
  const steps = 20000;
  const h = Math.sqrt(x) / steps;
  let total = integrand(0) + integrand(Math.sqrt(x));
  for (let i = 1; i < steps; i++) total += (i % 2 === 1 ? 4 : 2) * integrand(i * h);
  return (total * h) / 3;
}

/**
 * Logistic-UCB-1 as logistic_ucb_1.py plays it, written out with dense matrices: θ̂ = argmin L_t by
 * plain Newton steps (ml-matrix solves) to convergence, λ_t = λ ln(2 + n), H_t and its log-determinant by
 * ml-matrix's Cholesky, V_t = λI + Σ x xᵀ, and the radius of update_ucb_bonus with the closed-form χ²
 * distribution function of even d.
 */
class DenseLogisticUcb1 implements ReferencePolicy {
  theta: number[];
  V: Matrix;
  logDetH: number;
  lastRadius = NaN;
  private readonly rows: number[][] = [];
  private readonly outcomes: number[] = [];

  constructor(private readonly spec: PolicySpec) {
    this.theta = new Array(spec.d).fill(0);
    this.V = Matrix.eye(spec.d).mul(spec.regularization);
    this.logDetH = spec.d * Math.log(spec.regularization);
  }

  lambdaT(): number {
    const n = this.outcomes.length;
    return n === 0 ? this.spec.regularization : this.spec.regularization * Math.log(2 + n);
  }

  radius(): number {
    const { d, normBound: S, maxActionNorm: D, delta, beta, betaScale } = this.spec;
    if (typeof beta === 'number') return Math.sqrt(beta * betaScale);
    const lambda = this.lambdaT();
    const c = Math.log(1 / delta) + 0.5 * this.logDetH - 0.5 * d * Math.log(lambda) + Math.log(chiSquareCdfEven(d, 2 * lambda) / chiSquareCdfEven(d, lambda));
    const gamma = Math.min(Math.sqrt(lambda) / 2 + (2 / Math.sqrt(lambda)) * c, 1 + c);
    const kappa = 1 / (sigma(S * D) * (1 - sigma(S * D)));
    const rho = 0.25 * Math.sqrt(kappa) * Math.min(Math.sqrt(1 + 2 * S) * gamma, gamma + gamma ** 2 / Math.sqrt(lambda)) + Math.sqrt(lambda) * S;
    return rho * Math.sqrt(betaScale);
  }

  decide(rows: number[][]): number {
    this.lastRadius = this.radius();
    return denseBonusDecision(rows, this.theta, 1, Array.from(this.spec.reward), this.lastRadius, this.V);
  }

  learn(x: number[], outcome: number): void {
    const d = this.spec.d;
    this.rows.push(x);
    this.outcomes.push(outcome);
    this.V = this.V.add(outer(x));
    const lambda = this.lambdaT();
    let previous = Infinity;
    for (let iteration = 0; iteration < 100; iteration++) {
      let H = Matrix.eye(d).mul(lambda);
      const g = this.theta.map((v) => lambda * v);
      this.rows.forEach((row, s) => {
        const p = sigma(dotDense(row, this.theta));
        row.forEach((v, j) => (g[j] += (p - this.outcomes[s]) * v));
        H = H.add(outer(row).mul(p * (1 - p)));
      });
      const L = new CholeskyDecomposition(H).lowerTriangularMatrix;
      this.logDetH = 2 * Array.from({ length: d }, (_, j) => Math.log(L.get(j, j))).reduce((a, b) => a + b, 0);
      const step = solve(H, Matrix.columnVector(g)).to1DArray();
      this.theta = this.theta.map((v, j) => v - step[j]);
      const size = norm(step);
      if (size <= 1e-15 * (1 + norm(this.theta)) || size >= 0.5 * previous) break;
      previous = size;
    }
  }
}

/** The trace with a copy of each round's first action appended: exact ties every round. */
function withTies(trace: Trace): Trace {
  return { ...trace, rounds: trace.rounds.map((r) => ({ ...r, actions: [...r.actions, r.actions[0].slice()] })) };
}

describe('Logistic-UCB-1: bad arguments', () => {
  it('refuses K ≠ 1, an outcome outside {0, 1}, non-finite actions and λ ≤ 0', () => {
    expect(() => new LogisticUcb1(makeSpec(2, 3))).toThrow(/Logistic-UCB-1 is a binary \(K = 1\) policy, got K = 2/);
    const policy = new LogisticUcb1(makeSpec(1, 3));
    expect(() => policy.update(new Float64Array(3), 2)).toThrow(/outcome must be an integer in 0..1, got 2/);
    expect(() => policy.update(new Float64Array(3), -1)).toThrow(/outcome must be an integer in 0..1, got -1/);
    expect(() => policy.select(actionSet([[0, Infinity, 1]]), 1)).toThrow(/action 0, feature 1 is Infinity/);
    expect(() => new LogisticUcb1(makeSpec(1, 3, { regularization: 0 }))).toThrow(/lambda must be a number/);
    expect(() => new LogisticUcb1(makeSpec(1, 3, { delta: 1 }))).toThrow(/delta must lie in \(0, 1\)/);
  });
});

describe('Logistic-UCB-1: the χ² distribution function of its radius', () => {
  it('F_d(x) equals the closed form (even d, to 1e-14) and Simpson integration (odd d, to 1e-12)', () => {
    // Absolute: the closed form 1 − e^{−u}Σ cancels where F_d(x) is tiny (d = 40, x = 0.3).
    for (const d of [2, 4, 6, 10, 40]) {
      for (const x of [0.3, 2, 7.5, 30, 90]) {
        expect(Math.abs(Math.exp(logChiSquareCdf(d, x)) - chiSquareCdfEven(d, x))).toBeLessThan(1e-14);
      }
    }
    for (const d of [3, 5, 9]) {
      for (const x of [0.5, 4, 12]) {
        expect(Math.abs(Math.exp(logChiSquareCdf(d, x)) - chiSquareCdfSimpson(d, x))).toBeLessThan(1e-12);
      }
    }
    expect(logChiSquareCdf(4, 0)).toBe(-Infinity);
  });
});

describe('Logistic-UCB-1 decides as its dense reference', () => {
  const rounds = 240;
  const d = 4;
  const cases: { beta: BetaMode; regularization: number; normBound: number; normStar: number; betaScale: number }[] = [
    { beta: 'theory', regularization: 4, normBound: 3, normStar: 2.5, betaScale: 1 },
    // A small radius: the estimate, not the bonus, decides most rounds; ‖θ*‖ > S puts θ̂ outside the ball.
    { beta: 'theory', regularization: 0.5, normBound: 1, normStar: 3, betaScale: 1e-3 },
    { beta: 0.05, regularization: 2, normBound: 2, normStar: 2, betaScale: 1 },
  ];
  for (const { beta, regularization, normBound, normStar, betaScale } of cases) {
    it(`beta = ${beta} (scale ${betaScale}), λ = ${regularization}, S = ${normBound}: ${rounds} identical decisions (a tie every round)`, () => {
      const trace = withTies(syntheticTrace(1, d, rounds, 17, normStar));
      const spec = makeSpec(1, d, { regularization, normBound, beta, betaScale, delta: 0.05 });
      const policy = new LogisticUcb1(spec);
      const reference = new DenseLogisticUcb1(spec);
      let worst = 0;
      const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, () => {
        worst = Math.max(worst, maxAbsDiff(policy.estimate(), reference.theta));
      });
      expect(firstDifference).toBe(-1);
      expect(decisions).toHaveLength(rounds);
      expect(decisions.filter((index, t) => index === trace.rounds[t].actions.length - 1)).toEqual([]);
      expect(new Set(decisions).size).toBeGreaterThan(2);
      // Both solve the same strongly convex MLE to rounding (measured ≤ 1e-14).
      expect(worst).toBeLessThan(1e-11);
      expect(Math.abs(policy.logDetHessian - reference.logDetH)).toBeLessThan(1e-10);
      expect(Math.sqrt(policy.stats().beta)).toBeCloseTo(reference.lastRadius, 10);
      expect(maxAbsDiff(policy.design.matrix, reference.V.to1DArray())).toBeLessThan(1e-12);
    });
  }

  it('the estimate is the regularised MLE: ‖∇L_t(θ̂_t)‖ ≤ 1e-12 every round; θ̂ outside the ball is counted', () => {
    const [dim, T, lambda] = [5, 200, 0.3];
    const policy = new LogisticUcb1(makeSpec(1, dim, { regularization: lambda, normBound: 0.5, beta: 0.01 }));
    const env = new TraceEnvironment(syntheticTrace(1, dim, T, 3, 3));
    const X: number[][] = [];
    const Y: number[] = [];
    let worst = 0;
    let outside = 0;
    for (let t = 1; t <= T; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      const x = Array.from(actions.features.subarray(index * dim, (index + 1) * dim));
      const { outcome } = env.play(index);
      policy.update(Float64Array.from(x), outcome);
      X.push(x);
      Y.push(outcome);
      const theta = Array.from(policy.estimate());
      const lambdaT = lambda * Math.log(2 + X.length);
      const g = theta.map((v) => lambdaT * v);
      X.forEach((row, s) => row.forEach((v, j) => (g[j] += (sigma(dotDense(row, theta)) - Y[s]) * v)));
      worst = Math.max(worst, norm(g));
      if (norm(theta) > 0.5) outside++;
    }
    expect(worst).toBeLessThan(1e-12);
    expect(outside).toBeGreaterThan(0);
    expect(policy.outsideBall).toBe(outside);
  });
});
