/**
 * A module environment end to end: `eofd run` (the CLI as a child process, worker threads) on the
 * worked example's config (examples/module/drifting-logit.yaml: drifting-logit.mjs played by built-ins
 * and a module policy), then `eofd report` on its results.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO, tempDir, trialCsvs, withoutTimings } from '../experiment/fixtures.js';

const CONFIG = path.join(REPO, 'examples', 'module', 'drifting-logit.yaml');

function eofd(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: child.status, stdout: child.stdout, stderr: child.stderr };
}

describe('eofd run and report on a module environment', () => {
  it('runs the example beside a built-in and a module policy, on worker threads as in one thread, and reports it', () => {
    const dir = tempDir('eofd-envmod-cli-');
    const args = (out: string, jobs: string) => ['run', CONFIG, '--set', 'horizon=40', '--set', 'trials=2', '--out', path.join(dir, out), '--jobs', jobs];
    const run = eofd(args('a', '2'));
    expect(run.code, run.stderr).toBe(0);
    expect(eofd(args('b', '1')).code).toBe(0);
    const a = trialCsvs(path.join(dir, 'a', 'drifting-logit'));
    const b = trialCsvs(path.join(dir, 'b', 'drifting-logit'));
    expect([...a.keys()].sort()).toEqual(['EOFD-MLogB', 'LinUCB-js', 'Random'].flatMap((label) => [`${label}/trial-0.csv`, `${label}/trial-1.csv`]));
    for (const [name, csv] of a) expect(withoutTimings(b.get(name) as string), name).toBe(withoutTimings(csv));
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'a', 'drifting-logit', 'manifest.json'), 'utf8'));
    expect(manifest.config.environment).toMatchObject({ type: 'module', module: { file: 'drifting-logit.mjs' }, params: { drift: 0.002 }, d: 5, K: 2 });
    const report = eofd(['report', path.join(dir, 'a', 'drifting-logit')]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout + report.stderr).toMatch(/LinUCB-js/);
    expect(fs.existsSync(path.join(dir, 'a', 'drifting-logit', 'report', 'report.html'))).toBe(true);
  });
});
