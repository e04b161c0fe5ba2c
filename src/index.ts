/**
 * eofd: EOFD-MLogB and OFUL-MLogB multinomial logistic bandits as a library.
 *
 *   const policy = createPolicy('EOFD-MLogB', policySpec({ d, K, reward: [0, 0.5, 1] }));
 *   const i = policy.select({ count, d, features }, t);   // play action i
 *   policy.update(features.subarray(i * d, (i + 1) * d), outcome);
 */
export type { ActionSet, Environment, Feedback } from './environments/environment.js';
export { loadTraceEnvironment, readTrace, TraceEnvironment, validateTrace, type Trace } from './environments/trace.js';
export { ConfidenceRadius, type BetaMode } from './model/beta.js';
export { deriveHyperparameters, type HyperparameterInput, type Hyperparameters } from './model/hyperparameters.js';
export { EofdMLogB } from './policies/eofd-mlogb.js';
export { OfulMLogB } from './policies/oful-mlogb.js';
export { POLICY_NAMES, type Policy, type PolicyName, type PolicyStats } from './policies/policy.js';
export { RandomPolicy } from './policies/random.js';
export { createPolicy, isPolicyName } from './policies/registry.js';
export { nonNullRewards, type PolicySpec } from './policies/spec.js';
export { FrequentDirections } from './sketch/frequent-directions.js';

import type { BetaMode } from './model/beta.js';
import { deriveHyperparameters } from './model/hyperparameters.js';
import { nonNullRewards, type PolicySpec } from './policies/spec.js';

/** What an application knows about its problem; everything else takes the paper's defaults. */
export interface PolicyOptions {
  d: number;
  K: number;
  /** r_0..r_K with r_0 = 0 (K = 1: [0, 1]). */
  reward: number[];
  /** S: bound on ‖W*‖_F (default 1). */
  radius?: number;
  /** D: bound on action norms (default 1). */
  maxActionNorm?: number;
  /** Horizon T for δ = 1/T (default 10,000). */
  horizon?: number;
  /** m (default ⌊Kd/10⌋). */
  sketchSize?: number;
  /** β mode (default 'order', eq. (27)). */
  beta?: BetaMode;
  betaScale?: number;
  /** λ and η directly, or through the (l, e) scaling of Section 4. */
  regularization?: number;
  stepSize?: number;
  l?: number;
  e?: number;
  /** A uniform stream on [0, 1) for the Random policy. */
  uniform?: () => number;
}

/** A complete PolicySpec from a few facts, with λ, η, m and δ derived as in Section 4. */
export function policySpec(options: PolicyOptions): PolicySpec {
  const radius = options.radius ?? 1;
  const maxActionNorm = options.maxActionNorm ?? 1;
  const hp = deriveHyperparameters({
    d: options.d,
    K: options.K,
    radius,
    maxActionNorm,
    horizon: options.horizon ?? 10_000,
    l: options.l,
    e: options.e,
    regularization: options.regularization,
    stepSize: options.stepSize,
    sketchSize: options.sketchSize,
  });
  const reward = nonNullRewards(options.reward);
  if (reward.length !== options.K) throw new RangeError(`reward must list r_0..r_K (${options.K + 1} values), got ${options.reward.length}`);
  return {
    d: options.d,
    K: options.K,
    reward,
    radius,
    regularization: hp.regularization,
    stepSize: hp.stepSize,
    sketchSize: hp.sketchSize,
    beta: options.beta ?? 'order',
    betaScale: options.betaScale ?? 1,
    delta: hp.delta,
    maxActionNorm,
    uniform: options.uniform,
  };
}
