import { Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment, type Trace } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { GlmUcb } from '../../src/policies/glm-ucb.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { denseBonusDecision, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { maxAbsDiff, norm, symmetricEigenvalues } from '../helpers/dense.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';

const sigma = (z: number) => 1 / (1 + Math.exp(-z));
const dotDense = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, v, i) => s + v * b[i], 0);
const outer = (x: number[]) => Matrix.columnVector(x).mmul(Matrix.rowVector(x));

/** ∇ of Σ_s ℓ(θᵀx_s, y_s) + (λ/2)‖θ‖², as glm_ucb.py line 85 writes it. */
function denseGradient(X: number[][], Y: number[], lambda: number, theta: number[]): number[] {
  const g = theta.map((v) => lambda * v);
  X.forEach((x, s) => {
    const c = sigma(dotDense(theta, x)) - Y[s];
    x.forEach((xa, a) => (g[a] += c * xa));
  });
  return g;
}

/**
 * The regularised MLE written plainly: Newton steps on Σ ℓ + (λ/2)‖θ‖² (Hessian Σ μ̇ x xᵀ + λI solved
 * by ml-matrix), Armijo halving on the objective; once the Newton decrement is below 1e-10, full steps
 * while the gradient shrinks.
 */
function denseMle(X: number[][], Y: number[], lambda: number, start: number[]): number[] {
  const d = start.length;
  const objective = (t: number[]) =>
    0.5 * lambda * dotDense(t, t) +
    X.reduce((total, x, s) => {
      const z = dotDense(t, x);
      return total + Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z))) - Y[s] * z;
    }, 0);
  let theta = start.slice();
  for (let iteration = 0; iteration < 100; iteration++) {
    const g = denseGradient(X, Y, lambda, theta);
    if (norm(g) === 0) break;
    let H = Matrix.eye(d).mul(lambda);
    for (const x of X) {
      const p = sigma(dotDense(theta, x));
      H = H.add(outer(x).mul(p * (1 - p)));
    }
    const step = solve(H, Matrix.columnVector(g)).to1DArray();
    const slope = dotDense(g, step);
    if (slope <= 1e-10) {
      const candidate = theta.map((v, i) => v - step[i]);
      if (!(norm(denseGradient(X, Y, lambda, candidate)) < norm(g))) break;
      theta = candidate;
      continue;
    }
    const f = objective(theta);
    let size = 1;
    while (size > 1e-12 && !(objective(theta.map((v, i) => v - size * step[i])) <= f - 1e-4 * size * slope)) size /= 2;
    theta = theta.map((v, i) => v - size * step[i]);
  }
  return theta;
}

/** GLM-UCB written out with dense matrices from glm_ucb.py's learn / update_ucb_bonus / compute_optimistic_reward. */
class DenseGlmUcb implements ReferencePolicy {
  theta: number[];
  V: Matrix;
  X: number[][] = [];
  Y: number[] = [];
  lastRadius = NaN;

  constructor(private readonly spec: PolicySpec) {
    this.theta = new Array(spec.d).fill(0);
    this.V = Matrix.eye(spec.d).mul(spec.regularization);
  }

  radius(): number {
    const { d, regularization: lambda, normBound: S, maxActionNorm: D, delta, beta, betaScale } = this.spec;
    if (typeof beta === 'number') return Math.sqrt(beta * betaScale);
    const kappa = 1 / (sigma(S * D) * (1 - sigma(S * D)));
    const logDet = symmetricEigenvalues(this.V).reduce((s, v) => s + Math.log(v), 0);
    const rho = 0.25 * kappa * Math.sqrt(2 * Math.log(1 / delta) + logDet - d * Math.log(lambda)) + Math.sqrt(lambda) * S;
    return rho * Math.sqrt(betaScale);
  }

  decide(rows: number[][]): number {
    this.lastRadius = this.radius();
    return denseBonusDecision(rows, this.theta, 1, Array.from(this.spec.reward), this.lastRadius, this.V);
  }

  learn(x: number[], outcome: number): void {
    this.X.push(x);
    this.Y.push(outcome);
    this.V = this.V.add(outer(x));
    this.theta = denseMle(this.X, this.Y, this.spec.regularization, this.theta);
  }
}

/** The trace with a copy of each round's first action appended: exact ties every round. */
function withTies(trace: Trace): Trace {
  return { ...trace, rounds: trace.rounds.map((r) => ({ ...r, actions: [...r.actions, r.actions[0].slice()] })) };
}

describe('GLM-UCB: bad arguments', () => {
  it('refuses K ≠ 1, an outcome outside {0, 1}, non-finite actions and a bad spec', () => {
    expect(() => new GlmUcb(makeSpec(2, 3))).toThrow(RangeError);
    expect(() => new GlmUcb(makeSpec(2, 3))).toThrow(/GLM-UCB is a binary \(K = 1\) policy, got K = 2/);
    const policy = new GlmUcb(makeSpec(1, 3));
    expect(() => policy.update(new Float64Array(3), 2)).toThrow(/outcome must be an integer in 0..1, got 2/);
    expect(() => policy.update(new Float64Array(3), 0.5)).toThrow(/outcome must be an integer in 0..1, got 0.5/);
    expect(() => policy.select(actionSet([[0, NaN, 1]]), 1)).toThrow(/action 0, feature 1 is NaN/);
    expect(() => new GlmUcb(makeSpec(1, 3, { regularization: -1 }))).toThrow(/lambda must be a number/);
    expect(() => new GlmUcb(makeSpec(1, 3, { delta: 0 }))).toThrow(/delta must lie in \(0, 1\)/);
    // S·D = 400: κ = μ̇(400) is 10⁻¹⁷⁴ and the radius is not finite in double precision.
    expect(() => new GlmUcb(makeSpec(1, 3, { normBound: 400 }))).toThrow(/GLM-UCB needs .* S·D = 400/);
  });
});

describe('GLM-UCB decides as its dense reference', () => {
  const rounds = 220;
  const d = 6;
  const cases: { beta: BetaMode; regularization: number; betaScale: number; normBound: number }[] = [
    { beta: 'theory', regularization: 1, betaScale: 1, normBound: 1 },
    { beta: 'order', regularization: 6, betaScale: 1e-3, normBound: 2 },
    { beta: 0.3, regularization: 1, betaScale: 1, normBound: 1 },
    { beta: 0.01, regularization: 0.2, betaScale: 1, normBound: 1 },
  ];
  for (const { beta, regularization, betaScale, normBound } of cases) {
    it(`beta = ${beta}, beta_scale = ${betaScale}, λ = ${regularization}: ${rounds} identical decisions (a tie every round), estimates within 1e-9`, () => {
      const trace = withTies(syntheticTrace(1, d, rounds, 31, 3));
      const spec = makeSpec(1, d, { regularization, normBound, beta, betaScale, delta: 0.05 });
      const policy = new GlmUcb(spec);
      const reference = new DenseGlmUcb(spec);
      let worst = 0;
      let worstGradient = 0;
      const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, () => {
        worst = Math.max(worst, maxAbsDiff(policy.estimate(), reference.theta));
        const scale = 1 + reference.X.reduce((s, x) => s + norm(x), 0);
        worstGradient = Math.max(worstGradient, norm(denseGradient(reference.X, reference.Y, regularization, Array.from(policy.estimate()))) / scale);
        expect(policy.lastIterations).toBeLessThan(50);
      });
      expect(firstDifference).toBe(-1);
      expect(decisions).toHaveLength(rounds);
      // The appended copy of action 0 ties with it every round and is never chosen: ties go to the lowest index.
      expect(decisions.filter((index, t) => index === trace.rounds[t].actions.length - 1)).toEqual([]);
      expect(new Set(decisions).size).toBeGreaterThan(2);
      expect(worst).toBeLessThan(1e-9);
      // The first-order condition of the MLE, every round (the policy stops at 1e-12; the dense gradient adds rounding).
      expect(worstGradient).toBeLessThan(1e-11);
      expect(policy.stats().beta).toBeCloseTo(reference.lastRadius ** 2, 6);
    });
  }
});

describe('GLM-UCB: its matrix and radius are those of glm_ucb.py', () => {
  it('V_t = λI + Σ x_sx_sᵀ with ln det V_t, κ = 1/μ̇(S·D), and ρ(t) = (κ/4)√(2 ln(1/δ) + ln det V_t − d ln λ) + √λS', () => {
    const [d, rounds, lambda, S, D, delta] = [5, 120, 0.8, 1.5, 1.2, 0.05];
    const policy = new GlmUcb(makeSpec(1, d, { regularization: lambda, normBound: S, maxActionNorm: D, beta: 'theory', delta, refreshInterval: 1_000_000 }));
    const env = new TraceEnvironment(syntheticTrace(1, d, rounds, 3, 2));
    let V = Matrix.eye(d).mul(lambda);
    for (let t = 1; t <= rounds; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      const x = Array.from(actions.features.subarray(index * d, (index + 1) * d));
      policy.update(Float64Array.from(x), env.play(index).outcome);
      V = V.add(outer(x));
    }
    const kappa = 1 / (sigma(S * D) * (1 - sigma(S * D)));
    expect(policy.kappa).toBeCloseTo(kappa, 10);
    expect(maxAbsDiff(policy.design.matrix, V.to1DArray())).toBeLessThan(1e-12);
    const logDet = symmetricEigenvalues(V).reduce((s, v) => s + Math.log(v), 0);
    expect(Math.abs(policy.design.logDeterminant - logDet)).toBeLessThan(1e-10);
    const rho = 0.25 * kappa * Math.sqrt(2 * Math.log(1 / delta) + logDet - d * Math.log(lambda)) + Math.sqrt(lambda) * S;
    expect(policy.betaAt()).toBeCloseTo(rho * rho, 8);
  });
});
