/**
 * Issue 37's "done when" for external policies: a module policy and a Python process policy in one
 * experiment beside built-ins, tuned by `eofd grid --over` a key the module declares (on the worker
 * pool: --jobs 2, so the module loads in worker threads and the process starts from them), the tuned
 * values applied by `eofd run --params best.json`, and `eofd report` on both.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, runCli, tempDir, trialCsvs, writeFile } from '../../experiment/fixtures.js';

const numpy = spawnSync('python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;

describe('a module policy and a Python process policy beside built-ins', () => {
  it.skipIf(!numpy)(`grid --over params.alpha, run --params best.json, report${numpy ? '' : ' (skipped: no python3 with numpy here)'}`, async () => {
    const dir = tempDir('eofd-mixed-');
    for (const file of ['module/lin-ucb.mjs', 'python/eofd_policy.py', 'python/linucb.py']) fs.copyFileSync(path.join(REPO, 'examples', file), path.join(dir, path.basename(file)));
    const file = writeFile(
      dir,
      'mixed.yaml',
      [
        'name: mixed',
        'environment: {type: synthetic, d: 4, K: 2, reward: [0, 0.5, 1], actions: [3, 6]}',
        'horizon: 25',
        'trials: 2',
        'policies:',
        '  - EOFD-MLogB',
        '  - Random',
        '  - {module: lin-ucb.mjs, label: LinUCB-js}',
        '  - {command: [python3, linucb.py], label: LinUCB-py, params: {alpha: 0.5, epsilon: 0.1}}',
        '',
      ].join('\n'),
    );
    const out = path.join(dir, 'out');
    const grid = await runCli(['grid', file, '--over', 'params.alpha=0.25,1', '--out', out, '--jobs', '2']);
    expect(grid.code, grid.stderr).toBe(0);
    const best = JSON.parse(fs.readFileSync(path.join(out, 'mixed-grid', 'best.json'), 'utf8'));
    expect(Object.keys(best.policies)).toEqual(['LinUCB-js']);
    expect([0.25, 1]).toContain(best.policies['LinUCB-js'].values['params.alpha']);
    // Every label ran at the first point; only the module, which declares alpha, at the second.
    expect([...trialCsvs(path.join(out, 'mixed-grid', 'alpha=0.25')).keys()].map((f) => f.split('/')[0])).toEqual(
      expect.arrayContaining(['EOFD-MLogB', 'Random', 'LinUCB-js', 'LinUCB-py']),
    );
    expect(new Set([...trialCsvs(path.join(out, 'mixed-grid', 'alpha=1')).keys()].map((f) => f.split('/')[0]))).toEqual(new Set(['LinUCB-js']));
    const gridReport = await runCli(['report', path.join(out, 'mixed-grid')]);
    expect(gridReport.code, gridReport.stderr).toBe(0);

    const run = await runCli(['run', file, '--params', path.join(out, 'mixed-grid', 'best.json'), '--out', out, '--jobs', '2']);
    expect(run.code, run.stderr).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'mixed', 'manifest.json'), 'utf8'));
    expect(manifest.config.variants['LinUCB-js'].params.alpha).toBe(best.policies['LinUCB-js'].values['params.alpha']);
    expect(manifest.config.variants['LinUCB-py'].script).toEqual({ file: 'linucb.py', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const report = await runCli(['report', path.join(out, 'mixed')]);
    expect(report.code, report.stderr).toBe(0);
    for (const label of ['EOFD-MLogB', 'Random', 'LinUCB-js', 'LinUCB-py']) expect(report.stdout).toMatch(new RegExp(`^${label} +\\d`, 'm'));
  });
});
