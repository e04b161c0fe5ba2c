/**
 * The regularised multinomial MLE written out densely for the limited-adaptivity references (RS-GLinCB,
 * RS-MNL): argmin Σ_s −ln σ_{y_s}(θx_s) + (ρ/2)‖θ‖² by plain Newton steps with ml-matrix solves and a
 * halving line search (full steps near the optimum), from θ = 0. Nothing is shared with src/policies/kit/mle.ts.
 */
import { Matrix, solve } from 'ml-matrix';
import { jacobianDense, kronHessian, softmaxDense, timesX } from './dense.js';

function objective(theta: number[], K: number, xs: number[][], ys: number[], ridge: number): number {
  let total = 0.5 * ridge * theta.reduce((s, v) => s + v * v, 0);
  xs.forEach((x, s) => {
    const sigma = softmaxDense(timesX(theta, K, x));
    total -= Math.log(ys[s] === 0 ? 1 - sigma.reduce((a, b) => a + b, 0) : sigma[ys[s] - 1]);
  });
  return total;
}

/** ρI + Σ_s ∇σ(θx_s) ⊗ x_s x_sᵀ, Kd×Kd. */
export function denseCurvature(theta: number[], K: number, xs: number[][], diagonal: number, d: number): Matrix {
  let h = Matrix.eye(K * d).mul(diagonal);
  for (const x of xs) h = h.add(kronHessian(jacobianDense(softmaxDense(timesX(theta, K, x))), x));
  return h;
}

export function denseMle(K: number, d: number, xs: number[][], ys: number[], ridge: number): number[] {
  let theta = new Array(K * d).fill(0);
  for (let iteration = 0; iteration < 200; iteration++) {
    const gradient = theta.map((v) => ridge * v);
    xs.forEach((x, s) => {
      const sigma = softmaxDense(timesX(theta, K, x));
      for (let i = 0; i < K; i++) for (let a = 0; a < d; a++) gradient[i * d + a] += (sigma[i] - (ys[s] === i + 1 ? 1 : 0)) * x[a];
    });
    if (Math.hypot(...gradient) < 1e-13 * (1 + xs.length)) break;
    const step = solve(denseCurvature(theta, K, xs, ridge, d), Matrix.columnVector(gradient)).to1DArray();
    const value = objective(theta, K, xs, ys, ridge);
    let size = 1;
    let next = theta.map((v, j) => v - step[j]);
    // Close to the optimum (Newton decrement² below 1e-8) the full step; the objective's rounding would
    // otherwise halve the steps to nothing.
    const decrement = gradient.reduce((s, g, j) => s + g * step[j], 0);
    while (decrement > 1e-8 && objective(next, K, xs, ys, ridge) > value && size > 1e-12) {
      size /= 2;
      next = theta.map((v, j) => v - size * step[j]);
    }
    theta = next;
  }
  return theta;
}

/** ln det of a symmetric positive definite matrix, from its Cholesky factor (written out). */
export function denseLogDet(m: Matrix): number {
  const n = m.rows;
  // Cholesky written out: L L^T = m.
  const l = Matrix.zeros(n, n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = m.get(i, j);
      for (let k = 0; k < j; k++) s -= l.get(i, k) * l.get(j, k);
      l.set(i, j, i === j ? Math.sqrt(s) : s / l.get(j, j));
    }
  }
  let logDet = 0;
  for (let i = 0; i < n; i++) logDet += 2 * Math.log(l.get(i, i));
  return logDet;
}
