import type { BetaMode } from '../model/beta.js';

/** Everything a policy needs to be built; validated by `validatePolicySpec`. */
export interface PolicySpec {
  /** d: feature dimension. */
  d: number;
  /** K: number of non-null outcomes. */
  K: number;
  /** r_1..r_K (r_0 = 0 is implicit). */
  reward: Float64Array;
  /** S: radius of the parameter domain ‖W‖_F ≤ S. */
  radius: number;
  /** λ */
  regularization: number;
  /** η */
  stepSize: number;
  /** m (EOFD-MLogB only; capped at Kd). */
  sketchSize: number;
  /** β mode (DESIGN §2). */
  beta: BetaMode;
  /** beta_scale */
  betaScale: number;
  /** δ */
  delta: number;
  /** D: bound on action norms. */
  maxActionNorm: number;
  /** OFUL-MLogB: rounds between exact re-inversions of H (Woodbury drift control). */
  refreshInterval?: number;
  /** Random: the policy's own uniform stream on [0, 1). */
  uniform?: () => number;
}

function requirePositive(name: string, value: number): void {
  if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
    throw new RangeError(`${name} must be a positive finite number, got ${value}`);
  }
}

function requireInteger(name: string, value: number, min: number): void {
  if (!(Number.isInteger(value) && value >= min)) {
    throw new RangeError(`${name} must be an integer ≥ ${min}, got ${value}`);
  }
}

/** Throws a RangeError naming the first invalid field. */
export function validatePolicySpec(spec: PolicySpec): void {
  requireInteger('d', spec.d, 1);
  requireInteger('K', spec.K, 1);
  if (spec.reward.length !== spec.K) {
    throw new RangeError(`reward must list r_1..r_K (${spec.K} values), got ${spec.reward.length}`);
  }
  spec.reward.forEach((r, k) => {
    if (!(Number.isFinite(r) && r >= 0)) throw new RangeError(`reward r_${k + 1} must be finite and ≥ 0, got ${r}`);
  });
  requirePositive('S', spec.radius);
  requirePositive('lambda', spec.regularization);
  requirePositive('eta', spec.stepSize);
  requireInteger('m', spec.sketchSize, 1);
  requirePositive('beta_scale', spec.betaScale);
  if (!(spec.delta > 0 && spec.delta < 1)) throw new RangeError(`delta must lie in (0, 1), got ${spec.delta}`);
  requirePositive('D (largest action norm)', spec.maxActionNorm);
  if (spec.refreshInterval !== undefined) requireInteger('refreshInterval', spec.refreshInterval, 1);
}

/** Full reward vector r_0..r_K → r_1..r_K, rejecting r_0 ≠ 0 (Assumption 1). */
export function nonNullRewards(rewards: readonly number[]): Float64Array {
  if (rewards.length < 2) throw new RangeError(`reward must list r_0..r_K (at least 2 values), got ${rewards.length}`);
  if (rewards[0] !== 0) throw new RangeError(`reward r_0 must be 0 (the null outcome), got ${rewards[0]}`);
  return Float64Array.from(rewards.slice(1));
}
