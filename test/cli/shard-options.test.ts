import { describe, expect, it } from 'vitest';
import { RunError } from '../../src/base/errors.js';
import { parseShard, parseShardCount, resolveShard, withExplicitShard } from '../../src/cli/shard.js';
import { inShard } from '../../src/experiment/plan.js';
import { shardFolder } from '../../src/results/layout.js';

describe('shards', () => {
  it('parses i/n (0-based) and refuses anything else', () => {
    expect(parseShard('0/1')).toEqual({ index: 0, count: 1 });
    expect(parseShard(' 3 / 8 ')).toEqual({ index: 3, count: 8 });
    for (const bad of ['2/2', '-1/2', '1', 'a/b', '0/0', '1/2/3', '', '1.5/2', '0x1/2']) expect(() => parseShard(bad), bad).toThrow(/expected i\/n/);
    expect(parseShardCount('49')).toBe(49);
    for (const bad of ['0', '-1', 'x', '1.5']) expect(() => parseShardCount(bad), bad).toThrow(/shard count/);
  });

  it('splits units round-robin over a fixed order, each unit in exactly one shard', () => {
    for (const count of [1, 2, 3, 7]) {
      for (let k = 0; k < 50; k++) {
        const owners = Array.from({ length: count }, (_, index) => index).filter((index) => inShard(k, { index, count }));
        expect(owners).toEqual([k % count]);
      }
    }
    expect(inShard(5, null)).toBe(true);
    expect(shardFolder('out', { index: 2, count: 5 })).toMatch(/out[/\\]shard-2-of-5$/);
  });

  it('reads the index from Slurm or Kubernetes and the count from --shard-count / EOFD_SHARD_COUNT; the flag wins', () => {
    expect(resolveShard(undefined, undefined, {})).toBeNull();
    // EOFD_SHARD_COUNT alone (exported by a script) does not shard a run outside a job array.
    expect(resolveShard(undefined, undefined, { EOFD_SHARD_COUNT: '4' })).toBeNull();
    expect(resolveShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '4', EOFD_SHARD_COUNT: '49' })).toMatchObject({ index: 4, count: 49 });
    expect(resolveShard(undefined, 49, { SLURM_ARRAY_TASK_ID: '4' })).toMatchObject({ index: 4, count: 49, source: 'SLURM_ARRAY_TASK_ID=4' });
    // A partial resubmission (sbatch --array=17): Slurm says task 17 of an array 17–17 of one task;
    // the index stays SLURM_ARRAY_TASK_ID and the count the given one, whatever MIN, MAX and COUNT say.
    const resubmitted = { SLURM_ARRAY_TASK_ID: '17', SLURM_ARRAY_TASK_MIN: '17', SLURM_ARRAY_TASK_MAX: '17', SLURM_ARRAY_TASK_COUNT: '1' };
    expect(resolveShard(undefined, 49, resubmitted)).toMatchObject({ index: 17, count: 49 });
    expect(resolveShard(undefined, undefined, { ...resubmitted, EOFD_SHARD_COUNT: '49' })).toMatchObject({ index: 17, count: 49 });
    expect(resolveShard(undefined, undefined, { JOB_COMPLETION_INDEX: '3', EOFD_SHARD_COUNT: '4' })).toMatchObject({ index: 3, count: 4 });
    expect(resolveShard(undefined, 5, { JOB_COMPLETION_INDEX: '3', EOFD_SHARD_COUNT: '4' })).toMatchObject({ index: 3, count: 5 });
    expect(resolveShard({ index: 0, count: 1 }, undefined, { SLURM_ARRAY_TASK_ID: '4', EOFD_SHARD_COUNT: '49' })).toMatchObject({ index: 0, count: 1 });
    const refused: [Parameters<typeof resolveShard>, RegExp][] = [
      // Without a count the old rule (count = SLURM_ARRAY_TASK_COUNT) would run everything as shard 0 of 1.
      [[undefined, undefined, { SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_COUNT: '1' }], /SLURM_ARRAY_TASK_ID=0 is set but the shard count is not/],
      [[undefined, undefined, resubmitted], /SLURM_ARRAY_TASK_ID=17 is set but the shard count is not; give --shard-count N or set EOFD_SHARD_COUNT/],
      [[undefined, undefined, { SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_COUNT: '49' }], /shard count is not/],
      [[undefined, 49, { SLURM_ARRAY_TASK_ID: '49' }], /SLURM_ARRAY_TASK_ID=49 is not below the shard count 49/],
      [[undefined, undefined, { SLURM_ARRAY_TASK_ID: 'x', EOFD_SHARD_COUNT: '2' }], /SLURM_ARRAY_TASK_ID="x": expected a non-negative integer/],
      [[undefined, undefined, { SLURM_ARRAY_TASK_ID: '1', EOFD_SHARD_COUNT: 'two' }], /EOFD_SHARD_COUNT="two": expected a non-negative integer/],
      [[undefined, 4, { SLURM_ARRAY_TASK_ID: '1', JOB_COMPLETION_INDEX: '1' }], /both SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX are set/],
      [[undefined, undefined, { JOB_COMPLETION_INDEX: '1' }], /--shard-count N or set EOFD_SHARD_COUNT/],
      [[undefined, undefined, { JOB_COMPLETION_INDEX: '4', EOFD_SHARD_COUNT: '4' }], /not below the shard count 4/],
      [[undefined, undefined, { JOB_COMPLETION_INDEX: '0', EOFD_SHARD_COUNT: '0' }], /EOFD_SHARD_COUNT/],
      [[undefined, 3, {}], /--shard-count needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX/],
      [[{ index: 0, count: 2 }, 3, {}], /disagree/],
    ];
    for (const [args, pattern] of refused) {
      let error: unknown;
      try {
        resolveShard(...args);
      } catch (caught) {
        error = caught;
      }
      expect(error, String(pattern)).toBeInstanceOf(RunError);
      expect((error as RunError).exitCode).toBe(2);
      expect((error as RunError).message).toMatch(pattern);
      expect((error as RunError).message).not.toMatch(/\n/);
    }
  });

  it('names the resolved shard explicitly for the resume hint', () => {
    const options = { out: 'results', shardCount: 49 };
    expect(withExplicitShard(options, null)).toBe(options);
    expect(withExplicitShard(options, { index: 17, count: 49 })).toEqual({ out: 'results', shard: { index: 17, count: 49 } });
  });
});
