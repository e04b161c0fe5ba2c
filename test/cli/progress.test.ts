import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProgress, formatDuration, LIVE_MIN, MAX_RUNNING_LINES, progressMode, remainingSeconds, ReportLog, type RoundSample } from '../../src/cli/progress.js';
import type { RunPlan, UnitRef } from '../../src/experiment/runner.js';
import type { ResolvedExperiment } from '../../src/experiment/setup.js';
import type { TrialSummary } from '../../src/results/records.js';
import { BIN, tempDir, tinyConfig, writeFile } from '../experiment/fixtures.js';
import { playTerminal } from '../helpers/terminal.js';

function sink(isTTY: boolean, size: { columns?: number; rows?: number } = {}) {
  const stream = { text: '', isTTY, ...size, write(chunk: string) { stream.text += chunk; return true; } };
  return stream;
}

const resolved = {
  config: {
    name: 'tiny',
    horizon: 10,
    trials: 2,
    policies: [
      { label: 'EOFD-MLogB', policy: 'EOFD-MLogB', params: {} },
      { label: 'EOFD-wide', policy: 'EOFD-MLogB', params: { beta_scale: 4 } },
      { label: 'Random', policy: 'Random', params: {} },
    ],
  },
  environment: { type: 'synthetic', d: 6, K: 2, reward: [0, 0.5, 1] },
  derived: {
    lambda: 1, eta: 2, m: 3, delta: 0.1, beta: 'order', beta_scale: 1, alpha: 4, lambda0: 5, eta0: 6, l: 0.75, e: 0.75, D: 1, S: 2,
    policies: { 'EOFD-wide': { policy: 'EOFD-MLogB', m: 3, beta_scale: 4 } },
  },
  split: 'report',
} as unknown as ResolvedExperiment;

const unit = (policy: string, trial: number): UnitRef => ({ experiment: 'tiny', policy, trial, horizon: 10 });
const plan: RunPlan = {
  jobs: 1,
  lockStep: false,
  experiments: [{ resolved, dir: 'out/tiny', resumed: true, finished: [unit('Random', 0)], pending: [unit('EOFD-MLogB', 0), unit('EOFD-MLogB', 1), unit('Random', 1)] }],
};
const summary = { finalRegret: 1.5, meanRoundMs: 0.25 } as TrialSummary;

describe('progress: bad arguments', () => {
  it('formatDuration clamps negative and rounds', () => {
    expect(formatDuration(-3)).toBe('0s');
    expect(formatDuration(59.4)).toBe('59s');
    expect(formatDuration(185)).toBe('3m05s');
    expect(formatDuration(7620)).toBe('2h07m');
  });
});

describe("a running unit's ETA from its progress reports", () => {
  /** Reports every 50 rounds from round 100 to `to` of a unit whose round t costs a + b·t ms (time = ∫ cost). */
  const reports = (a: number, b: number, to: number, from = 100): RoundSample[] => {
    const samples: RoundSample[] = [];
    for (let r = from; r <= to; r += 50) samples.push({ ms: 7000 + a * r + (b * r * r) / 2, rounds: r });
    return samples;
  };
  const close = (actual: number | null, expected: number): void => expect(Math.abs((actual as number) - expected)).toBeLessThanOrEqual(1e-9 * expected);

  it('is unknown before two reports with different round counts', () => {
    expect(remainingSeconds([], 100)).toBeNull();
    expect(remainingSeconds([{ ms: 5, rounds: 10 }], 100)).toBeNull();
    expect(remainingSeconds([{ ms: 5, rounds: 10 }, { ms: 9, rounds: 10 }], 100)).toBeNull();
  });

  it('a constant cost: rounds left × time per round', () => {
    close(remainingSeconds(reports(2, 0, 1000), 5000), (4000 * 2) / 1000);
  });

  it('a cost growing with t (linear): the exact integral of the cost over the rounds left, far above the mean rate', () => {
    const a = 0.5;
    const b = 0.01;
    // ∫_1000^5000 (a + b t) dt in ms.
    const exact = (a * 4000 + (b * (5000 ** 2 - 1000 ** 2)) / 2) / 1000;
    close(remainingSeconds(reports(a, b, 1000), 5000), exact);
    const meanRate = (4000 * (reports(a, b, 1000).at(-1)!.ms - 7000)) / 1000 / 1000;
    expect(exact).toBeGreaterThan(3 * meanRate);
    // Later reports of the same unit: the estimate follows the cost up.
    close(remainingSeconds(reports(a, b, 3000), 5000), (a * 2000 + (b * (5000 ** 2 - 3000 ** 2)) / 2) / 1000);
  });

  it('a falling cost (warm-up) is not extrapolated: the recent rate', () => {
    // cost 3 − 0.002 t ms from round 100 to 1000: the second half (rounds 550..1000) averages 3 − 0.775.
    close(remainingSeconds(reports(3, -0.002, 1000), 5000), (4000 * (3 - 0.002 * 775)) / 1000);
  });

  it('keeps at most 65 reports, evenly spaced, the first and the latest among them', () => {
    const log = new ReportLog();
    for (let r = 1; r <= 1000; r++) log.add({ ms: r, rounds: r });
    const samples = log.samples();
    expect(samples.length).toBeLessThanOrEqual(65);
    expect(samples[0]).toEqual({ ms: 1, rounds: 1 });
    expect(samples.at(-1)).toEqual({ ms: 1000, rounds: 1000 });
    const gaps = new Set(samples.slice(1, -1).map((x, i) => x.rounds - samples[i]!.rounds));
    expect(gaps).toEqual(new Set([16]));
    // On a linear cost the estimate from the thinned reports is within 0.1% (interpolated between reports).
    const grown = new ReportLog();
    for (let r = 1; r <= 1000; r++) grown.add({ ms: 2 * r + 0.01 * r * r, rounds: r });
    const exact = (2 * 1000 + 0.01 * (2000 ** 2 - 1000 ** 2)) / 1000;
    expect(Math.abs(remainingSeconds(grown.samples(), 2000)! - exact)).toBeLessThan(0.001 * exact);
  });
});

describe('progress', () => {
  it('chooses the live view on a large enough terminal, lines elsewhere, nothing when quiet', () => {
    expect(progressMode({ write: () => true, isTTY: true, columns: 80, rows: 24 }, false)).toBe('live');
    expect(progressMode({ write: () => true, isTTY: true, columns: LIVE_MIN.columns, rows: LIVE_MIN.rows }, false)).toBe('live');
    expect(progressMode({ write: () => true, isTTY: true, columns: LIVE_MIN.columns - 1, rows: 24 }, false)).toBe('lines');
    expect(progressMode({ write: () => true, isTTY: true, columns: 80, rows: LIVE_MIN.rows - 1 }, false)).toBe('lines');
    expect(progressMode({ write: () => true, isTTY: true, columns: 80, rows: 24 }, false, { TERM: 'dumb' })).toBe('lines');
    expect(progressMode({ write: () => true, isTTY: true }, false)).toBe('lines');
    expect(progressMode({ write: () => true }, false)).toBe('lines');
    expect(progressMode({ write: () => true, isTTY: true, columns: 80, rows: 24 }, true)).toBe('quiet');
  });

  it('prints the derived values, one line per finished unit and every failure in lines mode', () => {
    const out = sink(false);
    const { events } = createProgress('lines', out);
    events.onPlan?.(plan);
    events.onUnitDone?.(unit('EOFD-MLogB', 0), summary);
    events.onUnitFailed?.(unit('EOFD-MLogB', 1), 'tiny: EOFD-MLogB, trial 1, round 4: boom');
    expect(out.text.split('\n')).toEqual([
      expect.stringMatching(/^tiny: synthetic, d = 6, K = 2, T = 10, 2 trials, .*λ = 1, η = 2, m = 3, δ = 0\.1, β = order × 1; EOFD-wide \(EOFD-MLogB\): m = 3, beta_scale = 4$/),
      'tiny: resuming out/tiny: 1 of 4 units already finished',
      'running 3 units (policy × trial) in this process, 1 skipped as finished',
      '[1/3, ETA –] tiny/EOFD-MLogB trial 0: final regret 1.5, 0.25 ms/round',
      'eofd run: tiny: EOFD-MLogB, trial 1, round 4: boom',
      '',
    ]);
  });

  it('counts each run of a command on its own: never more done than planned across experiments', () => {
    const out = sink(false);
    const { events } = createProgress('lines', out);
    for (let run = 0; run < 3; run++) {
      events.onPlan?.(plan);
      for (const u of plan.experiments[0]?.pending ?? []) {
        events.onUnitStart?.(u);
        events.onUnitDone?.(u, summary);
      }
    }
    const counters = [...out.text.matchAll(/^\[(\d+)\/(\d+)/gm)].map((m) => `${m[1]}/${m[2]}`);
    expect(counters).toEqual(['1/3', '2/3', '3/3', '1/3', '2/3', '3/3', '1/3', '2/3', '3/3']);
  });

  it('wraps lines to a small terminal that gets lines instead of the live view', () => {
    const out = sink(true, { columns: 30, rows: 24 });
    const { events } = createProgress('lines', out);
    events.onPlan?.(plan);
    const drawn = playTerminal(out.text, 30);
    expect(drawn.wraps).toBe(0);
    expect(drawn.lines.length).toBeGreaterThan(4);
    expect(drawn.lines.join(' ').replace(/\s+/g, ' ')).toMatch(/λ = 1, η = 2, m = 3/);
  });

  it('in lines mode, prints a line on the longest-running unit while units run, at most every `linesEvery` seconds', () => {
    const out = sink(false);
    const { events } = createProgress('lines', out, 0);
    events.onPlan?.(plan);
    const [first, second] = plan.experiments[0]!.pending as [UnitRef, UnitRef];
    events.onUnitStart?.(first);
    events.onUnitStart?.(second);
    events.onProgress?.(first, 3);
    events.onProgress?.(first, 6);
    const lines = out.text.trimEnd().split('\n').slice(3);
    expect(lines).toEqual([
      expect.stringMatching(/^\[0\/3, ETA \S+\] tiny\/EOFD-MLogB trial 0: 3\/10 rounds, ETA –; 1 more running$/),
      expect.stringMatching(/^\[0\/3, ETA \S+\] tiny\/EOFD-MLogB trial 0: 6\/10 rounds, ETA \d+s; 1 more running$/),
    ]);
    // The default: a minute between such lines.
    const quiet = sink(false);
    const reporter = createProgress('lines', quiet);
    reporter.events.onPlan?.(plan);
    reporter.events.onUnitStart?.(first);
    reporter.events.onProgress?.(first, 3);
    expect(quiet.text).not.toContain('3/10 rounds');
  });

  it('prints only failures when quiet', () => {
    const out = sink(false);
    const { events } = createProgress('quiet', out);
    events.onPlan?.(plan);
    events.onUnitDone?.(unit('EOFD-MLogB', 0), summary);
    events.onUnitFailed?.(unit('Random', 1), 'tiny: Random, trial 1, round 2: boom');
    expect(out.text).toBe('eofd run: tiny: Random, trial 1, round 2: boom\n');
  });

  /** A 49-point grid's plan: 98 units (two policies, one trial) of T = 10. */
  const gridPlan = (): RunPlan => ({
    jobs: 6,
    lockStep: false,
    experiments: Array.from({ length: 49 }, (_, i) => {
      const name = `grid-point-${i}`;
      const units = ['EOFD-MLogB', 'OFUL-MLogB'].map((policy): UnitRef => ({ experiment: name, policy, trial: 0, horizon: 10 }));
      return { resolved: { ...resolved, config: { ...resolved.config, name } } as ResolvedExperiment, dir: `out/${name}`, resumed: false, finished: [], pending: units };
    }),
  });

  it.each([60, 80])('live view at %i columns: one overall line and a few running units, nothing wider, nothing left behind', (columns) => {
    const out = sink(true, { columns, rows: 24 });
    const reporter = createProgress('live', out);
    const grid = gridPlan();
    reporter.events.onPlan?.(grid);
    const units = grid.experiments.flatMap((e) => e.pending);
    let tallest = 0;
    for (let i = 0; i < units.length; i += 6) {
      const batch = units.slice(i, i + 6);
      for (const u of batch) reporter.events.onUnitStart?.(u);
      for (const u of batch) reporter.events.onProgress?.(u, 5);
      const before = out.text.length;
      reporter.log(`a message after ${i} units`);
      const frame = playTerminal(out.text.slice(before), columns).lines.filter((l) => l !== '');
      tallest = Math.max(tallest, frame.length - 1);
      expect(frame[1]).toMatch(new RegExp(`\\d+% ${i}/98 units · ETA \\S+`));
      for (const u of batch) reporter.events.onUnitDone?.(u, summary);
    }
    reporter.stop();
    const drawn = playTerminal(out.text, columns);
    expect(drawn.wraps).toBe(0);
    expect(drawn.widest).toBeLessThan(columns);
    // 1 overall line + MAX_RUNNING_LINES − 1 units + "… n more running".
    expect(tallest).toBe(1 + MAX_RUNNING_LINES);
    // What stays: the plan and the messages, no bar fragments.
    expect(drawn.lines.join('\n')).not.toMatch(/[█░]|units · ETA/);
    expect(drawn.lines.filter((l) => l.startsWith('a message after'))).toHaveLength(17);
  });
});

/** util-linux `script`, which runs a command in a pseudo-terminal, or null. */
function scriptTool(): string | null {
  const found = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return found.status === 0 && /util-linux/.test(found.stdout + found.stderr) ? 'script' : null;
}
const script = scriptTool();

describe.skipIf(script === null)('progress in a pseudo-terminal (util-linux script; skipped without it)', () => {
  let root: string;
  beforeAll(() => {
    root = tempDir('eofd-pty-');
    writeFile(root, 'pty.yaml', tinyConfig('pty', { horizon: 300, trials: 2, d: 12 }));
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  it.each([60, 80])('eofd run at %i columns draws the live view within the width, then only the summary', (columns) => {
    const command = `stty cols ${columns} rows 24; exec node ${BIN} run pty.yaml --out out-${columns} --jobs 2`;
    const run = spawnSync('script', ['-qfec', command, '/dev/null'], { cwd: root, encoding: 'utf8', env: { ...process.env, TERM: 'xterm' } });
    expect(run.status).toBe(0);
    const output = run.stdout;
    const summaryAt = output.indexOf('experiment  setting');
    expect(summaryAt).toBeGreaterThan(0);
    const progress = playTerminal(output.slice(0, summaryAt).replace(/\r\n/g, '\n'), columns);
    expect(progress.wraps).toBe(0);
    expect(progress.widest).toBeLessThan(columns);
    // A frame was drawn: the overall line with units and the ETA (the escapes show it was redrawn in place).
    expect(output).toMatch(/\d+% \d+\/6 units · ETA /);
    expect(output).toContain('\x1b[J');
    // What is left on the terminal: the plan and the summary, no bar fragments.
    const final = playTerminal(output.replace(/\r\n/g, '\n'), 10_000).lines.join('\n');
    expect(final).not.toMatch(/[█░]|units · ETA/);
    expect(final).toMatch(/^running 6 units \(policy × trial\) on 2 worker threads$/m);
    expect(final).toMatch(/^pty +d=12 K=2 T=300 +EOFD-MLogB +2 /m);
  });
});
