/**
 * `eofd status` on a half-finished sharded sweep: shards 0 and 1 of 3 ran, shard 2 never started; in
 * shard 0 one unit is running (a `.partial` under a live lock: this process holds it), in shard 1 one
 * unit was cut short by a run that is gone (a `.partial` under a lock from another host whose heartbeat
 * stopped an hour ago). A unit's rounds and the ETA from its run's progress record; --watch.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.js';
import { collectStatus, formatStatus, statusCommand } from '../../src/cli/commands/status.js';
import { acquireLock, type Lock } from '../../src/experiment/lock.js';
import { lockFile, unitFiles } from '../../src/results/layout.js';
import { progressRecordFile, PROGRESS_RECORD_FORMAT, type ProgressRecord } from '../../src/results/progress-record.js';
import { runCli, tempDir, tinyConfig, writeFile } from '../experiment/fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-status-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('eofd status: bad arguments', () => {
  it('a folder that is missing or holds no experiment is exit 2, one line naming it', async () => {
    const missing = await runCli(['status', path.join(root, 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`eofd status: ${path.join(root, 'nope')}: no such folder\n`);
    fs.mkdirSync(path.join(root, 'empty'));
    const empty = await runCli(['status', path.join(root, 'empty')]);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^eofd status: .*empty: no experiment folder \(one holding manifest\.json\) in it or up to 4 levels below\n$/);
  });
});

describe('eofd status', () => {
  it('counts done / running / missing units of a half-finished sharded sweep, with hosts and ages', async () => {
    // 2 points × 2 policies × 2 trials = 8 units; unit k (point, policy, trial order) runs on shard k mod 3:
    // shard 0: k = 0, 3, 6; shard 1: 1, 4, 7; shard 2 (never started): 2, 5.
    const config = writeFile(root, 'sweep.yaml', tinyConfig('s', { horizon: 12, trials: 2, policies: '[EOFD-MLogB, OFUL-MLogB]' }));
    const out = path.join(root, 'sharded');
    for (const shard of ['0/3', '1/3']) {
      const run = await runCli(['sweep', config, '--over', 'params.beta_scale=1,2', '--shard', shard, '--jobs', '1', '--quiet', '--out', out]);
      expect(run.code, run.stderr).toBe(0);
    }
    const sweep = (shard: number): string => path.join(out, `shard-${shard}-of-3`, 's-sweep');
    const points = fs.readdirSync(sweep(0), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
    expect(points).toHaveLength(2);
    const [first, second] = points as [string, string];

    /** Makes a finished unit look unfinished: its rows up to round `rounds` in a `.partial`. */
    const unfinish = (dir: string, policy: string, trial: number, rounds: number): void => {
      const files = unitFiles(dir, policy, trial);
      const lines = fs.readFileSync(files.csv, 'utf8').split('\n');
      fs.rmSync(files.csv);
      fs.rmSync(files.summary);
      fs.writeFileSync(files.partial, lines.slice(0, rounds + 1).join('\n') + '\n');
    };
    // Running: unit 0 (first point, EOFD-MLogB trial 0) in shard 0, under a lock this process holds.
    unfinish(path.join(sweep(0), first), 'EOFD-MLogB', 0, 4);
    // Cut short: unit 7 (second point, OFUL-MLogB trial 1) in shard 1, under a lock from another host, silent for an hour.
    unfinish(path.join(sweep(1), second), 'OFUL-MLogB', 1, 5);
    const staleLock = lockFile(sweep(1), second);
    fs.writeFileSync(staleLock, JSON.stringify({ pid: 4242, host: 'elsewhere', started: '2025-01-01T00:00:00.000Z', heartbeat_ms: 5000, token: 't' }) + '\n');
    const hourAgo = new Date(Date.now() - 3600_000);
    fs.utimesSync(staleLock, hourAgo, hourAgo);

    let lock: Lock | null = null;
    try {
      lock = acquireLock(lockFile(sweep(0), first));
      const json = await runCli(['status', out, '--json']);
      expect(json.code, json.stderr).toBe(0);
      const report = JSON.parse(json.stdout);
      expect({ units: report.units, done: report.done, running: report.running, missing: report.missing, stale: report.stale }).toEqual({
        units: 8,
        done: 4,
        running: 1,
        missing: 3,
        stale: 1,
      });
      const sharded = path.join(path.relative(process.cwd(), out), 'shard-*-of-3', 's-sweep');
      expect(report.experiments.map((e: { name: string }) => e.name)).toEqual([path.join(sharded, first), path.join(sharded, second)]);
      const [a, b] = report.experiments;
      expect([a.done, a.running.length, a.missing, b.done, b.running.length, b.missing]).toEqual([2, 1, 1, 2, 0, 2]);
      expect(a.shards).toEqual({ count: 3, absent: [2] });
      expect(a.running[0]).toMatchObject({ policy: 'EOFD-MLogB', trial: 0, rounds: 4, lock: { host: os.hostname(), pid: process.pid, live: true } });
      expect(b.stale[0]).toMatchObject({ policy: 'OFUL-MLogB', trial: 1, rounds: 5, lock: null });
      const stale = b.locks.find((l: { file: string }) => l.file === staleLock);
      expect(stale).toMatchObject({ host: 'elsewhere', pid: 4242, live: false });
      expect(stale.heartbeatAge).toBeGreaterThanOrEqual(3600);

      const text = await runCli(['status', out]);
      expect(text.code).toBe(0);
      const lines = text.stdout.trimEnd().split('\n');
      expect(lines[0]).toBe('eofd status: 4 of 8 units done, 1 running, 3 missing (1 cut short by a run that is gone)');
      expect(lines).toContain(`${path.join(sharded, first)}: 2 of 4 units done, 1 running, 1 missing`);
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^  running: EOFD-MLogB trial 0, 4/12 rounds \\(33\\.3%\\), written \\d+s ago, on ${os.hostname()} pid ${process.pid}, heartbeat \\d+s ago$`)));
      expect(lines).toContainEqual(expect.stringMatching(/^ {2}cut short: OFUL-MLogB trial 1 at 5\/12 rounds, written \d+s ago; --resume redoes it$/));
      expect(lines.filter((l) => l === '  not started: shard 2 of 3 (no folder)')).toHaveLength(2);
      expect(lines).toContainEqual(expect.stringMatching(/^ {2}lock .*: elsewhere pid 4242, heartbeat 1h00m ago \(stale: that run is gone\)$/));

      // One shard's folder alone: its units and those of the shards not given (missing).
      const one = JSON.parse((await runCli(['status', path.join(out, 'shard-1-of-3'), '--json'])).stdout);
      expect([one.units, one.done, one.running, one.missing]).toEqual([8, 2, 0, 6]);
    } finally {
      lock?.release();
    }
  });
});

describe('eofd status: reliability', () => {
  it('reliability: status counts each unit once (a merged experiment beside the shards it was merged from)', async () => {
    const config = writeFile(root, 'merged.yaml', tinyConfig('m', { horizon: 8, trials: 2, policies: '[EOFD-MLogB, Random]' }));
    const out = path.join(root, 'merged');
    for (const shard of ['0/2', '1/2']) expect((await runCli(['run', config, '--shard', shard, '--jobs', '1', '--quiet', '--out', out])).code).toBe(0);
    const shards = [0, 1].map((i) => path.join(out, `shard-${i}-of-2`));
    expect((await runCli(['merge', ...shards, '--out', out, '--quiet'])).code).toBe(0);
    for (const given of [[out], [path.join(out, 'm'), shards[0] as string]]) {
      const r = await runCli(['status', ...given, '--json']);
      expect(r.code).toBe(0);
      const report = JSON.parse(r.stdout) as { units: number; done: number; missing: number; experiments: { name: string; shards: unknown }[] };
      expect([report.units, report.done, report.missing, report.experiments.length]).toEqual([4, 4, 0, 1]);
      expect(report.experiments[0]?.name).toBe(path.join(out, 'm'));
    }
    // A unit not done in the merged folder is looked up in its shard (done there: still one unit, done).
    fs.rmSync(unitFiles(path.join(out, 'm'), 'Random', 1).csv);
    const r = JSON.parse((await runCli(['status', out, '--json'])).stdout) as { units: number; done: number };
    expect([r.units, r.done]).toEqual([4, 4]);
  });

  it('reliability: manifests are validated like configs (a foreign manifest with 10⁹ trials is refused at once by status and export, naming file and field)', async () => {
    const dir = path.join(root, 'foreign', 'x');
    fs.mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'manifest.json');
    const manifest = { name: 'x', config: { environment: { type: 'synthetic', K: 2, d: 6 }, horizon: 10, trials: 1e9, policies: ['Random'] } };
    fs.writeFileSync(file, JSON.stringify(manifest));
    const started = Date.now();
    const status = await runCli(['status', dir]);
    const exported = await runCli(['export', dir, '--out', path.join(root, 'foreign.csv')]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect([status.code, status.stderr]).toEqual([2, `eofd status: ${file}: config.trials: expected a trial count from 1 to 10000, got 1000000000\n`]);
    expect([exported.code, exported.stderr]).toEqual([2, `eofd export: ${file}: config.trials: expected a trial count from 1 to 10000, got 1000000000\n`]);
    for (const [field, value, message] of [
      ['horizon', 1e9, 'config.horizon: expected a horizon from 1 to 100000000, got 1000000000'],
      ['policies', ['../../elsewhere'], "config.policies.0: expected a policy label of 1-100 characters from [A-Za-z0-9._-], not '.' or '..' (it names a folder), got \"../../elsewhere\""],
    ] as const) {
      fs.writeFileSync(file, JSON.stringify({ ...manifest, config: { ...manifest.config, trials: 2, [field]: value } }));
      const r = await runCli(['status', dir]);
      expect([r.code, r.stderr]).toEqual([2, `eofd status: ${file}: ${message}\n`]);
    }
  });
});

describe('eofd status: progress records, --watch', () => {
  it("a running unit's rounds and the ETA come from its run's progress record under a live lock held by its writer; another writer's record is ignored", async () => {
    const config = writeFile(root, 'live.yaml', tinyConfig('live', { horizon: 20, trials: 1, policies: '[EOFD-MLogB, Random]' }));
    const out = path.join(root, 'live');
    expect((await runCli(['run', config, '--jobs', '1', '--quiet', '--out', out])).code).toBe(0);
    const dir = path.join(out, 'live');
    // EOFD-MLogB trial 0 running: 3 rows in its CSV (the rest still buffered), 12 rounds played.
    const files = unitFiles(dir, 'EOFD-MLogB', 0);
    const lines = fs.readFileSync(files.csv, 'utf8').split('\n');
    fs.rmSync(files.csv);
    fs.rmSync(files.summary);
    fs.writeFileSync(files.partial, lines.slice(0, 4).join('\n') + '\n');
    const write = (pid: number): void => {
      const record: ProgressRecord = {
        format: PROGRESS_RECORD_FORMAT,
        pid,
        host: os.hostname(),
        written_ms: Date.now() - 10_000,
        running: [{ policy: 'EOFD-MLogB', trial: 0, rounds: 12 }],
        eta: { run: 100, later: 200 },
      };
      fs.writeFileSync(progressRecordFile(dir), JSON.stringify(record));
    };
    const lock = acquireLock(lockFile(out, 'live'));
    try {
      write(process.pid);
      const report = collectStatus([out]);
      expect(report.experiments[0]?.running[0]).toMatchObject({ policy: 'EOFD-MLogB', trial: 0, rounds: 12 });
      expect(report.eta).toMatchObject({ later: 200 });
      expect(report.eta?.run).toBeGreaterThan(85);
      expect(report.eta?.run).toBeLessThanOrEqual(90); // 100 s ten seconds ago
      expect(report.active).toBe(true);
      expect(formatStatus(report).split('\n')[0]).toMatch(/^eofd status: 1 of 2 units done, 1 running, 0 missing; ETA 4m\d\ds \(this stage 1m\d\ds, later stages 3m20s\) \(estimated 10s ago\)$/);
      expect(formatStatus(report)).toMatch(/\n {2}running: EOFD-MLogB trial 0, 12\/20 rounds \(60%\), written \d+s ago, on /);
      write(process.pid + 1); // not the lock's holder: a killed run's, left behind
      const stale = collectStatus([out]);
      expect([stale.experiments[0]?.running[0]?.rounds, stale.eta]).toEqual([3, null]);
    } finally {
      lock.release();
    }
    const gone = collectStatus([out]);
    expect([gone.running, gone.stale, gone.active]).toEqual([0, 1, false]);
    expect(formatStatus(gone)).toMatch(/\n {2}cut short: EOFD-MLogB trial 0 at 3\/20 rounds, written \d+s ago; --resume redoes it\n/);
    fs.writeFileSync(files.checkpoint, 'EOFDCKPT'); // a checkpoint (its content not read)
    expect(formatStatus(collectStatus([out]))).toMatch(/\n {2}cut short: EOFD-MLogB trial 0 at 3\/20 rounds, written \d+s ago; --resume continues it from its checkpoint\n/);
  });

  it('of two processes running side by side (shards, two hosts), the ETA is the one that needs longest', async () => {
    const out = path.join(root, 'side');
    for (const name of ['p', 'q']) {
      const config = writeFile(root, `${name}.yaml`, tinyConfig(name, { horizon: 10, trials: 1, policies: '[Random]' }));
      expect((await runCli(['run', config, '--jobs', '1', '--quiet', '--out', out])).code).toBe(0);
    }
    const record = (name: string, host: string, pid: number, run: number): void => {
      const written: ProgressRecord = { format: PROGRESS_RECORD_FORMAT, pid, host, written_ms: Date.now(), running: [], eta: { run, later: 0 } };
      fs.writeFileSync(progressRecordFile(path.join(out, name)), JSON.stringify(written));
    };
    const lock = acquireLock(lockFile(out, 'p'));
    try {
      record('p', os.hostname(), process.pid, 100);
      // q's run on another host, its heartbeat fresh: live.
      fs.writeFileSync(lockFile(out, 'q'), JSON.stringify({ pid: 4242, host: 'elsewhere', started: new Date().toISOString(), heartbeat_ms: 5000, token: 't' }) + '\n');
      record('q', 'elsewhere', 4242, 300);
      expect(collectStatus([out]).eta).toMatchObject({ host: 'elsewhere', pid: 4242, later: 0 });
      record('q', 'elsewhere', 4242, 50);
      expect(collectStatus([out]).eta).toMatchObject({ host: os.hostname(), pid: process.pid });
    } finally {
      lock.release();
      fs.rmSync(lockFile(out, 'q'));
    }
  });

  it('--watch reports again until nothing runs; once on a folder where nothing runs; a bad interval is exit 2', async () => {
    const config = writeFile(root, 'watch.yaml', tinyConfig('watch', { horizon: 10, trials: 1, policies: '[Random]' }));
    const out = path.join(root, 'watch');
    expect((await runCli(['run', config, '--jobs', '1', '--quiet', '--out', out])).code).toBe(0);
    const stdout = { text: '', write: (t: string) => void (stdout.text += t), isTTY: false };
    const stderr = { text: '', write: (t: string) => void (stderr.text += t), isTTY: false };
    const io = { stdout, stderr, env: {} } as unknown as CliIo;
    const lock = acquireLock(lockFile(out, 'watch'));
    let sleeps = 0;
    const code = await statusCommand([out], { watch: '2' }, io, async (ms) => {
      expect(ms).toBe(2000);
      if (++sleeps === 2) lock.release(); // the run ends during the second wait
    });
    expect([code, sleeps]).toEqual([0, 2]);
    expect(stdout.text.split('\n').filter((l) => l.startsWith('eofd status: '))).toHaveLength(3);
    expect(stdout.text.split('\n').filter((l) => /^# \d{4}-/.test(l))).toHaveLength(3);
    const once = await runCli(['status', out, '--watch']);
    expect([once.code, once.stdout.split('\n').filter((l) => l.startsWith('eofd status: '))]).toEqual([0, ['eofd status: 1 of 1 units done, 0 running, 0 missing']]);
    const bad = await runCli(['status', out, '--watch', 'soon']);
    expect([bad.code, bad.stderr]).toEqual([2, 'eofd status: --watch: expected seconds from 0.1 to 86400, got "soon"\n']);
  });
});
