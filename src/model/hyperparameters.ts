/**
 * Hyperparameters of Section 4: α, λ0, η0, the (l, e) scaling of λ and η, m = ⌊Kd/10⌋, δ = 1/T.
 * Every derived value can be overridden. The one home of their defaults (configs and the library).
 */
import type { BetaMode, BetaRank } from './beta.js';

/** Defaults of everything a config's `params` or the library may leave out. */
export const HYPERPARAMETER_DEFAULTS = {
  /** S: bound on ‖W*‖_F. */
  S: 1,
  /** l: exponent of λ = (√K d)^l λ0 (Section 4). */
  l: 0.75,
  /** e: exponent of η = (√K d)^e η0 (Section 4). */
  e: 0.75,
  /** β mode: eq. (27) with its constants 1 (README: why not eq. (36)). */
  beta: 'order' as BetaMode,
  /** beta_scale */
  betaScale: 1,
  /** beta_rank: the sketch's own rank and Δ in β (the paper's EOFD-MLogB). */
  betaRank: 'sketch' as BetaRank,
} as const;

export interface HyperparameterInput {
  /** d: feature dimension. */
  d: number;
  /** K: number of non-null outcomes. */
  K: number;
  /** S: bound on ‖W‖_F (the parameter domain of eq. (9)). */
  normBound: number;
  /** D: bound on action norms. */
  maxActionNorm: number;
  /** T: horizon (for δ = 1/T). */
  horizon: number;
  /** l: exponent of the λ scaling (default 0.75). */
  l?: number;
  /** e: exponent of the η scaling (default 0.75). */
  e?: number;
  /** λ given directly (overrides l). */
  regularization?: number;
  /** η given directly (overrides e). */
  stepSize?: number;
  /** m, or 'auto' for ⌊Kd/10⌋. */
  sketchSize?: number | 'auto';
  /** δ, or 'auto' for 1/T. */
  delta?: number | 'auto';
}

export interface Hyperparameters {
  /** α = 2(1 + S·D) + ln(K+1) (Theorem 1). */
  alpha: number;
  /** λ0 = √K·α·S. */
  baseRegularization: number;
  /** η0 = S/2 + ln(K+1)/4. */
  baseStepSize: number;
  /** l, or null when λ was given directly. */
  l: number | null;
  /** e, or null when η was given directly. */
  e: number | null;
  /** λ = (√K d)^l λ0. */
  regularization: number;
  /** η = (√K d)^e η0. */
  stepSize: number;
  /** m: sketch size, at most Kd. */
  sketchSize: number;
  /** δ: confidence level. */
  delta: number;
}

/** (√K d)^exponent · base: Section 4's scaling of λ0 and η0. */
export function scaleByDimension(d: number, K: number, exponent: number, base: number): number {
  return (Math.sqrt(K) * d) ** exponent * base;
}

/** Derives (α, λ0, η0, λ, η, m, δ) as Section 4 sets them. */
export function deriveHyperparameters(input: HyperparameterInput): Hyperparameters {
  const { d, K, normBound: S, maxActionNorm: D, horizon } = input;
  const alpha = 2 * (1 + S * D) + Math.log(K + 1);
  const baseRegularization = Math.sqrt(K) * alpha * S;
  const baseStepSize = S / 2 + Math.log(K + 1) / 4;
  const l = input.regularization === undefined ? (input.l ?? HYPERPARAMETER_DEFAULTS.l) : null;
  const e = input.stepSize === undefined ? (input.e ?? HYPERPARAMETER_DEFAULTS.e) : null;
  const regularization = l === null ? input.regularization! : scaleByDimension(d, K, l, baseRegularization);
  const stepSize = e === null ? input.stepSize! : scaleByDimension(d, K, e, baseStepSize);
  // A sketch of m ≥ Kd directions keeps everything: m is capped at Kd, so that what is recorded runs.
  const requested =
    input.sketchSize === undefined || input.sketchSize === 'auto' ? Math.max(1, Math.floor((K * d) / 10)) : input.sketchSize;
  const sketchSize = Math.min(K * d, requested);
  const delta = input.delta === undefined || input.delta === 'auto' ? 1 / horizon : input.delta;
  return { alpha, baseRegularization, baseStepSize, l, e, regularization, stepSize, sketchSize, delta };
}
