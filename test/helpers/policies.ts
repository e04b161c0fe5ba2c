import { Matrix } from 'ml-matrix';
import type { ActionSet } from '../../src/environments/environment.js';
import { EofdMLogB } from '../../src/policies/eofd-mlogb.js';
import type { OfulMLogB } from '../../src/policies/oful-mlogb.js';
import type { Policy, PolicyDescriptor } from '../../src/policies/policy.js';
import type { Trace } from '../../src/environments/trace.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import {
  denseInverse,
  denseProjection,
  maxAbsDiff,
  jacobianDense,
  kronHessian,
  lowRankDense,
  norm,
  randomVector,
  seededNormal,
  seededUniform,
  softmaxDense,
  timesX,
} from './dense.js';

export function makeSpec(K: number, d: number, overrides: Partial<PolicySpec> = {}): PolicySpec {
  return {
    d,
    K,
    reward: Float64Array.from({ length: K }, (_, k) => (K === 1 ? 1 : (k + 1) / K)),
    normBound: 1,
    regularization: 2,
    stepSize: 1.5,
    sketchSize: Math.max(1, Math.floor((K * d) / 3)),
    beta: 'order',
    betaScale: 1,
    betaRank: 'sketch',
    delta: 0.01,
    maxActionNorm: 1,
    ...overrides,
  };
}

export function actionSet(rows: number[][]): ActionSet {
  const d = rows[0].length;
  return { count: rows.length, d, features: Float64Array.from(rows.flat()) };
}

/** A synthetic trace: ‖W*‖_F = normStar, unit actions, |A_t| in [5, 12], recorded uniforms. */
export function syntheticTrace(K: number, d: number, rounds: number, seed: number, normStar: number): Trace {
  const normal = seededNormal(seed);
  const uniform = seededUniform(seed + 1);
  const wStar = randomVector(K * d, normal, normStar);
  const reward = [0, ...Array.from({ length: K }, (_, k) => (K === 1 ? 1 : (k + 1) / K))];
  return {
    K,
    d,
    reward,
    W_star: Array.from({ length: K }, (_, i) => wStar.slice(i * d, (i + 1) * d)),
    rounds: Array.from({ length: rounds }, () => ({
      actions: Array.from({ length: 5 + Math.floor(uniform() * 8) }, () => randomVector(d, normal, 1)),
      u: uniform(),
    })),
  };
}

/** A policy's curvature matrix before the round, dense: λI + VΛVᵀ (EOFD-MLogB) or H (OFUL-MLogB). */
export function curvatureOf(policy: Policy, lambda: number): Matrix {
  if (policy instanceof EofdMLogB) {
    const { sketch } = policy;
    return lowRankDense(sketch.dimension, sketch.rank, sketch.basis, sketch.eigenvalues).add(Matrix.eye(sketch.dimension).mul(lambda));
  }
  const h = (policy as OfulMLogB).hessian;
  const n = Math.sqrt(h.length);
  return new Matrix(Array.from({ length: n }, (_, i) => Array.from(h.subarray(i * n, (i + 1) * n))));
}

/** The dense reference of eqs. (8)–(9) from the curvature matrix Z before the round. */
export function denseUpdate(Z: Matrix, w: Float64Array, x: number[], outcome: number, eta: number, S: number) {
  const K = Z.rows / x.length;
  const sigma = softmaxDense(timesX(w, K, x));
  const coefficients = sigma.map((s, k) => s - (outcome === k + 1 ? 1 : 0));
  const gradient = coefficients.flatMap((c) => x.map((xa) => c * xa));
  const zTilde = Z.clone().add(kronHessian(jacobianDense(sigma), x).mul(eta));
  const step = denseInverse(zTilde).mmul(Matrix.columnVector(gradient)).to1DArray();
  const wPrime = Array.from(w, (v, i) => v - eta * step[i]);
  const projected = norm(wPrime) > S;
  return { next: projected ? denseProjection(zTilde, wPrime, S) : wPrime, projected, wPrime };
}

/**
 * Runs `body` while `descriptor` builds policies whose update throws in round `round` (in this
 * process: a run with --jobs 1 or no jobs). Every legal config is checked before it runs, so this is
 * how a unit failing at run time is made.
 */
export async function withFailingPolicy<T>(descriptor: PolicyDescriptor, round: number, body: () => Promise<T>): Promise<T> {
  const create = descriptor.create;
  const patched = descriptor as { create: PolicyDescriptor['create'] };
  patched.create = (spec) => {
    const policy = create(spec);
    const update = policy.update.bind(policy);
    let rounds = 0;
    policy.update = (x, outcome) => {
      if (++rounds === round) throw new Error('state is not finite (injected)');
      update(x, outcome);
    };
    return policy;
  };
  try {
    return await body();
  } finally {
    patched.create = create;
  }
}

/**
 * The Thompson-sampling choice, densely: the action of largest rᵀσ(W̃x) (K = 1: w̃ᵀx, which σ maps
 * monotonically), scores within 1e-12 relative of the best being ties that go to the lowest index.
 */
export function denseGreedyChoice(K: number, reward: number[], sample: ArrayLike<number>, rows: number[][]): number {
  const scores = rows.map((x) => {
    const z = timesX(sample, K, x);
    return K === 1 ? z[0] : softmaxDense(z).reduce((s, p, k) => s + p * reward[k], 0);
  });
  const best = Math.max(...scores);
  return scores.findIndex((s) => s >= best - 1e-12 * Math.abs(best));
}

/** An outcome of the true model: y = first k with u < σ_0 + … + σ_k (σ_0 the null outcome). */
export function denseOutcome(wStar: ArrayLike<number>, K: number, x: number[], u: number): number {
  const sigma = softmaxDense(timesX(wStar, K, x));
  let cumulative = 1 - sigma.reduce((a, b) => a + b, 0);
  for (let k = 0; k <= K; k++) {
    if (u < cumulative) return k;
    cumulative += sigma[k];
  }
  return K;
}

/**
 * Test rounds with explicit ties: `count` random actions of norm ≤ 1, then a copy of action 0 appended,
 * which scores exactly as action 0 does and so must never be chosen.
 */
export function roundWithDuplicate(d: number, count: number, normal: () => number, uniform: () => number): number[][] {
  const rows = Array.from({ length: count }, () => randomVector(d, normal, 0.3 + 0.7 * uniform()));
  return [...rows, rows[0].slice()];
}

/**
 * One Thompson-sampling round against the dense draw: ξ from the reference's copy of the policy's
 * normals, W̃ = w + √β·offsetOf(ξ) (β as the policy recorded it), then the dense greedy choice, which
 * is never the appended duplicate of action 0.
 */
export function expectThompsonRound(
  policy: Policy & { readonly sample: Float64Array },
  index: number,
  w: Float64Array,
  offsetOf: (xi: Matrix) => number[],
  normals: { normal(): number },
  reward: number[],
  rows: number[][],
): void {
  const n = w.length;
  const K = n / rows[0].length;
  const beta = policy.stats().beta;
  const offset = offsetOf(Matrix.columnVector(Array.from({ length: n }, () => normals.normal())));
  const sample = Array.from(w, (v, i) => v + Math.sqrt(beta) * offset[i]);
  if (maxAbsDiff(policy.sample, sample) >= 1e-8) throw new Error(`W̃ differs from the dense draw by ${maxAbsDiff(policy.sample, sample)}`);
  if (index !== denseGreedyChoice(K, reward, sample, rows)) throw new Error(`chose ${index}, the dense reference ${denseGreedyChoice(K, reward, sample, rows)}`);
  if (index === rows.length - 1) throw new Error('chose the later copy of a tied action');
}
