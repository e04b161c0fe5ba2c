import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ofulMLogBPolicy } from '../../src/policies/oful-mlogb.js';
import { buildReport } from '../../src/report/index.js';
import { exitOf, listFiles, runCli, spawnCli, tempDir, tinyConfig, trialCsvs, waitFor, withoutTimings, writeFile } from '../experiment/fixtures.js';
import { withFailingPolicy } from '../helpers/policies.js';

let root: string;
let tiny: string;
beforeAll(() => {
  root = tempDir('eofd-cli-');
  tiny = writeFile(root, 'tiny.yaml', tinyConfig('tiny'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** stderr holds exactly one line, `eofd run: …`, matching `pattern`. */
function oneLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^eofd run: /);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('eofd run: bad usage (exit 2, one line)', () => {
  it.each([
    [['run'], /missing required argument 'config'/],
    [['run', 'x.yaml', '--jobs', '0'], /--jobs.*expected a job count: an integer from 1 to 1024, got "0"/],
    [['run', 'x.yaml', '--jobs', '1.5'], /--jobs/],
    [['run', 'x.yaml', '--trials', 'many'], /--trials.*expected a trial count/],
    [['run', 'x.yaml', '--bogus'], /unknown option '--bogus'/],
    [['run', 'x.yaml', '--resume', '--force'], /cannot be used with/],
  ])('%j', async (args, pattern) => {
    const { code, stdout, stderr } = await runCli(args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    oneLine(stderr, pattern);
  });

  it('names file:line:column and the field of a config error, also in a later document', async () => {
    const file = writeFile(root, 'bad.yaml', `${tinyConfig('one')}---\n${tinyConfig('two').replace('trials: 2', 'trials: zero')}`);
    const { code, stderr } = await runCli(['run', file, '--out', path.join(root, 'never')]);
    expect(code).toBe(2);
    oneLine(stderr, new RegExp(`^eofd run: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:12:9: trials: expected an integer in \\[1, 10000\\], got "zero"$`));
    expect(fs.existsSync(path.join(root, 'never'))).toBe(false);
  });

  it('reports a missing config file and a bad --set override', async () => {
    oneLine((await runCli(['run', path.join(root, 'nope.yaml')])).stderr, /nope\.yaml: cannot read the config: no such file/);
    const bad = await runCli(['run', tiny, '--set', 'horizon=-1']);
    expect(bad.code).toBe(2);
    oneLine(bad.stderr, /^eofd run: --set horizon=-1: horizon: expected an integer in \[1, 100000000\], got -1$/);
    oneLine((await runCli(['run', tiny, '--set', 'horizon'])).stderr, /--set horizon: expected key=value/);
  });

  it('prints help that leads with examples, and the version', async () => {
    const help = await runCli(['run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.startsWith('Examples:')).toBe(true);
    expect(help.stdout).toMatch(/Exit codes: 0 done/);
    const top = await runCli(['--help']);
    expect(top.stdout.startsWith('Examples:')).toBe(true);
    expect(top.stdout).toMatch(/report/);
    expect((await runCli(['--version'])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});

describe('eofd run: several configs, --name, shipped configs', () => {
  it('runs several files in one run, and refuses the same experiment name in two of them', async () => {
    const second = writeFile(root, 'second.json', JSON.stringify({ name: 'second', environment: { type: 'synthetic', d: 4, K: 1, reward: [0, 1], actions: [3, 4] }, horizon: 5, trials: 1, policies: ['Random'] }));
    const out = path.join(root, 'several');
    const both = await runCli(['run', tiny, second, '--out', out, '--jobs', '1', '--json']);
    expect(both.code).toBe(0);
    expect(JSON.parse(both.stdout).experiments.map((e: { name: string }) => e.name)).toEqual(['tiny', 'second']);
    const twice = await runCli(['run', tiny, tiny, '--out', path.join(root, 'never')]);
    expect(twice.code).toBe(2);
    oneLine(twice.stderr, /tiny\.yaml: name: "tiny" is also the name of an experiment in .*tiny\.yaml; names must be unique .*--name/);
    const named = await runCli(['run', tiny, second, '--out', out, '--jobs', '1', '--json', '--name', 'pair']);
    expect(JSON.parse(named.stdout).experiments.map((e: { name: string }) => e.name)).toEqual(['pair-tiny', 'pair-second']);
  });

  it('refuses a --name that is not a folder name, naming the option', async () => {
    const { code, stderr } = await runCli(['run', tiny, '--name', 'a/b', '--out', path.join(root, 'never')]);
    expect(code).toBe(2);
    oneLine(stderr, /^eofd run: --name a\/b: name: expected a name of 1-100 characters from \[A-Za-z0-9._-\].*, got "a\/b"$/);
  });

  it('reads a shipped config by name, and lists the shipped names when a config file is missing', async () => {
    const out = path.join(root, 'shipped');
    const quick = await runCli(['run', 'quick', '--out', out, '--set', 'horizon=3', '--trials', '1', '--set', 'policies=[Random]', '--jobs', '1', '--json']);
    expect(quick.code).toBe(0);
    expect(JSON.parse(quick.stdout).experiments.map((e: { name: string }) => e.name)).toEqual(['quick-mnist', 'quick-synthetic-k4', 'quick-synthetic-binary']);
    const missing = await runCli(['run', path.join(root, 'nope.json')]);
    oneLine(missing.stderr, /nope\.json: cannot read the config: no such file.*the package ships: .*mnist.*quick/);
  });

  it('resume hints repeat --name and every config file, with the way this program is run', async () => {
    const failing = writeFile(root, 'hint.yaml', tinyConfig('hint', { horizon: 4, trials: 1, policies: '[OFUL-MLogB]' }));
    const { code, stderr } = await withFailingPolicy(ofulMLogBPolicy, 2, () =>
      runCli(['run', failing, '--out', path.join(root, 'hint'), '--jobs', '1', '--name', 'renamed', '--quiet'], { PATH: '' }),
    );
    expect(code).toBe(1);
    expect(stderr).toContain(`npx eofd run ${failing} --out ${path.join(root, 'hint')} --name renamed --resume`);
  });
});

describe('eofd run: the output folder', () => {
  it('stops with one line and exit 1 before any work when a file is where the folder should be', async () => {
    const blocker = writeFile(root, 'blocker', 'not a folder');
    for (const out of [blocker, path.join(blocker, 'sub')]) {
      const { code, stderr } = await runCli(['run', tiny, '--out', out, '--jobs', '1']);
      expect(code).toBe(1);
      oneLine(stderr, /cannot write .* is a file, not a folder/);
    }
    expect(fs.readFileSync(blocker, 'utf8')).toBe('not a folder');
  });

  it.skipIf(os.userInfo().uid === 0)('stops with one line and exit 1 on a read-only output folder', async () => {
    const out = path.join(root, 'read-only');
    fs.mkdirSync(out);
    fs.chmodSync(out, 0o555);
    const { code, stderr } = await runCli(['run', tiny, '--out', out, '--jobs', '1']);
    fs.chmodSync(out, 0o755);
    expect(code).toBe(1);
    oneLine(stderr, /permission denied/);
    expect(fs.readdirSync(out)).toEqual([]);
  });

  it('refuses an existing experiment folder unless --resume or --force (exit 2)', async () => {
    const out = path.join(root, 'twice');
    expect((await runCli(['run', tiny, '--out', out, '--jobs', '1', '--quiet'])).code).toBe(0);
    const again = await runCli(['run', tiny, '--out', out, '--jobs', '1']);
    expect(again.code).toBe(2);
    oneLine(again.stderr, /twice\/tiny already holds results; add --resume .* or --force/);
    expect((await runCli(['run', tiny, '--out', out, '--jobs', '1', '--quiet', '--resume'])).code).toBe(0);
    expect((await runCli(['run', tiny, '--out', out, '--jobs', '1', '--quiet', '--force'])).code).toBe(0);
  });

  it('a run of another config into an existing folder names the difference and suggests --name; --name runs it beside', async () => {
    const out = path.join(root, 'variant');
    expect((await runCli(['run', tiny, '--out', out, '--jobs', '1', '--quiet'])).code).toBe(0);
    const other = await runCli(['run', tiny, '--out', out, '--jobs', '1', '--set', 'horizon=12']);
    expect(other.code).toBe(2);
    oneLine(other.stderr, /variant\/tiny holds a run of another config \(horizon: 30 vs 12\); give this one its own folder with --name tiny-horizon-12 \(or another --out\), or --force/);
    const named = await runCli(['run', tiny, '--out', out, '--jobs', '1', '--set', 'horizon=12', '--name', 'tiny-horizon-12', '--json']);
    expect(named.code).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'tiny-horizon-12', 'manifest.json'), 'utf8'));
    expect([manifest.config.name, manifest.config.seed_name, manifest.config.horizon]).toEqual(['tiny-horizon-12', 'tiny', 12]);
    // Same seeds as the original: the first 12 rounds of every trial are the same instances and choices.
    const rows = (dir: string): string[] =>
      fs.readFileSync(path.join(out, dir, 'OFUL-MLogB', 'trial-1.csv'), 'utf8').split('\n').slice(1, 13).map((r) => r.split(',').slice(2, 8).join(','));
    expect(rows('tiny-horizon-12')).toEqual(rows('tiny'));
    // The original is untouched and still resumable with its own config.
    expect((await runCli(['run', tiny, '--out', out, '--jobs', '1', '--quiet', '--resume'])).code).toBe(0);
  });

  it('refuses a concurrent run into the same folder (lock), then lets it through', async () => {
    const out = path.join(root, 'concurrent');
    const slow = writeFile(root, 'slow.yaml', tinyConfig('slow', { d: 30, horizon: 2000, trials: 4, policies: '[OFUL-MLogB]' }));
    const child = spawnCli(['run', slow, '--out', out, '--jobs', '1'], root);
    try {
      await waitFor(() => fs.existsSync(path.join(out, 'slow', 'manifest.json')));
      const second = await runCli(['run', slow, '--out', out, '--jobs', '1', '--resume']);
      expect(second.code).toBe(1);
      oneLine(second.stderr, new RegExp(`another eofd run \\(pid ${child.pid} `));
    } finally {
      child.kill('SIGKILL');
      await exitOf(child);
    }
    // The killed run's lock is stale now: --resume takes it over and finishes.
    expect((await runCli(['run', slow, '--out', out, '--jobs', '1', '--quiet', '--resume'])).code).toBe(0);
  });
});

describe('eofd run', () => {
  it('runs a tiny config end to end: progress lines, summary table, files that `eofd report` reads', async () => {
    const out = path.join(root, 'e2e');
    const { code, stdout, stderr } = await runCli(['run', tiny, '--out', out, '--jobs', '2']);
    expect(code).toBe(0);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^tiny: synthetic, d = 6, K = 2, T = 30, 2 trials, .*λ = .*η = .*m = 3, δ = 0\.0333/);
    expect(stderr).toMatch(/running 6 units \(policy × trial\) on 2 worker threads/);
    expect(stderr.match(/^\[\d\/6(, ETA [^\]]+)?\] tiny\/.* trial \d: final regret /gm)).toHaveLength(6);
    expect(stderr).toMatch(/experiment +setting +policy +trials +final regret \(mean ± std\) +ms\/round/);
    expect(stderr).toMatch(
      /tiny: against EOFD-MLogB \(reference\), paired by trial, n = 2;.*\n  OFUL-MLogB: final regret \S+, Holm-adjusted CI \[[^\]]+\] \([\d.]+%\), (lower|higher|inconclusive); time per round ×[\d.]+ of EOFD-MLogB's/,
    );
    expect(stderr).toMatch(/Per-round CSVs: .*e2e\/<experiment>\/<policy>\/trial-<i>\.csv/);
    const report = buildReport([out]);
    expect(report.experiments[0]?.policies.map((p) => p.policy)).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
  });

  it('writes byte-identical regret columns with --jobs 1 (in-process) and --jobs 2 (worker threads)', async () => {
    // Through the compiled CLI, so both paths run the same build.
    const outputs: string[] = [];
    for (const jobs of ['1', '2']) {
      const out = path.join(root, `jobs-${jobs}`);
      const child = spawnCli(['run', tiny, '--out', out, '--jobs', jobs, '--quiet'], root);
      expect((await exitOf(child)).code).toBe(0);
      outputs.push(path.join(out, 'tiny'));
    }
    const [one, two] = outputs.map((dir) => trialCsvs(dir as string));
    expect([...(two as Map<string, string>).keys()]).toEqual([...(one as Map<string, string>).keys()]);
    for (const [file, text] of one as Map<string, string>) {
      expect(withoutTimings((two as Map<string, string>).get(file) as string)).toBe(withoutTimings(text));
    }
  });

  it('applies --set and --trials to the run (and records them in the manifest)', async () => {
    const out = path.join(root, 'overrides');
    const { code } = await runCli([
      'run', tiny, '--out', out, '--jobs', '1', '--quiet',
      '--set', 'horizon=12', '--set', 'policies=[Random, EOFD-MLogB]', '--set', 'params.beta=2.5', '--trials', '1',
    ]);
    expect(code).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'tiny', 'manifest.json'), 'utf8'));
    expect(manifest.config).toMatchObject({ horizon: 12, trials: 1, policies: ['Random', 'EOFD-MLogB'], params: { beta: 2.5 } });
    expect(manifest.derived.beta).toBe(2.5);
    expect(listFiles(path.join(out, 'tiny')).filter((f) => f.endsWith('.csv'))).toEqual([
      'EOFD-MLogB/trial-0.csv', 'Random/trial-0.csv', 'summary.csv',
    ]);
  });

  it('prints nothing with --quiet, and the JSON summary on stdout with --json', async () => {
    const quiet = await runCli(['run', tiny, '--out', path.join(root, 'quiet'), '--jobs', '1', '--quiet']);
    expect([quiet.code, quiet.stdout, quiet.stderr]).toEqual([0, '', '']);
    const json = await runCli(['run', tiny, '--out', path.join(root, 'json'), '--jobs', '1', '--quiet', '--json']);
    expect(json.code).toBe(0);
    const summary = JSON.parse(json.stdout);
    expect(summary.units).toEqual({ run: 6, skipped: 0, failed: 0 });
    const [experiment] = summary.experiments;
    expect(experiment.complete).toBe(true);
    expect(experiment.policies).toHaveLength(3);
    expect(experiment.comparison.timeRatio).toBeGreaterThan(0);
  });

  it('exits 1 when a policy fails, after finishing the other units, one line per failure', async () => {
    const file = writeFile(root, 'failing.yaml', tinyConfig('failing', { horizon: 10, trials: 1, policies: '[OFUL-MLogB, Random]' }));
    const out = path.join(root, 'failing');
    const { code, stderr } = await withFailingPolicy(ofulMLogBPolicy, 4, () => runCli(['run', file, '--out', out, '--jobs', '1']));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^eofd run: failing: OFUL-MLogB, trial 0, round 4: .*state is not finite \(injected\)$/m);
    expect(stderr).toMatch(/^eofd run: 1 of 2 units failed .*--resume/m);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(fs.existsSync(path.join(out, 'failing', 'Random', 'trial-0.csv'))).toBe(true);
    expect(fs.existsSync(path.join(out, 'failing', 'summary.csv'))).toBe(false);
  });

  it('actions too large for any policy are refused before the run (exit 2)', async () => {
    const rounds = Array.from({ length: 10 }, (_, t) => ({ actions: [[1e200, 1], [1, 1e200]], u: (t * 0.37) % 1 }));
    writeFile(root, 'overflow.json', JSON.stringify({ K: 1, d: 2, reward: [0, 1], W_star: [[0.5, -0.2]], rounds }));
    const file = writeFile(root, 'overflow.yaml', 'name: overflow\nenvironment: {type: trace, file: overflow.json}\nhorizon: 10\ntrials: 1\npolicies: [OFUL-MLogB, Random]\n');
    const { code, stderr } = await runCli(['run', file, '--out', path.join(root, 'overflow')]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/params: OFUL-MLogB: D \(largest action norm\) must be a number in \[1e-30, 1e\+30\], got 1e\+200$/m);
  });
});
