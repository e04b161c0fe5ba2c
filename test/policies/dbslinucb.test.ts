/**
 * DBSLinUCB against a dense reference written here: the played actions cut into blocks by the dyadic
 * rule (a row that would bring its block's mass ‖A_j‖_F² above ελℓ_0/2 opens a block of twice the size,
 * unless the block's size is already ≥ d), each block an explicit d×d FD sketch (add xxᵀ,
 * eigendecompose, subtract the (ℓ+1)-th eigenvalue from the top ℓ, drop the rest), V = λ_t I + Σ_j S_j,
 * θ = V⁻¹b and the linear UCB score θᵀx + √β‖x‖_{V⁻¹}.
 */
import { Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import type { BetaMode } from '../../src/model/beta.js';
import { DbsLinUcb } from '../../src/policies/dbslinucb.js';
import { createPolicy } from '../../src/policies/registry.js';
import { denseInverse, randomVector, seededNormal, seededUniform } from '../helpers/dense.js';
import { denseFrequentDirections, sketchedOfulRadius } from '../helpers/baselines.js';
import { actionSet, denseOutcome, makeSpec, roundWithDuplicate } from '../helpers/policies.js';

/** Dense dyadic block sketching: sealed sum, the active block, its size and mass, ρ and Σℓ. */
class DenseDyadicBlocks {
  sealed: Matrix;
  active: Matrix;
  length: number;
  mass = 0;
  rho = 0;
  totalLength: number;
  seals = 0;
  constructor(
    private readonly d: number,
    l0: number,
    private readonly threshold: number,
  ) {
    this.sealed = Matrix.zeros(d, d);
    this.active = Matrix.zeros(d, d);
    this.length = l0;
    this.totalLength = l0;
  }
  add(x: number[]): void {
    const mass = x.reduce((s, v) => s + v * v, 0);
    if (this.mass + mass > this.threshold && Math.min(this.length, this.d) < this.d) {
      this.sealed = this.sealed.add(this.active);
      this.active = Matrix.zeros(this.d, this.d);
      this.length *= 2;
      this.totalLength += this.length;
      this.mass = 0;
      this.seals++;
    }
    const step = denseFrequentDirections(this.active, x, this.length);
    this.active = step.next;
    this.rho += step.discarded;
    this.mass += mass;
  }
  gram(): Matrix {
    return this.sealed.clone().add(this.active);
  }
}

/** Lowest index within 1e-12 (relative) of the best linear UCB score θᵀx + √β‖x‖_{V⁻¹}. */
function denseUcbChoice(theta: Matrix, Vinv: Matrix, beta: number, rows: number[][]): number {
  const scores = rows.map((x) => {
    const v = Matrix.columnVector(x);
    return theta.transpose().mmul(v).get(0, 0) + Math.sqrt(beta) * Math.sqrt(v.transpose().mmul(Vinv).mmul(v).get(0, 0));
  });
  const best = Math.max(...scores);
  return scores.findIndex((s) => s >= best - 1e-12 * Math.abs(best));
}

describe('DBSLinUCB: bad input', () => {
  it('rejects invalid specs, non-finite actions and outcomes outside 0..K', () => {
    expect(() => new DbsLinUcb(makeSpec(2, 3, { sketchSize: 0 }))).toThrow(/m must be an integer ≥ 1, got 0/);
    expect(() => new DbsLinUcb(makeSpec(2, 3, { adaptiveSketch: { deltaMax: 0 } }))).toThrow(/delta_max must be a finite number > 0, got 0/);
    expect(() => new DbsLinUcb(makeSpec(2, 3, { sketchVariant: 'xfd' as 'fd' }))).toThrow(/sketch must be 'fd' or 'rfd', got "xfd"/);
    const policy = createPolicy('DBSLinUCB', makeSpec(3, 4));
    expect(() => policy.select(actionSet([[0, 0, NaN, 0]]), 1)).toThrow(/action 0, feature 2 is NaN/);
    expect(() => policy.update(Float64Array.of(1, 0, 0, 0), 4)).toThrow(/outcome must be an integer in 0..3, got 4/);
  });
  it('seals at ελℓ_0/2 (ε = delta_max, 0.1 without m: adaptive)', () => {
    expect(new DbsLinUcb(makeSpec(1, 5, { sketchSize: 2, regularization: 3, adaptiveSketch: { deltaMax: 4 } })).sealThreshold).toBeCloseTo(12, 12);
    expect(new DbsLinUcb(makeSpec(1, 5, { sketchSize: 2, regularization: 3 })).sealThreshold).toBeCloseTo(0.3, 12);
  });
});

/** Plays DBSLinUCB and the dense reference on the same rounds; returns the decisions and both. */
function playAgainstReference(K: number, d: number, l0: number, deltaMax: number, sketch: 'fd' | 'rfd', beta: BetaMode, rounds: number) {
  const lambda = 0.5;
  const spec = makeSpec(K, d, { sketchSize: l0, regularization: lambda, beta, sketchVariant: sketch, normBound: 1, adaptiveSketch: { deltaMax } });
  const policy = new DbsLinUcb(spec);
  const normal = seededNormal(90 + K + l0);
  const u = seededUniform(91 + K + l0);
  const wStar = randomVector(K * d, normal, 3);
  const blocks = new DenseDyadicBlocks(d, l0, (deltaMax * lambda * l0) / 2);
  const b = Matrix.zeros(d, 1);
  const decisions: number[] = [];
  for (let t = 1; t <= rounds; t++) {
    const rows = roundWithDuplicate(d, 7, normal, u);
    const lambdaT = lambda + (sketch === 'rfd' ? blocks.rho / 2 : 0);
    const V = blocks.gram().add(Matrix.eye(d).mul(lambdaT));
    const Vinv = denseInverse(V);
    const theta = Vinv.mmul(b);
    const betaT = typeof beta === 'number' ? beta : sketchedOfulRadius(spec, Math.min(d, blocks.totalLength), blocks.rho, t - 1) ** 2;
    const index = policy.select(actionSet(rows), t);
    expect(policy.stats().beta).toBeCloseTo(betaT, 10);
    expect(policy.sketchSize()).toBe(Math.min(d, blocks.totalLength));
    const expected = denseUcbChoice(theta, Vinv, betaT, rows);
    expect(index).toBe(expected);
    expect(index).not.toBe(rows.length - 1);
    decisions.push(index);
    const x = rows[index];
    const outcome = denseOutcome(wStar, K, x, u());
    const r = outcome === 0 ? 0 : spec.reward[outcome - 1];
    b.add(Matrix.columnVector(x).mul(r));
    blocks.add(x);
    policy.update(Float64Array.from(x), outcome);
    expect(policy.seals).toBe(blocks.seals);
    expect(policy.stats().sketchError).toBeCloseTo(blocks.rho, 8);
    expect(policy.stats().delta).toBeLessThan(1 + deltaMax);
  }
  return { policy, decisions, blocks };
}

describe('DBSLinUCB decides as the dense reference (dyadic blocks of dense FD, V = λ_t I + Σ_j S_j, θ = V⁻¹b)', () => {
  for (const [K, d, l0, deltaMax] of [
    [1, 8, 1, 120],
    [3, 6, 2, 40],
  ] as const) {
    for (const sketch of ['fd', 'rfd'] as const) {
      for (const beta of ['order', 0.2] as BetaMode[]) {
        it(`K = ${K}, d = ${d}, ℓ_0 = ${l0}, ε = ${deltaMax}, ${sketch}, beta = ${beta}: 250 equal decisions (ties to the lowest index)`, () => {
          const { decisions, blocks } = playAgainstReference(K, d, l0, deltaMax, sketch, beta, 250);
          expect(new Set(decisions).size).toBeGreaterThan(2);
          // The blocks truncated, sealed and doubled on the way.
          expect(blocks.rho).toBeGreaterThan(0);
          expect(blocks.seals).toBeGreaterThanOrEqual(2);
        });
      }
    }
  }
  it('with a tight budget every row seals until a block is exact (ℓ ≥ d): OFUL on the reward, nothing discarded', () => {
    const { policy, blocks } = playAgainstReference(1, 6, 1, 0.01, 'fd', 'order', 200);
    expect(blocks.seals).toBe(3);
    expect(policy.stats().sketchError).toBe(0);
    expect(policy.sketchSize()).toBe(6);
    expect(policy.estimate().length).toBe(0);
  });
});
