/**
 * The pure part of a run: which units there are, which shard runs which, and in what order they run.
 * No file is touched here.
 *
 * The units of one `runExperiments` call (one config file, or one grid's points) are numbered in a
 * fixed order that depends on the configs alone: experiments in file order (grid points l-major), then
 * each experiment's policies as listed, then trials 0, 1, …. Unit k runs on shard k mod n.
 *
 * In this thread (`--jobs 1`, `--timing`) the units of one trial run together, in lock-step
 * (trialGroups); a pool of worker threads runs them one by one, longest first (runOrder).
 */
import type { ExperimentConfig } from '../config/schema.js';

/** One unit, as events name it. */
export interface UnitRef {
  experiment: string;
  policy: string;
  trial: number;
  /** T of the unit's experiment. */
  horizon: number;
}

/** `--shard i/n` (0-based: 0 ≤ i < n). */
export interface Shard {
  index: number;
  count: number;
}

export const SHARD_SCHEME = 'unit k (experiments in config order, then policies in config order, then trials ascending) runs on shard k mod count';

/** Whether unit number `k` (in the fixed order) belongs to `shard` (every unit when null). */
export function inShard(k: number, shard: Shard | null | undefined): boolean {
  return shard == null || k % shard.count === shard.index;
}

export function isValidShard(shard: Shard): boolean {
  return Number.isInteger(shard.count) && shard.count >= 1 && Number.isInteger(shard.index) && shard.index >= 0 && shard.index < shard.count;
}

/** One experiment's units in the fixed order, with the number of its first unit. */
export interface ExperimentUnits {
  /** Number of the experiment's first unit (its unit j is number firstUnit + j). */
  firstUnit: number;
  /** Every unit of the experiment, in the fixed order. */
  all: UnitRef[];
  /** The units of `shard` (all of them without a shard). */
  mine: UnitRef[];
}

/** Numbers the units of `configs` in the fixed order and deals them to `shard`. */
export function planUnits(configs: readonly ExperimentConfig[], shard?: Shard): ExperimentUnits[] {
  let number = 0;
  return configs.map((config) => {
    const planned: ExperimentUnits = { firstUnit: number, all: [], mine: [] };
    for (const { label: policy } of config.policies) {
      for (let trial = 0; trial < config.trials; trial++) {
        const unit: UnitRef = { experiment: config.name, policy, trial, horizon: config.horizon };
        planned.all.push(unit);
        if (inShard(number++, shard)) planned.mine.push(unit);
      }
    }
    return planned;
  });
}

/** What the run order needs to know of a unit. */
export interface OrderedUnit {
  unit: UnitRef;
  /** Work of the unit, e.g. T·K·d. */
  cost: number;
  /** Index of its experiment in the run. */
  order: number;
  /** Its policy's costRank (descriptor): costlier policies run first. */
  rank: number;
}

/**
 * Longest first, to balance a pool: the costlier policy (descriptor's costRank) first, then the larger
 * cost, then experiment order, then trial. A unit's bytes never depend on this order (its seeds come
 * from its identity).
 */
export function runOrder<T extends OrderedUnit>(units: readonly T[]): T[] {
  return [...units].sort((a, b) => b.rank - a.rank || b.cost - a.cost || a.order - b.order || a.unit.trial - b.unit.trial);
}

/**
 * The units of each trial together, for lock-step (unit.ts `executeTrial`): trials in experiment order,
 * then ascending; a trial's units in the order given (the config's policy order).
 */
export function trialGroups<T extends { unit: UnitRef; order: number }>(units: readonly T[]): T[][] {
  const groups = new Map<string, T[]>();
  const sorted = [...units].sort((a, b) => a.order - b.order || a.unit.trial - b.unit.trial);
  for (const u of sorted) {
    const key = `${u.order}\u0000${u.unit.trial}`;
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [u]);
    else group.push(u);
  }
  return [...groups.values()];
}
