import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import { unitFiles } from '../../src/results/layout.js';
import { isFolderName } from '../../src/base/limits.js';
import { isExperimentName } from '../../src/config/schema.js';
import { CSV_CHUNK_BYTES } from '../../src/results/read-csv.js';
import { forEachCsvRecord, readBestFile, readFinishedUnit, ResultsError, readResults, type CsvRecord } from '../../src/results/read.js';
import { runCli, tinyConfig, writeFile } from '../experiment/fixtures.js';
import { SYNTHETIC_K4, TRIAL_HEADER, editLine, makeInProgress, tempDir, writeExperiment, writeFixtureResults } from '../report/fixture.js';
import { thrownBy } from '../helpers/errors.js';

describe('readResults: bad input', () => {
  it('rejects an empty list of folders', () => {
    expect(thrownBy(ResultsError, () => readResults([])).exitCode).toBe(2);
  });

  it('rejects a folder that does not exist', () => {
    const dir = path.join(tempDir(), 'nope');
    const err = thrownBy(ResultsError, () => readResults([dir]));
    expect(err.message).toBe(`${dir}: no such folder`);
    expect(err.exitCode).toBe(2);
  });

  it('rejects a folder with no manifest.json, in it or in a sub-folder', () => {
    const dir = tempDir();
    fs.mkdirSync(path.join(dir, 'empty'));
    fs.writeFileSync(path.join(dir, 'grid.csv'), 'l,e\n');
    const err = thrownBy(ResultsError, () => readResults([dir]));
    expect(err.message).toBe(`${path.join(dir, 'manifest.json')}: not found (and no sub-folder holds one)`);
  });

  it('names the manifest field that is wrong', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    manifest.config.horizon = 'fifty';
    fs.writeFileSync(file, JSON.stringify(manifest));
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(
      `${file}: config.horizon: expected a horizon from 1 to 100000000, got "fifty"`,
    );
  });

  it('names a manifest field whose check has no message of its own', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'manifest.json');
    const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
    manifest.timing = { runs: [{ jobs: 0 }] };
    fs.writeFileSync(file, JSON.stringify(manifest));
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(`${file}: timing.runs.0.jobs: expected a job count, got 0`);
    delete manifest.config.trials;
    fs.writeFileSync(file, JSON.stringify(manifest));
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(`${file}: config.trials: expected a trial count from 1 to 10000, got nothing`);
  });

  it('reports invalid JSON in the manifest with its line', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'manifest.json');
    fs.writeFileSync(file, '{\n  "name": "x"\n  "config": {}\n}\n');
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toMatch(new RegExp(`^${escape(file)}:3: not valid JSON \\(`));
    fs.writeFileSync(file, '{\n  "name": "x",\n  "config": }\n');
    const message = thrownBy(ResultsError, () => readResults([dir])).message;
    expect(message).toMatch(new RegExp(`^${escape(file)}(:\\d+)?: not valid JSON \\(`));
    expect(message).not.toContain('\n');
  });

  it('reports a truncated row (too few fields) with file and line', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'EOFD-MLogB', 'trial-1.csv');
    const text = fs.readFileSync(file, 'utf8');
    // Cut the file in the middle of round 30 (line 31), as a killed writer would.
    const lines = text.split('\n').slice(0, 31);
    lines[30] = (lines[30] as string).split(',').slice(0, 6).join(',');
    fs.writeFileSync(file, lines.join('\n'));
    const err = thrownBy(ResultsError, () => readResults([dir]));
    expect(err.message).toBe(`${file}:31: expected 10 fields as in the header, got 6 (truncated file?)`);
    expect(err.exitCode).toBe(2);
  });

  it('reports a trial with fewer than T rounds', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'OFUL-MLogB', 'trial-2.csv');
    const lines = fs.readFileSync(file, 'utf8').split('\n').slice(0, 31);
    fs.writeFileSync(file, lines.join('\n') + '\n');
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(
      `${file}:31: ends after t = 30, the manifest's T is 50 (truncated file?)`,
    );
  });

  it('reports a non-numeric cell with file, line and column', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'EOFD-MLogB', 'trial-0.csv');
    editLine(file, 18, '0,EOFD-MLogB,17,3,1,1,0.1,abc,0.2,0.1');
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(
      `${file}:18: cum_regret: expected a finite number, got "abc"`,
    );
  });

  it('rejects NaN, Infinity and empty numeric cells', () => {
    for (const bad of ['NaN', 'Infinity', '']) {
      const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
      const file = path.join(dir, 'Random', 'trial-0.csv');
      editLine(file, 5, `0,Random,4,4,0,0,0.4,1.6,${bad},0`);
      expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(
        `${file}:5: select_ms: expected a finite number, got ${JSON.stringify(bad)}`,
      );
    }
  });

  it('reports a gap in t', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'EOFD-MLogB', 'trial-0.csv');
    editLine(file, 11, null); // removes round t = 10; line 11 now holds t = 11
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(
      `${file}:11: t: expected 10 (rounds run 1, 2, … without gaps), got "11"`,
    );
  });

  it('reports a missing trial file, a missing column and a row of the wrong trial', () => {
    let dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    let file = path.join(dir, 'Random', 'trial-2.csv');
    fs.rmSync(file);
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(`${file}: not found`);

    dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    file = path.join(dir, 'Random', 'trial-1.csv');
    editLine(file, 1, 'trial,policy,t,action,outcome,reward,regret,cum_regret,select_ms,update_msec');
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(`${file}:1: header: missing column "update_ms"`);

    dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    file = path.join(dir, 'Random', 'trial-1.csv');
    editLine(file, 3, '2,Random,2,0,0,0,0.44,0.88,0.001,0');
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(`${file}:3: trial: expected 1 (the file's trial index), got "2"`);
  });

  it('checks summary.csv: missing rows, bad cells, duplicates, unknown policies, disagreement with the trials', () => {
    const cases: [number, string | null, (file: string) => string][] = [
      [4, null, (f) => `${f}: no row for policy EOFD-MLogB, trial 2 (the manifest lists 3 trials)`],
      [2, 'EOFD-MLogB,0,five,0.2,0.1,0.2,0.1,0.3,40000,1,0,0.5,1.01,3.5', (f) => `${f}:2: final_regret: expected a finite number, got "five"`],
      [3, 'EOFD-MLogB,0,5,0.2,0.1,0.2,0.1,0.3,40000,1,0,0.5,1.01,3.5', (f) => `${f}:3: second row for policy EOFD-MLogB, trial 0 (first on line 2)`],
      [2, 'LinUCB,0,5,0.2,0.1,0.2,0.1,0.3,40000,1,0,0.5,1.01,3.5', (f) => `${f}:2: policy: expected one of the manifest's policies (EOFD-MLogB, OFUL-MLogB, Random), got "LinUCB"`],
      [2, 'EOFD-MLogB,0,5.25,0.2,0.1,0.2,0.1,0.3,40000,1,0,0.5,1.01,3.5', (f) => `${f}:2: final_regret: 5.25 disagrees with the last cum_regret 5 of ${path.join(path.dirname(f), 'EOFD-MLogB', 'trial-0.csv')}`],
      [2, 'EOFD-MLogB,0,5,0.2', (f) => `${f}:2: expected 14 fields as in the header, got 4 (truncated file?)`],
    ];
    for (const [line, replacement, expected] of cases) {
      const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
      const file = path.join(dir, 'summary.csv');
      editLine(file, line, replacement);
      expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(expected(file));
    }
  });
});

describe('readResults', () => {
  it('reads a parent folder of experiments in name order and ignores unknown files', () => {
    const root = writeFixtureResults();
    fs.writeFileSync(path.join(root, 'grid.csv'), 'l,e\n0,0\n');
    fs.writeFileSync(path.join(root, 'best.json'), '{}');
    fs.mkdirSync(path.join(root, 'report'));
    fs.writeFileSync(path.join(root, 'mnist', 'notes.txt'), 'hello');
    const experiments = readResults([root]);
    expect(experiments.map((e) => e.name)).toEqual(['mnist', 'synthetic-k4']);
    const e = experiments[1]!;
    expect(e.setting).toEqual({ environment: 'synthetic', K: 4, d: 100, horizon: 50, trials: 3, policies: ['EOFD-MLogB', 'OFUL-MLogB', 'Random'] });
    expect(e.summary).toHaveLength(9);
    expect(e.trials).toHaveLength(9);
    expect(e.trials[0]!.cumRegret).toHaveLength(50);
    expect(e.trials[0]!.cumRegret[49]).toBe(5);
    expect(e.summary.find((r) => r.policy === 'Random')!.parameterError).toBeNull();
    expect(e.provenance).toEqual({ package: 'eofd 0.1.0', git: 'abc1234', node: 'v20.19.0', cpu: 'Test CPU', cores: 4 });
  });

  it('reads the same folder once, whether given directly or through its parent', () => {
    const root = writeFixtureResults();
    expect(readResults([path.join(root, 'mnist'), root]).map((e) => e.name)).toEqual(['mnist', 'synthetic-k4']);
  });

  it('accepts CRLF line endings and a missing final newline', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'EOFD-MLogB', 'trial-0.csv');
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').trimEnd().replace(/\n/g, '\r\n'));
    expect(readResults([dir])[0]!.trials[0]!.cumRegret[49]).toBe(5);
  });
});

describe('readResults of a run in progress: partial units', () => {
  /** synthetic-k4 with EOFD-MLogB trial 0 finished and the others' rows in `.partial` files (all 50 rounds). */
  function running(): string {
    const dir = writeExperiment(path.join(tempDir(), 'synthetic-k4'), SYNTHETIC_K4);
    makeInProgress(dir, ['EOFD-MLogB/0']);
    return dir;
  }
  const partialOf = (dir: string, policy: string, trial: number): string => unitFiles(dir, policy, trial).partial;

  it('reads the rounds so far of every unfinished unit, leaving out a row being written, never the finished ones', () => {
    const dir = running();
    // OFUL-MLogB trial 1 (final 5): 20 whole rounds, then half of round 21 (no newline yet).
    const lines = fs.readFileSync(partialOf(dir, 'OFUL-MLogB', 1), 'utf8').split('\n');
    fs.writeFileSync(partialOf(dir, 'OFUL-MLogB', 1), lines.slice(0, 21).join('\n') + '\n' + lines[21]!.slice(0, 9));
    // Random trial 0: the header only (the unit has just started); Random trial 1: nothing yet; trial 2 gone (finished meanwhile).
    fs.writeFileSync(partialOf(dir, 'Random', 0), lines[0] + '\n');
    fs.writeFileSync(partialOf(dir, 'Random', 1), '');
    fs.rmSync(partialOf(dir, 'Random', 2));
    const [e] = readResults([dir], { inProgress: true });
    expect(e!.progress).toEqual({ complete: false, finishedUnits: 1, plannedUnits: 9 });
    expect(e!.trials.map((s) => `${s.policy}/${s.trial}`)).toEqual(['EOFD-MLogB/0']);
    expect(e!.partial.map((s) => `${s.policy}/${s.trial}:${s.cumRegret.length}`)).toEqual([
      'EOFD-MLogB/1:50', 'EOFD-MLogB/2:50', 'OFUL-MLogB/0:50', 'OFUL-MLogB/1:20', 'OFUL-MLogB/2:50',
    ]);
    const oful1 = e!.partial[3]!;
    // The fixture's cum_regret_t = final·t/T with final 5, T 50; times 0.7 and 0.5 ms every round.
    expect(Array.from(oful1.cumRegret)).toEqual(Array.from({ length: 20 }, (_, i) => (5 * (i + 1)) / 50));
    expect(Array.from(oful1.selectMs)).toEqual(new Array(20).fill(0.7));
    expect(Array.from(oful1.updateMs)).toEqual(new Array(20).fill(0.5));
  });

  it('a defect in a whole row of a partial file is named by file, line and field', () => {
    const dir = running();
    editLine(partialOf(dir, 'OFUL-MLogB', 0), 4, '0,OFUL-MLogB,3,1,1,1,0.1,abc,0.6,0.4');
    expect(thrownBy(ResultsError, () => readResults([dir], { inProgress: true })).message).toBe(`${partialOf(dir, 'OFUL-MLogB', 0)}:4: cum_regret: expected a finite number, got "abc"`);
  });

  it('a complete experiment, or a reader not asking for runs in progress, has no partial units', () => {
    const root = writeFixtureResults();
    expect(readResults([root], { inProgress: true }).map((e) => e.partial)).toEqual([[], []]);
    // A stale .partial beside a finished unit (written again by a --force run, say) is no partial unit of a complete experiment.
    fs.copyFileSync(path.join(root, 'mnist', 'Random', 'trial-0.csv'), partialOf(path.join(root, 'mnist'), 'Random', 0));
    expect(readResults([root], { inProgress: true }).map((e) => e.partial)).toEqual([[], []]);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe('results are verified by content, not by length', () => {
  /** A finished tiny run: one experiment, one policy, one trial; returns its folder. */
  async function finishedRun(): Promise<string> {
    const root = tempDir();
    const config = writeFile(root, 'v.yaml', tinyConfig('v', { horizon: 12, trials: 1, policies: '[EOFD-MLogB]' }));
    expect((await runCli(['run', config, '--out', path.join(root, 'out'), '--quiet'])).code).toBe(0);
    return path.join(root, 'out', 'v');
  }

  /** Changes the last digit of the trial file's `select_ms` cell in round `t`, keeping the file's length. */
  function editDigit(file: string, t: number): void {
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const cells = lines[t]!.split(',');
    const column = lines[0]!.split(',').indexOf('select_ms');
    const cell = cells[column]!;
    cells[column] = cell.slice(0, -1) + (cell.endsWith('1') ? '2' : '1');
    lines[t] = cells.join(',');
    fs.writeFileSync(file, lines.join('\n'));
  }

  it('a run writes the SHA-256 of each trial file into its unit summary', async () => {
    const dir = await finishedRun();
    const files = unitFiles(dir, 'EOFD-MLogB', 0);
    const unit = JSON.parse(fs.readFileSync(files.summary, 'utf8')) as { sha256: string; bytes: number };
    expect(unit.sha256).toBe(createHash('sha256').update(fs.readFileSync(files.csv)).digest('hex'));
    expect(unit.bytes).toBe(fs.statSync(files.csv).size);
    expect(readFinishedUnit(files, 'EOFD-MLogB', 0, 12)).not.toBeNull();
  });

  it('one edited digit, same length: resume takes the unit as unfinished, and the report refuses the file', async () => {
    const dir = await finishedRun();
    const files = unitFiles(dir, 'EOFD-MLogB', 0);
    const size = fs.statSync(files.csv).size;
    editDigit(files.csv, 3);
    expect(fs.statSync(files.csv).size).toBe(size);
    expect(readFinishedUnit(files, 'EOFD-MLogB', 0, 12)).toBeNull();
    const err = thrownBy(ResultsError, () => readResults([dir]));
    expect(err.message).toBe(`${files.csv}: its content differs from what the run wrote (SHA-256 in trial-0.summary.json); the file was changed after the run`);
  });

  it('cum_regret must be the running sum of regret', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'EOFD-MLogB', 'trial-0.csv');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const cells = lines[5]!.split(',');
    cells[7] = String(Number(cells[7]) + 0.5);
    lines[5] = cells.join(',');
    fs.writeFileSync(file, lines.join('\n'));
    const err = thrownBy(ResultsError, () => readResults([dir]));
    expect(err.message).toMatch(new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:6: cum_regret: expected .* \\(the running sum of regret\\), got`));
  });
});

describe('trial CSV columns of later versions: actions and best_reward', () => {
  /**
   * The fixture's trial file (written as eofd wrote trial CSVs before these columns) with them added,
   * where eofd writes them: actions (|A_t| = 7: the fixture plays (t + shift) mod 7) after action,
   * best_reward (regret + 0.25) after regret; `cell` may change a round's cells.
   */
  function withRoundColumns(file: string, cell: (t: number, column: 'actions' | 'best_reward') => string | undefined = () => undefined): void {
    const [header, ...rows] = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    const names = header!.split(',');
    const insert = (cells: string[], actions: string, best: string): string[] => {
      cells.splice(names.indexOf('regret') + 1, 0, best);
      cells.splice(names.indexOf('action') + 1, 0, actions);
      return cells;
    };
    const lines = [insert(names.slice(), 'actions', 'best_reward').join(',')];
    rows.forEach((row, i) => {
      const cells = row.split(',');
      const regret = Number(cells[names.indexOf('regret')]);
      lines.push(insert(cells, cell(i + 1, 'actions') ?? '7', cell(i + 1, 'best_reward') ?? String(regret + 0.25)).join(','));
    });
    fs.writeFileSync(file, lines.join('\n') + '\n');
  }

  const fixture = (): { dir: string; file: string } => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    return { dir, file: path.join(dir, 'EOFD-MLogB', 'trial-0.csv') };
  };

  it('a file without them (written before they existed) reads; one with them reads, an empty best_reward too (an environment that does not report it)', () => {
    const { dir, file } = fixture();
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe(TRIAL_HEADER);
    expect(TRIAL_HEADER.split(',').filter((c) => c === 'actions' || c === 'best_reward')).toEqual([]);
    const before = readResults([dir])[0]!.trials;
    expect(before).toHaveLength(9);
    expect(before.every((series) => series.actionCounts === null)).toBe(true);
    withRoundColumns(file, (t, column) => (column === 'best_reward' && t === 3 ? '' : column === 'actions' && t === 2 ? '9' : undefined));
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toBe('trial,policy,t,action,actions,outcome,reward,regret,best_reward,cum_regret,select_ms,update_ms');
    const after = readResults([dir])[0]!.trials;
    expect(after).toHaveLength(9);
    // |A_t| per round, as the column says.
    const edited = after.find((series) => series.policy === 'EOFD-MLogB' && series.trial === 0)!;
    expect([...edited.actionCounts!.slice(0, 4)]).toEqual([7, 9, 7, 7]);
  });

  it.each([
    ['actions', 'x', 'actions: expected a finite number, got "x"'],
    ['actions', '', 'actions: expected a finite number, got ""'],
    ['actions', '0', 'actions: expected an integer ≥ 1, got "0"'],
    ['actions', '2.5', 'actions: expected an integer ≥ 1, got "2.5"'],
    // Round 4 plays action 4 (0-based): an action set of 4 has no such action.
    ['actions', '4', 'action: expected an index below actions = 4 (0-based), got "4"'],
    ['best_reward', 'NaN', 'best_reward: expected a finite number, got "NaN"'],
    ['best_reward', 'Infinity', 'best_reward: expected a finite number, got "Infinity"'],
  ] as const)('rejects %s = %j in round 4, naming file, line and column', (column, value, message) => {
    const { dir, file } = fixture();
    withRoundColumns(file, (t, c) => (t === 4 && c === column ? value : undefined));
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(`${file}:5: ${message}`);
  });
});

describe('readBestFile: bad input', () => {
  it('refuses a chosen value that is not a params key, naming the label', () => {
    const file = path.join(tempDir(), 'best.json');
    fs.writeFileSync(file, JSON.stringify({ policies: { 'EOFD-MLogB': { values: { 'params.l': 0, horizon: 5 } } } }));
    expect(thrownBy(ResultsError, () => readBestFile(file)).message).toBe(
      `${file}: policies.EOFD-MLogB.values: horizon is not a params key; only params can be applied per policy`,
    );
  });

  it('names the field of a bad entry and what it holds', () => {
    const file = path.join(tempDir(), 'best.json');
    fs.writeFileSync(file, JSON.stringify({ policies: { 'OFUL-MLogB': { l: 0 } } }));
    expect(thrownBy(ResultsError, () => readBestFile(file)).message).toBe(`${file}: policies.OFUL-MLogB: expected {values: {key: value}} or both l and e, got {"l":0}`);
    fs.writeFileSync(file, '[]');
    expect(thrownBy(ResultsError, () => readBestFile(file)).message).toBe(`${file}: (file): expected a JSON object as \`eofd grid\` writes it, got []`);
  });

  it('reads values and l, e as written', () => {
    const file = path.join(tempDir(), 'best.json');
    const best = { format: 'eofd-best/1', experiment: 'x', policies: { A: { values: { 'params.m': 8 } }, B: { l: 0.5, e: -1 } } };
    fs.writeFileSync(file, JSON.stringify(best));
    expect(readBestFile(file)).toEqual(best);
  });
});

describe('reliability: readers stream CSVs', () => {
  const cases = [
    'a,b,c\n1,2,3\n4,5,6\n',
    'a,b,c\r\n1,2,3\r\n\r\n4,5,6', // CRLF, an empty line, a last line without its end
    'h1,h2\n"x, y","say ""hi"""\n"two\nlines",z\n,\n',
    'name,value\nλ,1.5\n€€€,"∑ over\nlines"\n\n\nlast,one',
    'name,value\r\n"a ""b""",c\r\n€€€,𝔼\r\n',
  ];

  it('reliability: readers stream CSVs (records read in chunks of any size equal csv-parse on the whole text: lines split across chunks, CRLF, a last line without its end, quotes, multi-byte characters)', () => {
    const dir = tempDir();
    cases.forEach((text, i) => {
      const file = path.join(dir, `case-${i}.csv`);
      fs.writeFileSync(file, text);
      const reference = (parse(text, { info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as { record: string[]; info: { lines: number } }[]).map((r) => ({ fields: r.record, line: r.info.lines }));
      for (const chunkBytes of [1, 2, 3, 5, 7, 64, undefined]) {
        const records: CsvRecord[] = [];
        forEachCsvRecord(file, (r) => records.push(r), { chunkBytes });
        expect(records, `case ${i}, chunks of ${chunkBytes}`).toEqual(reference);
      }
    });
  });

  it('reliability: readers stream CSVs (a file being written: its last line without an end is left out, a quote left open at the end is a defect otherwise)', () => {
    const dir = tempDir();
    const file = path.join(dir, 'growing.csv');
    fs.writeFileSync(file, 'a,b\n1,2\n3,');
    const growing: string[][] = [];
    forEachCsvRecord(file, (r) => growing.push(r.fields), { growing: true, chunkBytes: 3 });
    expect(growing).toEqual([['a', 'b'], ['1', '2']]);
    fs.writeFileSync(file, 'a,b\n1,"open\n');
    expect(thrownBy(ResultsError, () => forEachCsvRecord(file, () => {}, { chunkBytes: 2 })).message).toBe(`${file}:2: a quoted field is not closed (truncated file?)`);
    fs.writeFileSync(file, 'a,b\n1,x"y\n');
    expect(thrownBy(ResultsError, () => forEachCsvRecord(file, () => {})).message).toBe(`${file}:2: a quote inside the field "x\\"y", which does not start with one`);
    expect(forEachCsvRecord(path.join(dir, 'gone.csv'), () => {}, { missing: 'skip' })).toBe(false);
  });

  it('reliability: readers stream CSVs (a trial CSV is never read as one string: no whole-file read, every read at most one chunk)', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const readFileSync = vi.spyOn(fs, 'readFileSync');
    const readSync = vi.spyOn(fs, 'readSync');
    let wholeReads: string[];
    let lengths: number[];
    try {
      const [experiment] = readResults([dir]);
      expect(experiment?.trials.length).toBe(SYNTHETIC_K4.policies.length * 3);
      wholeReads = readFileSync.mock.calls.map((call) => String(call[0])).filter((file) => file.endsWith('.csv'));
      lengths = readSync.mock.calls.map((call) => (call as unknown[])[3] as number);
    } finally {
      readFileSync.mockRestore();
      readSync.mockRestore();
    }
    expect(wholeReads).toEqual([]);
    expect(lengths.length).toBeGreaterThan(0);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(CSV_CHUNK_BYTES);
  });

  it('reliability: readers stream CSVs (an unreadable trial CSV is never reported as "not found")', () => {
    const dir = writeExperiment(path.join(tempDir(), 'x'), SYNTHETIC_K4);
    const file = path.join(dir, 'Random', 'trial-1.csv');
    fs.rmSync(file);
    fs.mkdirSync(file);
    expect(thrownBy(ResultsError, () => readResults([dir])).message).toBe(`${file}: cannot read: is a folder, not a file`);
  });
});

describe('manifest limits', () => {
  it('one folder-name rule for configs and manifests (base/limits.ts, whose limits config/schema.ts re-exports)', () => {
    for (const name of ['EOFD-MLogB', 'a.b_c-1', '.', '..', '', 'a/b', '../x', 'x'.repeat(100), 'x'.repeat(101), 'λ']) {
      expect(isFolderName(name), name).toBe(isExperimentName(name));
    }
  });
});
