/**
 * One rule for the folders a command creates, locks, replaces or deletes (issue #23): `<out>/<folder>`
 * is changed only under `<out>/.<folder>.lock`; --force deletes only what eofd wrote and nothing a
 * live lock holds; names of experiments cannot be the folders or files of another command; merge and
 * report build beside and swap, and clean what a killed predecessor left.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ConfigError, RunError } from '../../src/base/errors.js';
import { isExperimentName } from '../../src/config/schema.js';
import { loadConfigs } from '../../src/config/load.js';
import { acquireLock } from '../../src/experiment/lock.js';
import { mergeShards } from '../../src/experiment/merge.js';
import { parseAxis, runSweep } from '../../src/experiment/sweep.js';
import { buildReport, writeReport } from '../../src/report/index.js';
import { listFiles, runCli, tempDir, tinyConfig, writeFile } from './fixtures.js';
import { thrownBy } from '../helpers/errors.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-folder-rules-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

const sweepConfig = (name: string) => loadConfigs(writeFile(root, `${name}.yaml`, tinyConfig(name, { horizon: 6, trials: 1, policies: '[EOFD-MLogB]' })))[0]!;

describe('experiment names cannot be another command\'s folders or files', () => {
  for (const name of ['zz-sweep', 'X-grid', 'shard-1-of-2', '.a.lock', 'a.merging-12', 'a.replaced-3', 'a.tmp-4', 'a.csv.partial']) {
    it(`refuses the name ${JSON.stringify(name)} with the reason`, () => {
      expect(isExperimentName(name)).toBe(false);
      const file = writeFile(root, 'reserved.yaml', tinyConfig(name, { policies: '[Random]' }));
      const error = thrownBy(ConfigError, () => loadConfigs(file));
      expect(error.message).toMatch(/name: .*reserved/);
    });
  }
  it('still accepts ordinary names', () => {
    for (const name of ['zz', 'sweep', 'grid-search', 'my.sweep', '.hidden', 'shard-a']) expect(isExperimentName(name)).toBe(true);
  });
});

describe('sweep --force deletes nothing a live lock holds', () => {
  it('refuses (naming the holder) while another sweep of the experiment runs, and leaves its points', async () => {
    const out = fs.mkdtempSync(path.join(root, 'sweep-live-'));
    const config = sweepConfig('s');
    await runSweep(config, { out, axes: [parseAxis('params.m=3,4')] });
    const dir = path.join(out, 's-sweep');
    // The other sweep holds the sweep folder's lock (and, as an older eofd did, only its points' locks).
    for (const lockFile of [path.join(out, '.s-sweep.lock'), path.join(dir, '.m=3.lock')]) {
      const held = acquireLock(lockFile);
      try {
        const error = await runSweep(config, { out, axes: [parseAxis('params.l=0,0.5')], force: true }).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RunError);
        expect((error as Error).message).toMatch(new RegExp(`pid ${process.pid}`));
      } finally {
        held.release();
      }
      expect(fs.existsSync(path.join(dir, 'm=3', 'manifest.json'))).toBe(true);
      expect(fs.existsSync(path.join(dir, 'm=4', 'manifest.json'))).toBe(true);
    }
  });
});

describe('a sweep folder holds one sweep', () => {
  it('a sweep over another key is refused without --force; --force replaces the whole sweep, figures included', async () => {
    const out = fs.mkdtempSync(path.join(root, 'sweep-other-'));
    const config = sweepConfig('t');
    await runSweep(config, { out, axes: [parseAxis('params.m=3,4')] });
    const dir = path.join(out, 't-sweep');
    const before = fs.readFileSync(path.join(dir, 'sweep.csv'), 'utf8');
    const error = await runSweep(config, { out, axes: [parseAxis('params.l=0,0.5')] }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RunError);
    expect((error as RunError).exitCode).toBe(2);
    expect((error as Error).message).toMatch(/holds a sweep over m .*--force/);
    expect(fs.readFileSync(path.join(dir, 'sweep.csv'), 'utf8')).toBe(before);
    await runSweep(config, { out, axes: [parseAxis('params.l=0,0.5')], force: true });
    expect(fs.readdirSync(dir).filter((f) => !f.startsWith('.')).sort()).toEqual(['l=0', 'l=0.5', 'sweep-params.l.svg', 'sweep.csv']);
  });
});

describe('merge --force replaces only what eofd wrote, atomically', () => {
  let shards: string[];
  beforeAll(async () => {
    const config = writeFile(root, 'm.yaml', tinyConfig('m', { horizon: 6, trials: 2, policies: '[EOFD-MLogB]' }));
    const out = path.join(root, 'm-shards');
    for (const shard of ['0/2', '1/2']) expect((await runCli(['run', config, '--out', out, '--shard', shard, '--quiet'])).code).toBe(0);
    shards = [path.join(out, 'shard-0-of-2'), path.join(out, 'shard-1-of-2')];
  });

  it('refuses to delete an <out>/<name> folder without a manifest (exit 2), and a symbolic link', () => {
    const out = fs.mkdtempSync(path.join(root, 'merge-foreign-'));
    fs.mkdirSync(path.join(out, 'm'));
    fs.writeFileSync(path.join(out, 'm', 'thesis.tex'), 'mine');
    const error = thrownBy(RunError, () => mergeShards(shards, { out, force: true }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/eofd did not write it/);
    expect(fs.readFileSync(path.join(out, 'm', 'thesis.tex'), 'utf8')).toBe('mine');

    const linked = fs.mkdtempSync(path.join(root, 'merge-link-'));
    const elsewhere = fs.mkdtempSync(path.join(root, 'elsewhere-'));
    fs.writeFileSync(path.join(elsewhere, 'manifest.json'), '{}');
    fs.symlinkSync(elsewhere, path.join(linked, 'm'));
    expect(thrownBy(RunError, () => mergeShards(shards, { out: linked, force: true })).message).toMatch(/symbolic link/);
    expect(fs.readFileSync(path.join(elsewhere, 'manifest.json'), 'utf8')).toBe('{}');
  });

  it('a merge killed mid-swap leaves the old or the new result whole, and the next merge removes the leftovers', () => {
    const out = fs.mkdtempSync(path.join(root, 'merge-killed-'));
    mergeShards(shards, { out });
    const target = path.join(out, 'm');
    const files = listFiles(target);
    // As a SIGTERM between the two renames of a merge --force leaves it: the old result aside, the new beside.
    fs.renameSync(target, `${target}.replaced-999999`);
    fs.cpSync(`${target}.replaced-999999`, `${target}.merging-999999`, { recursive: true });
    fs.rmSync(path.join(`${target}.merging-999999`, 'summary.csv'));
    mergeShards(shards, { out, force: true });
    expect(fs.readdirSync(out).filter((f) => !f.startsWith('.'))).toEqual(['m']);
    expect(listFiles(target)).toEqual(files);
  });
});

describe('report: all of one report, and no leftovers', () => {
  let results: string;
  beforeAll(async () => {
    const config = writeFile(root, 'r.yaml', tinyConfig('r', { horizon: 6, trials: 2, policies: '[EOFD-MLogB, Random]' }));
    results = path.join(root, 'r-results');
    expect((await runCli(['run', config, '--out', results, '--quiet'])).code).toBe(0);
  });

  it('a report that fails while writing leaves the previous report whole', () => {
    const out = path.join(root, 'report-a');
    writeReport(buildReport([results], { out }), out);
    const before = new Map(listFiles(out).map((f) => [f, fs.readFileSync(path.join(out, f), 'utf8')]));
    const second = buildReport([results], { out, band: 'ci95' });
    const rename = fs.renameSync;
    let renames = 0;
    vi.spyOn(fs, 'renameSync').mockImplementation((from, to) => {
      if (String(to).endsWith('report.html') && ++renames === 1) throw Object.assign(new Error('killed'), { code: 'EINTR' });
      rename(from, to);
    });
    expect(() => writeReport(second, out)).toThrow();
    vi.restoreAllMocks();
    expect(new Map(listFiles(out).map((f) => [f, fs.readFileSync(path.join(out, f), 'utf8')]))).toEqual(before);
    expect(fs.readdirSync(path.dirname(out)).filter((f) => f.startsWith('report-a'))).toEqual(['report-a']);
  });

  it('into the working folder (--out .), writes file by file: the folder the shell is in stays the same folder', () => {
    const out = path.join(root, 'report-cwd');
    fs.mkdirSync(out);
    const inode = fs.statSync(out).ino;
    const cwd = process.cwd();
    process.chdir(out);
    try {
      writeReport(buildReport([results], { out: '.' }), '.');
      writeReport(buildReport([results], { out: '.' }), '.');
      expect(fs.statSync(process.cwd()).ino).toBe(inode);
      expect(fs.existsSync('report.json')).toBe(true);
    } finally {
      process.chdir(cwd);
    }
    expect(fs.statSync(out).ino).toBe(inode);
  });

  it('the next report removes what a killed one left (temporary files, a half-built folder)', () => {
    const out = path.join(root, 'report-b');
    writeReport(buildReport([results], { out }), out);
    fs.writeFileSync(path.join(out, 'report.csv.tmp-999999'), 'half');
    fs.mkdirSync(`${out}.building-999999`);
    writeReport(buildReport([results], { out }), out);
    expect(fs.readdirSync(out).filter((f) => f.includes('.tmp-'))).toEqual([]);
    expect(fs.existsSync(`${out}.building-999999`)).toBe(false);
  });
});

describe('a lock file left empty (a full disk)', () => {
  it('a lock the writer could not fill is removed by that writer', () => {
    const file = path.join(root, '.full.lock');
    vi.spyOn(fs, 'writeSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    expect(() => acquireLock(file)).toThrow(/ENOSPC/);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('an empty lock from a writer that is gone is taken over at once, with a message', () => {
    const file = path.join(root, '.empty.lock');
    fs.writeFileSync(file, '');
    const notices: string[] = [];
    const start = performance.now();
    const lock = acquireLock(file, { onNotice: (text) => notices.push(text) });
    expect(performance.now() - start).toBeLessThan(5000);
    lock.release();
    expect(notices).toEqual([expect.stringMatching(/\.empty\.lock was empty .*taken over/)]);
  }, 10_000);
});

describe('several runs into one folder, then one report', () => {
  it('run --set params.l=0 --timing on three settings into one folder, then eofd report on it (exit 0)', async () => {
    const out = fs.mkdtempSync(path.join(root, 'results-l0-'));
    for (const name of ['mnist-like', 'k4-like', 'binary-like']) {
      const config = writeFile(root, `${name}.yaml`, tinyConfig(name, { horizon: 6, trials: 2, policies: '[EOFD-MLogB, OFUL-MLogB, Random]' }));
      expect((await runCli(['run', config, '--set', 'params.l=0', '--timing', '--out', out, '--quiet'])).code).toBe(0);
    }
    const report = await runCli(['report', out, '--out', path.join(root, 'results-l0-report')]);
    expect(report.stderr).toBe(`eofd report: wrote 6 files to ${path.join(root, 'results-l0-report')} (open ${path.join(root, 'results-l0-report', 'report.html')})\n`);
    expect(report.code).toBe(0);
  });
});
