/**
 * `eofd reproduce` as a child process on a tiny config and a two-point grid: the five stages end to
 * end, a resumed run with nothing left to play, resumes refused when the config or a chosen value
 * changed, and a run killed (SIGKILL) in its middle stage that, resumed, writes the same trials as an
 * uninterrupted one; a reproduction and its shards, each stopped (SIGSTOP) while it holds its lock, and
 * the others refused or run beside it; the shard's merge hint pasted into bash.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimsText } from '../../src/cli/commands/reproduce.js';
import { REPRODUCE_FILE, STAGE_NAMES, type ReproduceRecord, type ReproduceResult } from '../../src/experiment/reproduce.js';
import { LOCK_STEP } from '../../src/experiment/runner.js';
import { buildReport, displayWidth } from '../../src/report/index.js';
import { exitOf, runCli, spawnCli, tempDir, tinyConfig, trialCsvs, waitFor, withoutTimings, writeFile } from '../experiment/fixtures.js';

const GRID = ['--over', 'params.l=0,0.75', '--over', 'params.e=0.75'];
const SMALL = ['--trials', '2', '--set', 'horizon=300', '--jobs', '1', ...GRID];

let dir: string;
let config: string;

beforeAll(() => {
  dir = tempDir('eofd-reproduce-');
  config = writeFile(dir, 'tiny.yaml', tinyConfig('tiny'));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const record = (out: string): ReproduceRecord => JSON.parse(fs.readFileSync(path.join(out, REPRODUCE_FILE), 'utf8')) as ReproduceRecord;

/** The trial CSVs of both run stages, timings removed. */
function trials(out: string): Map<string, string> {
  const all = new Map<string, string>();
  for (const run of ['tuned', 'paper-choice']) {
    for (const [file, text] of trialCsvs(path.join(out, run, 'tiny'))) all.set(`${run}/${file}`, withoutTimings(text));
  }
  return all;
}

describe('eofd reproduce: bad arguments', () => {
  it('refuses --l with --over, a key no policy reads, and --resume with --force (exit 2, one line)', async () => {
    const out = path.join(dir, 'bad');
    for (const args of [
      [config, '--over', 'params.l=0', '--l', '0'],
      [config, '--over', 'params.zzz=1,2'],
      [config, '--resume', '--force'],
    ]) {
      const result = await runCli(['reproduce', ...args, '--out', out, '--quiet']);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
    }
    expect(fs.existsSync(path.join(out, REPRODUCE_FILE))).toBe(false);
  });
});

describe('eofd reproduce: stages, resume, SIGKILL', () => {
  const full = (): string => path.join(dir, 'full');

  it('runs every stage end to end and records each', async () => {
    const child = spawnCli(['reproduce', config, ...SMALL, '--out', full()], dir);
    const { code } = await exitOf(child);
    expect(code, child.output.stderr).toBe(0);
    expect(fs.existsSync(path.join(full(), 'tune', 'tiny-grid', 'best.json'))).toBe(true);
    for (const run of ['tuned', 'paper-choice']) expect(fs.existsSync(path.join(full(), run, 'tiny', 'summary.csv')), run).toBe(true);
    for (const report of ['report-tuned', 'report-paper-choice']) expect(fs.existsSync(path.join(full(), report, 'report.json')), report).toBe(true);
    const { stages, exit_code, command } = record(full());
    expect(exit_code).toBe(0);
    expect(command.slice(0, 3)).toEqual(['eofd', 'reproduce', config]);
    expect(stages.map((s) => s.name)).toEqual([...STAGE_NAMES]);
    for (const stage of stages) {
      expect(stage, stage.name).toMatchObject({ status: 'done', exit_code: 0, skipped: false });
      expect(stage.seconds, stage.name).toBeGreaterThanOrEqual(0);
      expect(Date.parse(stage.ended as string)).toBeGreaterThanOrEqual(Date.parse(stage.started as string));
    }
    // The paper's choice runs every learner at (l, e) = (0.75, 0.75); the run stages in this process, in lock-step.
    const manifest = JSON.parse(fs.readFileSync(path.join(full(), 'paper-choice', 'tiny', 'manifest.json'), 'utf8'));
    for (const label of ['EOFD-MLogB', 'OFUL-MLogB']) expect(manifest.config.variants[label].params, label).toMatchObject({ l: 0.75, e: 0.75 });
    for (const run of ['tuned', 'paper-choice']) {
      const timing = JSON.parse(fs.readFileSync(path.join(full(), run, 'tiny', 'manifest.json'), 'utf8')).timing;
      expect(timing.runs.map((r: { jobs: number; pairing: string }) => [r.jobs, r.pairing]), run).toEqual([[1, LOCK_STEP]]);
    }
    expect(child.output.stderr).toMatch(/wall time per stage/);
    // The claims of both reports end the output, on stdout (a pipe here: complete lines).
    expect(child.output.stdout).toMatch(/^\nat the paper's \(l, e\) = \(0\.75, 0\.75\) \(.*report-paper-choice\/report\.html\)\n[\s\S]*verdict[\s\S]*\nat the grid's choice \(.*report-tuned\/report\.html\)\n[\s\S]*verdict/);
    expect(child.output.stdout.match(/synthetic, K ≥ 2/g)?.length).toBe(2);
  });

  it('the claims tables fit a terminal of 60 columns, as eofd report fits them', () => {
    const reports = (['report-paper-choice', 'report-tuned'] as const).map((stage) => {
      const run = stage === 'report-tuned' ? 'tuned' : 'paper-choice';
      return { stage, dir: path.join(full(), stage), report: buildReport([path.join(full(), run)]) };
    });
    const result = { dir: full(), reports } as unknown as ReproduceResult;
    const wide = claimsText(result, { write: () => true, isTTY: false }, {});
    const narrow = claimsText(result, { write: () => true, isTTY: true, columns: 60 }, { NO_COLOR: '1' });
    expect(Math.max(...wide.split('\n').map(displayWidth))).toBeGreaterThan(60);
    expect(Math.max(...narrow.split('\n').map(displayWidth))).toBeLessThanOrEqual(60);
    expect(narrow).toMatch(/verdict/);
  });

  it('without --resume or --force an existing reproduction is refused (exit 2)', async () => {
    const result = await runCli(['reproduce', config, ...SMALL, '--out', full(), '--quiet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/already holds a reproduction.*--resume/);
  });

  it('--resume with nothing left to play: the grid and the runs are skipped with their recorded times, the reports rebuilt', async () => {
    const before = record(full());
    const result = await runCli(['reproduce', config, ...SMALL, '--out', full(), '--resume']);
    expect(result.code, result.stderr).toBe(0);
    const after = record(full());
    expect(after.stages.map((s) => [s.name, s.status, s.skipped])).toEqual([
      ['tune', 'done', true],
      ['tuned', 'done', true],
      ['report-tuned', 'done', false],
      ['paper-choice', 'done', true],
      ['report-paper-choice', 'done', false],
    ]);
    for (const i of [0, 1, 3]) expect(after.stages[i]?.started).toBe(before.stages[i]?.started); // the run stages
    expect(result.stderr.match(/\] \S+: every unit finished earlier/g)).toHaveLength(3);
  });

  it('--resume on a copy without the per-round files (as committed): every stage kept as it stands, nothing played again, the reports unchanged; a changed config refused', async () => {
    const copy = path.join(dir, 'committed');
    fs.cpSync(full(), copy, { recursive: true });
    // What .gitignore leaves out of a committed reproduction: the policies' folders of runs and grid points.
    for (const run of ['tuned', 'paper-choice']) for (const label of ['EOFD-MLogB', 'OFUL-MLogB', 'Random']) fs.rmSync(path.join(copy, run, 'tiny', label), { recursive: true });
    for (const point of fs.readdirSync(path.join(copy, 'tune', 'tiny-grid')).filter((f) => f.includes('='))) {
      for (const label of ['EOFD-MLogB', 'OFUL-MLogB', 'Random']) fs.rmSync(path.join(copy, 'tune', 'tiny-grid', point, label), { recursive: true, force: true });
    }
    const reports = (root: string) => ['report-tuned', 'report-paper-choice'].map((r) => fs.readFileSync(path.join(root, r, 'report.json'), 'utf8'));
    const before = fs.readFileSync(path.join(copy, REPRODUCE_FILE), 'utf8');
    const changed = await runCli(['reproduce', config, ...SMALL, '--set', 'horizon=301', '--out', copy, '--resume', '--quiet']);
    expect(changed.code, changed.stderr).toBe(2);
    expect(changed.stderr).toMatch(/cannot resume .*tiny-grid.*horizon/);
    expect(fs.readFileSync(path.join(copy, REPRODUCE_FILE), 'utf8')).toBe(before);
    const result = await runCli(['reproduce', config, ...SMALL, '--out', copy, '--resume']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.match(/\] \S+: finished earlier.*, its outputs kept as they stand/g)).toHaveLength(5);
    expect(result.stderr).not.toMatch(/running \d+ units/);
    expect(record(copy).stages.map((s) => [s.status, s.skipped])).toEqual(Array(5).fill(['done', true]));
    expect(reports(copy)).toEqual(reports(full()));
  });

  it('--resume refuses what would be stale: a changed config, or a grid whose choice changed (the stages after it pending again)', async () => {
    const copy = path.join(dir, 'stale');
    fs.cpSync(full(), copy, { recursive: true });
    const changed = SMALL.map((word) => (word === 'horizon=300' ? 'horizon=301' : word));
    const horizon = await runCli(['reproduce', config, ...changed, '--out', copy, '--resume']);
    expect(horizon.code).toBe(2);
    expect(horizon.stderr).toMatch(/horizon: 300 vs 301/);
    // A grid of one other point chooses l = 0.5 for every learner: the tuned run, played at the old
    // choice, no longer matches it (best.json is rewritten by the tune stage from its points).
    const otherGrid = SMALL.map((word) => (word === 'params.l=0,0.75' ? 'params.l=0.5' : word));
    const regridded = await runCli(['reproduce', config, ...otherGrid, '--out', copy, '--resume']);
    expect(regridded.code, regridded.stderr).toBe(2);
    expect(regridded.stderr).toMatch(/cannot resume .*tuned.*differs/);
    expect(record(copy).stages.map((s) => [s.name, s.status])).toEqual([
      ['tune', 'done'],
      ['tuned', 'failed'],
      ['report-tuned', 'pending'],
      ['paper-choice', 'pending'],
      ['report-paper-choice', 'pending'],
    ]);
  });

  it('killed (SIGKILL) in a middle stage, then resumed: the same trials as the uninterrupted run', async () => {
    const out = path.join(dir, 'killed');
    const child = spawnCli(['reproduce', config, ...SMALL, '--out', out], dir);
    const running = (): boolean => {
      try {
        return record(out).stages.find((s) => s.name === 'tuned')?.status === 'running';
      } catch {
        return false;
      }
    };
    await waitFor(() => running() || child.exitCode !== null);
    child.kill('SIGKILL');
    expect((await exitOf(child)).signal, child.output.stderr).toBe('SIGKILL');
    expect(record(out).stages.map((s) => s.status)).toEqual(['done', 'running', 'pending', 'pending', 'pending']);

    const resumed = spawnCli(['reproduce', config, ...SMALL, '--out', out, '--resume'], dir);
    expect((await exitOf(resumed)).code, resumed.output.stderr).toBe(0);
    const { stages } = record(out);
    expect(stages.map((s) => [s.name, s.status, s.skipped])).toEqual([
      ['tune', 'done', true],
      ['tuned', 'done', false],
      ['report-tuned', 'done', false],
      ['paper-choice', 'done', false],
      ['report-paper-choice', 'done', false],
    ]);
    // The killed attempt has no end: it counts as interrupted, with no time.
    const tuned = stages[1]!;
    expect(tuned.attempts.map((a) => [a.status, a.seconds === null])).toEqual([['interrupted', true], ['done', false]]);
    expect(tuned.seconds).toBe(tuned.attempts[1]!.seconds);
    const expected = trials(full());
    expect(expected.size).toBe(12); // 2 runs × 3 policies × 2 trials
    expect(trials(out)).toEqual(expected);
  });
});

describe('eofd reproduce: stopped by a signal with its output piped', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)('%s after the reader of its output went away (`| tee`, then Ctrl-C): exit %i, reproduce.json says so; resumed, the stage time sums both attempts', async (signal, code) => {
    const out = path.join(dir, `piped-${signal}`);
    const child = spawnCli(['reproduce', config, ...SMALL, '--out', out], dir);
    const running = (): boolean => {
      try {
        return record(out).stages.find((s) => s.name === 'tuned')?.status === 'running';
      } catch {
        return false;
      }
    };
    await waitFor(() => running() || child.exitCode !== null);
    // tee stopped by the same Ctrl-C: every later write to stdout or stderr fails (EPIPE).
    child.stdout?.destroy();
    child.stderr?.destroy();
    child.kill(signal);
    expect(await exitOf(child)).toEqual({ code, signal: null });
    const stopped = record(out);
    expect(stopped.exit_code).toBe(code);
    expect(stopped.ended).not.toBeNull();
    expect(stopped.stages.map((s) => s.status)).toEqual(['done', 'interrupted', 'pending', 'pending', 'pending']);
    const tuned = stopped.stages[1]!;
    expect(tuned.exit_code).toBe(code);
    expect(tuned.attempts.map((a) => a.status)).toEqual(['interrupted']);
    const first = tuned.attempts[0]!.seconds as number;
    expect(tuned.seconds).toBe(first);

    const resumed = await runCli(['reproduce', config, ...SMALL, '--out', out, '--resume', '--quiet']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const after = record(out).stages[1]!;
    expect(after.attempts.map((a) => a.status)).toEqual(['interrupted', 'done']);
    expect(after.seconds).toBeCloseTo(first + (after.attempts[1]!.seconds as number), 9);
  });
});

describe('eofd reproduce --shard', () => {
  it("runs one stage's share at a time; the merged shards give the one-machine grid, trials and reports", async () => {
    const out = path.join(dir, 'sharded');
    const shard = (i: number) => runCli(['reproduce', config, ...SMALL, '--out', out, '--shard', `${i}/2`]);
    const merge = (stage: string) => runCli(['merge', path.join(out, stage, 'shard-0-of-2'), path.join(out, stage, 'shard-1-of-2'), '--out', path.join(out, stage)]);
    for (const stage of ['tune', 'tuned', 'paper-choice']) {
      for (const i of [0, 1]) {
        const result = await shard(i);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stderr).toMatch(new RegExp(`shard ${i}/2 \\(from --shard ${i}/2\\) of stage ${stage}: \\d+ units run, 0 kept, 0 failed`));
        expect(result.stderr).toContain(`merge ${path.join(out, stage)}/shard-*-of-2 --out ${path.join(out, stage)}`);
        expect(fs.existsSync(path.join(out, stage, `shard-${i}-of-2`))).toBe(true);
      }
      const merged = await merge(stage);
      expect(merged.code, merged.stderr).toBe(0);
    }
    expect(fs.existsSync(path.join(out, REPRODUCE_FILE))).toBe(false); // shards race on nothing
    const nothing = await shard(0);
    expect(nothing.code).toBe(0);
    expect(nothing.stderr).toMatch(/every run stage is finished .*without a shard/);
    const reports = await runCli(['reproduce', config, ...SMALL, '--out', out, '--resume', '--quiet']);
    expect(reports.code, reports.stderr).toBe(0);
    expect(record(out).stages.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done', 'done']);
    const best = (root: string) => JSON.parse(fs.readFileSync(path.join(root, 'tune', 'tiny-grid', 'best.json'), 'utf8')).policies;
    expect(best(out)).toEqual(best(path.join(dir, 'full')));
    expect(trials(out)).toEqual(trials(path.join(dir, 'full')));
    const report = (root: string) => JSON.parse(fs.readFileSync(path.join(root, 'report-tuned', 'report.json'), 'utf8')).experiments[0].policies.map((p: { policy: string; finalRegret: unknown }) => [p.policy, p.finalRegret]);
    expect(report(out)).toEqual(report(path.join(dir, 'full')));
  });
});

describe('eofd reproduce with tune_from, in pieces (--stop-after)', () => {
  it("runs no grid for an experiment tuned from another: it takes that grid's best.json, and the record says so", async () => {
    const out = path.join(dir, 'borrowed');
    const file = writeFile(dir, 'two.yaml', `${tinyConfig('own')}---\n${tinyConfig('borrower', { d: 5 })}tune_from: own\n`);
    const args = ['reproduce', file, ...SMALL, '--set', 'horizon=60', '--out', out];
    const piece = await runCli([...args, '--stop-after', 'tune']);
    expect(piece.code, piece.stderr).toBe(0);
    expect(piece.stderr).toMatch(/stopped after stage tune \(--stop-after\); the later stages: .*reproduce .*--resume\n/);
    expect(record(out).stages.map((s) => s.status)).toEqual(['done', 'pending', 'pending', 'pending', 'pending']);
    const result = await runCli([...args, '--resume']);
    expect(result.code, result.stderr).toBe(0);
    expect(record(out).stages.map((s) => [s.status, s.skipped])).toEqual([['done', true], ...Array(4).fill(['done', false])]);
    expect(fs.readdirSync(path.join(out, 'tune')).filter((f) => f.endsWith('-grid'))).toEqual(['own-grid']);
    const { tuned_on, stages } = record(out);
    expect(tuned_on).toEqual({ own: 'own', borrower: 'own' });
    expect(stages[0]?.what).toMatch(/; borrower takes own's choice$/);
    const note = `note: ${path.join(out, 'tune', 'own-grid', 'best.json')} was tuned on experiment own, applied to borrower`;
    expect(result.stderr).toContain(note);
    const chosen = JSON.parse(fs.readFileSync(path.join(out, 'tune', 'own-grid', 'best.json'), 'utf8')).policies;
    const variants = JSON.parse(fs.readFileSync(path.join(out, 'tuned', 'borrower', 'manifest.json'), 'utf8')).config.variants;
    for (const label of ['EOFD-MLogB', 'OFUL-MLogB']) {
      expect(variants[label].params, label).toMatchObject({ l: chosen[label].values['params.l'], e: chosen[label].values['params.e'] });
    }
    // Its run deleted (to time it again), the tuned stage is asked whether it is kept, then run: the note is said once.
    fs.rmSync(path.join(out, 'tuned'), { recursive: true });
    fs.rmSync(path.join(out, 'report-tuned'), { recursive: true });
    const again = await runCli([...args, '--resume', '--stop-after', 'report-tuned']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.split(note)).toHaveLength(2);
  });
});

describe('eofd reproduce: one writer per reproduction', () => {
  /** Spawns `eofd reproduce <args>` and stops it (SIGSTOP) once `holding()`: a live holder of its lock, mid-work. */
  async function stopped(args: string[], holding: () => boolean): Promise<ReturnType<typeof spawnCli>> {
    const child = spawnCli(['reproduce', config, ...args], dir);
    await waitFor(() => holding() || child.exitCode !== null);
    child.kill('SIGSTOP');
    expect(child.exitCode, child.output.stderr).toBeNull();
    return child;
  }

  it('reliability: a second reproduce into the same folder is refused while the first runs, with or without --force, --resume or --shard (one lock per reproduction)', async () => {
    const out = path.join(dir, 'locked');
    // Stopped in its second stage: the first is done, and nothing but the reproduction's lock guards it.
    const inTuned = (): boolean => {
      try {
        return record(out).stages[1]?.status === 'running';
      } catch {
        return false;
      }
    };
    const first = await stopped([...SMALL, '--out', out], inTuned);
    try {
      const other = SMALL.map((word) => (word === 'horizon=300' ? 'horizon=200' : word));
      for (const flags of [['--force'], ['--resume'], [], ['--shard', '0/2'], ['--shard', '1/2', '--force']]) {
        const result = await runCli(['reproduce', config, ...other, '--out', out, ...flags, '--quiet']);
        expect(result.code, flags.join(' ')).toBe(1);
        expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
        expect(result.stderr, flags.join(' ')).toContain(`${out}: another eofd run (pid ${first.pid} `);
      }
    } finally {
      first.kill('SIGCONT');
    }
    expect((await exitOf(first)).code, first.output.stderr).toBe(0);
    // The first ran alone: every stage at its own settings, recorded for its own command.
    const { stages, command } = record(out);
    expect(stages.map((s) => s.status)).toEqual(Array(5).fill('done'));
    expect(command).not.toContain('--force');
    for (const folder of ['tune/tiny-grid/l=0,e=0.75', 'tune/tiny-grid/l=0.75,e=0.75', 'tuned/tiny', 'paper-choice/tiny']) {
      expect(JSON.parse(fs.readFileSync(path.join(out, folder, 'manifest.json'), 'utf8')).config.horizon, folder).toBe(300);
    }
    for (const stage of ['tune', 'tuned', 'paper-choice']) expect(fs.readdirSync(path.join(out, stage)).filter((f) => f.includes('shard')), stage).toEqual([]);
  });

  it("reliability: shards of one stage run at once, each under its shard folder's lock; a reproduce without a shard is refused while one runs (one lock per reproduction)", async () => {
    const out = path.join(dir, 'shards-at-once');
    const lock = path.join(out, 'tune', '.shard-0-of-2.lock');
    // Long enough a shard (T = 3,000) that it still holds its lock when stopped on a loaded machine.
    const args = [...SMALL, '--set', 'horizon=3000', '--out', out];
    // Held means filled: a lock stopped between its exclusive create and its write stays empty, and an
    // empty lock is taken over after FILL_GRACE_MS (its writer is taken to have stopped).
    const filled = (): boolean => {
      try {
        return typeof JSON.parse(fs.readFileSync(lock, 'utf8')).pid === 'number';
      } catch {
        return false;
      }
    };
    const shard0 = await stopped([...args, '--shard', '0/2'], filled);
    try {
      expect(filled()).toBe(true);
      const shard1 = await runCli(['reproduce', config, ...args, '--shard', '1/2', '--quiet']);
      expect(shard1.code, shard1.stderr).toBe(0);
      const again = await runCli(['reproduce', config, ...args, '--shard', '0/2', '--quiet']);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`${path.join(out, 'tune', 'shard-0-of-2')}: another eofd run (pid ${shard0.pid} `);
      for (const flags of [['--force'], ['--resume']]) {
        const whole = await runCli(['reproduce', config, ...args, ...flags, '--quiet']);
        expect(whole.code, flags.join(' ')).toBe(1);
        expect(whole.stderr).toContain(`${path.join(out, 'tune', 'shard-0-of-2')}: another eofd run (pid ${shard0.pid} `);
      }
    } finally {
      shard0.kill('SIGCONT');
    }
    expect((await exitOf(shard0)).code, shard0.output.stderr).toBe(0);
    expect(fs.existsSync(path.join(out, REPRODUCE_FILE))).toBe(false);
    const merged = await runCli(['merge', path.join(out, 'tune', 'shard-0-of-2'), path.join(out, 'tune', 'shard-1-of-2'), '--out', path.join(out, 'tune'), '--quiet']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(fs.existsSync(path.join(out, 'tune', 'tiny-grid', 'best.json'))).toBe(true);
  });

  it("reliability: the shard's merge hint quotes the folder, so pasted into bash a folder named $(…) is a name, never run (the shard's merge hint is quoted)", async () => {
    const out = path.join(dir, '$(touch pwned)');
    const result = await runCli(['reproduce', config, ...SMALL, '--out', out, '--shard', '0/1']);
    expect(result.code, result.stderr).toBe(0);
    const hint = /when every shard of tune is done: (.*), then the same command/.exec(result.stderr)?.[1];
    expect(hint, result.stderr).toBeDefined();
    // The hint's words after the invocation, as bash splits and expands them.
    const words = (hint as string).slice((hint as string).indexOf(' merge ') + 1);
    const printed = execFileSync('bash', ['-c', `printf '%s\\n' ${words}`], { cwd: dir, encoding: 'utf8' });
    expect(printed.split('\n').slice(0, -1)).toEqual(['merge', path.join(out, 'tune', 'shard-0-of-1'), '--out', path.join(out, 'tune')]);
    expect(fs.existsSync(path.join(dir, 'pwned'))).toBe(false);
  });
});
