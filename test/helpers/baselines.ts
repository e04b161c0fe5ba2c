/**
 * Dense references for the GLM-bandit baselines (MNL-UCB, OL2M, ada-OFU-ECOLog): a trace player, the
 * decision rule argmax rᵀσ(Wx) + γ‖x‖_{M⁻¹} written out with ml-matrix, and the tie rule.
 */
import { Matrix } from 'ml-matrix';
import type { TraceEnvironment } from '../../src/environments/trace.js';
import type { Policy } from '../../src/policies/policy.js';
import { denseInverse, softmaxDense, timesX } from './dense.js';

/** The rows of a round's action set as plain arrays. */
export function actionRows(features: Float64Array, count: number, d: number): number[][] {
  return Array.from({ length: count }, (_, a) => Array.from(features.subarray(a * d, (a + 1) * d)));
}

/** Index of the largest score; scores within 1e-12 (relative) of it are ties, which go to the lowest index. */
export function argmaxLowestTie(scores: number[]): number {
  const best = Math.max(...scores);
  return scores.findIndex((s) => s >= best - 1e-12 * Math.abs(best));
}

/** argmax_x rᵀσ(Wx) + γ √(xᵀ M⁻¹ x), M⁻¹ by ml-matrix's inverse. */
export function denseBonusDecision(rows: number[][], w: ArrayLike<number>, K: number, reward: number[], radius: number, M: Matrix): number {
  const Minv = denseInverse(M);
  return argmaxLowestTie(
    rows.map((x) => {
      const sigma = softmaxDense(timesX(w, K, x));
      const quadratic = Matrix.rowVector(x).mmul(Minv).mmul(Matrix.columnVector(x)).get(0, 0);
      return sigma.reduce((s, p, k) => s + reward[k] * p, 0) + radius * Math.sqrt(quadratic);
    }),
  );
}

/** One reference step: the decision from the round's rows, then learning from (x, y). */
export interface ReferencePolicy {
  decide(rows: number[][], t: number): number;
  learn(x: number[], outcome: number): void;
}

/**
 * Plays the policy and its reference on the same trace; returns the round of the first differing decision
 * (−1 if none) and the decisions. After each round `check` may compare the two states.
 */
export function playAgainstReference(
  policy: Policy,
  reference: ReferencePolicy,
  env: TraceEnvironment,
  rounds: number,
  check?: (t: number) => void,
): { firstDifference: number; decisions: number[] } {
  const decisions: number[] = [];
  for (let t = 1; t <= rounds; t++) {
    const actions = env.actions(t);
    const rows = actionRows(actions.features, actions.count, env.d);
    const index = policy.select(actions, t);
    if (reference.decide(rows, t) !== index) return { firstDifference: t, decisions };
    decisions.push(index);
    const { outcome } = env.play(index);
    policy.update(actions.features.slice(index * env.d, (index + 1) * env.d), outcome);
    reference.learn(rows[index], outcome);
    check?.(t);
  }
  return { firstDifference: -1, decisions };
}
