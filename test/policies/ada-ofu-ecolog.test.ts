import { Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment, type Trace } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { AdaOfuEcolog } from '../../src/policies/ada-ofu-ecolog.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { denseBonusDecision, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { maxAbsDiff, norm } from '../helpers/dense.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';

const sigma = (z: number) => 1 / (1 + Math.exp(-z));
const dotDense = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, v, i) => s + v * b[i], 0);
/** ℓ(z, y) = −y ln σ(z) − (1 − y) ln(1 − σ(z)), as ecolog.py lines 83 and 85 write it. */
const loss = (z: number, y: number) => -y * Math.log(sigma(z)) - (1 - y) * Math.log(1 - sigma(z));
const outer = (x: number[]) => Matrix.columnVector(x).mmul(Matrix.rowVector(x));
const vNorm = (V: Matrix, v: number[]) => Math.sqrt(Matrix.rowVector(v).mmul(V).mmul(Matrix.columnVector(v)).get(0, 0));
const asMatrix = (a: Float64Array, d: number) => new Matrix(Array.from({ length: d }, (_, i) => Array.from(a.subarray(i * d, (i + 1) * d))));

/**
 * min_θ ½‖θ − c‖²_V + L(θᵀx) + (ν/2)‖θ‖² with L(z) = a(ln(1 + e^z) − bz) (so L' = a(σ − b)), by damped
 * Newton steps written plainly: Hessian V + νI + aσ(1−σ)xxᵀ solved by ml-matrix, Armijo halving on the
 * objective; once the Newton decrement gᵀH⁻¹g is below 1e-10, full steps while the gradient shrinks.
 */
function denseNewton(V: Matrix, c: number[], x: number[], a: number, b: number, nu: number): number[] {
  const d = c.length;
  const objective = (t: number[]) => {
    const diff = t.map((v, i) => v - c[i]);
    const z = dotDense(t, x);
    return 0.5 * vNorm(V, diff) ** 2 + a * (Math.max(z, 0) + Math.log1p(Math.exp(-Math.abs(z))) - b * z) + 0.5 * nu * dotDense(t, t);
  };
  const gradient = (t: number[]) => {
    const g = V.mmul(Matrix.columnVector(t.map((v, i) => v - c[i]))).to1DArray();
    const s = a * (sigma(dotDense(t, x)) - b);
    return g.map((gi, i) => gi + s * x[i] + nu * t[i]);
  };
  let theta = c.slice();
  for (let iteration = 0; iteration < 200; iteration++) {
    const g = gradient(theta);
    if (norm(g) === 0) break;
    const s = sigma(dotDense(theta, x));
    const H = V.clone().add(Matrix.eye(d).mul(nu)).add(outer(x).mul(a * s * (1 - s)));
    const step = solve(H, Matrix.columnVector(g)).to1DArray();
    const slope = dotDense(g, step);
    // Near the minimiser (decrement ≤ 1e-10, below what the objective's rounding resolves): full steps
    // while the gradient shrinks, Newton's quadratic convergence.
    if (slope <= 1e-10) {
      const candidate = theta.map((v, i) => v - step[i]);
      if (!(norm(gradient(candidate)) < norm(g))) break;
      theta = candidate;
      continue;
    }
    const f = objective(theta);
    let t = 1;
    while (t > 1e-12 && !(objective(theta.map((v, i) => v - t * step[i])) <= f - 1e-4 * t * slope)) t /= 2;
    theta = theta.map((v, i) => v - t * step[i]);
  }
  return theta;
}

/**
 * argmin_{‖θ‖≤S} ½‖θ − c‖²_V + L(θᵀx): the unconstrained Newton minimiser if it is in the ball, otherwise
 * the Lagrangian route written out: bisection on ν ≥ 0 until the Newton minimiser of the penalised
 * objective has norm S (its norm falls as ν grows), taking the feasible end.
 */
function denseStep(V: Matrix, c: number[], x: number[], a: number, b: number, S: number): { theta: number[]; constrained: boolean } {
  const free = denseNewton(V, c, x, a, b, 0);
  if (norm(free) <= S) return { theta: free, constrained: false };
  let lo = 0;
  let hi = 1;
  while (norm(denseNewton(V, c, x, a, b, hi)) > S) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-16 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (norm(denseNewton(V, c, x, a, b, mid)) > S) lo = mid;
    else hi = mid;
  }
  return { theta: denseNewton(V, c, x, a, b, hi), constrained: true };
}

/** ada-OFU-ECOLog written out with dense matrices from ecolog.py's learn / update_ucb_bonus / compute_optimistic_reward. */
class DenseEcolog implements ReferencePolicy {
  theta: number[];
  V: Matrix;
  cumulativeLoss = 0;
  violations = 0;
  projections = 0;
  lastRadius = NaN;

  constructor(private readonly spec: PolicySpec) {
    this.theta = new Array(spec.d).fill(0);
    this.V = Matrix.eye(spec.d).mul(spec.regularization);
  }

  radius(t: number): number {
    const { regularization: lambda, normBound: S, delta, beta, betaScale } = this.spec;
    if (typeof beta === 'number') return Math.sqrt(beta * betaScale);
    const g = Math.sqrt(lambda) / 2 + (2 * Math.log((2 * Math.sqrt(1 + t / (4 * lambda))) / delta)) / Math.sqrt(lambda);
    return Math.sqrt(Math.max(0, 2 * lambda * S ** 2 + (1 + S) ** 2 * g + this.cumulativeLoss) * betaScale);
  }

  decide(rows: number[][], t: number): number {
    this.lastRadius = this.radius(t);
    return denseBonusDecision(rows, this.theta, 1, Array.from(this.spec.reward), this.lastRadius, this.V);
  }

  learn(x: number[], outcome: number): void {
    const S = this.spec.normBound;
    const next = denseStep(this.V, this.theta, x, 1, outcome, S);
    const bar = denseStep(this.V, next.theta, x, 2, 0.5, S);
    if (next.constrained || bar.constrained) this.projections++;
    const z = dotDense(next.theta, x);
    const zBar = dotDense(bar.theta, x);
    const gap = vNorm(this.V, next.theta.map((v, i) => v - bar.theta[i]));
    this.cumulativeLoss += 2 * (1 + S) * (loss(zBar, outcome) - loss(z, outcome)) - 0.5 * gap;
    const slope = (u: number) => sigma(u) * (1 - sigma(u));
    if (slope(zBar) / slope(z) > 2) this.violations++;
    this.V = this.V.add(outer(x).mul(slope(z)));
    this.theta = next.theta;
  }
}

/** The trace with a copy of each round's first action appended: exact ties every round. */
function withTies(trace: Trace): Trace {
  return { ...trace, rounds: trace.rounds.map((r) => ({ ...r, actions: [...r.actions, r.actions[0].slice()] })) };
}

describe('ada-OFU-ECOLog: bad arguments', () => {
  it('refuses K ≠ 1, an outcome outside {0, 1} and non-finite actions', () => {
    expect(() => new AdaOfuEcolog(makeSpec(2, 3))).toThrow(RangeError);
    expect(() => new AdaOfuEcolog(makeSpec(2, 3))).toThrow(/ada-OFU-ECOLog is a binary \(K = 1\) policy, got K = 2/);
    const policy = new AdaOfuEcolog(makeSpec(1, 3));
    expect(() => policy.update(new Float64Array(3), 2)).toThrow(/outcome must be an integer in 0..1, got 2/);
    expect(() => policy.update(new Float64Array(3), 0.5)).toThrow(/outcome must be an integer in 0..1, got 0.5/);
    expect(() => policy.select(actionSet([[0, NaN, 1]]), 1)).toThrow(/action 0, feature 1 is NaN/);
    expect(() => new AdaOfuEcolog(makeSpec(1, 3, { regularization: 0 }))).toThrow(/lambda must be a number/);
  });
});

describe('ada-OFU-ECOLog decides as its dense reference', () => {
  const rounds = 240;
  const d = 5;
  // ‖θ*‖ > S: the steps press on the ball and the constrained step is taken. The last case (small λ,
  // large S) makes the data-dependent condition μ̇(θ̄ᵀx)/μ̇(θ_{t+1}ᵀx) ≤ 2 fail in some rounds.
  const cases: { beta: BetaMode; regularization: number; normBound: number; normStar: number; violations: boolean }[] = [
    { beta: 'theory', regularization: 1, normBound: 1, normStar: 3, violations: false },
    { beta: 'order', regularization: 1, normBound: 1, normStar: 3, violations: false },
    { beta: 0.5, regularization: 1, normBound: 1, normStar: 3, violations: false },
    { beta: 'theory', regularization: 0.1, normBound: 4, normStar: 6, violations: true },
  ];
  for (const { beta, regularization, normBound, normStar, violations } of cases) {
    it(`beta = ${beta}, λ = ${regularization}, S = ${normBound}: ${rounds} identical decisions (a tie every round), estimates within 1e-12/λ`, () => {
      const trace = withTies(syntheticTrace(1, d, rounds, 41, normStar));
      const spec = makeSpec(1, d, { regularization, normBound, beta, delta: 0.05 });
      const policy = new AdaOfuEcolog(spec);
      const reference = new DenseEcolog(spec);
      let worst = 0;
      const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, () => {
        worst = Math.max(worst, maxAbsDiff(policy.estimate(), reference.theta));
      });
      expect(firstDifference).toBe(-1);
      expect(decisions).toHaveLength(rounds);
      // The appended copy of action 0 ties with it every round and is never chosen: ties go to the lowest index.
      expect(decisions.filter((index, t) => index === trace.rounds[t].actions.length - 1)).toEqual([]);
      expect(new Set(decisions).size).toBeGreaterThan(2);
      // Both solve the same λ-strongly convex steps to rounding (measured ≤ 2e-14 here); 1e-12/λ leaves
      // room for other machines' libm over 240 rounds.
      expect(worst).toBeLessThan(1e-12 / regularization);
      expect(policy.stats().projections).toBe(reference.projections);
      expect(reference.projections).toBeGreaterThan(0);
      expect(policy.sensitivityViolations).toBe(reference.violations);
      expect(reference.violations > 0).toBe(violations);
      expect(Math.abs(policy.cumulativeLoss - reference.cumulativeLoss)).toBeLessThan(1e-10 * (1 + Math.abs(reference.cumulativeLoss)));
      expect(policy.stats().beta).toBeCloseTo(reference.lastRadius ** 2, 10);
    });
  }
});

describe('ada-OFU-ECOLog: its steps, matrix and radius are those of the method', () => {
  it('both steps satisfy their KKT conditions to 1e-10 every round, ‖θ_t‖ ≤ S, Ṽ_t = λI + Σ μ̇(θ_{s+1}ᵀx_s) x_s x_sᵀ', () => {
    const [d, rounds, lambda, S] = [6, 300, 0.7, 0.8];
    const policy = new AdaOfuEcolog(makeSpec(1, d, { regularization: lambda, normBound: S, beta: 0.2, refreshInterval: 1_000_000 }));
    const env = new TraceEnvironment(syntheticTrace(1, d, rounds, 5, 2.5));
    let V = Matrix.eye(d).mul(lambda);
    let worstKkt = 0;
    let onSphere = 0;
    let outside = 0;
    /** ‖∇‖ of ½‖θ − c‖²_V + L(θᵀx) + (ν/2)‖θ‖² with ν = −∇ᵀθ/S² read off the gradient (ν = 0 inside the ball); ν ≥ 0 checked. */
    const kkt = (theta: number[], c: number[], x: number[], a: number, b: number) => {
      const g = V.mmul(Matrix.columnVector(theta.map((v, i) => v - c[i]))).to1DArray();
      const s = a * (sigma(dotDense(theta, x)) - b);
      const gradient = g.map((gi, i) => gi + s * x[i]);
      const inside = norm(theta) < S * (1 - 1e-9);
      const nu = inside ? 0 : -dotDense(gradient, theta) / (S * S);
      if (!inside) onSphere++;
      expect(nu).toBeGreaterThanOrEqual(-1e-10);
      return norm(gradient.map((gi, i) => gi + nu * theta[i]));
    };
    for (let t = 1; t <= rounds; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      const x = Array.from(actions.features.subarray(index * d, (index + 1) * d));
      const before = Array.from(policy.estimate());
      expect(maxAbsDiff(policy.design.matrix, V.to1DArray())).toBeLessThan(1e-12);
      const { outcome } = env.play(index);
      policy.update(Float64Array.from(x), outcome);
      const after = Array.from(policy.estimate());
      worstKkt = Math.max(worstKkt, kkt(after, before, x, 1, outcome), kkt(Array.from(policy.thetaBar), after, x, 2, 0.5));
      const z = dotDense(after, x);
      V = V.add(outer(x).mul(sigma(z) * (1 - sigma(z))));
      if (norm(after) > S * (1 + 1e-12) || norm(policy.thetaBar) > S * (1 + 1e-12)) outside++;
    }
    // Measured ≤ 1e-14; Ṽ's entries reach ~50 here, so rounding alone stays far below 1e-10.
    expect(worstKkt).toBeLessThan(1e-10);
    expect(onSphere).toBeGreaterThan(0);
    expect(outside).toBe(0);
    expect(maxAbsDiff(policy.design.matrix, V.to1DArray())).toBeLessThan(1e-12);
    const inverse = asMatrix(policy.design.inverse, d);
    expect(inverse.mmul(V).sub(Matrix.eye(d)).norm('frobenius')).toBeLessThan(1e-10);
  });
});
