/**
 * Dense references for the baselines: for the GLM bandits (MNL-UCB, OL2M, ada-OFU-ECOLog) a trace
 * player, the decision rule argmax rᵀσ(Wx) + γ‖x‖_{M⁻¹} written out with ml-matrix, and the tie rule;
 * for the sketched linear bandits (SOFUL, DBSLinUCB) frequent directions on an explicit d×d matrix and
 * OFUL's radius with the sketched log-det.
 */
import { EigenvalueDecomposition, Matrix } from 'ml-matrix';
import type { TraceEnvironment } from '../../src/environments/trace.js';
import type { Policy } from '../../src/policies/policy.js';
import type { PolicySpec } from '../../src/policies/spec.js';
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

/** OFUL's √β with the sketched log-det (Abbasi-Yadkori et al. 2011, Thm. 2), as SOFUL and DBSLinUCB use it, written out. */
export function sketchedOfulRadius(spec: PolicySpec, m: number, rho: number, observations: number): number {
  const sigma = Math.max(...spec.reward) / 2;
  const d = spec.d;
  const logDet = m * Math.log(1 + (observations * spec.maxActionNorm ** 2) / (m * spec.regularization)) + d * Math.log(1 + rho / spec.regularization);
  return sigma * Math.sqrt(logDet + 2 * Math.log(1 / spec.delta)) + Math.sqrt(spec.regularization) * spec.normBound;
}

/** Dense FD: S ← top-m part of S + xxᵀ, each eigenvalue less the (m+1)-th; returns the discarded mass. */
export function denseFrequentDirections(S: Matrix, x: number[], m: number): { next: Matrix; discarded: number } {
  const d = x.length;
  const sum = S.clone().add(Matrix.columnVector(x).mmul(Matrix.rowVector(x)));
  const eig = new EigenvalueDecomposition(sum.add(sum.transpose()).mul(0.5), { assumeSymmetric: true });
  const order = eig.realEigenvalues.map((v, i) => [v, i]).sort((a, b) => b[0] - a[0]);
  // Eigenvalues at rounding level are 0 (a rank ≤ m + 1 matrix has exact zeros).
  const noise = 1e-12 * Math.max(order[0][0], 1);
  const discarded = m < d && order[m][0] > noise ? order[m][0] : 0;
  const next = Matrix.zeros(d, d);
  for (let k = 0; k < Math.min(m, d); k++) {
    const [value, column] = order[k];
    if (value - discarded <= noise) continue;
    const q = eig.eigenvectorMatrix.getColumnVector(column);
    next.add(q.mmul(q.transpose()).mul(value - discarded));
  }
  return { next, discarded };
}
