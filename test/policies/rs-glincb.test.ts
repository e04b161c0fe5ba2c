import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { TraceEnvironment, type Trace } from '../../src/environments/trace.js';
import type { BetaMode } from '../../src/model/beta.js';
import { logisticKappa } from '../../src/policies/kit/radius.js';
import { RsGlincb } from '../../src/policies/rs-glincb.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { argmaxLowestTie, playAgainstReference, type ReferencePolicy } from '../helpers/baselines.js';
import { denseInverse, maxAbsDiff } from '../helpers/dense.js';
import { denseLogDet, denseMle } from '../helpers/dense-mle.js';
import { actionSet, makeSpec, syntheticTrace } from '../helpers/policies.js';

/**
 * RS-GLinCB written out from Sawarni et al. (2024), Algorithm 2, with the authors' constants
 * (RS_GLincb.py): explicit V, H_t and H_τ (a copy), ml-matrix inverses and the dense MLE.
 */
class DenseRsGlincb implements ReferencePolicy {
  V: Matrix;
  H: Matrix;
  switchedInverse: Matrix | null = null;
  switchedLogDet = -Infinity;
  thetaW: number[];
  thetaTau: number[];
  warmX: number[][] = [];
  warmY: number[] = [];
  allX: number[][] = [];
  allY: number[] = [];
  warmup = false;
  warmupRounds = 0;
  switches = 0;
  readonly kappa: number;
  readonly threshold: number;
  readonly gamma: number;
  readonly beta: number;

  constructor(private readonly spec: PolicySpec) {
    const { d, regularization: lambda, normBound: S, delta, beta, betaScale } = spec;
    this.V = Matrix.eye(d).mul(lambda);
    this.H = Matrix.eye(d).mul(lambda);
    this.thetaW = new Array(d).fill(0);
    this.thetaTau = new Array(d).fill(0);
    this.kappa = 1 / (sigmoid(S * spec.maxActionNorm) * (1 - sigmoid(S * spec.maxActionNorm)));
    this.threshold = 1 / (0.01 * this.kappa * S * S * d);
    const log = d * Math.log(spec.horizon! / delta);
    this.gamma = S * Math.sqrt(log) * Math.sqrt(betaScale);
    this.beta = (typeof beta === 'number' ? Math.sqrt(beta) : 4 * Math.sqrt(log)) * Math.sqrt(betaScale);
  }

  decide(rows: number[][]): number {
    const Vinv = denseInverse(this.V);
    const q = rows.map((x) => quadratic(Vinv, x));
    const above = q.map((v) => (v > this.threshold ? v : -Infinity));
    this.warmup = above.some((v) => v > -Infinity);
    if (this.warmup) return argmaxLowestTie(above);
    if (denseLogDet(this.H) - this.switchedLogDet >= Math.log(1.5) - 1e-9) {
      this.switchedInverse = denseInverse(this.H);
      this.switchedLogDet = denseLogDet(this.H);
      this.thetaTau = denseMle(1, this.spec.d, this.allX, this.allY, this.spec.regularization);
      this.switches++;
    }
    const width = q.map((v) => this.gamma * Math.sqrt(this.kappa) * Math.sqrt(v));
    const mean = rows.map((x) => dotArrays(this.thetaW, x));
    const bestLower = Math.max(...mean.map((m, a) => m - width[a]));
    const average = this.thetaW.map((v, a) => 0.5 * (v + this.thetaTau[a]));
    return argmaxLowestTie(
      rows.map((x, a) => (mean[a] + width[a] >= bestLower ? dotArrays(average, x) + this.beta * Math.sqrt(quadratic(this.switchedInverse!, x)) : -Infinity)),
    );
  }

  learn(x: number[], outcome: number): void {
    this.allX.push(x);
    this.allY.push(outcome);
    const outer = Matrix.columnVector(x).mmul(Matrix.rowVector(x));
    if (this.warmup) {
      this.warmupRounds++;
      this.V = this.V.add(outer);
      this.warmX.push(x);
      this.warmY.push(outcome);
      this.thetaW = denseMle(1, this.spec.d, this.warmX, this.warmY, this.spec.regularization);
    } else {
      const p = sigmoid(dotArrays(this.thetaW, x));
      this.H = this.H.add(outer.mul(p * (1 - p)));
    }
  }
}

function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

function dotArrays(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function quadratic(m: Matrix, x: number[]): number {
  return Matrix.rowVector(x).mmul(m).mmul(Matrix.columnVector(x)).get(0, 0);
}

/** Every round gets a copy of its action 0 appended: an exact tie that must never be chosen. */
function withTies(trace: Trace): Trace {
  return { ...trace, rounds: trace.rounds.map((r) => ({ ...r, actions: [...r.actions, r.actions[0].slice()] })) };
}

describe('RS-GLinCB: bad arguments', () => {
  it('refuses K ≠ 1, a spec without a horizon, an outcome outside {0, 1} and non-finite actions', () => {
    expect(() => new RsGlincb(makeSpec(2, 3, { horizon: 100 }))).toThrow(/RS-GLinCB is a binary \(K = 1\) policy, got K = 2/);
    expect(() => new RsGlincb(makeSpec(1, 3))).toThrow(/RS-GLinCB needs the horizon T/);
    expect(() => new RsGlincb(makeSpec(1, 3, { horizon: 0 }))).toThrow(/horizon must be an integer ≥ 1, got 0/);
    const policy = new RsGlincb(makeSpec(1, 3, { horizon: 100 }));
    expect(() => policy.update(new Float64Array(3), 2)).toThrow(/outcome must be an integer in 0..1, got 2/);
    expect(() => policy.select(actionSet([[0, NaN, 1]]), 1)).toThrow(/action 0, feature 1 is NaN/);
    expect(() => new RsGlincb(makeSpec(1, 3, { horizon: 100, regularization: 0 }))).toThrow(/lambda must be a number/);
  });
});

describe('RS-GLinCB decides as its dense reference', () => {
  const rounds = 240;
  const d = 5;
  // S = 3 (κ = 22.1): the warm-up threshold 1/(0.01κS²d) = 0.1 lies below 1/λ = 2, so the first rounds
  // are warm-up rounds; S = 2 (0.53 < 1/λ = 1) too; S = 1 (3.9 > 1/λ = 2) has none, and its second
  // round meets det H_t = 1.5 det H_τ exactly (the ratio tolerance). All switch several times.
  const cases: { beta: BetaMode; betaScale: number; normBound: number; regularization: number; warmup: boolean }[] = [
    { beta: 'theory', betaScale: 1, normBound: 3, regularization: 0.5, warmup: true },
    { beta: 'theory', betaScale: 0.01, normBound: 1, regularization: 0.5, warmup: false },
    { beta: 0.3, betaScale: 1, normBound: 2, regularization: 1, warmup: true },
  ];
  for (const { beta, betaScale, normBound, regularization, warmup } of cases) {
    it(`beta = ${beta} × ${betaScale}, S = ${normBound}, λ = ${regularization}: ${rounds} identical decisions (a tie every round)`, () => {
      const trace = withTies(syntheticTrace(1, d, rounds, 5, 3));
      const spec = makeSpec(1, d, { normBound, regularization, beta, betaScale, delta: 0.05, horizon: 2000 });
      const policy = new RsGlincb(spec);
      const reference = new DenseRsGlincb(spec);
      let worst = 0;
      const { firstDifference, decisions } = playAgainstReference(policy, reference, new TraceEnvironment(trace), rounds, () => {
        worst = Math.max(worst, maxAbsDiff(policy.warmupEstimate, reference.thetaW), maxAbsDiff(policy.switchedEstimate, reference.thetaTau));
      });
      expect(firstDifference).toBe(-1);
      expect(decisions).toHaveLength(rounds);
      expect(decisions.filter((index, t) => index === trace.rounds[t].actions.length - 1)).toEqual([]);
      expect(new Set(decisions).size).toBeGreaterThan(2);
      // Both fits stop at ‖∇‖ ≤ 1e-12·(1 + Σ‖x_s‖) or better, with curvature ≥ λ (measured ≤ 2e-11 here).
      expect(worst).toBeLessThan(1e-10);
      expect(policy.warmupRounds).toBe(reference.warmupRounds);
      expect(policy.warmupRounds > 0).toBe(warmup);
      expect(policy.switches).toBe(reference.switches);
      expect(policy.switches).toBeGreaterThan(2);
      expect(policy.kappa).toBeCloseTo(reference.kappa, 10);
      expect(policy.stats().beta).toBeCloseTo(reference.beta ** 2, 10);
    });
  }
});

describe('RS-GLinCB: its constants and matrices', () => {
  it('κ = 1/μ̇(SD); V and H_t by their rank-one updates; H_τ⁻¹ the inverse of a copy of H_t at the last switch', () => {
    expect(logisticKappa(2, 1.5)).toBeCloseTo(2 + Math.exp(3) + Math.exp(-3), 12);
    const d = 4;
    const spec = makeSpec(1, d, { normBound: 2, regularization: 0.5, delta: 0.05, horizon: 500 });
    const policy = new RsGlincb(spec);
    const env = new TraceEnvironment(syntheticTrace(1, d, 300, 12, 2));
    let switches = 0;
    let snapshot: Float64Array | null = null;
    for (let t = 1; t <= 300; t++) {
      const actions = env.actions(t);
      const index = policy.select(actions, t);
      if (policy.switches !== switches) {
        switches = policy.switches;
        snapshot = policy.design.matrix.slice();
      }
      policy.update(actions.features.slice(index * d, (index + 1) * d), env.play(index).outcome);
    }
    expect(switches).toBeGreaterThan(1);
    const switched = new Matrix(Array.from({ length: d }, (_, i) => Array.from(snapshot!.subarray(i * d, (i + 1) * d))));
    const inverse = new Matrix(Array.from({ length: d }, (_, i) => Array.from(policy.switchedInverse.subarray(i * d, (i + 1) * d))));
    expect(inverse.mmul(switched).sub(Matrix.eye(d)).norm('frobenius')).toBeLessThan(1e-10);
    // H_t has grown since (a copy, not an alias: theirs aliases the two, RS_GLincb.py:68).
    expect(maxAbsDiff(policy.design.matrix, snapshot!)).toBeGreaterThan(0);
  });
});
