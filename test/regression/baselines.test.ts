/**
 * The CI regression check: the baseline configs, run with the built CLI as a child process, must
 * reproduce test/baselines/baseline.json (`eofd report --check`, here in process), and the check must
 * catch doctored results.
 * If a change is meant to alter the policies' decisions, run scripts/update-baselines.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ABSOLUTE_TOLERANCE,
  RELATIVE_TOLERANCE,
  checkpoints,
  compareWithBaseline,
  formatRegressions,
  readBaseline,
  withinTolerance,
  type Baseline,
} from '../../src/report/check.js';
import { readResults } from '../../src/results/read.js';
import { BIN, REPO, runCli, tempDir } from '../experiment/fixtures.js';

const BASELINES = path.join(REPO, 'test', 'baselines');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Rewrites one cell of a per-round CSV (row of round t; column by name). */
function editCell(file: string, t: number, column: string, edit: (value: string) => string): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const header = (lines[0] as string).split(',');
  const col = header.indexOf(column);
  const cells = (lines[t] as string).split(',');
  expect(cells[2]).toBe(String(t));
  cells[col] = edit(cells[col] as string);
  lines[t] = cells.join(',');
  fs.writeFileSync(file, lines.join('\n'));
}

/**
 * An edited trial file stands for what a changed run would have written: its unit summary, whose
 * SHA-256 would refuse the file as edited after the run, goes (the report reads a trial file without
 * one, as it reads results from other tools).
 */
function asWrittenByAnotherRun(file: string): void {
  fs.rmSync(file.replace(/\.csv$/, '.summary.json'));
}

let root: string;
let results: string;
beforeAll(async () => {
  root = tempDir('eofd-regression-');
  results = path.join(root, 'results');
  const run = await cli(['run', path.join(BASELINES, 'configs.yaml'), '--out', results, '--jobs', '2', '--quiet']);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
}, 240_000);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('eofd report --check against test/baselines', () => {
  it('passes on a fresh run of the baseline configs (else: a change altered decisions; see scripts/update-baselines)', async () => {
    const check = await runCli(['report', '--check', BASELINES, results]);
    expect(check.stderr + check.stdout).toMatch(/check passed: 4 settings, 12 policy curves/);
    expect(check.code).toBe(0);
  });

  it('covers all three paper settings and a trace run, each with every policy', () => {
    const baseline = readBaseline(BASELINES);
    expect(baseline.settings.map((s) => s.environment).sort()).toEqual(['mnist', 'synthetic', 'synthetic', 'trace']);
    for (const s of baseline.settings) {
      expect(s.policies.map((p) => p.policy)).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
      expect(s.checkpoints).toHaveLength(20);
      expect(s.checkpoints.at(-1)).toBe(s.horizon);
      for (const p of s.policies) expect(p.actions === undefined).toBe(s.environment !== 'trace');
    }
    expect(fs.statSync(path.join(BASELINES, 'baseline.json')).size).toBeLessThan(2_000_000);
  });

  it('exits 3 with a diff naming setting, policy and checkpoint when a curve changed', async () => {
    const doctored = path.join(root, 'curve');
    fs.cpSync(results, doctored, { recursive: true });
    // Round 150 costs 0.5 more and round 151 0.5 less: the curve moves at t = 150 only, and every
    // cum_regret stays the running sum of regret.
    const file = path.join(doctored, 'baseline-synthetic-k4', 'EOFD-MLogB', 'trial-1.csv');
    editCell(file, 150, 'regret', (v) => String(Number(v) + 0.5));
    editCell(file, 150, 'cum_regret', (v) => String(Number(v) + 0.5));
    editCell(file, 151, 'regret', (v) => String(Number(v) - 0.5));
    asWrittenByAnotherRun(file);
    const check = await runCli(['report', '--check', BASELINES, doctored]);
    expect(check.code).toBe(3);
    const rows = check.stdout.trimEnd().split('\n');
    expect(rows[0]).toMatch(/^setting\s+policy\s+checkpoint t\s+expected\s+got$/);
    expect(rows.slice(2)).toHaveLength(1);
    expect(rows[2]).toMatch(/^baseline-synthetic-k4\s+EOFD-MLogB\s+t = 150\s+[\d.]+\s+[\d.]+$/);
    expect(check.stderr).toMatch(/^eofd report: 1 regression against .*update-baselines/);
    expect(check.stderr + check.stdout).not.toMatch(/\n\s+at /);
  });

  it('exits 3 when a single trace decision changed', async () => {
    const doctored = path.join(root, 'trace');
    fs.cpSync(results, doctored, { recursive: true });
    const file = path.join(doctored, 'baseline-trace', 'OFUL-MLogB', 'trial-2.csv');
    editCell(file, 17, 'action', (v) => String(Number(v) === 0 ? 1 : 0));
    asWrittenByAnotherRun(file);
    const check = await runCli(['report', '--check', BASELINES, doctored]);
    expect(check.code).toBe(3);
    expect(check.stdout).toMatch(/baseline-trace\s+OFUL-MLogB\s+trial 2, t = 17: action\s+\d+\s+\d+/);
  });

  it('exits 2 when a trial file was edited after its run (its SHA-256 no longer matches)', async () => {
    const doctored = path.join(root, 'edited');
    fs.cpSync(results, doctored, { recursive: true });
    editCell(path.join(doctored, 'baseline-trace', 'OFUL-MLogB', 'trial-2.csv'), 17, 'action', (v) => String(Number(v) === 0 ? 1 : 0));
    const check = await runCli(['report', '--check', BASELINES, doctored]);
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(/trial-2\.csv: its content differs from what the run wrote/);
  });

  it('refuses a baseline that compares nothing (no settings, or a setting without policies)', () => {
    const dir = tempDir('eofd-empty-baseline-');
    const baseline = readBaseline(BASELINES);
    fs.writeFileSync(path.join(dir, 'baseline.json'), JSON.stringify({ ...baseline, settings: [] }));
    expect(() => readBaseline(dir)).toThrow(/settings: expected a non-empty list/);
    fs.writeFileSync(path.join(dir, 'baseline.json'), JSON.stringify({ ...baseline, settings: [{ ...baseline.settings[0]!, policies: [] }] }));
    expect(() => readBaseline(dir)).toThrow(/settings\[0\]\.policies: expected a non-empty list/);
  });

  it('refuses two result folders that hold experiments of the same name', () => {
    const twin = path.join(root, 'twin');
    fs.cpSync(path.join(results, 'baseline-trace'), path.join(twin, 'baseline-trace'), { recursive: true });
    expect(() => readResults([results, twin])).toThrow(/both hold an experiment named "baseline-trace"; give only one of them/);
  });

  it('treats missing settings and policies as regressions', () => {
    const baseline = readBaseline(BASELINES);
    const ghost = structuredClone(baseline.settings[0]!);
    ghost.name = 'ghost-setting';
    const doctored: Baseline = { ...baseline, settings: [...baseline.settings, ghost] };
    doctored.settings[1] = { ...baseline.settings[1]!, policies: [...baseline.settings[1]!.policies, { policy: 'Ghost', meanCumRegret: [] }] };
    const regressions = compareWithBaseline(doctored, readResults([results]));
    expect(regressions).toEqual([
      { setting: baseline.settings[1]!.name, policy: 'Ghost', at: '-', expected: 'policy present', got: 'missing' },
      { setting: 'ghost-setting', policy: '-', at: '-', expected: 'setting present', got: 'missing' },
    ]);
    expect(formatRegressions(regressions)).toMatch(/ghost-setting\s+-\s+-\s+setting present\s+missing/);
  });

  it('holds at the tolerance edge: within 0.5× passes, 2× fails', () => {
    expect(RELATIVE_TOLERANCE).toBe(1e-9);
    expect(withinTolerance(100, 100 * (1 + 0.5 * RELATIVE_TOLERANCE))).toBe(true);
    expect(withinTolerance(100, 100 * (1 + 2 * RELATIVE_TOLERANCE))).toBe(false);
    expect(withinTolerance(0, 0.5 * ABSOLUTE_TOLERANCE)).toBe(true);
    expect(withinTolerance(0, 2 * ABSOLUTE_TOLERANCE)).toBe(false);
    const experiments = readResults([results]);
    const scaled = (factor: number): Baseline => {
      const b = readBaseline(BASELINES);
      b.settings[2]!.policies[0]!.meanCumRegret = b.settings[2]!.policies[0]!.meanCumRegret.map((v) => v * factor);
      return b;
    };
    expect(compareWithBaseline(scaled(1 + 0.5 * RELATIVE_TOLERANCE), experiments)).toEqual([]);
    const failing = compareWithBaseline(scaled(1 + 2 * RELATIVE_TOLERANCE), experiments);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.every((r) => r.policy === 'EOFD-MLogB' && /^t = \d+$/.test(r.at))).toBe(true);
  });

  it('places 20 checkpoints evenly, ending at T', () => {
    expect(checkpoints(300)).toEqual(Array.from({ length: 20 }, (_, j) => 15 * (j + 1)));
    expect(checkpoints(30)).toEqual([2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18, 20, 21, 23, 24, 26, 27, 29, 30]);
    expect(checkpoints(5)).toEqual([1, 2, 3, 4, 5]);
  });

  it('exits 2 with one line when the baseline folder has no baseline.json', async () => {
    const check = await runCli(['report', '--check', root, results]);
    expect(check.code).toBe(2);
    expect(check.stderr).toMatch(/^eofd report: .*baseline\.json: not found \(run scripts\/update-baselines\)\n$/);
  });
});
