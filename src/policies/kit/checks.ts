import type { ActionSet } from '../../environments/environment.js';
import type { RangeProblem } from '../policy.js';
import type { PolicySpec } from '../spec.js';

/** A hyperparameter a policy cannot compute with (PolicyDescriptor.rangeProblem): the params key to change, and why. */
export type { RangeProblem };

/** Throws the problem as a RangeError (a constructor's check, the same one the descriptor runs at resolution). */
export function requireInRange(problem: RangeProblem | null): void {
  if (problem !== null) throw new RangeError(problem.detail);
}

/**
 * The smallest λ/D² of a policy whose Newton Hessian Σ μ̇ xxᵀ + λI (or its multinomial Σ A⊗xxᵀ + λI)
 * is positive definite only through λI: below about 10⁻¹⁶·D² the rounding of the data part swamps it
 * and the Cholesky factorisation fails (measured for MNL-UCB: λ = 10⁻¹⁷ with D = 1 fails in round 4,
 * λ = 10⁻²⁰ in round 1; 10⁻¹⁶ runs). 10⁻¹² leaves a margin of 10⁴.
 */
export const MIN_RELATIVE_REGULARIZATION = 1e-12;

/** Why `policy`'s Newton system cannot be solved with λ = spec.regularization in double precision, or null. */
export function newtonRegularizationProblem(policy: string, spec: Pick<PolicySpec, 'regularization' | 'maxActionNorm'>): RangeProblem | null {
  const floor = MIN_RELATIVE_REGULARIZATION * spec.maxActionNorm ** 2;
  if (spec.regularization >= floor) return null;
  return {
    field: 'lambda',
    detail:
      `${policy} needs λ ≥ ${floor.toExponential(1)} (${MIN_RELATIVE_REGULARIZATION}·D²), got λ = ${spec.regularization.toExponential(3)}: ` +
      'its Newton Hessian (the data\'s curvature + λI) is positive definite only through λI, which double precision loses beside entries of size D²; ' +
      'raise params.S (λ grows with it) or set params.lambda',
  };
}

/** Throws a RangeError naming the first non-finite action feature. */
export function assertFiniteActions(actions: ActionSet): void {
  const { count, d, features } = actions;
  if (!(Number.isInteger(count) && count >= 1)) throw new RangeError(`action set is empty (count = ${count})`);
  for (let i = 0; i < count * d; i++) {
    if (!Number.isFinite(features[i])) {
      throw new RangeError(`action ${Math.floor(i / d)}, feature ${i % d} is ${features[i]} (features must be finite)`);
    }
  }
}

/** Throws an Error naming the policy when its parameter estimate has become non-finite. */
export function assertFiniteState(policy: string, estimate: Float64Array): void {
  for (let i = 0; i < estimate.length; i++) {
    if (!Number.isFinite(estimate[i])) throw new Error(`${policy}: parameter W has a non-finite entry (${estimate[i]}) at index ${i}`);
  }
}

/** Throws a RangeError for an outcome outside {0..K}. */
export function assertOutcome(outcome: number, K: number): void {
  if (!(Number.isInteger(outcome) && outcome >= 0 && outcome <= K)) {
    throw new RangeError(`outcome must be an integer in 0..${K}, got ${outcome}`);
  }
}
