import { describe, expect, it } from 'vitest';
import { RunError } from '../../src/base/errors.js';
import { parseShard, parseShardCount, resolveShard } from '../../src/cli/shard.js';
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

  it('reads Slurm and Kubernetes variables when no flag is given; the flag wins', () => {
    expect(resolveShard(undefined, undefined, {})).toBeNull();
    expect(resolveShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_COUNT: '49' })).toMatchObject({ index: 4, count: 49 });
    expect(resolveShard(undefined, undefined, { SLURM_ARRAY_TASK_ID: '49', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_COUNT: '49' })).toMatchObject({ index: 48, count: 49 });
    expect(resolveShard(undefined, undefined, { JOB_COMPLETION_INDEX: '3', EOFD_SHARD_COUNT: '4' })).toMatchObject({ index: 3, count: 4 });
    expect(resolveShard(undefined, 5, { JOB_COMPLETION_INDEX: '3', EOFD_SHARD_COUNT: '4' })).toMatchObject({ index: 3, count: 5 });
    expect(resolveShard({ index: 0, count: 1 }, undefined, { SLURM_ARRAY_TASK_ID: '4', SLURM_ARRAY_TASK_COUNT: '49' })).toMatchObject({ index: 0, count: 1 });
    const refused: [Parameters<typeof resolveShard>, RegExp][] = [
      [[undefined, undefined, { SLURM_ARRAY_TASK_ID: '4' }], /SLURM_ARRAY_TASK_COUNT is not/],
      [[undefined, undefined, { SLURM_ARRAY_TASK_ID: '49', SLURM_ARRAY_TASK_COUNT: '49' }], /not a shard of SLURM_ARRAY_TASK_COUNT=49/],
      [[undefined, undefined, { SLURM_ARRAY_TASK_ID: 'x', SLURM_ARRAY_TASK_COUNT: '2' }], /SLURM_ARRAY_TASK_ID="x": expected a non-negative integer/],
      [[undefined, undefined, { JOB_COMPLETION_INDEX: '1' }], /--shard-count N or set EOFD_SHARD_COUNT/],
      [[undefined, undefined, { JOB_COMPLETION_INDEX: '4', EOFD_SHARD_COUNT: '4' }], /not below the shard count 4/],
      [[undefined, undefined, { JOB_COMPLETION_INDEX: '0', EOFD_SHARD_COUNT: '0' }], /EOFD_SHARD_COUNT/],
      [[undefined, 3, {}], /--shard-count needs JOB_COMPLETION_INDEX/],
      [[{ index: 0, count: 2 }, 3, {}], /disagree/],
    ];
    for (const [args, pattern] of refused) {
      let error: unknown;
      try {
        resolveShard(...args);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(RunError);
      expect((error as RunError).exitCode).toBe(2);
      expect((error as RunError).message).toMatch(pattern);
      expect((error as RunError).message).not.toMatch(/\n/);
    }
  });
});
