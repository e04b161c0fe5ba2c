import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listFiles, runCli, tempDir, tinyConfig, trialCsvs, withoutTimings, writeFile } from '../experiment/fixtures.js';
import { ofulMLogBPolicy } from '../../src/policies/oful-mlogb.js';
import { withFailingPolicy } from '../helpers/policies.js';

let root: string;
let config: string;
beforeAll(() => {
  root = tempDir('eofd-shard-');
  // Two experiments: the unit numbering (and so the shards) runs across both.
  config = writeFile(root, 'two.yaml', `${tinyConfig('a', { horizon: 20, trials: 3 })}---\n${tinyConfig('b', { horizon: 15, trials: 2, policies: '[EOFD-MLogB, Random]' })}`);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function oneLine(stderr: string, command: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines, stderr).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^eofd ${command}: `));
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

const TIMING_KEYS = new Set(['meanSelectMs', 'meanUpdateMs', 'medianSelectMs', 'medianUpdateMs', 'meanRoundMs', 'bytes', 'sha256', 'started', 'timing']);
/** JSON without timing fields (and `bytes` and `sha256`, the CSV's length and hash, which depend on the timing digits). */
function withoutTimingFields(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => (TIMING_KEYS.has(key) ? undefined : value));
}
/** summary.csv without its five timing columns (4–8). */
function summaryWithoutTimings(text: string): string {
  return text
    .split('\n')
    .map((line) => line.split(',').filter((_, i) => i < 3 || i > 7).join(','))
    .join('\n');
}

/** Asserts two experiment folders are equal except for timings. */
function expectSameResults(single: string, merged: string): void {
  expect(listFiles(merged)).toEqual(listFiles(single));
  const a = trialCsvs(single);
  const b = trialCsvs(merged);
  expect(a.size).toBeGreaterThan(0);
  for (const [file, text] of a) expect(withoutTimings(b.get(file) as string), file).toBe(withoutTimings(text));
  for (const file of listFiles(single).filter((f) => f.endsWith('.json'))) {
    expect(withoutTimingFields(fs.readFileSync(path.join(merged, file), 'utf8')), file).toEqual(withoutTimingFields(fs.readFileSync(path.join(single, file), 'utf8')));
  }
  expect(summaryWithoutTimings(fs.readFileSync(path.join(merged, 'summary.csv'), 'utf8'))).toBe(summaryWithoutTimings(fs.readFileSync(path.join(single, 'summary.csv'), 'utf8')));
}

describe('eofd run --shard, eofd merge', () => {
  let shards: string;
  beforeAll(async () => {
    shards = path.join(root, 'shards');
    expect((await runCli(['run', config, '--out', path.join(root, 'single'), '--jobs', '1', '--quiet'])).code).toBe(0);
    // Shard 0 from the flag, shard 1 from Slurm's variables as a resubmitted task sees them
    // (sbatch --array=1: an array of one task), with the count from EOFD_SHARD_COUNT.
    const s0 = await runCli(['run', config, '--out', shards, '--jobs', '1', '--shard', '0/2', '--quiet']);
    expect(s0.stderr).toBe('');
    expect(s0.code).toBe(0);
    const slurm = { SLURM_ARRAY_TASK_ID: '1', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '1', SLURM_ARRAY_TASK_COUNT: '1', EOFD_SHARD_COUNT: '2' };
    const s1 = await runCli(['run', config, '--out', shards, '--jobs', '1', '--quiet'], slurm);
    expect(s1.stderr).toBe('');
    expect(s1.code).toBe(0);
  });

  it('splits the units between the shards, each recorded in its manifests', () => {
    expect(fs.readdirSync(shards).sort()).toEqual(['shard-0-of-2', 'shard-1-of-2']);
    const units = (i: number): string[] => listFiles(path.join(shards, `shard-${i}-of-2`)).filter((f) => f.endsWith('.csv') && !f.endsWith('summary.csv'));
    // a: 9 units (0–8), b: 4 units (9–12); unit k on shard k mod 2.
    expect(units(0)).toContain(path.join('a', 'EOFD-MLogB', 'trial-0.csv'));
    expect(units(1)).toContain(path.join('a', 'EOFD-MLogB', 'trial-1.csv'));
    expect(units(1)).toContain(path.join('b', 'EOFD-MLogB', 'trial-0.csv'));
    expect(units(0).length + units(1).length).toBe(13);
    expect(units(0).filter((u) => units(1).includes(u))).toEqual([]);
    const manifest = JSON.parse(fs.readFileSync(path.join(shards, 'shard-1-of-2', 'b', 'manifest.json'), 'utf8')) as { shard: unknown };
    expect(manifest.shard).toMatchObject({ index: 1, count: 2, first_unit: 9 });
  });

  it('merges into what one machine writes (timings aside)', async () => {
    const out = path.join(root, 'merged');
    const merged = await runCli(['merge', path.join(shards, 'shard-1-of-2'), path.join(shards, 'shard-0-of-2'), '--out', out, '--quiet']);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    for (const name of ['a', 'b']) expectSameResults(path.join(root, 'single', name), path.join(out, name));
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'a', 'manifest.json'), 'utf8')) as Record<string, unknown>;
    expect(manifest.shard).toBeUndefined();
    // A second merge into the same place is refused unless --force.
    const again = await runCli(['merge', path.join(shards, 'shard-0-of-2'), path.join(shards, 'shard-1-of-2'), '--out', out]);
    expect(again.code).toBe(2);
    oneLine(again.stderr, 'merge', /already holds results; add --force/);
    expect((await runCli(['merge', path.join(shards, 'shard-0-of-2'), path.join(shards, 'shard-1-of-2'), '--out', out, '--force', '--quiet'])).code).toBe(0);
    expectSameResults(path.join(root, 'single', 'a'), path.join(out, 'a'));
  });

  it('refuses a missing unit, a duplicated unit and a config mismatch (exit 2, one line, nothing written)', async () => {
    const s0 = path.join(shards, 'shard-0-of-2');
    const s1 = path.join(shards, 'shard-1-of-2');
    const out = path.join(root, 'refused');

    const missing = await runCli(['merge', s0, '--out', out]);
    expect(missing.code).toBe(2);
    oneLine(missing.stderr, 'merge', /^eofd merge: a: EOFD-MLogB trial 1 is missing .*expected from shard 1\/2/);

    const copy = path.join(root, 'copy-of-0');
    fs.cpSync(s0, copy, { recursive: true });
    const duplicated = await runCli(['merge', s0, s1, copy, '--out', out]);
    expect(duplicated.code).toBe(2);
    oneLine(duplicated.stderr, 'merge', /^eofd merge: a: EOFD-MLogB trial 0 is duplicated/);

    const other = path.join(root, 'other');
    expect((await runCli(['run', config, '--out', other, '--jobs', '1', '--shard', '1/2', '--set', 'horizon=16', '--quiet'])).code).toBe(0);
    const mismatch = await runCli(['merge', s0, path.join(other, 'shard-1-of-2'), '--out', out]);
    expect(mismatch.code).toBe(2);
    oneLine(mismatch.stderr, 'merge', /different resolved configs \(at horizon: 20 vs 16\)/);

    const onlyA = path.join(root, 'only-a');
    fs.mkdirSync(onlyA);
    fs.cpSync(path.join(s1, 'a'), path.join(onlyA, 'a'), { recursive: true });
    const lacking = await runCli(['merge', s0, onlyA, '--out', out]);
    expect(lacking.code).toBe(2);
    oneLine(lacking.stderr, 'merge', /has no experiment folder b/);

    oneLine((await runCli(['merge', path.join(root, 'nope'), '--out', out])).stderr, 'merge', /nope: not a folder/);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('--shard 0/1 runs every unit into shard-0-of-1', async () => {
    const r = await runCli(['run', config, '--out', path.join(root, 'resume'), '--jobs', '1', '--shard', '0/1', '--quiet']);
    expect(r.code).toBe(0);
    // --shard 0/1 writes shard-0-of-1 (every unit, summary.csv included).
    expect(fs.existsSync(path.join(root, 'resume', 'shard-0-of-1', 'a', 'summary.csv'))).toBe(true);
  });
});

describe('shard selection errors (exit 2, one line)', () => {
  it.each([
    [['--shard', '2/2'], {}, /--shard.*expected i\/n with 0 ≤ i < n.*"2\/2"/],
    [['--shard', '-1/2'], {}, /--shard/],
    [['--shard', '1'], {}, /--shard.*"1"/],
    [['--shard', 'a/b'], {}, /--shard/],
    [['--shard', '0/0'], {}, /--shard/],
    [['--shard-count', '0'], {}, /--shard-count.*expected a shard count/],
    [[], { JOB_COMPLETION_INDEX: '1' }, /JOB_COMPLETION_INDEX=1 is set but the shard count is not/],
    [[], { JOB_COMPLETION_INDEX: '2', EOFD_SHARD_COUNT: '2' }, /not below the shard count 2/],
    [[], { SLURM_ARRAY_TASK_ID: '7', SLURM_ARRAY_TASK_COUNT: '4' }, /SLURM_ARRAY_TASK_ID=7 is set but the shard count is not/],
    // sbatch --array=0 (one task resubmitted): not "shard 0 of 1", which would run everything.
    [[], { SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_MAX: '0', SLURM_ARRAY_TASK_COUNT: '1' }, /shard count is not/],
    [['--shard-count', '4'], { SLURM_ARRAY_TASK_ID: '7' }, /SLURM_ARRAY_TASK_ID=7 is not below the shard count 4/],
    [['--shard-count', '3'], {}, /--shard-count needs SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX/],
  ])('run %j %j', async (args, env, pattern) => {
    const out = path.join(root, 'never');
    const { code, stdout, stderr } = await runCli(['run', config, '--out', out, ...args], env);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    oneLine(stderr, 'run', pattern);
    expect(fs.existsSync(out)).toBe(false);
  });

  it('names the shard from the environment in the resume hint of run and grid', async () => {
    // OFUL-MLogB's policy fails in round 3; it is unit 0, so on shard 0 of 2.
    const file = writeFile(root, 'failing.yaml', tinyConfig('failing', { horizon: 10, trials: 1, policies: '[OFUL-MLogB, Random]' }));
    const env = { SLURM_ARRAY_TASK_ID: '0', SLURM_ARRAY_TASK_MIN: '0', SLURM_ARRAY_TASK_COUNT: '1' };
    const run = await withFailingPolicy(ofulMLogBPolicy, 3, () => runCli(['run', file, '--out', path.join(root, 'hint-run'), '--jobs', '1', '--shard-count', '2', '--quiet'], env));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^eofd run: 1 of 1 units failed .* eofd run \S*failing\.yaml --out \S*hint-run --shard 0\/2 --resume reruns/m);
    const grid = await withFailingPolicy(ofulMLogBPolicy, 3, () =>
      runCli(['grid', file, '--out', path.join(root, 'hint-grid'), '--l', '-2,0', '--e', '0', '--jobs', '1', '--quiet'], { ...env, EOFD_SHARD_COUNT: '2' }),
    );
    expect(grid.code).toBe(1);
    expect(grid.stderr).toMatch(/^eofd grid: 2 units failed .* eofd grid \S*failing\.yaml --out \S*hint-grid --l -2,0 --e 0 --shard 0\/2 --resume reruns/m);
    expect(grid.stderr).not.toMatch(/--shard-count/);
  });

  it('grid refuses a bad --shard the same way', async () => {
    const { code, stderr } = await runCli(['grid', config, '--shard', '3/3', '--out', path.join(root, 'never')]);
    expect(code).toBe(2);
    oneLine(stderr, 'grid', /--shard/);
  });
});

describe('eofd grid --shard (Kubernetes JOB_COMPLETION_INDEX), eofd merge', () => {
  it('merges three shards into the grid one machine writes: points, grid.csv (timing aside), heatmaps, best.json', async () => {
    const grid = writeFile(root, 'grid.yaml', tinyConfig('g', { horizon: 15, trials: 2, policies: '[EOFD-MLogB, OFUL-MLogB]' }));
    const args = ['grid', grid, '--l', '0,1', '--e', '-0.5,0.5', '--jobs', '1', '--quiet'];
    expect((await runCli([...args, '--out', path.join(root, 'grid-single')])).code).toBe(0);
    const shardOut = path.join(root, 'grid-shards');
    for (const index of [0, 1, 2]) {
      const env = index === 2 ? { JOB_COMPLETION_INDEX: '2', EOFD_SHARD_COUNT: '3' } : { JOB_COMPLETION_INDEX: String(index) };
      const extra = index === 2 ? [] : ['--shard-count', '3'];
      const r = await runCli([...args, '--out', shardOut, ...extra], env);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(fs.existsSync(path.join(shardOut, `shard-${index}-of-3`, 'g-grid', 'sweep-shard.json'))).toBe(true);
      expect(fs.existsSync(path.join(shardOut, `shard-${index}-of-3`, 'g-grid', 'best.json'))).toBe(false);
    }
    const out = path.join(root, 'grid-merged');
    const shardDirs = [0, 1, 2].map((i) => path.join(shardOut, `shard-${i}-of-3`));
    const merged = await runCli(['merge', ...shardDirs, '--out', out, '--quiet']);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    const single = path.join(root, 'grid-single', 'g-grid');
    const result = path.join(out, 'g-grid');
    expect(listFiles(result)).toEqual(listFiles(single));
    for (const point of ['l=0,e=-0.5', 'l=1,e=0.5']) expectSameResults(path.join(single, point), path.join(result, point));
    const dropRoundMs = (text: string): string => text.split('\n').map((l) => l.split(',').slice(0, 9).join(',')).join('\n');
    expect(dropRoundMs(fs.readFileSync(path.join(result, 'grid.csv'), 'utf8'))).toBe(dropRoundMs(fs.readFileSync(path.join(single, 'grid.csv'), 'utf8')));
    for (const file of ['best.json', 'heatmap-EOFD-MLogB.svg', 'heatmap-OFUL-MLogB.svg']) {
      expect(fs.readFileSync(path.join(result, file), 'utf8'), file).toBe(fs.readFileSync(path.join(single, file), 'utf8'));
    }
    const missing = await runCli(['merge', shardDirs[0] as string, shardDirs[2] as string, '--out', path.join(root, 'grid-refused')]);
    expect(missing.code).toBe(2);
    oneLine(missing.stderr, 'merge', /^eofd merge: g-grid\/l=0,e=-0\.5: .* is missing .*expected from shard 1\/3/);
  });
});

describe('eofd sweep --shard, eofd merge', () => {
  it('merges two shards into the sweep one machine writes: points, sweep.csv (timing aside), figures', async () => {
    const config = writeFile(root, 'sweep.yaml', tinyConfig('s', { horizon: 12, trials: 3, policies: '[EOFD-MLogB, OFUL-MLogB]' }));
    const args = ['sweep', config, '--over', 'params.m=2,12', '--jobs', '1', '--quiet'];
    expect((await runCli([...args, '--out', path.join(root, 'sweep-single')])).code).toBe(0);
    const shardOut = path.join(root, 'sweep-shards');
    for (const index of [0, 1]) {
      const r = await runCli([...args, '--out', shardOut, '--shard', `${index}/2`]);
      expect(r.stderr).toBe('');
      expect(fs.existsSync(path.join(shardOut, `shard-${index}-of-2`, 's-sweep', 'sweep-shard.json'))).toBe(true);
      expect(fs.existsSync(path.join(shardOut, `shard-${index}-of-2`, 's-sweep', 'sweep.csv'))).toBe(false);
    }
    const out = path.join(root, 'sweep-merged');
    const merged = await runCli(['merge', ...[0, 1].map((i) => path.join(shardOut, `shard-${i}-of-2`)), '--out', out, '--quiet']);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    const single = path.join(root, 'sweep-single', 's-sweep');
    const result = path.join(out, 's-sweep');
    expect(listFiles(result)).toEqual(listFiles(single));
    for (const point of ['m=2', 'm=12']) expectSameResults(path.join(single, point), path.join(result, point));
    // sweep.csv without mean_round_ms (column 10: after the swept key and nine others).
    const dropTime = (text: string): string => text.split('\n').map((l) => l.split(',').filter((_, i) => i !== 10).join(',')).join('\n');
    expect(dropTime(fs.readFileSync(path.join(result, 'sweep.csv'), 'utf8'))).toBe(dropTime(fs.readFileSync(path.join(single, 'sweep.csv'), 'utf8')));
  });
});
