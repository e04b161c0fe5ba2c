/**
 * Seeds from identities (DESIGN §4): a unit's random stream is a hash of what the unit *is*
 * (experiment, trial, purpose, split, the config's seed), never of the order in which workers run it.
 */
import { createHash } from 'node:crypto';

/**
 * `report` seeds the trials a run reports; `validation` seeds the grid search's trials, so tuning
 * never sees the instances it is judged on (the split is part of the hash: the two sets are disjoint).
 */
export type SeedSplit = 'report' | 'validation';
export const SEED_SPLITS: readonly SeedSplit[] = ['report', 'validation'];

/**
 * SHA-256 (hex) of (experiment name, trial index, purpose, split, experiment seed), e.g. purpose
 * 'environment' for the trial's environment stream or 'policy:Random' for a policy's own stream.
 */
export function trialSeed(
  experimentName: string,
  trialIndex: number,
  purpose: string,
  split: SeedSplit = 'report',
  experimentSeed = 0,
): string {
  if (typeof experimentName !== 'string' || experimentName === '') {
    throw new TypeError(`trialSeed: experimentName must be a non-empty string, got ${JSON.stringify(experimentName)}`);
  }
  if (!Number.isSafeInteger(trialIndex) || trialIndex < 0) {
    throw new RangeError(`trialSeed: trialIndex must be an integer ≥ 0, got ${trialIndex}`);
  }
  if (typeof purpose !== 'string' || purpose === '') {
    throw new TypeError(`trialSeed: purpose must be a non-empty string, got ${JSON.stringify(purpose)}`);
  }
  if (!SEED_SPLITS.includes(split)) {
    throw new RangeError(`trialSeed: split must be 'report' or 'validation', got ${JSON.stringify(split)}`);
  }
  if (!Number.isSafeInteger(experimentSeed) || experimentSeed < 0) {
    throw new RangeError(`trialSeed: experimentSeed must be an integer ≥ 0, got ${experimentSeed}`);
  }
  // JSON of an array is unambiguous: no two different tuples give the same string.
  const identity = JSON.stringify(['eofd-seed-v1', experimentName, trialIndex, purpose, split, experimentSeed]);
  return createHash('sha256').update(identity, 'utf8').digest('hex');
}
