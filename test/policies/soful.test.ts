/**
 * SOFUL against dense references written here: frequent directions on the explicit d×d matrix
 * S = Σ (kept) (add xxᵀ, eigendecompose, subtract the (m+1)-th eigenvalue from the top m, drop the rest),
 * V = λ_t I + S, θ = V⁻¹b and the linear UCB score; and with m ≥ d, plain OFUL on V = λI + Σ xxᵀ.
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import type { BetaMode } from '../../src/model/beta.js';
import { createPolicy } from '../../src/policies/registry.js';
import { Soful } from '../../src/policies/soful.js';
import { denseInverse, randomVector, seededNormal, seededUniform } from '../helpers/dense.js';
import { denseFrequentDirections, sketchedOfulRadius } from '../helpers/baselines.js';
import { actionSet, denseOutcome, makeSpec, roundWithDuplicate } from '../helpers/policies.js';

/** Lowest index within 1e-12 (relative) of the best linear UCB score θᵀx + √β‖x‖_{V⁻¹}. */
function denseUcbChoice(theta: Matrix, Vinv: Matrix, beta: number, rows: number[][]): number {
  const scores = rows.map((x) => {
    const v = Matrix.columnVector(x);
    return theta.transpose().mmul(v).get(0, 0) + Math.sqrt(beta) * Math.sqrt(v.transpose().mmul(Vinv).mmul(v).get(0, 0));
  });
  const best = Math.max(...scores);
  return scores.findIndex((s) => s >= best - 1e-12 * Math.abs(best));
}

describe('SOFUL: bad input', () => {
  it('rejects invalid specs, non-finite actions and outcomes outside 0..K', () => {
    expect(() => new Soful(makeSpec(2, 3, { sketchSize: 0 }))).toThrow(/m must be an integer ≥ 1, got 0/);
    expect(() => new Soful(makeSpec(2, 3, { sketchVariant: 'xfd' as 'fd' }))).toThrow(/sketch must be 'fd' or 'rfd', got "xfd"/);
    const policy = createPolicy('SOFUL', makeSpec(3, 4));
    expect(() => policy.select(actionSet([[0, 0, NaN, 0]]), 1)).toThrow(/action 0, feature 2 is NaN/);
    expect(() => policy.update(Float64Array.of(1, 0, 0, 0), 4)).toThrow(/outcome must be an integer in 0..3, got 4/);
  });
  it('caps m at d (m: auto is ⌊Kd/10⌋, then at most d)', () => {
    expect(new Soful(makeSpec(4, 5, { sketchSize: 20 })).sketch.sketchSize).toBe(5);
    expect(new Soful(makeSpec(4, 5, { sketchSize: 2 })).sketch.sketchSize).toBe(2);
  });
});

/** Plays SOFUL and the dense reference on the same rounds; returns the decisions and SOFUL. */
function playAgainstReference(K: number, d: number, m: number, sketch: 'fd' | 'rfd', beta: BetaMode, rounds: number, plainOful: boolean) {
  const spec = makeSpec(K, d, { sketchSize: m, regularization: 0.5, beta, sketchVariant: sketch, normBound: 1 });
  const policy = new Soful(spec);
  const normal = seededNormal(70 + K + m);
  const u = seededUniform(71 + K + m);
  const wStar = randomVector(K * d, normal, 3);
  let S = Matrix.zeros(d, d);
  let rho = 0;
  const b = Matrix.zeros(d, 1);
  const decisions: number[] = [];
  for (let t = 1; t <= rounds; t++) {
    const rows = roundWithDuplicate(d, 7, normal, u);
    const lambdaT = spec.regularization + (sketch === 'rfd' ? rho / 2 : 0);
    const V = S.clone().add(Matrix.eye(d).mul(lambdaT));
    const Vinv = denseInverse(V);
    const theta = Vinv.mmul(b);
    const betaT = typeof beta === 'number' ? beta : sketchedOfulRadius(spec, Math.min(m, d), rho, t - 1) ** 2;
    const index = policy.select(actionSet(rows), t);
    expect(policy.stats().beta).toBeCloseTo(betaT, 10);
    const expected = denseUcbChoice(theta, Vinv, betaT, rows);
    expect(index).toBe(expected);
    expect(index).not.toBe(rows.length - 1);
    decisions.push(index);
    const x = rows[index];
    const outcome = denseOutcome(wStar, K, x, u());
    const r = outcome === 0 ? 0 : spec.reward[outcome - 1];
    b.add(Matrix.columnVector(x).mul(r));
    if (plainOful) {
      S = S.add(Matrix.columnVector(x).mmul(Matrix.rowVector(x)));
    } else {
      const step = denseFrequentDirections(S, x, m);
      S = step.next;
      rho += step.discarded;
    }
    policy.update(Float64Array.from(x), outcome);
  }
  return { policy, decisions, rho };
}

describe('SOFUL decides as the dense reference (dense FD, V = λ_t I + S, θ = V⁻¹b)', () => {
  for (const [K, d, m] of [
    [1, 8, 3],
    [3, 6, 2],
  ] as const) {
    for (const sketch of ['fd', 'rfd'] as const) {
      for (const beta of ['order', 0.2] as BetaMode[]) {
        it(`K = ${K}, d = ${d}, m = ${m}, ${sketch}, beta = ${beta}: 250 equal decisions (ties to the lowest index)`, () => {
          const { policy, decisions, rho } = playAgainstReference(K, d, m, sketch, beta, 250, false);
          expect(new Set(decisions).size).toBeGreaterThan(2);
          expect(rho).toBeGreaterThan(0);
          expect(policy.stats().sketchError).toBeCloseTo(rho, 8);
          expect(policy.stats().delta).toBeCloseTo(1 + rho / 0.5, 8);
        });
      }
    }
  }
});

describe('SOFUL with m ≥ d is OFUL on the linear reward model, decision by decision', () => {
  for (const [K, d] of [
    [1, 6],
    [3, 5],
  ] as const) {
    for (const sketch of ['fd', 'rfd'] as const) {
      it(`K = ${K}, d = ${d}, m = d + 2, ${sketch}: 250 equal decisions; nothing discarded`, () => {
        const { policy, decisions } = playAgainstReference(K, d, d + 2, sketch, 'order', 250, true);
        expect(new Set(decisions).size).toBeGreaterThan(2);
        expect(policy.stats().sketchError).toBe(0);
        expect(policy.estimate().length).toBe(0);
      });
    }
  }
});
