/**
 * Hyperparameters of Section 4: α, λ0, η0, the (l, e) scaling of λ and η, m = ⌊Kd/10⌋, δ = 1/T.
 * Every derived value can be overridden.
 */

export interface HyperparameterInput {
  /** d: feature dimension. */
  d: number;
  /** K: number of non-null outcomes. */
  K: number;
  /** S: radius of the parameter domain ‖W‖_F ≤ S. */
  radius: number;
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
  /** m: sketch size. */
  sketchSize: number;
  /** δ: confidence level. */
  delta: number;
}

export const DEFAULT_L = 0.75;
export const DEFAULT_E = 0.75;

/** Derives (α, λ0, η0, λ, η, m, δ) as Section 4 sets them. */
export function deriveHyperparameters(input: HyperparameterInput): Hyperparameters {
  const { d, K, radius: S, maxActionNorm: D, horizon } = input;
  const alpha = 2 * (1 + S * D) + Math.log(K + 1);
  const baseRegularization = Math.sqrt(K) * alpha * S;
  const baseStepSize = S / 2 + Math.log(K + 1) / 4;
  const scale = Math.sqrt(K) * d;
  const l = input.regularization === undefined ? (input.l ?? DEFAULT_L) : null;
  const e = input.stepSize === undefined ? (input.e ?? DEFAULT_E) : null;
  const regularization = l === null ? input.regularization! : scale ** l * baseRegularization;
  const stepSize = e === null ? input.stepSize! : scale ** e * baseStepSize;
  const sketchSize =
    input.sketchSize === undefined || input.sketchSize === 'auto'
      ? Math.max(1, Math.floor((K * d) / 10))
      : input.sketchSize;
  const delta = input.delta === undefined || input.delta === 'auto' ? 1 / horizon : input.delta;
  return { alpha, baseRegularization, baseStepSize, l, e, regularization, stepSize, sketchSize, delta };
}
