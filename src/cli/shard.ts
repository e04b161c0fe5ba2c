/**
 * Which shard this command runs (`--shard i/n`, 0-based: 0 ≤ i < n; experiment/plan.ts deals the
 * units). Each shard writes to its own folder, `<out>/shard-<i>-of-<n>/`, laid out like an unsharded
 * run with `shard` recorded in each manifest; `eofd merge` combines them.
 *
 * Without `--shard`, the shard comes from the environment:
 *   - Slurm job arrays: i = SLURM_ARRAY_TASK_ID − SLURM_ARRAY_TASK_MIN (0 when unset),
 *     n = SLURM_ARRAY_TASK_COUNT (the array must be contiguous, e.g. --array=0-48);
 *   - Kubernetes Indexed Jobs: i = JOB_COMPLETION_INDEX, n = --shard-count or EOFD_SHARD_COUNT.
 * `--shard 0/1` runs everything even inside such a job.
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
 * The shard of this run: `--shard`, else Slurm's array variables, else JOB_COMPLETION_INDEX with a count
 * from `--shard-count` / EOFD_SHARD_COUNT; null when none applies (run everything).
 * Throws a one-line RunError (exit 2) on an inconsistent or malformed value.
 */
export function resolveShard(flag: Shard | undefined, countFlag: number | undefined, env: NodeJS.ProcessEnv): ResolvedShard | null {
  const set = (name: string): boolean => env[name] !== undefined && env[name] !== '';
  if (flag !== undefined) {
    if (countFlag !== undefined && countFlag !== flag.count) {
      throw new RunError(`--shard ${flag.index}/${flag.count} and --shard-count ${countFlag} disagree on the shard count`, 2);
    }
    return { ...flag, source: `--shard ${flag.index}/${flag.count}` };
  }
  let shard: ResolvedShard | null = null;
  if (set('SLURM_ARRAY_TASK_ID')) {
    if (!set('SLURM_ARRAY_TASK_COUNT')) throw new RunError('SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not; give --shard i/n', 2);
    const id = envInteger(env, 'SLURM_ARRAY_TASK_ID');
    const min = set('SLURM_ARRAY_TASK_MIN') ? envInteger(env, 'SLURM_ARRAY_TASK_MIN') : 0;
    const count = envInteger(env, 'SLURM_ARRAY_TASK_COUNT');
    const index = id - min;
    if (count < 1 || index < 0 || index >= count) {
      throw new RunError(
        `SLURM_ARRAY_TASK_ID=${id} (min ${min}) is not a shard of SLURM_ARRAY_TASK_COUNT=${count}; use a contiguous array (e.g. --array=0-${Math.max(count, 1) - 1}) or give --shard i/n`,
        2,
      );
    }
    shard = { index, count, source: `SLURM_ARRAY_TASK_ID=${id}` };
  } else if (set('JOB_COMPLETION_INDEX')) {
    const index = envInteger(env, 'JOB_COMPLETION_INDEX');
    let count = countFlag;
    if (count === undefined) {
      if (!set('EOFD_SHARD_COUNT')) {
        throw new RunError(`JOB_COMPLETION_INDEX=${index} is set but the shard count is not; give --shard-count N or set EOFD_SHARD_COUNT (the Job's completions)`, 2);
      }
      count = envInteger(env, 'EOFD_SHARD_COUNT');
      if (count < 1) throw new RunError(`EOFD_SHARD_COUNT=${JSON.stringify(env.EOFD_SHARD_COUNT)}: expected an integer ≥ 1`, 2);
    }
    if (index >= count) throw new RunError(`JOB_COMPLETION_INDEX=${index} is not below the shard count ${count}`, 2);
    shard = { index, count, source: `JOB_COMPLETION_INDEX=${index}` };
  } else if (countFlag !== undefined) {
    throw new RunError('--shard-count needs JOB_COMPLETION_INDEX (a Kubernetes Indexed Job); elsewhere give --shard i/n', 2);
  }
  return shard;
}
