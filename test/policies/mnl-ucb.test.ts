import { Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { MnlUcb, NEWTON_TOLERANCE } from '../../src/policies/mnl-ucb.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { denseBonusDecision, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';
import { jacobianDense, kronHessian, maxAbsDiff, norm, softmaxDense, timesX } from '../helpers/dense.js';

/** −L_t^λ(θ) = −Σ ln σ_{y_s}(θx_s) + (λ/2)‖θ‖² and its gradient λθ + Σ (σ_s − e_{y_s}) ⊗ x_s, eq. (7)–(8). */
function denseObjective(theta: number[], xs: number[][], ys: number[], K: number, lambda: number) {
  let value = 0.5 * lambda * theta.reduce((s, v) => s + v * v, 0);
  const gradient = theta.map((v) => lambda * v);
  const d = theta.length / K;
  xs.forEach((x, s) => {
    const sigma = softmaxDense(timesX(theta, K, x));
    value -= Math.log(ys[s] === 0 ? 1 - sigma.reduce((a, b) => a + b, 0) : sigma[ys[s] - 1]);
    sigma.forEach((p, i) => x.forEach((xa, a) => (gradient[i * d + a] += (p - (ys[s] === i + 1 ? 1 : 0)) * xa)));
  });
  return { value, gradient };
}

/** The MLE by dense Newton steps (halved while the objective rises, far from the optimum), to ‖∇‖ ≤ 1e-13·(1 + Σ‖x_s‖) or a step below rounding. */
function denseMle(start: number[], xs: number[][], ys: number[], K: number, lambda: number): number[] {
  let theta = start.slice();
  const scale = 1 + xs.reduce((s, x) => s + norm(x), 0);
  for (let iteration = 0; iteration < 100; iteration++) {
    const { value, gradient } = denseObjective(theta, xs, ys, K, lambda);
    if (norm(gradient) <= 1e-13 * scale) break;
    let H = Matrix.eye(theta.length).mul(lambda);
    for (const x of xs) H = H.add(kronHessian(jacobianDense(softmaxDense(timesX(theta, K, x))), x));
    const step = solve(H, Matrix.columnVector(gradient)).to1DArray();
    let size = 1;
    let next = theta.map((v, i) => v - step[i]);
    // Far from the optimum, halve while the objective rises; near it (‖∇‖ small) take full steps.
    while (norm(gradient) > 1e-6 * scale && denseObjective(next, xs, ys, K, lambda).value > value && size > 1e-10) {
      size /= 2;
      next = theta.map((v, i) => v - size * step[i]);
    }
    theta = next;
    if (size * norm(step) <= 1e-15 * (1 + norm(theta))) break;
  }
  return theta;
}

/** MNL-UCB as the paper writes it, dense: eq. (5), (7), (18), (22) and Theorem 1's β_t(δ). */
class DenseMnlUcb implements ReferencePolicy {
  readonly xs: number[][] = [];
  readonly ys: number[] = [];
  theta: number[];
  V: Matrix;
  private readonly kappa: number;
  private readonly factor: number;

  constructor(private readonly spec: PolicySpec) {
    const { K, d, normBound: S, regularization: lambda } = spec;
    this.theta = new Array(K * d).fill(0);
    const e = Math.exp(S);
    const theory = spec.beta === 'theory';
    this.kappa = theory ? e * (1 + K * e) ** 2 : 1;
    const L = e / (1 + e + (K - 1) * Math.exp(-S));
    const R = Math.hypot(...spec.reward);
    this.factor = theory ? 2 * R * L * Math.sqrt(this.kappa * (1 + 2 * S)) : 1;
    this.V = Matrix.eye(d).mul(this.kappa * lambda);
  }

  radius(t: number): number {
    const { K, d, regularization: lambda, normBound: S, delta, beta, betaScale } = this.spec;
    if (typeof beta === 'number') return Math.sqrt(beta * betaScale);
    const betaT =
      ((K ** 1.5 * d) / Math.sqrt(lambda)) * Math.log(1 + t / (d * lambda)) +
      Math.sqrt(lambda / K) / 2 +
      ((2 * K ** 1.5 * d) / Math.sqrt(lambda)) * Math.log(2 / delta) +
      Math.sqrt(lambda) * S;
    return this.factor * betaT * Math.sqrt(betaScale);
  }

  decide(rows: number[][], t: number): number {
    return denseBonusDecision(rows, this.theta, this.spec.K, Array.from(this.spec.reward), this.radius(t), this.V);
  }

  learn(x: number[], outcome: number): void {
    this.xs.push(x);
    this.ys.push(outcome);
    this.V = this.V.add(Matrix.columnVector(x).mmul(Matrix.rowVector(x)));
    this.theta = denseMle(this.theta, this.xs, this.ys, this.spec.K, this.spec.regularization);
  }
}

describe('MNL-UCB: bad arguments', () => {
  it('rejects an invalid spec, an outcome outside 0..K and non-finite actions', () => {
    expect(() => new MnlUcb(makeSpec(2, 3, { regularization: 0 }))).toThrow(/lambda must be a number in \[1e-30, 1e\+30\], got 0/);
    const policy = new MnlUcb(makeSpec(2, 3));
    expect(() => policy.update(new Float64Array(3), 3)).toThrow(/outcome must be an integer in 0..2, got 3/);
    expect(() => policy.select(actionSet([[0, NaN, 1]]), 1)).toThrow(/action 0, feature 1 is NaN/);
  });
});

describe('MNL-UCB decides as its dense reference', () => {
  const rounds = 220;
  for (const [K, d] of [
    [1, 5],
    [3, 4],
  ] as const) {
    for (const beta of ['theory', 'order', 0.3] as BetaMode[]) {
      it(`K = ${K}, d = ${d}, beta = ${beta}: ${rounds} identical decisions and estimates`, () => {
        const trace = syntheticTrace(K, d, rounds, 300 + K, 2);
        const spec = makeSpec(K, d, { regularization: 1.5, beta, betaScale: beta === 'order' ? 0.05 : 1 });
        const policy = new MnlUcb(spec);
        const reference = new DenseMnlUcb(spec);
        // −L is λ-strongly convex, so ‖θ̂ − θ_ref‖ ≤ ‖∇L(θ̂)‖/λ ≤ 1e-12·(1 + Σ‖x_s‖)/λ (+ the reference's own 1e-13); ‖x_s‖ = 1.
        let worstExcess = -Infinity;
        const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, (t) => {
          const bound = (NEWTON_TOLERANCE * 1.1 * (1 + t)) / spec.regularization;
          worstExcess = Math.max(worstExcess, maxAbsDiff(policy.estimate(), reference.theta) - bound);
        });
        expect(firstDifference).toBe(-1);
        expect(worstExcess).toBeLessThan(0);
        // Not trivial: several actions chosen, and the estimate moved away from 0.
        expect(new Set(decisions).size).toBeGreaterThan(2);
        expect(norm(reference.theta)).toBeGreaterThan(0.1);
        expect(policy.stats().beta).toBeCloseTo(reference.radius(rounds) ** 2, 6);
      });
    }
  }
});

describe('MNL-UCB: the estimate is the regularised MLE (first-order condition ∇L(θ̂) = 0)', () => {
  for (const [K, d] of [
    [1, 6],
    [4, 3],
  ] as const) {
    it(`K = ${K}, d = ${d}: ‖∇L(θ̂_t)‖ ≤ 1e-8 after every one of 200 rounds, and θ̂ beats nearby points`, () => {
      const rounds = 200;
      const lambda = 0.7;
      const trace = syntheticTrace(K, d, rounds, 11 + K, 3);
      const policy = new MnlUcb(makeSpec(K, d, { regularization: lambda, beta: 0.2 }));
      const env = new TraceEnvironment(trace);
      const xs: number[][] = [];
      const ys: number[] = [];
      let worst = 0;
      for (let t = 1; t <= rounds; t++) {
        const actions = env.actions(t);
        const index = policy.select(actions, t);
        const x = Array.from(actions.features.subarray(index * d, (index + 1) * d));
        const { outcome } = env.play(index);
        policy.update(Float64Array.from(x), outcome);
        xs.push(x);
        ys.push(outcome);
        worst = Math.max(worst, norm(denseObjective(Array.from(policy.estimate()), xs, ys, K, lambda).gradient));
      }
      expect(worst).toBeLessThan(1e-8);
      const theta = Array.from(policy.estimate());
      const best = denseObjective(theta, xs, ys, K, lambda).value;
      for (let k = 0; k < theta.length; k++) {
        for (const h of [1e-3, -1e-3]) {
          const moved = theta.map((v, i) => (i === k ? v + h : v));
          expect(denseObjective(moved, xs, ys, K, lambda).value).toBeGreaterThan(best);
        }
      }
    });
  }

  it('V_t⁻¹ equals the inverse of κλI + Σ x_s x_sᵀ, eq. (18)', () => {
    const [K, d, rounds] = [2, 5, 120];
    const spec = makeSpec(K, d, { beta: 'theory', refreshInterval: 1_000_000 });
    const policy = new MnlUcb(spec);
    const reference = new DenseMnlUcb(spec);
    playAgainstReference(policy, reference, new TraceEnvironment(syntheticTrace(K, d, rounds, 5, 1)), rounds);
    const inverse = new Matrix(Array.from({ length: d }, (_, i) => Array.from(policy.design.inverse.subarray(i * d, (i + 1) * d))));
    const fresh = reference.V.clone();
    expect(inverse.mmul(fresh).sub(Matrix.eye(d)).norm('frobenius')).toBeLessThan(1e-10);
  });
});
