/**
 * Independent dense references for tests: explicit Kd×Kd matrices built the obvious way, with
 * ml-matrix for inverses and eigenvalues. Nothing here shares code with src/ beyond the interfaces.
 */
import { EigenvalueDecomposition, Matrix, inverse } from 'ml-matrix';
import { mulberry32 } from '../../src/random/stream.js';

/** Test data: uniforms on [0, 1) from mulberry32 (the package's seeded generator). */
export const seededUniform = mulberry32;

export function seededNormal(seed: number): () => number {
  const u = seededUniform(seed);
  return () => Math.sqrt(-2 * Math.log(1 - u())) * Math.cos(2 * Math.PI * u());
}

export function randomVector(n: number, normal: () => number, norm?: number): number[] {
  const v = Array.from({ length: n }, normal);
  if (norm === undefined) return v;
  const s = Math.hypot(...v);
  return v.map((x) => (x / s) * norm);
}

/** σ(z) on the K non-null coordinates, written out directly from eq. (1). */
export function softmaxDense(z: number[]): number[] {
  const e = z.map(Math.exp);
  const total = 1 + e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / total);
}

/** ∇σ = diag(σ) − σσᵀ. */
export function jacobianDense(sigma: number[]): number[][] {
  return sigma.map((si, i) => sigma.map((sj, j) => (i === j ? si : 0) - si * sj));
}

/** ∇σ ⊗ x xᵀ (block (i,j) = ∇σ_ij x xᵀ), Kd×Kd. */
export function kronHessian(jacobian: number[][], x: number[]): Matrix {
  const K = jacobian.length;
  const d = x.length;
  const h = Matrix.zeros(K * d, K * d);
  for (let i = 0; i < K; i++)
    for (let j = 0; j < K; j++)
      for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) h.set(i * d + a, j * d + b, jacobian[i][j] * x[a] * x[b]);
  return h;
}

/** I_K ⊗ x: Kd×K. */
export function kronIdentity(K: number, x: number[]): Matrix {
  const d = x.length;
  const m = Matrix.zeros(K * d, K);
  for (let i = 0; i < K; i++) for (let a = 0; a < d; a++) m.set(i * d + a, i, x[a]);
  return m;
}

/** V Λ Vᵀ from rows v_k (Float64Array, r rows of length n) and weights μ. */
export function lowRankDense(n: number, r: number, basis: Float64Array, weights: Float64Array): Matrix {
  const m = Matrix.zeros(n, n);
  for (let k = 0; k < r; k++)
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) m.set(i, j, m.get(i, j) + weights[k] * basis[k * n + i] * basis[k * n + j]);
  return m;
}

export function symmetricEigenvalues(m: Matrix): number[] {
  const sym = m.add(m.transpose()).mul(0.5);
  return new EigenvalueDecomposition(sym, { assumeSymmetric: true }).realEigenvalues.slice().sort((a, b) => b - a);
}

export function denseInverse(m: Matrix): Matrix {
  return inverse(m);
}

/** (W reshaped) · x for W row-wise vectorised (K×d). */
export function timesX(w: ArrayLike<number>, K: number, x: number[]): number[] {
  const d = x.length;
  return Array.from({ length: K }, (_, i) => x.reduce((s, xa, a) => s + w[i * d + a] * xa, 0));
}

/**
 * The Z̃-norm projection of w' onto ‖W‖ ≤ S, eq. (9), the obvious way: eigendecompose Z̃ and bisect on ν
 * in W(ν) = (Z̃ + νI)⁻¹ Z̃ w' until ‖W(ν)‖ = S.
 */
export function denseProjection(zTilde: Matrix, wPrime: number[], S: number): number[] {
  const eig = new EigenvalueDecomposition(zTilde, { assumeSymmetric: true });
  const values = eig.realEigenvalues;
  const Q = eig.eigenvectorMatrix;
  const c = Q.transpose().mmul(Matrix.columnVector(wPrime)).to1DArray();
  const normAt = (nu: number) => Math.sqrt(c.reduce((s, ci, i) => s + ((values[i] * ci) / (values[i] + nu)) ** 2, 0));
  let lo = 0;
  let hi = 1;
  while (normAt(hi) > S) hi *= 2;
  for (let i = 0; i < 200; i++) {
    const mid = 0.5 * (lo + hi);
    if (normAt(mid) > S) lo = mid;
    else hi = mid;
  }
  const nu = 0.5 * (lo + hi);
  const scaled = c.map((ci, i) => (values[i] * ci) / (values[i] + nu));
  return Q.mmul(Matrix.columnVector(scaled)).to1DArray();
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

export function norm(a: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * a[i];
  return Math.sqrt(s);
}
