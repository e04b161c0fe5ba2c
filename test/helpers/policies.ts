import type { ActionSet } from '../../src/environments/environment.js';
import type { Trace } from '../../src/environments/trace.js';
import type { PolicySpec } from '../../src/policies/spec.js';
import { randomVector, seededNormal, seededUniform } from './dense.js';

export function makeSpec(K: number, d: number, overrides: Partial<PolicySpec> = {}): PolicySpec {
  return {
    d,
    K,
    reward: Float64Array.from({ length: K }, (_, k) => (K === 1 ? 1 : (k + 1) / K)),
    radius: 1,
    regularization: 2,
    stepSize: 1.5,
    sketchSize: Math.max(1, Math.floor((K * d) / 3)),
    beta: 'order',
    betaScale: 1,
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
