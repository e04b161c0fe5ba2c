import type { ActionSet } from '../environments/environment.js';

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
