/**
 * Which shard this command runs (`--shard i/n`, 0-based: 0 ≤ i < n; experiment/plan.ts deals the
 * units). Each shard writes to its own folder, `<out>/shard-<i>-of-<n>/`, laid out like an unsharded
 * run with `shard` recorded in each manifest; `eofd merge` combines them.
 *
 * Without `--shard`, the shard comes from the environment, the index from the scheduler and the count
 * n from `--shard-count` or EOFD_SHARD_COUNT:
 *   - Slurm job arrays: i = SLURM_ARRAY_TASK_ID (so the array is numbered 0 … n−1);
 *   - Kubernetes Indexed Jobs: i = JOB_COMPLETION_INDEX.
 * The count is never read from SLURM_ARRAY_TASK_COUNT (or MIN/MAX): those describe the submission,
 * and a partial resubmission (`sbatch --array=17`) would make task 17 shard 0 of 1, i.e. the whole
 * run. A scheduler index without a count is refused (exit 2). `--shard 0/1` runs everything even
 * inside such a job.
 */
import { RunError } from '../base/errors.js';
import type { Shard } from '../experiment/plan.js';

export type { Shard } from '../experiment/plan.js';

/** Where a shard came from (for messages). */
export interface ResolvedShard extends Shard {
  source: string;
}

const INTEGER = /^\d{1,9}$/;

/** `"3/8"` → {index 3, count 8}; throws a one-line message otherwise. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d{1,9})\s*\/\s*(\d{1,9})\s*$/.exec(text);
  const index = match === null ? NaN : Number(match[1]);
  const count = match === null ? NaN : Number(match[2]);
  if (match === null || count < 1 || index >= count) {
    throw new Error(`expected i/n with 0 ≤ i < n (0-based shard index, shard count), got ${JSON.stringify(text)}`);
  }
  return { index, count };
}

/** A shard count: an integer ≥ 1; throws a one-line message otherwise. */
export function parseShardCount(text: string): number {
  const value = Number(text.trim());
  if (!INTEGER.test(text.trim()) || value < 1) throw new Error(`expected a shard count: an integer ≥ 1, got ${JSON.stringify(text)}`);
  return value;
}

function envInteger(env: NodeJS.ProcessEnv, name: string): number {
  const text = (env[name] ?? '').trim();
  if (!INTEGER.test(text)) throw new RunError(`${name}=${JSON.stringify(env[name] ?? '')}: expected a non-negative integer`, 2);
  return Number(text);
}

/**
 * The shard of this run: `--shard`, else SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX with a count from
 * `--shard-count` / EOFD_SHARD_COUNT; null when none applies (run everything).
 * Throws a one-line RunError (exit 2) on a missing, inconsistent or malformed value.
 */
export function resolveShard(flag: Shard | undefined, countFlag: number | undefined, env: NodeJS.ProcessEnv): ResolvedShard | null {
  const set = (name: string): boolean => env[name] !== undefined && env[name] !== '';
  if (flag !== undefined) {
    if (countFlag !== undefined && countFlag !== flag.count) {
      throw new RunError(`--shard ${flag.index}/${flag.count} and --shard-count ${countFlag} disagree on the shard count`, 2);
    }
    return { ...flag, source: `--shard ${flag.index}/${flag.count}` };
  }
  const indexNames = ['SLURM_ARRAY_TASK_ID', 'JOB_COMPLETION_INDEX'].filter(set);
  if (indexNames.length > 1) throw new RunError(`both ${indexNames.join(' and ')} are set; give --shard i/n`, 2);
  const indexName = indexNames[0];
  if (indexName === undefined) {
    if (countFlag !== undefined) throw new RunError('--shard-count needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (a job array); elsewhere give --shard i/n', 2);
    return null;
  }
  const index = envInteger(env, indexName);
  let count = countFlag;
  if (count === undefined) {
    if (!set('EOFD_SHARD_COUNT')) {
      const slurm = indexName === 'SLURM_ARRAY_TASK_ID' ? ' (scripts/slurm-grid.sh does; SLURM_ARRAY_TASK_COUNT is not used: a resubmitted --array=17 would make it shard 0 of 1)' : " (the Job's completions)";
      throw new RunError(`${indexName}=${index} is set but the shard count is not; give --shard-count N or set EOFD_SHARD_COUNT${slurm}`, 2);
    }
    count = envInteger(env, 'EOFD_SHARD_COUNT');
    if (count < 1) throw new RunError(`EOFD_SHARD_COUNT=${JSON.stringify(env.EOFD_SHARD_COUNT)}: expected an integer ≥ 1`, 2);
  }
  if (index >= count) throw new RunError(`${indexName}=${index} is not below the shard count ${count} (number the array 0 … ${count - 1})`, 2);
  return { index, count, source: `${indexName}=${index}` };
}

/**
 * `options` with the resolved shard as an explicit `--shard i/n` (for the resume hint: inside an array
 * task the shard came from the environment, and the hint must name it to be run anywhere else).
 */
export function withExplicitShard<Options extends { shard?: Shard; shardCount?: number }>(options: Options, shard: Shard | null): Options {
  if (shard === null) return options;
  const { shardCount: _count, ...rest } = options;
  return { ...rest, shard: { index: shard.index, count: shard.count } } as Options;
}
