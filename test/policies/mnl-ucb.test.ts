import { Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { MLE_TOLERANCE } from '../../src/policies/kit/mle.js';
import { MnlUcb, mnlUcbRangeProblem } from '../../src/policies/mnl-ucb.js';
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

  it('refuses a λ its Newton system cannot resolve (S = 1e-30 gave λ ≈ 1e-29: round 1 failed), before any round', () => {
    // Before the check: "the Hessian of the likelihood is not positive definite" in round 1.
    for (const regularization of [1.3e-29, 1e-17]) {
      expect(mnlUcbRangeProblem({ regularization, maxActionNorm: 1 })).toMatch(/MNL-UCB needs λ ≥ 1\.0e-12 \(1e-12·D²\).*raise params\.S .* or set params\.lambda/);
      expect(() => new MnlUcb(makeSpec(2, 3, { regularization }))).toThrow(/MNL-UCB needs λ ≥/);
    }
    expect(mnlUcbRangeProblem({ regularization: 1e-12, maxActionNorm: 1 })).toBeNull();
    expect(mnlUcbRangeProblem({ regularization: 1e-9, maxActionNorm: 100 })).toMatch(/λ ≥ 1\.0e-8/);
    // Just above the floor it learns: 40 rounds of a rank-deficient start.
    const policy = new MnlUcb(makeSpec(2, 3, { regularization: 1e-12 }));
    for (let t = 1; t <= 40; t++) policy.update(Float64Array.from([Math.cos(t), Math.sin(t), 0]), t % 3);
    expect(policy.estimate().every(Number.isFinite)).toBe(true);
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
          const bound = (MLE_TOLERANCE * 1.1 * (1 + t)) / spec.regularization;
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

describe("MNL-UCB: the 'theory' radius is Amani and Thrampoulidis's (2021), eq. (22), Theorem 1, eq. (26)", () => {
  // K = 2, d = 3, λ = 1.5, S = 0.8, ‖x‖ ≤ D = 1, δ = 0.05, ρ = (0.5, 1), round t = 7.
  const [K, d, lambda, S, delta, t] = [2, 3, 1.5, 0.8, 0.05, 7];
  const reward = [0.5, 1];
  const spec = makeSpec(K, d, { regularization: lambda, normBound: S, delta, beta: 'theory', reward: Float64Array.from(reward) });

  it('β_t = γ_t², γ_t = 2RLβ_t(δ)√(κ(1+2S)), from the formulas and from their values', () => {
    // Section 3: κ ≤ e^{SX}(1 + Ke^{SX})² (eq. (26), which their experiments use), L ≤ e^{SX}/(1 + e^{SX} + (K−1)e^{−SX}).
    const kappa = Math.exp(S) * (1 + K * Math.exp(S)) ** 2;
    const L = Math.exp(S) / (1 + Math.exp(S) + (K - 1) * Math.exp(-S));
    // Theorem 1.
    const betaT =
      ((K ** 1.5 * d) / Math.sqrt(lambda)) * Math.log(1 + t / (d * lambda)) +
      Math.sqrt(lambda / K) / 2 +
      ((2 * K ** 1.5 * d) / Math.sqrt(lambda)) * Math.log(2 / delta) +
      Math.sqrt(lambda) * S;
    // eq. (22), R = ‖ρ‖₂ (Assumption 1).
    const gamma = 2 * Math.hypot(...reward) * L * betaT * Math.sqrt(kappa * (1 + 2 * S));
    const policy = new MnlUcb(spec);
    expect(policy.betaAt(t)).toBeCloseTo(gamma ** 2, 6);
    // The same numbers, written out (computed apart from this code): κ, L, β_7(δ), γ_7.
    expect(kappa).toBeCloseTo(66.13037614863936, 10);
    expect(L).toBeCloseTo(0.6056108089617321, 12);
    expect(betaT).toBeCloseTo(59.02794444015273, 10);
    expect(Math.abs(policy.betaAt(t) / 1098618.481503932 - 1)).toBeLessThan(1e-12);
    // beta_scale multiplies β_t = γ_t² (so γ_t by its square root).
    expect(new MnlUcb({ ...spec, betaScale: 4 }).betaAt(t) / policy.betaAt(t)).toBeCloseTo(4, 12);
  });

  it('V_1 = κλI, eq. (18)', () => {
    const policy = new MnlUcb(spec);
    const kappaLambda = 99.19556422295904;
    for (let i = 0; i < d; i++) {
      for (let j = 0; j < d; j++) expect(policy.design.matrix[i * d + j]).toBeCloseTo(i === j ? kappaLambda : 0, 10);
    }
  });
});

/**
 * Why 'theory' plays the greedy actions at S = 5: V_t = κλI + G_t with κ ≤ e^S(1+Ke^S)² ≈ 3.3·10⁶
 * (K = 1) and G_t = Σ_{s<t} x_s x_sᵀ, so for unit-norm actions ‖x‖²_{V⁻¹} lies in [1/(κλ + λ_max(G_t)), 1/(κλ)] and
 * the bonus varies across a round's actions by at most γ_t(1/√(κλ) − 1/√(κλ + tr G_t)) ≤ γ_t(t−1)/(2(κλ)^{3/2}),
 * while its common part γ_t/√(κλ) cancels in the argmax. The √κ in γ_t meets (κλ)^{-3/2}: the part of the bonus
 * that can change a decision scales as 1/κ.
 */
describe("MNL-UCB 'theory': a bonus constant across unit-norm actions when κλ ≫ t, and not otherwise", () => {
  function play(K: number, d: number, rounds: number, overrides: Partial<PolicySpec>) {
    const spec = makeSpec(K, d, { beta: 'theory', ...overrides });
    const policy = new MnlUcb(spec);
    // V_1 = κλI (eq. (18)).
    const kappaLambda = policy.design.matrix[0];
    const env = new TraceEnvironment(syntheticTrace(K, d, rounds, 40 + K, 2));
    const sigma = new Float64Array(K);
    let differs = 0;
    let decided = 0;
    let worstSpread = 0;
    for (let t = 1; t <= rounds; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      const gamma = Math.sqrt(policy.betaAt(t));
      const inverse = new Matrix(Array.from({ length: d }, (_, i) => Array.from(policy.design.inverse.subarray(i * d, (i + 1) * d))));
      const means: number[] = [];
      const bonuses: number[] = [];
      for (let a = 0; a < actions.count; a++) {
        const x = Array.from(actions.features.subarray(a * d, (a + 1) * d));
        sigma.set(softmaxDense(timesX(policy.estimate(), K, x)));
        means.push(sigma.reduce((s, p, k) => s + spec.reward[k] * p, 0));
        bonuses.push(gamma * Math.sqrt(Matrix.rowVector(x).mmul(inverse).mmul(Matrix.columnVector(x)).get(0, 0)));
      }
      const greedy = means.indexOf(Math.max(...means));
      const spread = Math.max(...bonuses) - Math.min(...bonuses);
      // tr G_t = t − 1 ≥ λ_max(G_t) for unit-norm actions.
      const bound = (gamma * (t - 1)) / (2 * kappaLambda ** 1.5);
      if (t > 1) worstSpread = Math.max(worstSpread, spread / Math.max(bound, Number.MIN_VALUE));
      // When the top two means are further apart than the bonus can vary, the decision is the greedy one.
      const runnerUp = Math.max(...means.filter((_, a) => a !== greedy));
      if (means[greedy] - runnerUp > spread) {
        decided++;
        expect(index).toBe(greedy);
      }
      if (index !== greedy) differs++;
      const { outcome } = env.play(index);
      policy.update(actions.features.slice(index * d, (index + 1) * d), outcome);
    }
    return { differs, decided, worstSpread, kappaLambda };
  }

  for (const K of [1, 3]) {
    it(`K = ${K}, S = 5 (κλ ≈ ${K === 1 ? '7·10⁸' : '1.7·10¹⁰'}): the bonus varies by ≤ γ(t−1)/(2(κλ)^{3/2}) and every decision is greedy's`, () => {
      // λ as Section 4 derives it for d = 5: (√K d)^{0.75}·√K(2(1 + S) + ln(K+1))S.
      const d = 5;
      const lambda = (Math.sqrt(K) * d) ** 0.75 * Math.sqrt(K) * (2 * 6 + Math.log(K + 1)) * 5;
      const { differs, decided, worstSpread } = play(K, d, 150, { normBound: 5, regularization: lambda });
      expect(worstSpread).toBeLessThanOrEqual(1 + 1e-6);
      expect(decided).toBeGreaterThan(140);
      expect(differs).toBe(0);
    });
  }

  it('K = 1, S = 0.5, λ = 1 (κλ ≈ 11.6, their experiments have κ = 30–100): the bonus changes decisions', () => {
    const { differs, kappaLambda } = play(1, 5, 150, { normBound: 0.5, regularization: 1 });
    expect(kappaLambda).toBeLessThan(12);
    expect(differs).toBeGreaterThan(10);
  });
});
