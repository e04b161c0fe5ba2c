import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { loadConfigs } from '../../src/config/load.js';
import type { ExperimentConfig } from '../../src/config/schema.js';
import { RunError } from '../../src/base/errors.js';
import { LOCK_STEP, runExperiments, UNIT_BY_UNIT, type UnitRef } from '../../src/experiment/runner.js';
import { currentIdentity, processStartTicks } from '../../src/experiment/lock.js';
import { SUMMARY_COLUMNS, TRIAL_COLUMNS } from '../../src/results/records.js';
import { createTrialEnvironment, resolveExperiment } from '../../src/experiment/setup.js';
import { buildReport } from '../../src/report/index.js';
import { readExperiment } from '../../src/results/read.js';
import { listFiles, tempDir, tinyConfig, trialCsvs, withoutTimings, writeFile } from './fixtures.js';
import { eofdMLogBPolicy } from '../../src/policies/eofd-mlogb.js';
import { ofulMLogBPolicy } from '../../src/policies/oful-mlogb.js';
import { withFailingPolicy } from '../helpers/policies.js';

let root: string;
let configs: ExperimentConfig[];
beforeAll(() => {
  root = tempDir();
  configs = loadConfigs(writeFile(root, 'tiny.yaml', tinyConfig('tiny')));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

async function rejection(promise: Promise<unknown>): Promise<RunError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).message).not.toContain('\n');
    return error as RunError;
  }
  throw new Error('expected a RunError');
}

describe('runExperiments: bad arguments', () => {
  it('refuses --resume with --force, a bad job count and duplicate names (exit code 2)', async () => {
    const out = path.join(root, 'bad');
    expect((await rejection(runExperiments(configs, { out, resume: true, force: true }))).exitCode).toBe(2);
    expect((await rejection(runExperiments(configs, { out, jobs: 0 }))).exitCode).toBe(2);
    expect((await rejection(runExperiments([...configs, ...configs], { out }))).exitCode).toBe(2);
    expect(fs.existsSync(path.join(out, 'tiny'))).toBe(false);
  });

  it('refuses an existing experiment folder without --resume or --force, naming both', async () => {
    const out = path.join(root, 'exists');
    fs.mkdirSync(path.join(out, 'tiny'), { recursive: true });
    fs.writeFileSync(path.join(out, 'tiny', 'keep.txt'), 'mine');
    const error = await rejection(runExperiments(configs, { out }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/--resume.*--force/);
    expect(fs.readFileSync(path.join(out, 'tiny', 'keep.txt'), 'utf8')).toBe('mine');
  });

  it('refuses to resume a folder whose config differs, naming the field', async () => {
    const out = path.join(root, 'differs');
    await runExperiments(configs, { out });
    const changed = loadConfigs(writeFile(root, 'changed.yaml', tinyConfig('tiny').replace('m: 3', 'm: 4')));
    const error = await rejection(runExperiments(changed, { out, resume: true }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/differs .* at params\.m: 3 vs 4/);
  });

  it('refuses while a live process holds the lock, and takes over a stale lock', async () => {
    const out = path.join(root, 'locked');
    fs.mkdirSync(out, { recursive: true });
    const lock = path.join(out, '.tiny.lock');
    // The parent of this test process is alive and is not this process.
    const parent = { ...currentIdentity(), pid: process.ppid, start_ticks: processStartTicks(process.ppid) };
    fs.writeFileSync(lock, JSON.stringify({ ...parent, started: 'then', heartbeat_ms: 5000, token: 'parent' }));
    const error = await rejection(runExperiments(configs, { out }));
    expect(error.exitCode).toBe(1);
    expect(error.message).toMatch(new RegExp(`another eofd run \\(pid ${process.ppid}`));
    expect(fs.existsSync(path.join(out, 'tiny'))).toBe(false);
    // A pid far above any pid_max is not running: the lock is stale.
    fs.writeFileSync(lock, JSON.stringify({ pid: 2 ** 30, host: (await import('node:os')).hostname(), started: 'then' }));
    const result = await runExperiments(configs, { out });
    expect(result.experiments[0]?.complete).toBe(true);
    expect(fs.existsSync(lock)).toBe(false);
  });
});

describe('runExperiments', () => {
  it('writes the per-round CSVs, summary.csv and manifest.json that the report reads', async () => {
    const out = path.join(root, 'contract');
    const result = await runExperiments(configs, { out });
    expect(result).toMatchObject({ interrupted: false, unitsRun: 6, unitsSkipped: 0, unitsFailed: 0, jobs: 1 });
    const dir = path.join(out, 'tiny');
    expect(listFiles(dir).filter((f) => !f.endsWith('.summary.json'))).toEqual([
      'EOFD-MLogB/trial-0.csv',
      'EOFD-MLogB/trial-1.csv',
      'OFUL-MLogB/trial-0.csv',
      'OFUL-MLogB/trial-1.csv',
      'Random/trial-0.csv',
      'Random/trial-1.csv',
      'manifest.json',
      'summary.csv',
    ]);
    const summary = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8');
    expect(summary.split('\n')[0]).toBe(SUMMARY_COLUMNS.join(','));
    const rows = parse(summary, { columns: true }) as Record<string, string>[];
    for (const row of rows) {
      const lines = fs.readFileSync(path.join(dir, row.policy as string, `trial-${row.trial}.csv`), 'utf8').trimEnd().split('\n');
      expect(lines[0]).toBe(TRIAL_COLUMNS.join(','));
      expect(lines).toHaveLength(31);
      const last = lines[30]!.split(',');
      const cell = (column: (typeof TRIAL_COLUMNS)[number]) => last[TRIAL_COLUMNS.indexOf(column)];
      // final_regret is the last cum_regret, character for character.
      expect(row.final_regret).toBe(cell('cum_regret'));
      expect(cell('update_ms')).toMatch(/^\d+\.\d{4}$/);
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    expect(manifest.config).toMatchObject({
      name: 'tiny',
      environment: { type: 'synthetic', d: 6, K: 2, reward: [0, 0.5, 1], actions: [3, 6], S_star: 2 },
      horizon: 30,
      trials: 2,
      policies: ['EOFD-MLogB', 'OFUL-MLogB', 'Random'],
    });
    expect(Object.keys(manifest.derived).sort()).toEqual(
      ['D', 'S', 'alpha', 'beta', 'beta_rank', 'beta_scale', 'delta', 'e', 'eta', 'eta0', 'l', 'lambda', 'lambda0', 'm', 'policies'].sort(),
    );
    expect(manifest.derived.policies.Random).toEqual({ policy: 'Random' });
    expect(manifest.derived.policies['EOFD-MLogB']).toMatchObject({ policy: 'EOFD-MLogB', m: 3, beta: 'order', lambda: manifest.derived.lambda });
    expect(manifest.derived).toMatchObject({ m: 3, delta: 1 / 30, beta: 'order', D: 1, S: 2 });
    expect(manifest.seeds.trials['1'].environment).toMatch(/^[0-9a-f]{64}$/);
    expect(manifest.package).toEqual({ name: 'eofd', version: expect.any(String) });
    expect(manifest.node).toBe(process.version);
    expect(manifest.host.cores).toBeGreaterThan(0);
    const data = readExperiment(dir);
    expect(data.setting).toMatchObject({ environment: 'synthetic', d: 6, K: 2, horizon: 30, trials: 2 });
    const report = buildReport([out]);
    expect(report.experiments.map((e) => e.name)).toEqual(['tiny']);
    expect(report.experiments[0]?.comparison).not.toBeNull();
  });

  it('gives the same regret columns for pools of different sizes', async () => {
    // Both pools run the compiled worker (dist/), so this holds even while src/ is being edited;
    // test/cli/run.test.ts compares --jobs 1 (in-process) with --jobs 2 through the compiled CLI.
    const two = path.join(root, 'jobs-2');
    const three = path.join(root, 'jobs-3');
    await runExperiments(configs, { out: two, jobs: 2 });
    const result = await runExperiments(configs, { out: three, jobs: 3 });
    expect(result.jobs).toBe(3);
    const a = trialCsvs(path.join(two, 'tiny'));
    const b = trialCsvs(path.join(three, 'tiny'));
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [file, text] of a) expect(withoutTimings(b.get(file) as string)).toBe(withoutTimings(text));
    const summaryA = fs.readFileSync(path.join(two, 'tiny', 'summary.csv'), 'utf8');
    const summaryB = fs.readFileSync(path.join(three, 'tiny', 'summary.csv'), 'utf8');
    const regretOnly = (s: string) => s.split('\n').map((l) => l.split(',').filter((_, i) => i < 3 || i > 7).join(','));
    expect(regretOnly(summaryB)).toEqual(regretOnly(summaryA));
  });

  it("in this process, runs trial by trial, a trial's units together (lock-step), and records so in the manifest", async () => {
    const order: UnitRef[] = [];
    const out = path.join(root, 'order');
    await runExperiments(configs, { out, events: { onUnitDone: (unit) => order.push(unit) } });
    expect(order.map((u) => `${u.policy}/${u.trial}`)).toEqual([
      'EOFD-MLogB/0', 'OFUL-MLogB/0', 'Random/0', 'EOFD-MLogB/1', 'OFUL-MLogB/1', 'Random/1',
    ]);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'tiny', 'manifest.json'), 'utf8'));
    expect(manifest.timing.runs.map((r: { jobs: number; pairing: string }) => [r.jobs, r.pairing])).toEqual([[1, LOCK_STEP]]);
  });

  it('on worker threads, runs units longest first (OFUL-MLogB first) and records so', async () => {
    const started: UnitRef[] = [];
    const out = path.join(root, 'order-pool');
    await runExperiments(configs, { out, jobs: 2, events: { onUnitStart: (unit) => started.push(unit) } });
    expect(started.slice(0, 2).map((u) => u.policy)).toEqual(['OFUL-MLogB', 'OFUL-MLogB']);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'tiny', 'manifest.json'), 'utf8'));
    expect(manifest.timing.runs.map((r: { pairing: string }) => r.pairing)).toEqual([UNIT_BY_UNIT]);
  });

  it('gives every policy of a trial the same instance, and different trials different ones', () => {
    const resolved = resolveExperiment(configs[0] as ExperimentConfig);
    const rounds = (trial: number) => {
      const environment = createTrialEnvironment(resolved, trial);
      const seen: number[][] = [];
      for (let t = 1; t <= 5; t++) {
        const actions = environment.actions(t);
        seen.push(Array.from(actions.features.subarray(0, actions.count * actions.d)));
        environment.play(0);
      }
      return seen;
    };
    expect(rounds(0)).toEqual(rounds(0));
    expect(rounds(1)).not.toEqual(rounds(0));
  });

  it('with --resume skips finished units without touching them, and redoes missing ones', async () => {
    const out = path.join(root, 'resume');
    await runExperiments(configs, { out });
    const dir = path.join(out, 'tiny');
    const kept = path.join(dir, 'OFUL-MLogB', 'trial-0.csv');
    const before = fs.statSync(kept);
    const reference = trialCsvs(dir);
    // Simulate a unit that never finished: its CSV is gone, a stale partial file is left.
    fs.rmSync(path.join(dir, 'EOFD-MLogB', 'trial-1.csv'));
    fs.writeFileSync(path.join(dir, 'EOFD-MLogB', 'trial-1.csv.partial'), 'trial,policy\n0,EOFD');
    fs.rmSync(path.join(dir, 'summary.csv'));
    // A CSV whose length disagrees with its summary file (cut short) is not finished either.
    const cut = path.join(dir, 'Random', 'trial-0.csv');
    fs.truncateSync(cut, fs.statSync(cut).size - 5);
    const result = await runExperiments(configs, { out, resume: true });
    expect(result).toMatchObject({ unitsRun: 2, unitsSkipped: 4 });
    const after = fs.statSync(kept);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    expect(fs.existsSync(path.join(dir, 'EOFD-MLogB', 'trial-1.csv.partial'))).toBe(false);
    const redone = trialCsvs(dir);
    for (const [file, text] of reference) expect(withoutTimings(redone.get(file) as string)).toBe(withoutTimings(text));
    expect(fs.existsSync(path.join(dir, 'summary.csv'))).toBe(true);
  });

  it('with --force deletes the old folder and starts over', async () => {
    const out = path.join(root, 'force');
    await runExperiments(configs, { out });
    fs.writeFileSync(path.join(out, 'tiny', 'stray.txt'), 'x');
    const result = await runExperiments(configs, { out, force: true });
    expect(result.unitsRun).toBe(6);
    expect(fs.existsSync(path.join(out, 'tiny', 'stray.txt'))).toBe(false);
  });

  it.each([
    [1, 'off'],
    [2, 'off'],
    [1, 'on'],
    [2, 'on'],
  ] as const)('an aborted signal stops a running unit within a round or two (jobs %i, checkpoints %s), keeps finished units, removes the partial one or checkpoints it', async (jobs, checkpoints) => {
    // The first unit (OFUL-MLogB, T = 300) finishes; the second (EOFD-MLogB, T = 200,000) is stopped at its first progress report.
    const file = writeFile(root, `stop-${jobs}.yaml`, [
      tinyConfig('short', { horizon: 300, trials: 1, policies: '[OFUL-MLogB]' }),
      tinyConfig('long', { horizon: 200_000, trials: 1, policies: '[EOFD-MLogB]' }),
    ].join('---\n'));
    const out = path.join(root, `stopped-${jobs}-${checkpoints}`);
    const controller = new AbortController();
    const reported: number[] = [];
    const result = await runExperiments(loadConfigs(file), {
      out,
      jobs,
      signal: controller.signal,
      ...(checkpoints === 'off' ? { checkpoint: null } : {}),
      events: {
        onProgress: (unit, rounds) => {
          if (unit.experiment !== 'long') return;
          reported.push(rounds);
          controller.abort();
        },
        onUnitStart: (unit) => {
          // With two jobs both start at once: stop the long unit only after the short one finished.
          if (unit.experiment === 'long' && jobs === 1) expect(fs.existsSync(path.join(out, 'short', 'OFUL-MLogB', 'trial-0.csv'))).toBe(true);
        },
        onUnitDone: (unit) => expect(unit.experiment).toBe('short'),
      },
    });
    expect(result.interrupted).toBe(true);
    expect(result.experiments[1]!.complete).toBe(false);
    if (jobs === 1) expect(result.experiments[0]!.complete).toBe(true);
    expect(reported.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...reported)).toBeLessThan(200_000);
    if (checkpoints === 'off') {
      expect(listFiles(path.join(out, 'long'))).toEqual(['manifest.json']);
      return;
    }
    // Checkpointed where it stopped: resumed, it continues there.
    expect(listFiles(path.join(out, 'long'))).toEqual(['EOFD-MLogB/trial-0.checkpoint', 'EOFD-MLogB/trial-0.csv.partial', 'manifest.json'].map((f) => f.split('/').join(path.sep)));
    const resumedAt = new Map<string, number>();
    const again = await runExperiments(loadConfigs(file), { out, jobs, resume: true, events: { onUnitResumed: (unit, rounds) => resumedAt.set(unit.experiment, rounds) } });
    expect(again.experiments.every((e) => e.complete)).toBe(true);
    // (With two jobs the short unit may have been stopped, and checkpointed, too.)
    expect(resumedAt.get('long')).toBeGreaterThanOrEqual(Math.min(...reported));
    if (jobs === 1) expect([...resumedAt.keys()]).toEqual(['long']);
  }, 120_000);

  it('stops a unit whose policy fails, names policy, trial and round, and finishes the others', async () => {
    const file = writeFile(root, 'failing.yaml', tinyConfig('failing', { horizon: 12, trials: 1, policies: '[OFUL-MLogB, EOFD-MLogB, Random]' }));
    const failed: string[] = [];
    const out = path.join(root, 'failing');
    const result = await withFailingPolicy(ofulMLogBPolicy, 5, () =>
      withFailingPolicy(eofdMLogBPolicy, 7, () => runExperiments(loadConfigs(file), { out, events: { onUnitFailed: (_u, message) => failed.push(message) } })),
    );
    expect(result.unitsFailed).toBe(2);
    expect(failed.sort()).toEqual([
      'failing: EOFD-MLogB, trial 0, round 7: state is not finite (injected)',
      'failing: OFUL-MLogB, trial 0, round 5: state is not finite (injected)',
    ]);
    expect(result.experiments[0]).toMatchObject({ complete: false });
    expect(listFiles(path.join(out, 'failing'))).toEqual(['Random/trial-0.csv', 'Random/trial-0.summary.json', 'manifest.json']);
  });
});
