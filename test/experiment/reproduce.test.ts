/**
 * `tuneSources`: which experiment's grid tunes each experiment of a reproduction (`tune_from`); and
 * `eofd reproduce` in this process (--jobs 1) on tiny configs: what its stage folders and reproduce.json
 * hold after a --force, a --resume with fewer experiments, a refused --resume, and a sharded reproduction.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { parseConfigs } from '../../src/config/load.js';
import { attemptSeconds, REPRODUCE_FILE, tuneSources, type ReproduceRecord, type StageAttempt } from '../../src/experiment/reproduce.js';
import { listFiles, runCli, tempDir, tinyConfig, writeFile } from './fixtures.js';

const configs = (...documents: string[]) => parseConfigs(documents.join('---\n'), 'paper.yaml');

describe('attemptSeconds: the wall time of the attempts that made a stage\'s outputs', () => {
  const attempt = (seconds: number | null, status: StageAttempt['status']): StageAttempt => ({ started: '2026-01-01T00:00:00.000Z', ended: seconds === null ? null : '2026-01-01T01:00:00.000Z', seconds, status });
  it('sums an interrupted attempt and its resumption; counts a run again once done from that run on; none ended: null', () => {
    expect(attemptSeconds([attempt(100, 'interrupted'), attempt(50, 'done')])).toBe(150);
    expect(attemptSeconds([attempt(3213, 'done'), attempt(2923, 'done')])).toBe(2923);
    expect(attemptSeconds([attempt(10, 'done'), attempt(20, 'interrupted'), attempt(null, 'interrupted'), attempt(5, 'done')])).toBe(25);
    expect(attemptSeconds([attempt(10, 'done'), attempt(null, 'running')])).toBeNull();
    expect(attemptSeconds([])).toBeNull();
  });
});

describe('tuneSources', () => {
  it('an experiment takes its own grid, or the grid of the experiment its tune_from names', () => {
    const loaded = configs(tinyConfig('a'), `${tinyConfig('b')}tune_from: a\n`, tinyConfig('c'));
    expect(tuneSources(loaded).map((c) => c.name)).toEqual(['a', 'a', 'c']);
  });

  it('refuses an unknown name, the experiment itself and a chain, naming the file and the field (exit 2)', () => {
    for (const [documents, detail] of [
      [[tinyConfig('a'), `${tinyConfig('b')}tune_from: z\n`], /^paper\.yaml: b: tune_from: "z" is not an experiment of this reproduction \(a, b\)$/],
      [[`${tinyConfig('a')}tune_from: a\n`], /^paper\.yaml: a: tune_from: an experiment cannot be tuned from itself/],
      [[tinyConfig('a'), `${tinyConfig('b')}tune_from: a\n`, `${tinyConfig('c')}tune_from: b\n`], /^paper\.yaml: c: tune_from: "b" is itself tuned from "a"/],
    ] as const) {
      const loaded = configs(...documents);
      let error: unknown;
      try {
        tuneSources(loaded);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(detail);
      expect((error as ConfigError).exitCode).toBe(2);
    }
  });
});

describe('eofd reproduce: reliability', () => {
  const SMALL = ['--trials', '2', '--jobs', '1', '--over', 'params.l=0,0.75', '--over', 'params.e=0.75', '--quiet'];
  const REPORTS = ['report-tuned', 'report-paper-choice'];
  let dir: string;
  let one: string;
  let two: string;
  beforeAll(() => {
    dir = tempDir('eofd-reproduce-unit-');
    one = writeFile(dir, 'one.yaml', tinyConfig('a'));
    two = writeFile(dir, 'two.yaml', `${tinyConfig('a')}---\n${tinyConfig('b')}`);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const judged = (out: string, report: string): string[] =>
    (JSON.parse(fs.readFileSync(path.join(out, report, 'report.json'), 'utf8')) as { experiments: { name: string }[] }).experiments.map((e) => e.name);
  const record = (out: string): ReproduceRecord => JSON.parse(fs.readFileSync(path.join(out, REPRODUCE_FILE), 'utf8')) as ReproduceRecord;
  const reproduce = async (args: string[]): Promise<void> => {
    const result = await runCli(['reproduce', ...args, ...SMALL]);
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0);
  };

  it("reliability: the reports judge exactly this reproduction's experiments, and --force clears what eofd wrote in the stage folders, nothing else (stage folders are eofd's alone)", async () => {
    const out = path.join(dir, 'fewer', 'new');
    await reproduce([two, '--out', out, '--force']); // --force into a folder not there yet
    for (const report of REPORTS) expect(judged(out, report), report).toEqual(['a', 'b']);
    // Resumed with one experiment: b's runs stay where they are, but are not this reproduction's.
    await reproduce([one, '--out', out, '--resume']);
    for (const report of REPORTS) expect(judged(out, report), report).toEqual(['a']);
    // Started over with one experiment: b's folders go, a user's files stay.
    await reproduce([two, '--out', out, '--force']);
    fs.mkdirSync(path.join(out, 'tuned', 'mine'));
    for (const file of ['notes.txt', 'tuned/notes.txt', 'tune/notes.txt', 'report-tuned/notes.txt', 'tuned/mine/data.csv']) writeFile(out, file, 'mine');
    await reproduce([one, '--out', out, '--force']);
    for (const report of REPORTS) expect(judged(out, report), report).toEqual(['a']);
    expect(listFiles(out).filter((f) => /(^|\/)(b|b-grid)\//.test(f))).toEqual([]);
    for (const file of ['notes.txt', 'tuned/notes.txt', 'tune/notes.txt', 'report-tuned/notes.txt', 'tuned/mine/data.csv']) expect(fs.readFileSync(path.join(out, file), 'utf8'), file).toBe('mine');
    expect(fs.readdirSync(path.join(out, 'tuned')).sort()).toEqual(['a', 'mine', 'notes.txt']);
  });

  it("reliability: a stage folder that is an experiment's own folder is refused, and left as it was (stage folders are eofd's alone)", async () => {
    const out = path.join(dir, 'taken');
    const stage = writeFile(dir, 'stage.yaml', tinyConfig('tuned'));
    expect((await runCli(['run', stage, '--out', out, '--quiet'])).code).toBe(0);
    const before = listFiles(out);
    for (const flag of [[], ['--force'], ['--resume']]) {
      const result = await runCli(['reproduce', one, ...SMALL, '--out', out, ...flag]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
      expect(result.stderr).toContain(`${path.join(out, 'tuned')}: holds manifest.json: it is an experiment's folder, not a reproduction's stage folder`);
    }
    // <out> itself an experiment's folder.
    const self = await runCli(['reproduce', one, ...SMALL, '--out', path.join(out, 'tuned')]);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain(`${path.join(out, 'tuned')}: holds manifest.json: it is an experiment's folder, not a reproduction`);
    expect(listFiles(out)).toEqual(before);
  });

  it('reliability: a refused --resume leaves reproduce.json byte for byte as it was (reproduce.json keeps the real wall times)', async () => {
    const out = path.join(dir, 'refused');
    await reproduce([one, '--out', out]);
    const file = path.join(out, REPRODUCE_FILE);
    const before = fs.readFileSync(file);
    for (const changed of [['--set', 'horizon=31'], ['--trials', '3']]) {
      const result = await runCli(['reproduce', one, ...SMALL, ...changed, '--out', out, '--resume']);
      expect(result.code, changed.join(' ')).toBe(2);
      expect(result.stderr).toMatch(/cannot resume .*differs/);
      expect(fs.readFileSync(file).equals(before), changed.join(' ')).toBe(true);
    }
  });

  it("reliability: a stage finished by shards is recorded as done by shards with its time unknown, never the final pass's (reproduce.json keeps the real wall times)", async () => {
    const out = path.join(dir, 'sharded');
    for (const stage of ['tune', 'tuned', 'paper-choice']) {
      for (const i of [0, 1]) await reproduce([one, '--out', out, '--shard', `${i}/2`]);
      const merged = await runCli(['merge', ...[0, 1].map((i) => path.join(out, stage, `shard-${i}-of-2`)), '--out', path.join(out, stage), '--quiet']);
      expect(merged.code, merged.stderr).toBe(0);
    }
    const result = await runCli(['reproduce', one, ...SMALL.filter((w) => w !== '--quiet'), '--out', out, '--resume']);
    expect(result.code, result.stderr).toBe(0);
    const { stages } = record(out);
    expect(stages.map((s) => [s.name, s.status, s.seconds, s.attempts.length, s.found_done])).toEqual([
      ['tune', 'done', null, 0, 'shards'],
      ['tuned', 'done', null, 0, 'shards'],
      ['report-tuned', 'done', stages[2]?.seconds, 1, undefined],
      ['paper-choice', 'done', null, 0, 'shards'],
      ['report-paper-choice', 'done', stages[4]?.seconds, 1, undefined],
    ]);
    for (const stage of [stages[2], stages[4]]) expect(stage?.seconds, stage?.name).toBeGreaterThanOrEqual(0);
    expect(result.stderr).toMatch(/\n {2}tuned +done +— +\(done by shards, their time not recorded\)\n/);
    // Resumed again: still the shards' stages, and --stop-after still stops.
    await reproduce([one, '--out', out, '--resume', '--stop-after', 'tuned']);
    const runStages = record(out).stages.filter((s) => ['tune', 'tuned', 'paper-choice'].includes(s.name));
    expect(runStages.map((s) => [s.seconds, s.found_done])).toEqual(Array(3).fill([null, 'shards']));
  });
});
