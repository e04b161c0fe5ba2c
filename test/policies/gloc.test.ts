import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment, type Trace } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { Gloc } from '../../src/policies/gloc.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { denseBonusDecision, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { denseInverse, denseProjection, maxAbsDiff, norm } from '../helpers/dense.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';

const sigma = (z: number) => 1 / (1 + Math.exp(-z));
const dotDense = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, v, i) => s + v * b[i], 0);
const outer = (x: number[]) => Matrix.columnVector(x).mmul(Matrix.rowVector(x));

/**
 * GLOC written out with dense matrices from Jun et al. (2017) as gloc.py plays it (learn, update_ucb_bonus,
 * compute_optimistic_reward): the online Newton step with its exact V-norm projection when it leaves the
 * ball, the conversion's centre θ̂ = V⁻¹z, and gloc.py's radius.
 */
class DenseGloc implements ReferencePolicy {
  theta: number[];
  centre: number[];
  z: number[];
  V: Matrix;
  B: number;
  readonly kappa: number;
  projections = 0;
  lastRadius = NaN;

  constructor(private readonly spec: PolicySpec) {
    const { d, regularization: lambda, normBound: S, maxActionNorm: D } = spec;
    this.theta = new Array(d).fill(0);
    this.centre = new Array(d).fill(0);
    this.z = new Array(d).fill(0);
    this.V = Matrix.eye(d).mul(lambda);
    this.kappa = sigma(S * D) * (1 - sigma(S * D));
    this.B = 2 * this.kappa * S * S * lambda;
  }

  radius(): number {
    const { normBound: S, delta, beta, betaScale } = this.spec;
    if (typeof beta === 'number') return Math.sqrt(beta * betaScale);
    const k = this.kappa;
    const squared = 1 + (4 / k) * this.B + 8 * (S / k) ** 2 * Math.log((2 * Math.sqrt(1 + (2 * this.B) / k + (4 * (S / k) ** 4) / delta ** 2)) / delta);
    return Math.sqrt(squared * betaScale);
  }

  decide(rows: number[][]): number {
    this.lastRadius = this.radius();
    return denseBonusDecision(rows, this.centre, 1, Array.from(this.spec.reward), this.lastRadius, this.V);
  }

  learn(x: number[], outcome: number): void {
    const prediction = dotDense(this.theta, x);
    const g = x.map((v) => (sigma(prediction) - outcome) * v);
    this.V = this.V.add(outer(x));
    const inverse = denseInverse(this.V);
    const Vg = inverse.mmul(Matrix.columnVector(g)).to1DArray();
    this.B += dotDense(g, Vg) / (2 * this.kappa);
    this.z = this.z.map((v, a) => v + prediction * x[a]);
    this.centre = inverse.mmul(Matrix.columnVector(this.z)).to1DArray();
    const unprojected = this.theta.map((v, a) => v - Vg[a] / this.kappa);
    const outside = norm(unprojected) > this.spec.normBound;
    if (outside) this.projections++;
    this.theta = outside ? denseProjection(this.V, unprojected, this.spec.normBound) : unprojected;
  }
}

/** The trace with a copy of each round's first action appended: exact ties every round. */
function withTies(trace: Trace): Trace {
  return { ...trace, rounds: trace.rounds.map((r) => ({ ...r, actions: [...r.actions, r.actions[0].slice()] })) };
}

describe('GLOC: bad arguments', () => {
  it('refuses K ≠ 1, an outcome outside {0, 1}, non-finite actions and a bad spec', () => {
    expect(() => new Gloc(makeSpec(2, 3))).toThrow(RangeError);
    expect(() => new Gloc(makeSpec(2, 3))).toThrow(/GLOC is a binary \(K = 1\) policy, got K = 2/);
    const policy = new Gloc(makeSpec(1, 3));
    expect(() => policy.update(new Float64Array(3), 2)).toThrow(/outcome must be an integer in 0..1, got 2/);
    expect(() => policy.update(new Float64Array(3), -1)).toThrow(/outcome must be an integer in 0..1, got -1/);
    expect(() => policy.select(actionSet([[0, NaN, 1]]), 1)).toThrow(/action 0, feature 1 is NaN/);
    expect(() => policy.select(actionSet([[0, 1, Infinity]]), 1)).toThrow(/action 0, feature 2 is Infinity/);
    expect(() => new Gloc(makeSpec(1, 3, { regularization: 0 }))).toThrow(/lambda must be a number/);
    expect(() => new Gloc(makeSpec(1, 3, { delta: 1 }))).toThrow(/delta must lie in \(0, 1\)/);
    // S·D = 400: κ = μ̇(400) is 10⁻¹⁷⁴ and the radius is not finite in double precision.
    expect(() => new Gloc(makeSpec(1, 3, { normBound: 400 }))).toThrow(/GLOC needs .* S·D = 400/);
  });
});

describe('GLOC decides as its dense reference', () => {
  const rounds = 250;
  const d = 6;
  // ‖θ*‖ = 3 > S = 1: the online Newton steps leave the ball and the V-norm projection is taken.
  const cases: { beta: BetaMode; regularization: number; betaScale: number }[] = [
    { beta: 'theory', regularization: 1, betaScale: 1 },
    { beta: 'order', regularization: 6, betaScale: 1e-3 },
    { beta: 0.3, regularization: 1, betaScale: 1 },
    { beta: 0.01, regularization: 0.5, betaScale: 1 },
  ];
  for (const { beta, regularization, betaScale } of cases) {
    it(`beta = ${beta}, beta_scale = ${betaScale}, λ = ${regularization}: ${rounds} identical decisions (a tie every round), estimates within 1e-9`, () => {
      const trace = withTies(syntheticTrace(1, d, rounds, 29, 3));
      const spec = makeSpec(1, d, { regularization, normBound: 1, beta, betaScale, delta: 0.05 });
      const policy = new Gloc(spec);
      const reference = new DenseGloc(spec);
      let worst = 0;
      const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, () => {
        worst = Math.max(worst, maxAbsDiff(policy.estimate(), reference.centre), maxAbsDiff(policy.online, reference.theta));
      });
      expect(firstDifference).toBe(-1);
      expect(decisions).toHaveLength(rounds);
      // The appended copy of action 0 ties with it every round and is never chosen: ties go to the lowest index.
      expect(decisions.filter((index, t) => index === trace.rounds[t].actions.length - 1)).toEqual([]);
      expect(new Set(decisions).size).toBeGreaterThan(2);
      expect(worst).toBeLessThan(1e-9);
      expect(policy.stats().projections).toBe(reference.projections);
      expect(reference.projections).toBeGreaterThan(0);
      expect(Math.abs(policy.regretBound - reference.B)).toBeLessThan(1e-10 * reference.B);
      expect(policy.stats().beta).toBeCloseTo(reference.lastRadius ** 2, 6);
    });
  }
});

describe('GLOC: its matrix, iterate and centre are those of the method', () => {
  it('V_t = λI + Σ x_sx_sᵀ, ‖θ_t‖ ≤ S every round, θ̂_t solves V_tθ̂ = Σ (θ_sᵀx_s)x_s, κ = μ̇(S·D)', () => {
    const [d, rounds, lambda, S, D] = [5, 300, 0.8, 0.7, 1.3];
    const policy = new Gloc(makeSpec(1, d, { regularization: lambda, normBound: S, maxActionNorm: D, beta: 0.1, refreshInterval: 1_000_000 }));
    const env = new TraceEnvironment(syntheticTrace(1, d, rounds, 9, 2));
    let V = Matrix.eye(d).mul(lambda);
    let z = new Array(d).fill(0);
    let outside = 0;
    let worstCentre = 0;
    for (let t = 1; t <= rounds; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      const x = Array.from(actions.features.subarray(index * d, (index + 1) * d));
      const prediction = dotDense(policy.online, x);
      policy.update(Float64Array.from(x), env.play(index).outcome);
      V = V.add(outer(x));
      z = z.map((v, a) => v + prediction * x[a]);
      const residual = V.mmul(Matrix.columnVector(Array.from(policy.centre))).to1DArray().map((v, a) => v - z[a]);
      worstCentre = Math.max(worstCentre, norm(residual) / (1 + norm(z)));
      if (norm(policy.online) > S * (1 + 1e-12)) outside++;
    }
    expect(policy.curvature).toBeCloseTo(sigma(S * D) * (1 - sigma(S * D)), 15);
    expect(maxAbsDiff(policy.design.matrix, V.to1DArray())).toBeLessThan(1e-12);
    expect(worstCentre).toBeLessThan(1e-12);
    expect(outside).toBe(0);
    expect(policy.stats().projections).toBeGreaterThan(0);
  });
});
