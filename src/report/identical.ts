/**
 * Policies that decided identically, so that one line of Fig. 1 hides another (EOFD-MLogB and
 * OFUL-MLogB with m ≥ Kd make the same decisions: DESIGN §2): summarize.ts groups the policies whose
 * trial files hold the same action in every round of every trial; here they become text.
 */
import type { ExperimentSummary } from './summarize.js';

/**
 * "EOFD-MLogB = OFUL-MLogB in every round", for the figure; with `detail`, what was compared, for the
 * report text.
 */
export function identicalText(e: ExperimentSummary, group: readonly string[], detail = false): string {
  const head = `${group.join(' = ')} in every round`;
  if (!detail) return head;
  const n = e.setting.trials;
  return `${head}: the same action in all ${e.setting.horizon} rounds of ${n === 1 ? 'the trial' : `each of the ${n} trials`} (one curve of Fig. 1 hides the other)`;
}
