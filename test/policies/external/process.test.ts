/**
 * Process policies (src/policies/external): built-ins served over the protocol by `eofd serve-policy`
 * decide as the built-ins do in every round (K = 1 and K = 3, both encodings, a policy that draws);
 * the Python helper's worked example plays, seeded; a process that exits, hangs or answers nonsense
 * fails its unit only, with an error naming the label, trial and round, and --resume redoes that unit
 * alone. The runs are in-process (--jobs 1); the policies are child processes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, runCli, tempDir, trialCsvs, withoutTimings, writeFile } from '../../experiment/fixtures.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const MISBEHAVE = path.join(HERE, 'misbehave.mjs');
const serve = (name: string, ...args: string[]): string => JSON.stringify([process.execPath, BIN, 'serve-policy', name, ...args]);

function config(K: 1 | 3, policies: string[], horizon = 30, trials = 2): string {
  const reward = K === 1 ? '[0, 1]' : '[0, 0.3, 0.6, 1]';
  return [
    'name: served',
    `environment: {type: synthetic, d: 4, K: ${K}, reward: ${reward}, actions: [3, 6]}`,
    `horizon: ${horizon}`,
    `trials: ${trials}`,
    'policies:',
    ...policies.map((p) => `  - ${p}`),
    '',
  ].join('\n');
}

describe('eofd serve-policy', () => {
  for (const [K, entries] of [
    [1, [['EOFD-MLogB', '{m: 2}'], ['GLM-UCB', '{}'], ['Random', '{}']]],
    [3, [['EOFD-MLogB', '{}'], ['OFUL-MLogB', '{}'], ['TS-MLogB', '{beta_scale: 0.5}']]],
  ] as const) {
    it(`decides as the built-in in every round (K = ${K}: ${entries.map(([name]) => name).join(', ')})`, async () => {
      const dir = tempDir('eofd-serve-');
      const builtIn = writeFile(dir, 'built-in.yaml', config(K, entries.map(([name, params]) => `{policy: ${name}, params: ${params}}`), 40, 1));
      // Labelled as the built-ins, in an experiment of the same name: the same seeds, the same files. One speaks JSON vectors.
      const served = writeFile(dir, 'served.yaml', config(K, entries.map(([name, params], i) => `{command: ${serve(name, ...(i === 1 ? ['--encoding', 'json'] : []))}, label: ${name}, params: ${params}}`), 40, 1));
      expect((await runCli(['run', builtIn, '--out', path.join(dir, 'a'), '--jobs', '1'])).code).toBe(0);
      const run = await runCli(['run', served, '--out', path.join(dir, 'b'), '--jobs', '1']);
      expect(run.code).toBe(0);
      const a = trialCsvs(path.join(dir, 'a', 'served'));
      const b = trialCsvs(path.join(dir, 'b', 'served'));
      expect([...b.keys()]).toEqual([...a.keys()]);
      expect(a.size).toBe(3);
      for (const [file, csv] of a) expect(withoutTimings(b.get(file) as string), file).toBe(withoutTimings(csv));
      // The process's own time, apart from eofd's (transport included).
      const unit = JSON.parse(fs.readFileSync(path.join(dir, 'b', 'served', entries[0][0], 'trial-0.summary.json'), 'utf8'));
      expect(unit.process.meanSelectMs).toBeGreaterThan(0);
      expect(unit.process.meanSelectMs).toBeLessThan(unit.summary.meanSelectMs);
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'b', 'served', 'manifest.json'), 'utf8'));
      expect(manifest.config.variants[entries[0][0]].script).toEqual({ file: BIN, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    });
  }
});

describe('process policy failures', () => {
  it('a process that exits, hangs or answers an invalid index fails its unit only, named by label, trial and round; --resume redoes that unit alone', async () => {
    const dir = tempDir('eofd-misbehave-');
    // Each misbehaves once (in trial 0): trial 1 and the rerun play through.
    const entry = (label: string, params: string, timeout = ''): string =>
      `{command: [node, ${MISBEHAVE}], label: ${label}, params: {${params}, once: ${path.join(dir, label)}}${timeout}}`;
    const file = writeFile(
      dir,
      'bad.yaml',
      config(3, [
        'EOFD-MLogB',
        entry('Exits', 'mode: exit, at: 7'),
        entry('Hangs', 'mode: hang, at: 5', ', timeout: 0.5'),
        entry('Invalid', 'mode: invalid, at: 3'),
        entry('Fraction', 'mode: fraction, at: 4'),
        entry('Garbage', 'mode: garbage, at: 2'),
        entry('Old', 'mode: protocol'),
      ], 12),
    );
    const out = path.join(dir, 'out');
    const run = await runCli(['run', file, '--out', out, '--jobs', '1', '--checkpoint', '4']);
    expect(run.code).toBe(1);
    const lines = run.stderr.split('\n');
    const line = (label: string): string => lines.find((l) => l.startsWith(`eofd run: served: ${label}, trial 0,`) || l.startsWith(`eofd run: served: ${label}, trial 0:`)) ?? `(no line for ${label})`;
    expect(line('Exits')).toMatch(/Exits, trial 0, round 7: the process `node .*misbehave\.mjs` exited with code 3; its stderr ends: misbehave: exiting on purpose \(during select\)/);
    expect(line('Hangs')).toMatch(/Hangs, trial 0, round 5: .* gave no answer within 0\.5 s .*killed \(during select\)/);
    expect(line('Invalid')).toMatch(/Invalid, trial 0, round 3: .* answered the invalid action 99 \(expected an integer index in 0\.\.\d\) \(to select\)/);
    expect(line('Fraction')).toMatch(/Fraction, trial 0, round 4: .* answered the invalid action 0\.5/);
    expect(line('Garbage')).toMatch(/Garbage, trial 0, round 2: .* answered with a line that is not JSON: "this is not JSON"/);
    expect(line('Old')).toMatch(/Old, trial 0: .* answered the hello with protocol 2; this eofd speaks protocol 1 .*\(to the hello \(before round 1\)\)/);
    expect(lines.filter((l) => /^eofd run: served: .*, trial 1,/.test(l))).toEqual([]);
    // A process policy cannot be snapshotted: its units note it and play on without checkpoints.
    expect(run.stderr).toMatch(/no checkpoints for this unit .*runs in another process, whose state eofd cannot save/);
    const labels = ['EOFD-MLogB', 'Exits', 'Hangs', 'Invalid', 'Fraction', 'Garbage', 'Old'];
    expect([...trialCsvs(path.join(out, 'served')).keys()].sort()).toEqual(['EOFD-MLogB/trial-0.csv', ...labels.map((l) => `${l}/trial-1.csv`)].sort());
    const mtimes = () => [...trialCsvs(path.join(out, 'served')).keys()].map((f) => [f, fs.statSync(path.join(out, 'served', f)).mtimeMs]);
    const before = mtimes();
    const again = await runCli(['run', file, '--out', out, '--jobs', '1', '--resume']);
    expect(again.code, again.stderr).toBe(0);
    expect([...trialCsvs(path.join(out, 'served')).keys()]).toHaveLength(14);
    expect(mtimes().filter(([f]) => before.some(([g]) => g === f))).toEqual(before);
  });

  it('a program that is not there is a config error naming the entry', async () => {
    const dir = tempDir('eofd-noprogram-');
    const file = writeFile(dir, 'none.yaml', config(3, ['EOFD-MLogB', '{command: [no-such-program-eofd, x.py], label: Nope}']));
    const run = await runCli(['run', file, '--out', path.join(dir, 'out'), '--jobs', '1']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/none\.yaml:\d+:\d+: policies\.1\.command\.0: no program "no-such-program-eofd" on PATH/);
  });
});

const numpy = spawnSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;

describe('the Python helper (examples/python)', () => {
  it.skipIf(!numpy)(`plays the worked example, seeded, beside a built-in${numpy ? '' : ' (skipped: no python3 with numpy here)'}`, async () => {
    const dir = tempDir('eofd-python-');
    fs.copyFileSync(path.join(REPO, 'examples', 'python', 'eofd_policy.py'), path.join(dir, 'eofd_policy.py'));
    fs.copyFileSync(path.join(REPO, 'examples', 'python', 'linucb.py'), path.join(dir, 'linucb.py'));
    // A relative script: the process runs in the config's folder.
    const file = writeFile(dir, 'py.yaml', config(3, ['EOFD-MLogB', '{command: [python3, linucb.py], label: LinUCB-py, params: {alpha: 0.5, epsilon: 0.2}}'], 40));
    const first = await runCli(['run', file, '--out', path.join(dir, 'a'), '--jobs', '1']);
    expect(first.code).toBe(0);
    expect((await runCli(['run', file, '--out', path.join(dir, 'b'), '--jobs', '1'])).code).toBe(0);
    const a = trialCsvs(path.join(dir, 'a', 'served'));
    const b = trialCsvs(path.join(dir, 'b', 'served'));
    const csv = a.get('LinUCB-py/trial-0.csv') as string;
    expect(withoutTimings(b.get('LinUCB-py/trial-0.csv') as string)).toBe(withoutTimings(csv));
    expect(withoutTimings(csv)).not.toBe(withoutTimings(a.get('LinUCB-py/trial-1.csv') as string));
    expect(csv.trim().split('\n')).toHaveLength(41);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'a', 'served', 'manifest.json'), 'utf8'));
    expect(manifest.config.variants['LinUCB-py'].script.file).toBe('linucb.py');
  });
});
