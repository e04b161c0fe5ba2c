/**
 * TS-MLogB against a dense reference (explicit H, its Cholesky factor and a general solve from
 * ml-matrix, the same ξ), and EOFD-TS with m ≥ Kd against TS-MLogB: both sample N(W_t, β_t H_t⁻¹).
 */
import { CholeskyDecomposition, Matrix, solve } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import type { BetaMode } from '../../src/model/beta.js';
import { EofdTs } from '../../src/policies/eofd-ts.js';
import { TsMLogB } from '../../src/policies/ts-mlogb.js';
import { Mulberry32Stream } from '../../src/random/stream.js';
import {
  denseInverse,
  jacobianDense,
  kronHessian,
  maxAbsDiff,
  randomVector,
  seededNormal,
  seededUniform,
  softmaxDense,
  timesX,
} from '../helpers/dense.js';
import { actionSet, denseOutcome, denseUpdate, expectThompsonRound, makeSpec, roundWithDuplicate } from '../helpers/policies.js';

/** A policy's uniform stream and, from the same seed, the reference's copy of its normals. */
function streams(seed: number): { uniform: () => number; normals: Mulberry32Stream } {
  const own = new Mulberry32Stream(seed);
  return { uniform: () => own.uniform(), normals: new Mulberry32Stream(seed) };
}

/** (A + Aᵀ)/2: the dense H is symmetric only up to the rounding of x_a·x_b vs x_b·x_a. */
function symmetric(a: Matrix): Matrix {
  return a.clone().add(a.transpose()).mul(0.5);
}

describe('TS-MLogB: bad input', () => {
  it('needs its own seeded stream', () => {
    expect(() => new TsMLogB(makeSpec(2, 3))).toThrow(/TS-MLogB: a seeded uniform stream \(spec.uniform\) is required/);
  });
  it('rejects invalid specs, non-finite actions and outcomes outside 0..K', () => {
    const { uniform } = streams(1);
    expect(() => new TsMLogB(makeSpec(2, 3, { regularization: 0, uniform }))).toThrow(/lambda must be a number in \[.*\], got 0/);
    const policy = new TsMLogB(makeSpec(2, 3, { uniform }));
    expect(() => policy.select(actionSet([[0, NaN, 0]]), 1)).toThrow(/action 0, feature 1 is NaN/);
    expect(() => policy.update(Float64Array.of(1, 0, 0), 3)).toThrow(/outcome must be an integer in 0..2, got 3/);
  });
});

describe('TS-MLogB decides as the dense reference, given the same ξ', () => {
  const rounds = 250;
  for (const [K, d] of [
    [1, 6],
    [3, 3],
  ] as const) {
    for (const beta of ['order', 0.3] as BetaMode[]) {
      it(`K = ${K}, d = ${d}, beta = ${beta}: ${rounds} equal decisions (ties to the lowest index), equal estimates`, () => {
        const n = K * d;
        const { uniform, normals } = streams(40 + K);
        const spec = makeSpec(K, d, { normBound: 1, regularization: 1, stepSize: 1.5, beta, uniform });
        const policy = new TsMLogB(spec);
        const reward = Array.from(spec.reward);
        const normal = seededNormal(7 + K);
        const u = seededUniform(9 + K);
        const wStar = randomVector(n, normal, 2);
        // The reference: H and W by eqs. (8)–(9) densely, W̃ = W + √β L^{-T}ξ with L = chol(H).
        let H = Matrix.eye(n).mul(spec.regularization);
        let w = new Float64Array(n);
        const chosen = new Set<number>();
        let projections = 0;
        for (let t = 1; t <= rounds; t++) {
          const rows = roundWithDuplicate(d, 6, normal, u);
          const index = policy.select(actionSet(rows), t);
          const L = new CholeskyDecomposition(symmetric(H)).lowerTriangularMatrix;
          expectThompsonRound(policy, index, w, (xi) => solve(L.transpose(), xi).to1DArray(), normals, reward, rows);
          chosen.add(index);

          const x = rows[index];
          const outcome = denseOutcome(wStar, K, x, u());
          const step = denseUpdate(H, w, x, outcome, spec.stepSize, spec.normBound);
          if (step.projected) projections++;
          w = Float64Array.from(step.next);
          H = H.add(kronHessian(jacobianDense(softmaxDense(timesX(w, K, x))), x));
          policy.update(Float64Array.from(x), outcome);
          expect(maxAbsDiff(policy.estimate(), w)).toBeLessThan(1e-8);
        }
        expect(chosen.size).toBeGreaterThan(2);
        expect(projections).toBeGreaterThan(0);
        // L stays the Cholesky factor of H.
        expect(maxAbsDiff(policy.factor, new CholeskyDecomposition(symmetric(H)).lowerTriangularMatrix.to1DArray())).toBeLessThan(1e-9);
      });
    }
  }
});

/** Columns M e_i of a policy's map ξ ↦ W̃ − W_t, as an n×n matrix. */
function perturbationMatrix(policy: { perturbation(beta: number, xi: Float64Array, out: Float64Array): void }, beta: number, n: number): Matrix {
  const M = Matrix.zeros(n, n);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const e = new Float64Array(n);
    e[i] = 1;
    policy.perturbation(beta, e, out);
    for (let r = 0; r < n; r++) M.set(r, i, out[r]);
  }
  return M;
}

function relativeFrobenius(a: Matrix, b: Matrix): number {
  return a.clone().sub(b).norm('frobenius') / b.norm('frobenius');
}

describe('EOFD-TS with m ≥ Kd samples as TS-MLogB does: N(W_t, β_t H_t⁻¹)', () => {
  for (const [K, d] of [
    [1, 6],
    [2, 3],
  ] as const) {
    it(`K = ${K}, d = ${d}: M Mᵀ = β H⁻¹ for both maps; equal means and covariances of 4,000 draws from the same ξ`, () => {
      const n = K * d;
      const a = streams(5);
      const b = streams(5);
      const base = { sketchSize: n, beta: 0.7 as BetaMode, regularization: 1, stepSize: 1.5 };
      const ts = new TsMLogB(makeSpec(K, d, { ...base, uniform: a.uniform }));
      const eofd = new EofdTs(makeSpec(K, d, { ...base, uniform: b.uniform }));
      const normal = seededNormal(3);
      const u = seededUniform(4);
      // The same actions and outcomes for both (the samples differ: L^{-T} vs the symmetric root).
      for (let t = 1; t <= 60; t++) {
        const x = Float64Array.from(randomVector(d, normal, 1));
        const outcome = Math.floor(u() * (K + 1));
        ts.update(x, outcome);
        eofd.update(x, outcome);
      }
      expect(maxAbsDiff(ts.estimate(), eofd.estimate())).toBeLessThan(1e-9);
      expect(eofd.stats().sketchError).toBe(0);
      const beta = 0.7;
      const hessian = new Matrix(Array.from({ length: n }, (_, i) => Array.from(ts.core.hessian.subarray(i * n, (i + 1) * n))));
      const target = denseInverse(hessian).mul(beta);
      const mTs = perturbationMatrix(ts, beta, n);
      const mEofd = perturbationMatrix(eofd, beta, n);
      expect(relativeFrobenius(mTs.mmul(mTs.transpose()), target)).toBeLessThan(1e-10);
      expect(relativeFrobenius(mEofd.mmul(mEofd.transpose()), target)).toBeLessThan(1e-10);
      // Two different roots: L^{-T} is upper triangular, Z^{-1/2} symmetric.
      expect(relativeFrobenius(mEofd, mEofd.transpose())).toBeLessThan(1e-12);
      expect(relativeFrobenius(mTs, mEofd)).toBeGreaterThan(1e-3);

      // Draws through select (same seed, so the same ξ sequence) at round 61.
      const draws = 4000;
      const actions = actionSet([Array.from({ length: d }, () => 1 / Math.sqrt(d))]);
      const sums = [new Float64Array(n), new Float64Array(n)];
      const products = [Matrix.zeros(n, n), Matrix.zeros(n, n)];
      for (let s = 0; s < draws; s++) {
        [ts, eofd].forEach((policy, p) => {
          policy.select(actions, 61);
          const centred = Array.from(policy.sample, (v, i) => v - policy.estimate()[i]);
          for (let i = 0; i < n; i++) {
            sums[p][i] += centred[i];
            for (let j = 0; j < n; j++) products[p].set(i, j, products[p].get(i, j) + centred[i] * centred[j]);
          }
        });
      }
      expect(ts.stats().beta).toBe(beta);
      for (let p = 0; p < 2; p++) {
        for (let i = 0; i < n; i++) {
          // Mean 0 within 5 standard errors √(C_ii/N).
          expect(Math.abs(sums[p][i] / draws)).toBeLessThan(5 * Math.sqrt(target.get(i, i) / draws));
          for (let j = 0; j < n; j++) {
            // Var(ĉ_ij) = (C_ii C_jj + C_ij²)/N for Gaussian draws.
            const se = Math.sqrt((target.get(i, i) * target.get(j, j) + target.get(i, j) ** 2) / draws);
            expect(Math.abs(products[p].get(i, j) / draws - target.get(i, j))).toBeLessThan(5 * se);
          }
        }
      }
    });
  }
});
