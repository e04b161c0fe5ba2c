import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, listFiles, REPO, tempDir, tinyConfig, waitFor, writeFile } from '../experiment/fixtures.js';

/**
 * scripts/slurm-grid.sh without Slurm: a fake `sbatch` on PATH records what the submission passes,
 * and the batch task is the script run with the variables Slurm sets (scripts/slurm-smoke runs it on a
 * real cluster).
 */
const SCRIPT = path.join(REPO, 'scripts', 'slurm-grid.sh');
let root: string;
let fakeBin: string;
beforeAll(() => {
  root = tempDir('eofd-slurm-grid-');
  fakeBin = path.join(root, 'bin');
  fs.mkdirSync(fakeBin);
  writeFile(fakeBin, 'scontrol', '#!/usr/bin/env bash\nprintf "%s\\n" "$@" > "$HOME/scontrol-args"\n');
  fs.chmodSync(path.join(fakeBin, 'scontrol'), 0o755);
  writeFile(fakeBin, 'sbatch', '#!/usr/bin/env bash\nprintf "%s\\n" "$@" > sbatch-args\necho "OUT=$OUT EOFD_REPO=$EOFD_REPO" > sbatch-env\necho "4242;cluster"\n');
  fs.chmodSync(path.join(fakeBin, 'sbatch'), 0o755);
  writeFile(root, 'tiny.yaml', tinyConfig('tiny', { horizon: 8, trials: 1, policies: '[EOFD-MLogB, OFUL-MLogB]' }));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function script(args: string[], env: NodeJS.ProcessEnv): { code: number; stdout: string; stderr: string } {
  const result = spawnSync('bash', [SCRIPT, ...args], {
    cwd: root,
    env: { PATH: `${fakeBin}:${process.env.PATH ?? ''}`, HOME: root, OUT: 'out', ...env },
    encoding: 'utf8',
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** What Slurm sets in array task `id` of a submission of the tasks min…max. */
function task(id: number, min: number, max: number): NodeJS.ProcessEnv {
  return {
    SLURM_JOB_ID: '4243',
    ENVIRONMENT: 'BATCH',
    SLURM_SUBMIT_DIR: root,
    EOFD_REPO: REPO,
    SLURM_ARRAY_JOB_ID: '4242',
    SLURM_ARRAY_TASK_ID: String(id),
    SLURM_ARRAY_TASK_MIN: String(min),
    SLURM_ARRAY_TASK_MAX: String(max),
    SLURM_ARRAY_TASK_COUNT: String(max - min + 1),
  };
}

const GRID_ARGS = ['tiny.yaml', '--l', '0,1', '--e', '-0.5,0,0.5', '--set', 'horizon=6', '--trials', '1'];

describe('scripts/slurm-grid.sh: refusals (exit 2, before any submission)', () => {
  it.each([
    [['tiny.yaml', '--shard', '0/2'], /--shard: the array sets the shard/],
    [['tiny.yaml', '--shard-count=3'], /--shard-count=3: the array sets the shard/],
    [['tiny.yaml', '--out', 'x'], /give the output folder as OUT=<dir>/],
    [['tiny.yaml', '--force'], /--force would delete/],
    [['tiny.yaml', '--l', '0,x'], /--l: expected a comma-separated list of numbers, got "0,x"/],
  ])('%j', (args, pattern) => {
    const { code, stderr } = script(args, {});
    expect(code).toBe(2);
    expect(stderr).toMatch(pattern);
    expect(fs.existsSync(path.join(root, 'sbatch-args'))).toBe(false);
  });

  it('refuses a batch job submitted without --array, naming the array the grid needs', () => {
    const { SLURM_ARRAY_TASK_ID: _id, ...notArray } = task(0, 0, 0);
    const { code, stderr } = script(GRID_ARGS, notArray);
    expect(code).toBe(2);
    expect(stderr).toMatch(/submitted without --array: .* the 6-task array, or sbatch --array=0-5/);
  });
});

describe('scripts/slurm-grid.sh', () => {
  it('submits one task per grid point with every argument passed through, logs under $OUT/slurm-logs', () => {
    const { code, stdout } = script(GRID_ARGS, {});
    expect(code).toBe(0);
    const args = fs.readFileSync(path.join(root, 'sbatch-args'), 'utf8').trimEnd().split('\n');
    // 2 × 3 points → tasks 0–5; the script resubmits itself with the same arguments.
    expect(args).toEqual(['--parsable', '--array=0-5', '--output=out/slurm-logs/%x-%A_%a.out', SCRIPT, ...GRID_ARGS]);
    expect(fs.readFileSync(path.join(root, 'sbatch-env'), 'utf8').trim()).toBe(`OUT=out EOFD_REPO=${REPO}`);
    expect(fs.statSync(path.join(root, 'out', 'slurm-logs')).isDirectory()).toBe(true);
    expect(stdout).toMatch(/submitted job 4242: tasks 0-5 of a 6-point grid/);
    expect(stdout).toMatch(/sbatch --array=17 .*slurm-grid\.sh tiny\.yaml --l 0\\,1 --e -0\.5\\,0\\,0\.5 --set horizon=6 --trials 1$/m);
    // ARRAY= resubmits some tasks; the default grid (no --l, --e) has 49 points.
    expect(script(['tiny.yaml'], { ARRAY: '17,23' }).code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'sbatch-args'), 'utf8').split('\n').slice(0, 2)).toEqual(['--parsable', '--array=17,23']);
    expect(script([], {}).code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'sbatch-args'), 'utf8').split('\n').slice(1, 5)).toEqual(['--array=0-48', '--output=out/slurm-logs/%x-%A_%a.out', SCRIPT, 'configs/quick.yaml']);
    fs.rmSync(path.join(root, 'sbatch-args'));
  });

  it('runs only its shard when one task is resubmitted (sbatch --array=4): shard 4 of the 6 points, not 0 of 1', () => {
    const { code, stderr } = script(GRID_ARGS, task(4, 4, 4));
    expect(stderr).toMatch(/shard 4\/6 \(from SLURM_ARRAY_TASK_ID=4\): 2 units run/);
    expect(code).toBe(0);
    expect(fs.readdirSync(path.join(root, 'out')).sort()).toEqual(['shard-4-of-6', 'slurm-logs']);
    const grid = path.join(root, 'out', 'shard-4-of-6', 'tiny-grid');
    expect(fs.existsSync(path.join(grid, 'sweep-shard.json'))).toBe(true);
    // 12 units (6 points l-major, then 2 policies): shard 4 runs units 4 and 10, EOFD-MLogB at points 2 and 5.
    const units = ['l=0,e=0.5', 'l=1,e=0.5'].map((point) => path.join(grid, point, 'EOFD-MLogB', 'trial-0.csv'));
    for (const unit of units) expect(fs.existsSync(unit), unit).toBe(true);
    expect(fs.existsSync(path.join(grid, 'l=0,e=0.5', 'OFUL-MLogB', 'trial-0.csv'))).toBe(false);
    // A task beyond the grid is refused by eofd.
    const beyond = script(GRID_ARGS, task(6, 0, 6));
    expect(beyond.code).toBe(2);
    expect(beyond.stderr).toMatch(/SLURM_ARRAY_TASK_ID=6 is not below the shard count 6/);
  });
});

describe('scripts/slurm-grid.sh: preemption and time limits', () => {
  /** Starts task 0 of a one-unit grid of a long unit into `name`, and waits until it is some thousand rounds in. */
  async function startLong(name: string): Promise<{ child: ChildProcess; unit: string; stdout: () => string; env: NodeJS.ProcessEnv; args: string[] }> {
    writeFile(root, 'long.yaml', tinyConfig('long', { d: 60, horizon: 200_000, trials: 1, policies: '[EOFD-MLogB]' }));
    const args = ['long.yaml', '--l', '0', '--e', '0'];
    const env = { PATH: `${fakeBin}:${process.env.PATH ?? ''}`, HOME: root, OUT: name, ...task(0, 0, 0) };
    const unit = path.join(root, name, 'shard-0-of-1', 'long-grid', 'l=0,e=0', 'EOFD-MLogB');
    // Its own process group: Slurm signals every process of a task, as a signal to the group does.
    const child = spawn('bash', [SCRIPT, ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', () => undefined);
    const partial = path.join(unit, 'trial-0.csv.partial');
    // Some thousand rounds in (rows are written 256 at a time).
    await waitFor(() => fs.existsSync(partial) && fs.statSync(partial).size > 100_000, 60_000);
    return { child, unit, stdout: () => stdout, env, args };
  }

  it('SIGUSR1 before the time limit (to the batch shell alone): eofd checkpoints its running unit, the task requeues itself, and the requeued task continues the unit there', async () => {
    fs.rmSync(path.join(root, 'scontrol-args'), { force: true });
    const { child, unit, stdout, env, args } = await startLong('timeup');
    child.kill('SIGUSR1');
    expect((await exitOf(child)).code).toBe(143);
    expect(fs.readFileSync(path.join(root, 'scontrol-args'), 'utf8').trimEnd().split('\n')).toEqual(['requeue', '4242_0']);
    expect(stdout()).toMatch(/time limit near; its running units are checkpointed and task 4242_0 is requeued/);
    expect(listFiles(unit)).toEqual(['trial-0.checkpoint', 'trial-0.csv.partial']);
    // The requeued task: the same script, the same variables.
    const again = spawnSync('bash', [SCRIPT, ...args], { cwd: root, env, encoding: 'utf8' });
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/l=0,e=0: EOFD-MLogB, trial 0 continues from its checkpoint after round \d+/);
    expect(listFiles(unit)).toEqual(['trial-0.csv', 'trial-0.summary.json']);
  }, 180_000);

  it('SIGTERM to every process of the task (preemption, scancel): eofd checkpoints and exits 143, and the task does not requeue itself', async () => {
    fs.rmSync(path.join(root, 'scontrol-args'), { force: true });
    const { child, unit } = await startLong('preempted');
    process.kill(-child.pid!, 'SIGTERM');
    expect((await exitOf(child)).code).toBe(143);
    expect(fs.existsSync(path.join(root, 'scontrol-args'))).toBe(false);
    expect(listFiles(unit)).toEqual(['trial-0.checkpoint', 'trial-0.csv.partial']);
  }, 180_000);
});
