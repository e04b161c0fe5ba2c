import { CholeskyDecomposition, Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment, type Trace } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { OfuLogR } from '../../src/policies/ofulog-r.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { argmaxLowestTie, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { maxAbsDiff, norm } from '../helpers/dense.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';

const sigma = (z: number) => 1 / (1 + Math.exp(-z));
function dotDense(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
const outer = (x: number[]) => Matrix.columnVector(x).mmul(Matrix.rowVector(x));
const softplus = (z: number) => Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z)));

/** F_d(x) for even d: 1 − e^{−u} Σ_{j<d/2} u^j/j!, u = x/2. */
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

/**
 * OFULog-r written out densely: θ̂ by plain Newton steps to convergence, H_t's log-determinant by
 * ml-matrix's Cholesky, β_t of ofulogr.py (closed-form χ² of even d), and the plan
 * max {xᵀθ : L(θ) ≤ L̂ + β, ‖θ‖² ≤ S²} by a log-barrier interior-point method (no case analysis):
 * Newton on −τxᵀθ − ln(c − L(θ)) − ln(S² − ‖θ‖²) for τ = 1, 10³, …, 10¹⁵ (duality gap ≤ 2/τ), from θ̂.
 */
class DenseOfulogR implements ReferencePolicy {
  theta: number[];
  logDetH: number;
  lastLevel = NaN;
  values: number[] = [];
  private readonly rows: number[][] = [];
  private readonly outcomes: number[] = [];

  constructor(private readonly spec: PolicySpec) {
    this.theta = new Array(spec.d).fill(0);
    this.logDetH = spec.d * Math.log(spec.regularization);
  }

  lambdaT(): number {
    const n = this.outcomes.length;
    return n === 0 ? this.spec.regularization : this.spec.regularization * Math.log(2 + n);
  }

  loss(theta: number[]): number {
    return this.rows.reduce((s, row, i) => {
      const z = dotDense(row, theta);
      return s + softplus(z) - this.outcomes[i] * z;
    }, 0) + (this.lambdaT() / 2) * dotDense(theta, theta);
  }

  /** L(θ), ∇L(θ) and ∇²L(θ) in one pass over the history (the barrier's Newton steps need all three). */
  derivatives(theta: number[]): { loss: number; gradient: number[]; hessian: Matrix } {
    const d = this.spec.d;
    const lambda = this.lambdaT();
    let loss = (lambda / 2) * dotDense(theta, theta);
    const g = theta.map((v) => lambda * v);
    const H = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? lambda : 0)));
    this.rows.forEach((row, s) => {
      const z = dotDense(row, theta);
      const p = sigma(z);
      const w = p * (1 - p);
      loss += softplus(z) - this.outcomes[s] * z;
      for (let i = 0; i < d; i++) {
        g[i] += (p - this.outcomes[s]) * row[i];
        for (let j = 0; j <= i; j++) H[i][j] += w * row[i] * row[j];
      }
    });
    for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) H[j][i] = H[i][j];
    return { loss, gradient: g, hessian: new Matrix(H) };
  }

  gradient(theta: number[]): number[] {
    const g = theta.map((v) => this.lambdaT() * v);
    this.rows.forEach((row, i) => row.forEach((v, j) => (g[j] += (sigma(dotDense(row, theta)) - this.outcomes[i]) * v)));
    return g;
  }

  /** Σ μ̇(x_sᵀθ) x_s x_sᵀ + λ_t I, summed entry by entry (plain arrays: thousands of these per round). */
  hessian(theta: number[]): Matrix {
    const d = this.spec.d;
    const H = Array.from({ length: d }, (_, i) => Array.from({ length: d }, (_, j) => (i === j ? this.lambdaT() : 0)));
    for (const row of this.rows) {
      const p = sigma(dotDense(row, theta));
      const w = p * (1 - p);
      for (let i = 0; i < d; i++) for (let j = 0; j <= i; j++) H[i][j] += w * row[i] * row[j];
    }
    for (let i = 0; i < d; i++) for (let j = 0; j < i; j++) H[j][i] = H[i][j];
    return new Matrix(H);
  }

  level(): number {
    const { d, normBound: S, delta, beta, betaScale } = this.spec;
    if (typeof beta === 'number') return beta * betaScale;
    const lambda = this.lambdaT();
    const c = Math.log(1 / delta) + 0.5 * this.logDetH - 0.5 * d * Math.log(lambda) + Math.log(chiSquareCdfEven(d, 2 * lambda) / chiSquareCdfEven(d, lambda));
    const gamma = Math.min(Math.sqrt(lambda) * (0.5 + S) + (2 / Math.sqrt(lambda)) * c, Math.sqrt(lambda) * S + c);
    return (gamma + gamma ** 2 / lambda) ** 2 * betaScale;
  }

  plan(x: number[], c: number): number {
    const S2 = this.spec.normBound ** 2;
    if (norm(this.theta) ** 2 >= S2) throw new Error('the reference starts from θ̂, which must lie inside the ball');
    let theta = this.theta.slice();
    const barrier = (t: number, th: number[]) => {
      const room = S2 - dotDense(th, th);
      if (!(room > 0)) return Infinity; // outside the ball: no need for the O(t) loss
      const slack = c - this.loss(th);
      return slack > 0 ? -t * dotDense(x, th) - Math.log(slack) - Math.log(room) : Infinity;
    };
    for (let t = 1; t <= 1e15; t *= 1e3) {
      for (let iteration = 0; iteration < 30; iteration++) {
        const { loss, gradient: gL, hessian } = this.derivatives(theta);
        const slack = c - loss;
        const room = S2 - dotDense(theta, theta);
        const g = x.map((v, j) => -t * v + gL[j] / slack + (2 * theta[j]) / room);
        const H = hessian
          .div(slack)
          .add(outer(gL).div(slack * slack))
          .add(Matrix.eye(x.length).mul(2 / room))
          .add(outer(theta).mul(4 / (room * room)));
        const step = solve(H, Matrix.columnVector(g)).to1DArray();
        // The decrement bounds the barrier's suboptimality, i.e. t·(that of xᵀθ): stopping at
        // max(1e-9, 1e-20·t) leaves at most 1e-20 in xᵀθ at every stage, beside the duality gap 2/t.
        // At t ≥ 10¹² rounding can keep the decrement above that and the line search then fails; 30
        // steps a stage bound those stalls (the values still agree with eofd's to 1e-11, asserted below).
        const decrement = dotDense(g, step);
        if (decrement <= Math.max(1e-9, 1e-20 * t)) break;
        const f = barrier(t, theta);
        let size = 1;
        while (size > 1e-12 && !(barrier(t, theta.map((v, j) => v - size * step[j])) <= f - 0.25 * size * decrement)) size /= 2;
        if (size <= 1e-12) break;
        theta = theta.map((v, j) => v - size * step[j]);
      }
    }
    return dotDense(x, theta);
  }

  decide(rows: number[][]): number {
    const level = this.level();
    this.lastLevel = level;
    const c = this.loss(this.theta) + level;
    this.values = rows.map((x) => this.plan(x, c));
    return argmaxLowestTie(this.values);
  }

  learn(x: number[], outcome: number): void {
    const d = this.spec.d;
    this.rows.push(x);
    this.outcomes.push(outcome);
    let previous = Infinity;
    for (let iteration = 0; iteration < 100; iteration++) {
      const H = this.hessian(this.theta);
      const L = new CholeskyDecomposition(H).lowerTriangularMatrix;
      this.logDetH = 2 * Array.from({ length: d }, (_, j) => Math.log(L.get(j, j))).reduce((a, b) => a + b, 0);
      const step = solve(H, Matrix.columnVector(this.gradient(this.theta))).to1DArray();
      this.theta = this.theta.map((v, j) => v - step[j]);
      const size = norm(step);
      if (size <= 1e-15 * (1 + norm(this.theta)) || size >= 0.5 * previous) break;
      previous = size;
    }
  }
}

/**
 * The trace with at most `most` of each round's actions and a copy of its first appended: exact ties
 * every round (the barrier reference solves one programme per action, so fewer actions keep it fast).
 */
function withTies(trace: Trace, most = Infinity): Trace {
  return { ...trace, rounds: trace.rounds.map((r) => ({ ...r, actions: [...r.actions.slice(0, most), r.actions[0].slice()] })) };
}

describe('OFULog-r: bad arguments', () => {
  it('refuses K ≠ 1, an outcome outside {0, 1}, non-finite actions and λ ≤ 0', () => {
    expect(() => new OfuLogR(makeSpec(3, 3))).toThrow(/OFULog-r is a binary \(K = 1\) policy, got K = 3/);
    const policy = new OfuLogR(makeSpec(1, 3));
    expect(() => policy.update(new Float64Array(3), 2)).toThrow(/outcome must be an integer in 0..1, got 2/);
    expect(() => policy.update(new Float64Array(3), NaN)).toThrow(/outcome must be an integer in 0..1, got NaN/);
    expect(() => policy.select(actionSet([[NaN, 0, 1]]), 1)).toThrow(/action 0, feature 0 is NaN/);
    expect(() => new OfuLogR(makeSpec(1, 3, { regularization: -1 }))).toThrow(/lambda must be a number/);
  });
});

describe('OFULog-r decides as its dense reference', () => {
  const rounds = 200;
  const d = 4;
  // S above ‖θ*‖ keeps θ̂ inside the ball (the barrier reference starts there); β_t scaled by 0.01 brings
  // the sub-level set inside the ball within the run, so that all three cases of the plan occur.
  it(`beta = theory (scale 0.01), λ = 1, S = 2: ${rounds} identical decisions (a tie every round), every case of the plan`, { timeout: 400_000 }, () => {
    const trace = withTies(syntheticTrace(1, d, rounds, 23, 1.5), 3);
    const spec = makeSpec(1, d, { regularization: 1, normBound: 2, beta: 'theory', betaScale: 0.01, delta: 0.05 });
    const policy = new OfuLogR(spec);
    const reference = new DenseOfulogR(spec);
    let worstEstimate = 0;
    let worstValue = 0;
    const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, (t) => {
      worstEstimate = Math.max(worstEstimate, maxAbsDiff(policy.estimate(), reference.theta));
      const count = trace.rounds[t - 1].actions.length;
      for (let a = 0; a < count; a++) worstValue = Math.max(worstValue, Math.abs(policy.lastValues[a] - reference.values[a]));
    });
    expect(firstDifference).toBe(-1);
    expect(decisions).toHaveLength(rounds);
    expect(decisions.filter((index, t) => index === trace.rounds[t].actions.length - 1)).toEqual([]);
    expect(new Set(decisions).size).toBeGreaterThan(2);
    expect(worstEstimate).toBeLessThan(1e-11);
    // Measured 1.8e-14 (the barrier's duality gap at τ = 10¹⁵ is 2·10⁻¹⁵; L's rounding near the level more).
    expect(worstValue).toBeLessThan(1e-11);
    expect(policy.stats().beta).toBeCloseTo(reference.lastLevel, 9);
    expect(policy.cases.ball).toBeGreaterThan(0);
    expect(policy.cases.level).toBeGreaterThan(0);
    expect(policy.cases.both).toBeGreaterThan(0);
    expect(policy.infeasibleRounds).toBe(0);
  });

  it('β = 0 is greedy play on θ̂ (argmax xᵀθ̂), 200 rounds with ties', () => {
    const trace = withTies(syntheticTrace(1, d, rounds, 29, 2));
    const spec = makeSpec(1, d, { regularization: 2, normBound: 1, beta: 0, delta: 0.05 });
    const policy = new OfuLogR(spec);
    const reference = new DenseOfulogR(spec);
    const greedy: ReferencePolicy = {
      decide: (rows) => argmaxLowestTie(rows.map((x) => dotDense(x, reference.theta))),
      learn: (x, y) => reference.learn(x, y),
    };
    const { firstDifference, decisions } = playAgainstReference(policy, greedy, new TraceEnvironment(trace), rounds);
    expect(firstDifference).toBe(-1);
    expect(new Set(decisions).size).toBeGreaterThan(2);
    expect(policy.cases.greedy).toBeGreaterThan(0);
  });

  it('a ball the data exclude (S below ‖θ*‖, small β): the round is counted and the ball dropped, the plan then the sub-level set alone', () => {
    const [dim, T] = [3, 150];
    const policy = new OfuLogR(makeSpec(1, dim, { regularization: 0.5, normBound: 0.2, beta: 'theory', betaScale: 1e-3, delta: 0.05 }));
    const env = new TraceEnvironment(syntheticTrace(1, dim, T, 31, 4));
    for (let t = 1; t <= T; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      for (let a = 0; a < actions.count; a++) expect(Number.isFinite(policy.lastValues[a])).toBe(true);
      const { outcome } = env.play(index);
      policy.update(actions.features.slice(index * dim, (index + 1) * dim), outcome);
    }
    expect(policy.infeasibleRounds).toBeGreaterThan(0);
    // Without the ball some values exceed S‖x‖ (= 0.2 for unit actions).
    expect(Math.max(...policy.lastValues)).toBeGreaterThan(0.2);
  });
});
