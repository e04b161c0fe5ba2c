/**
 * The largest experiment eofd runs, which configs (config/schema.ts) and what a run wrote
 * (results/manifest.ts) are both held to: a manifest past them is not eofd's, and a reader that
 * trusted it would loop over 10⁹ trials.
 */
export const CONFIG_LIMITS = {
  maxNameLength: 100,
  /** T: rounds per trial. */
  maxHorizon: 100_000_000,
  /** Trials per experiment. */
  maxTrials: 10_000,
} as const;

/** What an experiment's name and a policy's label may be: they name folders. */
export const NAME_PATTERN = /^[A-Za-z0-9._-]+$/;

/** Whether `name` can name a folder of a run (NAME_PATTERN, at most maxNameLength, not '.' or '..'). */
export function isFolderName(name: string): boolean {
  return name.length <= CONFIG_LIMITS.maxNameLength && NAME_PATTERN.test(name) && name !== '.' && name !== '..';
}
