/**
 * ETAs and `eofd status` against runs as they happen (the CLI as a child process): a timed run's
 * printed ETAs against the time it really had left, and `eofd status` (once, and `--watch`) on a
 * reproduction while its timed stage runs: every stage's units counted (those of the stages not started
 * too), the running units' rounds as the run's progress record has them, and an ETA. The bounds on
 * times are generous (a loaded machine runs the child slower, unevenly); the 25% the estimate keeps
 * after the first tenth of the work is checked on a fake clock (progress-eta.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatusReport } from '../../src/cli/commands/status.js';
import { REPRODUCE_FILE, STAGE_NAMES, type ReproduceRecord } from '../../src/experiment/reproduce.js';
import { progressRecordFile, type ProgressRecord } from '../../src/results/progress-record.js';
import { unitFiles } from '../../src/results/layout.js';
import { exitOf, listFiles, runCli, spawnCli, tempDir, tinyConfig, waitFor, writeFile } from '../experiment/fixtures.js';

let dir: string;
beforeAll(() => {
  dir = tempDir('eofd-status-live-');
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Seconds of a printed duration (progress.ts formatDuration: `42s`, `3m05s`, `2h07m`). */
function seconds(text: string): number {
  const match = /^(?:(\d+)h(\d\d)m|(?:(\d+)m)?(\d+)s)$/.exec(text);
  if (match === null) throw new Error(`not a duration: ${text}`);
  return match[1] !== undefined ? 3600 * Number(match[1]) + 60 * Number(match[2]) : 60 * Number(match[3] ?? 0) + Number(match[4]);
}

describe('ETAs of running commands', () => {
  it("a timed run's printed ETA against the time it really had left (from the third trial on: the first carry the JIT's warm-up)", async () => {
    // 8 trials of 3 policies in lock-step, about a second each when the machine is idle.
    const config = writeFile(dir, 'timed.yaml', tinyConfig('timed', { horizon: 4000, trials: 8, d: 100 }));
    const child = spawnCli(['run', config, '--timing', '--out', path.join(dir, 'timed-out')], dir);
    const lines: { at: number; text: string }[] = [];
    let partial = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      const at = performance.now();
      const parts = (partial + chunk.toString()).split('\n');
      partial = parts.pop() as string;
      for (const text of parts) lines.push({ at, text });
    });
    const exit = await exitOf(child);
    const end = performance.now();
    expect(exit.code, child.output.stderr).toBe(0);
    const etas = lines.flatMap(({ at, text }) => {
      const match = /^\[(\d+)\/24, ETA (\S+)\] /.exec(text);
      return match === null ? [] : [{ done: Number(match[1]), eta: seconds(match[2] as string), left: (end - at) / 1000 }];
    });
    expect(etas.map((e) => e.done)).toEqual(Array.from({ length: 23 }, (_, i) => i + 1));
    const checked = etas.filter((e) => e.done >= 9);
    for (const { done, eta, left } of checked) {
      // ETAs are whole seconds; the process ends a moment after its last unit.
      expect(Math.abs(eta - left), `after ${done} units: ETA ${eta} s, ${left.toFixed(2)} s left`).toBeLessThanOrEqual(0.5 * left + 1.5);
    }
  }, 120_000);
});

describe('eofd status on a running reproduction', () => {
  it("counts every stage's units (those of the stages not started too), the running rounds of the progress record, an ETA; --watch reports until the end", async () => {
    const config = writeFile(dir, 'tiny.yaml', tinyConfig('tiny', { horizon: 3000, trials: 2, d: 100 }));
    const out = path.join(dir, 'repro');
    // Stopped after the tuned stage's report (the paper-choice stage would only repeat it): its units stay missing.
    const child = spawnCli(['reproduce', config, '--out', out, '--jobs', '1', '--over', 'params.l=0,0.75', '--over', 'params.e=0.75', '--stop-after', 'report-tuned'], dir);
    const record = (): ReproduceRecord | null => {
      try {
        return JSON.parse(fs.readFileSync(path.join(out, REPRODUCE_FILE), 'utf8')) as ReproduceRecord;
      } catch {
        return null;
      }
    };
    await waitFor(() => record() !== null || child.exitCode !== null, 60_000);
    const watching = runCli(['status', out, '--watch', '0.5']);

    // Polled until the timed stage (tuned) plays a unit whose rounds and the ETA are known.
    let seen: StatusReport | null = null;
    let progress: ProgressRecord | null = null;
    const tuned = path.join(out, 'tuned', 'tiny');
    while (child.exitCode === null) {
      const report = JSON.parse((await runCli(['status', out, '--json'])).stdout) as StatusReport;
      const stage = report.reproductions[0]?.stages.find((s) => s.status === 'running');
      if (stage?.name === 'tuned' && report.eta !== null && report.experiments.some((e) => e.running.some((u) => u.rounds > 0))) {
        seen = report;
        progress = JSON.parse(fs.readFileSync(progressRecordFile(tuned), 'utf8')) as ProgressRecord;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const exit = await exitOf(child);
    expect(exit.code, child.output.stderr).toBe(0);
    expect(seen, 'status never saw the tuned stage running with an ETA').not.toBeNull();
    const report = seen as StatusReport;

    // Units: the grid 2 points × (EOFD-MLogB, OFUL-MLogB) + Random at its first point, × 2 trials; each run stage 3 × 2.
    expect(record()?.stages.map((s) => s.units ?? null)).toEqual([10, 6, null, 6, null]);
    expect(report.units).toBe(22);
    const stages = report.reproductions[0]?.stages ?? [];
    expect(stages.map((s) => s.name)).toEqual([...STAGE_NAMES]);
    expect(stages.map((s) => s.status)).toEqual(['done', 'running', 'pending', 'pending', 'pending']);
    expect(stages[0]?.units).toEqual({ units: 10, done: 10, running: 0, missing: 0 });
    expect(stages[3]?.units).toEqual({ units: 6, done: 0, running: 0, missing: 6 }); // not started: no folder yet
    expect(report.done + report.running + report.missing).toBe(22);
    expect(report.active).toBe(true);

    // The running units' rounds: at least what the progress record (written before status read it) says.
    const running = report.experiments.find((e) => path.resolve(e.folder) === path.resolve(tuned))?.running ?? [];
    expect(running.length).toBeGreaterThan(0);
    for (const unit of running) {
      const recorded = progress?.running.find((r) => r.policy === unit.policy && r.trial === unit.trial)?.rounds ?? 0;
      expect(unit.rounds, `${unit.policy} trial ${unit.trial}`).toBeGreaterThanOrEqual(recorded);
      expect(unit.rounds).toBeLessThanOrEqual(3000);
    }
    expect(report.eta?.run).toBeGreaterThanOrEqual(0);
    expect(report.eta?.run).toBeLessThan(600);

    // Once it ended: nothing active, every unit of the stages run done, no progress record left; --watch stopped by itself.
    const after = JSON.parse((await runCli(['status', out, '--json'])).stdout) as StatusReport;
    expect([after.units, after.done, after.missing, after.active, after.eta]).toEqual([22, 16, 6, false, null]);
    expect(listFiles(out).filter((f) => f.endsWith('.progress.json'))).toEqual([]);
    // From a parent folder: the reproduction found below it.
    const parent = JSON.parse((await runCli(['status', dir, '--json'])).stdout) as StatusReport;
    expect(parent.reproductions.map((r) => path.resolve(r.dir))).toEqual([path.resolve(out)]);
    const watched = await watching;
    expect(watched.code, watched.stderr).toBe(0);
    const reports = watched.stdout.split('\n').filter((l) => l.startsWith('eofd status: '));
    expect(reports.length).toBeGreaterThanOrEqual(2);
    expect(reports[reports.length - 1]).toBe('eofd status: 16 of 22 units done, 0 running, 6 missing');
    expect(watched.stdout).toMatch(/^# \d{4}-\d\d-\d\dT/);
    expect(watched.stdout).toMatch(/; ETA \S+/);
    expect(fs.existsSync(unitFiles(tuned, 'Random', 1).csv)).toBe(true);
  }, 180_000);
});
