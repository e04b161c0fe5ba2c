/**
 * OFULog+ against a dense reference written here from the paper's definitions: the constrained MLE
 * θ̂ = argmin_{‖θ‖≤S} L(θ) and, per action, max xᵀθ over C_t = {‖θ‖ ≤ S, L(θ) − L(θ̂) ≤ β_t²}, both by
 * the textbook log-barrier method (Boyd and Vandenberghe 2004, Alg. 11.1: Newton centring with
 * ml-matrix solves, τ ÷ 100 per stage down to 1e-10, no polish). A centred barrier point is feasible and
 * within 2τ of the optimum (two constraints), so the policy's certified values must lie in
 * [reference, reference + 2τ] (up to rounding), and its decisions must be the reference's.
 */
import { Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { createPolicy } from '../../src/policies/registry.js';
import { OfulogPlus, ofulogPlusRadiusSq } from '../../src/policies/ofulog-plus.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { randomVector, seededNormal, seededUniform } from '../helpers/dense.js';
import { actionSet, denseOutcome, makeSpec, roundWithDuplicate } from '../helpers/policies.js';

const TAU_END = 1e-10;

/** ln(1 + e^z) − yz, σ(z) and σ'(z), written out. */
function lossTerm(z: number, y: number): number {
  return z > 0 ? z + Math.log(1 + Math.exp(-z)) - y * z : Math.log(1 + Math.exp(z)) - y * z;
}
function sigma(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

/** xᵀθ. */
function dot(x: readonly number[], theta: readonly number[]): number {
  let z = 0;
  for (let j = 0; j < x.length; j++) z += (x[j] as number) * (theta[j] as number);
  return z;
}

/** L over the history. */
function lossOnly(X: number[][], Y: number[], theta: number[]): number {
  let L = 0;
  for (let s = 0; s < X.length; s++) L += lossTerm(dot(X[s] as number[], theta), Y[s] as number);
  return L;
}

/** L, ∇L, ∇²L over the history, densely. */
function logLoss(X: number[][], Y: number[], theta: number[]): { L: number; g: number[]; H: number[][] } {
  const d = theta.length;
  let L = 0;
  const g = new Array<number>(d).fill(0);
  const H = Array.from({ length: d }, () => new Array<number>(d).fill(0));
  for (let s = 0; s < X.length; s++) {
    const x = X[s] as number[];
    const z = dot(x, theta);
    L += lossTerm(z, Y[s] as number);
    const p = sigma(z);
    const w = p * (1 - p);
    for (let i = 0; i < d; i++) {
      g[i] += (p - (Y[s] as number)) * x[i];
      const row = H[i] as number[];
      for (let j = 0; j < d; j++) row[j] += w * x[i] * x[j];
    }
  }
  return { L, g, H };
}

/** min p·L(θ) − qᵀθ s.t. ‖θ‖ ≤ S (and L(θ) ≤ cap) by the barrier method from a strictly feasible θ. */
function denseBarrier(X: number[][], Y: number[], S: number, p: number, q: number[] | null, cap: number, start: number[]): number[] {
  let theta = start.slice();
  const d = theta.length;
  const phi = (th: number[], tau: number): number => {
    const sb = S * S - th.reduce((a, v) => a + v * v, 0);
    const L = lossOnly(X, Y, th);
    const sl = cap - L;
    if (!(sb > 0) || !(sl > 0)) return Infinity;
    const lin = q === null ? 0 : q.reduce((a, v, j) => a + v * th[j], 0);
    return p * L - lin - tau * Math.log(sb) - (Number.isFinite(cap) ? tau * Math.log(sl) : 0);
  };
  for (let tau = 1; tau >= TAU_END; tau /= 100) {
    for (let iteration = 0; iteration < 200; iteration++) {
      const { L, g: gL, H: HL } = logLoss(X, Y, theta);
      const sb = S * S - theta.reduce((a, v) => a + v * v, 0);
      const sl = Number.isFinite(cap) ? cap - L : Infinity;
      const w = p + (Number.isFinite(cap) ? tau / sl : 0);
      const grad = theta.map((v, i) => w * gL[i] + (2 * tau * v) / sb - (q === null ? 0 : q[i]));
      const hess = Matrix.zeros(d, d);
      for (let i = 0; i < d; i++) {
        for (let j = 0; j < d; j++) {
          const lossOuter = Number.isFinite(cap) ? (tau / (sl * sl)) * gL[i] * gL[j] : 0;
          hess.set(i, j, w * HL[i][j] + lossOuter + ((4 * tau) / (sb * sb)) * theta[i] * theta[j] + (i === j ? (2 * tau) / sb : 0));
        }
      }
      const step = solve(hess, Matrix.columnVector(grad.map((v) => -v))).to1DArray();
      const slope = grad.reduce((a, v, i) => a + v * step[i], 0);
      const current = phi(theta, tau);
      // Centred when the Newton decrement λ²/2 is at φ's rounding level (then no step can decrease φ).
      if (-slope / 2 <= 1e-14 * Math.max(1, Math.abs(current))) break;
      let s = 1;
      let next = theta;
      for (let halvings = 0; halvings < 60; halvings++, s /= 2) {
        const trial = theta.map((v, i) => v + s * step[i]);
        if (phi(trial, tau) <= current + 0.25 * s * slope) {
          next = trial;
          break;
        }
      }
      if (next === theta) break;
      theta = next;
    }
  }
  return theta;
}

/** The reference's optimistic value of x: S‖x‖ when S x/‖x‖ ∈ C_t, else the barrier's (a lower bound within 2τ). */
function denseOptimistic(X: number[][], Y: number[], S: number, cap: number, thetaHat: number[], x: number[]): number {
  const n = Math.hypot(...x);
  const ball = x.map((v) => (S * v) / n);
  if (lossOnly(X, Y, ball) <= cap) return S * n;
  let shrink = Math.min(1, (0.999 * S) / Math.max(Math.hypot(...thetaHat), 1e-300));
  while (!(lossOnly(X, Y, thetaHat.map((v) => shrink * v)) < cap)) shrink = 1 - (1 - shrink) / 8;
  const theta = denseBarrier(X, Y, S, 0, x, cap, thetaHat.map((v) => shrink * v));
  return x.reduce((a, v, j) => a + v * theta[j], 0);
}

describe('OFULog+: bad input', () => {
  it('rejects K ≥ 2, invalid specs, non-finite actions and outcomes outside 0..1', () => {
    expect(() => new OfulogPlus(makeSpec(3, 4))).toThrow(/OFULog\+ is a binary \(K = 1\) policy, got K = 3/);
    expect(() => new OfulogPlus(makeSpec(1, 4, { normBound: 0 }))).toThrow(/S must be a number in/);
    expect(() => new OfulogPlus(makeSpec(1, 4, { delta: 1 }))).toThrow(/delta must lie in \(0, 1\), got 1/);
    const policy = createPolicy('OFULog+', makeSpec(1, 4));
    expect(() => policy.select(actionSet([[0, Infinity, 0, 0]]), 1)).toThrow(/action 0, feature 1 is Infinity/);
    expect(() => policy.update(Float64Array.of(1, 0, 0, 0), 2)).toThrow(/outcome must be an integer in 0..1, got 2/);
  });
  it('β_t² is ofulogplus.py update_ucb_bonus: 10d ln(e + S(t−1)/(2d)) + 2(e − 2 + S) ln(1/δ)', () => {
    expect(ofulogPlusRadiusSq(6, 4, 0.05, 0)).toBeCloseTo(60 + 2 * (Math.E + 2) * Math.log(20), 12);
    expect(ofulogPlusRadiusSq(6, 4, 0.05, 99)).toBeCloseTo(60 * Math.log(Math.E + 33) + 2 * (Math.E + 2) * Math.log(20), 12);
    const policy = new OfulogPlus(makeSpec(1, 6, { normBound: 4, delta: 0.05, betaScale: 2 }));
    expect(policy.confidenceRadius(100)).toBeCloseTo(2 * ofulogPlusRadiusSq(6, 4, 0.05, 99), 10);
    expect(new OfulogPlus(makeSpec(1, 6, { beta: 3, betaScale: 2 })).confidenceRadius(100)).toBe(6);
  });
});

/** Plays OFULog+ and the dense reference on the same rounds. */
function playAgainstReference(d: number, S: number, spec: Partial<PolicySpec>, rounds: number, seed: number) {
  const full = makeSpec(1, d, { normBound: S, delta: 0.05, ...spec });
  const policy = new OfulogPlus(full);
  const normal = seededNormal(seed);
  const u = seededUniform(seed + 1);
  const wStar = randomVector(d, normal, 3);
  const X: number[][] = [];
  const Y: number[] = [];
  let thetaHat = new Array<number>(d).fill(0);
  let lossHat = 0;
  const decisions: number[] = [];
  let bound = 0;
  let worst = 0;
  for (let t = 1; t <= rounds; t++) {
    const rows = roundWithDuplicate(d, 7, normal, u);
    const beta = policy.confidenceRadius(t);
    const values = rows.map((x) => denseOptimistic(X, Y, S, lossHat + beta, thetaHat, x));
    const index = policy.select(actionSet(rows), t);
    const ours = Array.from((policy as unknown as { optimistic: Float64Array }).optimistic.subarray(0, rows.length));
    ours.forEach((v, a) => {
      const gap = v - values[a];
      worst = Math.max(worst, Math.abs(gap));
      expect(gap).toBeGreaterThanOrEqual(-1e-9 * Math.max(1, Math.abs(v)));
      expect(gap).toBeLessThanOrEqual(2 * TAU_END + 1e-9 * Math.max(1, Math.abs(v)));
      if (Math.abs(v - S * Math.hypot(...rows[a])) > 1e-9) bound++;
    });
    const best = Math.max(...values);
    expect(index).toBe(values.findIndex((v) => v >= best - 1e-12 * Math.abs(best)));
    expect(index).not.toBe(rows.length - 1);
    decisions.push(index);
    const x = rows[index];
    const y = denseOutcome(wStar, 1, x, u());
    X.push(x);
    Y.push(y);
    policy.update(Float64Array.from(x), y);
    const start = thetaHat.map((v) => v * Math.min(1, (0.999 * S) / Math.max(Math.hypot(...thetaHat), 1e-300)));
    thetaHat = denseBarrier(X, Y, S, 1, null, Infinity, start);
    lossHat = lossOnly(X, Y, thetaHat);
    expect(policy.lossHat).toBeLessThanOrEqual(lossHat + 1e-9);
    expect(policy.lossHat).toBeGreaterThanOrEqual(lossHat - TAU_END - 1e-9);
  }
  // Both outcomes were seen, and the MLE left the sphere (the unconstrained optimum inside the ball).
  expect(new Set(Y).size).toBe(2);
  expect(policy.stats().projections).toBeLessThan(rounds);
  return { policy, decisions, bound, worst };
}

describe('OFULog+ decides as the dense reference (constrained MLE and max xᵀθ over the likelihood-ratio set, by the textbook barrier method)', () => {
  it("d = 4, S = 4, the authors' radius × 0.2: 200 equal decisions (ties to the lowest index), values within the barrier's 2τ", () => {
    const { policy, decisions, bound } = playAgainstReference(4, 4, { betaScale: 0.2 }, 200, 5);
    expect(new Set(decisions).size).toBeGreaterThan(2);
    // The likelihood constraint bound many of the values, and every programme was certified.
    expect(bound).toBeGreaterThan(100);
    expect(policy.uncertified).toBe(0);
  });
  it('d = 5, S = 2, β_t² = 6 (a tight set, inside the ball): 200 equal decisions', () => {
    const { policy, decisions, bound } = playAgainstReference(5, 2, { beta: 6 }, 200, 9);
    expect(new Set(decisions).size).toBeGreaterThan(2);
    expect(bound).toBeGreaterThan(500);
    expect(policy.uncertified).toBe(0);
  });
  it('round 1 plays the longest action (C_1 is the ball), ties to the lowest index', () => {
    const policy = new OfulogPlus(makeSpec(1, 3, { normBound: 2 }));
    expect(policy.select(actionSet([[0.5, 0, 0], [0, 0.9, 0], [0, 0, 0.9], [0.1, 0, 0]]), 1)).toBe(1);
  });
});
