import { describe, expect, it } from 'vitest';
import { dot } from '../../src/linalg/blas.js';
import { softmaxJacobian, softmaxWithNull } from '../../src/model/logistic.js';
import { HistoryMle } from '../../src/policies/history-mle.js';
import { seededUniform } from '../helpers/dense.js';
import { denseCurvature } from '../helpers/dense-mle.js';

/** t unit-norm rounds in dimension d with outcomes cycling through 0..K, and a random θ. */
function history(K: number, d: number, t: number, seed: number) {
  const random = seededUniform(seed);
  const xs = Array.from({ length: t }, () => {
    const x = Array.from({ length: d }, () => random() - 0.5);
    const norm = Math.hypot(...x);
    return x.map((v) => v / norm);
  });
  const ys = xs.map((_, s) => s % (K + 1));
  const theta = Array.from({ length: K * d }, () => 2 * (random() - 0.5));
  const mle = new HistoryMle(K, d, 1);
  xs.forEach((x, s) => mle.add(Float64Array.from(x), ys[s]!));
  return { xs, theta, mle };
}

/**
 * ρI + Σ_s ∇σ(θx_s) ⊗ x_s x_sᵀ accumulated as full rank-one updates, element (a, b) of block (i, j)
 * gaining (J_ij·x_a)·x_b round after round, lower block triangle mirrored: the arithmetic of the
 * policies' published runs, which the triangle-only update must reproduce bit for bit.
 */
function fullRankOneCurvature(K: number, d: number, xs: number[][], theta: Float64Array, diagonal: number): Float64Array {
  const n = K * d;
  const out = new Float64Array(n * n);
  const z = new Float64Array(K);
  const sigma = new Float64Array(K);
  const jacobian = new Float64Array(K * K);
  for (const row of xs) {
    const x = Float64Array.from(row);
    for (let i = 0; i < K; i++) z[i] = dot(d, theta, i * d, x, 0);
    softmaxWithNull(K, z, sigma);
    softmaxJacobian(K, sigma, jacobian);
    for (let i = 0; i < K; i++) {
      for (let j = 0; j <= i; j++) {
        const c = jacobian[i * K + j]!;
        for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) out[(i * d + a) * n + j * d + b]! += c * x[a]! * x[b]!;
      }
    }
  }
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < r; c++) out[c * n + r] = out[r * n + c]!;
    out[r * n + r]! += diagonal;
  }
  return out;
}

describe('HistoryMle.curvature', () => {
  // d = 70: two full panels of 32 rows and a partial one.
  it.each([
    [1, 70],
    [3, 70],
    [2, 5],
  ])('K = %i, d = %i: the dense ρI + Σ ∇σ ⊗ xxᵀ, and bit for bit the full rank-one accumulation', (K, d) => {
    const t = 40;
    const { xs, theta, mle } = history(K, d, t, 17 * K + d);
    const n = K * d;
    const out = new Float64Array(n * n);
    const at = Float64Array.from(theta);
    mle.curvature(at, 0.75, out);

    const dense = denseCurvature(theta, K, xs, 0.75, d);
    let largest = 0;
    for (let r = 0; r < n; r++) for (let c = 0; c < n; c++) largest = Math.max(largest, Math.abs(out[r * n + c]! - dense.get(r, c)));
    expect(largest).toBeLessThan(1e-12);

    const full = fullRankOneCurvature(K, d, xs, at, 0.75);
    let differing = 0;
    for (let k = 0; k < n * n; k++) if (!Object.is(out[k], full[k])) differing++;
    expect(differing).toBe(0);
    for (let r = 0; r < n; r++) for (let c = 0; c < r; c++) expect(out[c * n + r]).toBe(out[r * n + c]);
  });
});
