import { CholeskyDecomposition, Matrix } from 'ml-matrix';
import { describe, expect, it } from 'vitest';
import { RegularizedMle, MLE_TOLERANCE } from '../../../src/policies/kit/mle.js';
import { createPolicy, policyDescriptor } from '../../../src/policies/registry.js';
import { policySpec } from '../../../src/policies/spec.js';
import { maxAbsDiff, norm, seededUniform, softmaxDense, timesX } from '../../helpers/dense.js';
import { denseCurvature, denseMle } from '../../helpers/dense-mle.js';

/** t unit-norm rounds in dimension d with outcomes cycling through 0..K, a random θ, and the history stored in a RegularizedMle. */
function history(K: number, d: number, t: number, seed: number) {
  const random = seededUniform(seed);
  const xs = Array.from({ length: t }, () => {
    const x = Array.from({ length: d }, () => random() - 0.5);
    const length = Math.hypot(...x);
    return x.map((v) => v / length);
  });
  const ys = xs.map((_, s) => s % (K + 1));
  const theta = Array.from({ length: K * d }, () => 2 * (random() - 0.5));
  const mle = new RegularizedMle(K, d);
  xs.forEach((x, s) => mle.add(Float64Array.from(x), ys[s]!));
  return { xs, ys, theta, mle };
}

/** λθ + Σ_s (σ(θx_s) − e_{y_s}) ⊗ x_s − s·x, written out. */
function denseGradient(theta: ArrayLike<number>, K: number, d: number, xs: number[][], ys: number[], lambda: number, linear?: { x: number[]; s: number }): number[] {
  const g = Array.from(theta, (v) => lambda * v);
  xs.forEach((x, s) => {
    const sigma = softmaxDense(timesX(theta, K, x));
    for (let i = 0; i < K; i++) for (let a = 0; a < d; a++) g[i * d + a]! += (sigma[i]! - (ys[s] === i + 1 ? 1 : 0)) * x[a]!;
  });
  if (linear !== undefined) linear.x.forEach((v, j) => (g[j]! -= linear.s * v));
  return g;
}

function denseLoss(theta: ArrayLike<number>, K: number, xs: number[][], ys: number[], lambda: number): number {
  let total = 0.5 * lambda * Array.from(theta).reduce((s, v) => s + v * v, 0);
  xs.forEach((x, s) => {
    const sigma = softmaxDense(timesX(theta, K, x));
    total -= Math.log(ys[s] === 0 ? 1 - sigma.reduce((a, b) => a + b, 0) : sigma[ys[s]! - 1]!);
  });
  return total;
}

describe('RegularizedMle.curvature', () => {
  // d = 70 with t = 40: a Hessian block wider than the history is long.
  it.each([
    [1, 70],
    [3, 70],
    [2, 5],
  ])('K = %i, d = %i: the dense ρI + Σ ∇σ ⊗ xxᵀ, exactly symmetric', (K, d) => {
    const { xs, theta, mle } = history(K, d, 40, 17 * K + d);
    const n = K * d;
    const out = new Float64Array(n * n);
    mle.curvature(Float64Array.from(theta), 0.75, out);
    const dense = denseCurvature(theta, K, xs, 0.75, d);
    expect(maxAbsDiff(out, dense.to1DArray())).toBeLessThan(1e-12);
    for (let r = 0; r < n; r++) for (let c = 0; c < r; c++) expect(out[c * n + r]).toBe(out[r * n + c]);
  });
});

describe('RegularizedMle.fit', () => {
  it.each([
    [1, 6, 80],
    [3, 4, 60],
  ])("K = %i, d = %i, t = %i, 'gradient': the dense reference's MLE, from any start, to ‖∇L‖ ≤ 1e-12·(1 + Σ‖x_s‖)", (K, d, t) => {
    const lambda = 0.7;
    const { xs, ys, mle } = history(K, d, t, 5 + K);
    const reference = denseMle(K, d, xs, ys, lambda);
    const tolerance = MLE_TOLERANCE * (1 + t);
    for (const start of [0, 3, -2]) {
      const theta = new Float64Array(K * d).fill(start);
      mle.fit(theta, lambda, 'gradient', 'test');
      expect(norm(denseGradient(theta, K, d, xs, ys, lambda))).toBeLessThan(1.1 * tolerance);
      // λ-strong convexity: ‖θ − θ̂‖ ≤ ‖∇L(θ)‖/λ, for both (the reference stops at 1e-13·(1 + t)).
      expect(maxAbsDiff(theta, reference)).toBeLessThan((1.2 * tolerance) / lambda);
      expect(mle.lastIterations).toBeGreaterThan(0);
    }
  });

  it("'rounding': ∇L at rounding, and `factor` the Cholesky factor of the Hessian at θ̂ (ln det as the dense one's)", () => {
    const [K, d, t, lambda] = [1, 5, 120, 0.3];
    const { xs, ys, mle } = history(K, d, t, 41);
    const theta = new Float64Array(d);
    const value = mle.fit(theta, lambda, 'rounding', 'test');
    expect(norm(denseGradient(theta, K, d, xs, ys, lambda))).toBeLessThan(1e-13);
    expect(value).toBeCloseTo(denseLoss(theta, K, xs, ys, lambda), 11);
    const dense = denseCurvature(Array.from(theta), K, xs, lambda, d);
    const lower = new Matrix(d, d);
    for (let r = 0; r < d; r++) for (let c = 0; c <= r; c++) lower.set(r, c, mle.factor[r * d + c]!);
    expect(maxAbsDiff(lower.mmul(lower.transpose()).to1DArray(), dense.to1DArray())).toBeLessThan(1e-10);
    // ml-matrix's Cholesky wants exact symmetry; the sum of Kronecker terms is symmetric to rounding.
    const denseLogDet = 2 * new CholeskyDecomposition(dense.add(dense.transpose()).mul(0.5)).lowerTriangularMatrix.diagonal().reduce((s, v) => s + Math.log(v), 0);
    expect(mle.logDetFactor()).toBeCloseTo(denseLogDet, 10);
  });

  it('a linear term: θ = argmin L − s·xᵀθ (∇L(θ) = s·x), and the value returned is L(θ) without it', () => {
    const [K, d, t, lambda] = [1, 4, 50, 1];
    const { xs, ys, mle } = history(K, d, t, 9);
    const x = Float64Array.from([0.5, -0.5, 0.5, 0.5]);
    const theta = new Float64Array(d);
    const value = mle.fit(theta, lambda, 'rounding', 'test', { x, s: 2.5 });
    expect(norm(denseGradient(theta, K, d, xs, ys, lambda, { x: Array.from(x), s: 2.5 }))).toBeLessThan(1e-12);
    expect(norm(theta)).toBeGreaterThan(0.5);
    expect(value).toBeCloseTo(denseLoss(theta, K, xs, ys, lambda), 11);
  });

  it('an empty history: θ = 0 is the answer, reached from anywhere', () => {
    const mle = new RegularizedMle(2, 3);
    const theta = Float64Array.from([1, -2, 3, 0.5, 0, -1]);
    expect(mle.fit(theta, 2, 'gradient', 'test')).toBeLessThan(1e-28);
    expect(norm(theta)).toBeLessThan(1e-15);
  });
});

describe("the kit's users: their descriptors' byte estimates (cost.bytes, read by run sizing and the bench's caps) match what they hold", () => {
  // t = 256: the history's capacity (doubled from 64) is then exactly t.
  it.each([
    ['MNL-UCB', 20, 1],
    ['MNL-UCB', 10, 3],
    ['GLM-UCB', 20, 1],
    ['Logistic-UCB-1', 20, 1],
    ['OFULog-r', 20, 1],
    ['RS-MNL', 10, 3],
  ] as const)('%s, d = %i, K = %i: within 5% after 256 rounds', (name, d, K) => {
    const { policy, descriptor, t, actions } = played(name, d, K);
    const estimate = descriptor.cost.bytes({ d, K, m: K * d, actions, t });
    expect(estimate / policy.stats().stateBytes).toBeGreaterThan(0.95);
    expect(estimate / policy.stats().stateBytes).toBeLessThan(1.05);
  });

  it('RS-GLinCB, d = 20: at least what it holds (two histories of t rounds at most: its warm-up fit sees fewer)', () => {
    const { policy, descriptor, t, actions } = played('RS-GLinCB', 20, 1);
    const estimate = descriptor.cost.bytes({ d: 20, K: 1, m: 20, actions, t });
    expect(estimate).toBeGreaterThan(policy.stats().stateBytes);
    expect(estimate).toBeLessThan(2 * policy.stats().stateBytes);
  });
});

/** `name` played for 256 rounds of 10 random actions, random outcomes. */
function played(name: string, d: number, K: number) {
  const [t, actions] = [256, 10];
  const random = seededUniform(3 * d + K);
  const reward = [0, ...Array.from({ length: K }, (_, k) => (k + 1) / K)];
  const policy = createPolicy(name, policySpec({ d, K, reward, horizon: 1000 }));
  for (let round = 1; round <= t; round++) {
    const features = Float64Array.from({ length: actions * d }, () => (random() - 0.5) / Math.sqrt(d));
    const i = policy.select({ count: actions, d, features }, round);
    policy.update(features.subarray(i * d, (i + 1) * d), Math.floor(random() * (K + 1)));
  }
  return { policy, descriptor: policyDescriptor(name), t, actions };
}
