/**
 * `eofd export`: a small real run and sweep exported as CSV, Parquet and Arrow, read back with readers
 * that share no code with the writers (Parquet: parquet-wasm, the Rust parquet crate; CSV: csv-parse)
 * and compared value by value with the trial CSVs and manifests, read here on their own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { tableFromIPC } from 'apache-arrow';
import { parse } from 'csv-parse/sync';
import { readParquet } from 'parquet-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reproduceFolders } from '../../src/experiment/reproduce.js';
import { pointValues, UNIT_COLUMNS } from '../../src/results/export.js';
import { REPRODUCE_RUN_STAGES } from '../../src/results/layout.js';
import { SUMMARY_COLUMNS } from '../../src/results/records.js';
import { runCli, tempDir, tinyConfig, writeFile } from '../experiment/fixtures.js';

let root: string;
let out: string;
beforeAll(async () => {
  root = tempDir('eofd-export-');
  out = path.join(root, 'results');
  const config = tinyConfig('tiny', { horizon: 12, trials: 2, policies: '[EOFD-MLogB, {policy: EOFD-MLogB, label: EOFD-m2, params: {m: 2}}, Random]' });
  const file = writeFile(root, 'tiny.yaml', config);
  for (const args of [
    ['run', file, '--out', out, '--jobs', '1', '--quiet'],
    ['sweep', file, '--over', 'params.beta_scale=0.5,2', '--out', out, '--jobs', '1', '--quiet'],
  ]) {
    const result = await runCli(args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  }
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

type Row = Record<string, unknown>;

/** An experiment folder to expect rows of, and the identity its rows carry. */
interface Folder {
  dir: string;
  run: string;
  stage: string | null;
  experiment: string;
  point: string | null;
}

/** The folders of a run's --out (`<out>/<name>`) and of its sweep or grid (`<out>/<name>-sweep/<point>`). */
function foldersOf(out: string, stage: string | null = null, run = out): Folder[] {
  const folders: Folder[] = [];
  for (const name of fs.readdirSync(out).sort()) {
    const dir = path.join(out, name);
    if (fs.existsSync(path.join(dir, 'manifest.json'))) folders.push({ dir, run, stage, experiment: name, point: null });
    else if (/-(sweep|grid)$/.test(name)) {
      for (const point of fs.readdirSync(dir).sort()) {
        if (fs.existsSync(path.join(dir, point, 'manifest.json'))) folders.push({ dir: path.join(dir, point), run, stage, experiment: name, point });
      }
    }
  }
  return folders;
}

/** The swept keys each policy of these tests reads (policies/*.ts `reads`): a label runs at the points of these only. */
const READS: Record<string, string[]> = { 'EOFD-MLogB': ['l', 'e', 'beta_scale'], 'EOFD-m2': ['l', 'e', 'beta_scale'], 'OFUL-MLogB': ['l', 'e'], 'MNL-UCB': ['l'], Random: [] };

/** `l=0,e=0.75` → {l: '0', e: '0.75'} (these tests' values hold no commas). */
const valuesOf = (point: string): Record<string, string> => Object.fromEntries(point.split(',').map((pair) => pair.split('=') as [string, string]));

/**
 * What the export must hold, built from the files the runs wrote: one row per round of every unit (with
 * `units`, per unit, from summary.csv); at a sweep's or grid's point, a label that does not run there has
 * the rows of the point of its sweep that runs it with the same values of the keys it reads (shared).
 */
function expectedRows(folders: readonly Folder[], units = false): Row[] {
  const rows: Row[] = [];
  const manifestOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
  for (const folder of folders) {
    const manifest = manifestOf(folder.dir);
    const labels: [string, Folder][] = (manifest.config.policies as string[]).map((label) => [label, folder]);
    if (folder.point !== null) {
      const siblings = folders.filter((f) => f.experiment === folder.experiment && f.run === folder.run && f.stage === folder.stage && f.point !== null);
      const all = [...new Set(siblings.flatMap((f) => manifestOf(f.dir).config.policies as string[]))];
      for (const label of all.filter((l) => !labels.some(([own]) => own === l))) {
        const here = valuesOf(folder.point);
        const home = siblings.find((f) => (manifestOf(f.dir).config.policies as string[]).includes(label) && (READS[label] as string[]).every((key) => valuesOf(f.point as string)[key] === here[key]));
        if (home !== undefined) labels.push([label, home]);
      }
    }
    for (const [label, home] of labels) {
      const homeManifest = manifestOf(home.dir);
      const params = homeManifest.derived.policies[label] as Record<string, unknown>;
      const summaryCsv = fs.readFileSync(path.join(home.dir, 'summary.csv'), 'utf8').trim().split('\n');
      const summaryNames = (summaryCsv[0] as string).split(',');
      for (let trial = 0; trial < homeManifest.config.trials; trial++) {
        const seeds = homeManifest.seeds.trials[String(trial)];
        const unit: Row = {
          run: folder.run,
          stage: folder.stage,
          experiment: folder.experiment,
          point: folder.point,
          shared: home !== folder,
          split: homeManifest.seeds.split,
          label,
          policy: params.policy,
          trial,
          seed: 0,
          env_seed: seeds.environment,
          policy_seed: seeds[`policy:${params.policy}`] ?? null,
          environment: 'synthetic',
          K: 2,
          d: 6,
          horizon: homeManifest.config.horizon,
        };
        for (const [key, value] of Object.entries(folder.point === null ? {} : valuesOf(folder.point))) unit[`point_${key}`] = Number(value);
        for (const [key, value] of Object.entries(params)) if (key !== 'policy') unit[`param_${key}`] = value;
        if (units) {
          const line = summaryCsv.find((l) => l.startsWith(`${label},${trial},`)) as string;
          const cells = line.split(',');
          summaryNames.forEach((name, i) => {
            if (name !== 'policy' && name !== 'trial') unit[name] = cells[i] === '' ? null : Number(cells[i]);
          });
          rows.push(unit);
          continue;
        }
        const [header, ...lines] = fs.readFileSync(path.join(home.dir, label, `trial-${trial}.csv`), 'utf8').trim().split('\n');
        const names = (header as string).split(',');
        for (const line of lines) {
          const cells = Object.fromEntries(line.split(',').map((v, i) => [names[i], v]));
          const row: Row = { ...unit };
          for (const name of ['t', 'action', 'outcome', 'reward', 'regret', 'cum_regret', 'select_ms', 'update_ms']) row[name] = Number(cells[name]);
          // Empty, or absent from a file written before the column existed: null.
          for (const name of ['actions', 'best_reward', 'm']) row[name] = cells[name] === undefined || cells[name] === '' ? null : Number(cells[name]);
          rows.push(row);
        }
      }
    }
  }
  return rows;
}

const rowKey = (r: Row): string => `${r.run}|${r.stage}|${r.experiment}|${r.point}|${r.label}|${r.trial}|${r.t}`;

/** A table's rows with the keys `expected` rows have (a key absent from a row reads as null). */
function compare(actual: Row[], expected: Row[], columns: string[]): void {
  expect(actual.length).toBe(expected.length);
  const keys = new Set(expected.flatMap((r) => Object.keys(r)));
  expect(new Set(columns)).toEqual(keys);
  const byKey = new Map(expected.map((r) => [rowKey(r), r]));
  for (const row of actual) {
    const want = byKey.get(rowKey(row));
    expect(want, rowKey(row)).toBeDefined();
    for (const k of keys) expect(row[k] ?? null, `${rowKey(row)} ${k}`).toEqual((want as Row)[k] ?? null);
  }
}

/** A CSV export's records, typed by hand: empty is null, true/false booleans, numbers numbers (but the hex seeds). */
function csvRows(file: string): Row[] {
  return parse(fs.readFileSync(file, 'utf8'), {
    columns: true,
    cast: (v, c) => {
      if (c.header) return v;
      if (v === '') return null;
      if (v === 'true' || v === 'false') return v === 'true';
      return /_seed$/.test(String(c.column)) || !/^-?\d+(\.\d+)?(e[-+]?\d+)?$/.test(v) ? v : Number(v);
    },
  }) as Row[];
}

/** Arrow rows as plain values (Int32 and Float64 come back as numbers, Utf8 as strings). */
function arrowRows(bytes: Uint8Array): { rows: Row[]; columns: string[] } {
  const table = tableFromIPC(bytes);
  return { rows: table.toArray().map((r) => ({ ...r.toJSON() })), columns: table.schema.fields.map((f) => f.name) };
}

describe('eofd export: bad arguments', () => {
  it('refuses an existing --out without --force (the file untouched), a folder as --out, no format, a folder with no results', async () => {
    const existing = writeFile(root, 'existing.csv', 'mine\n');
    let r = await runCli(['export', out, '--out', existing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`eofd export: ${existing} exists; not overwritten (--force replaces it)\n`);
    expect(fs.readFileSync(existing, 'utf8')).toBe('mine\n');
    r = await runCli(['export', out, '--out', root, '--format', 'csv']);
    expect([r.code, r.stderr]).toEqual([2, `eofd export: ${root}: is a folder; --out names the file to write\n`]);
    r = await runCli(['export', out, '--out', path.join(root, 'rounds.txt')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^eofd export: --out .*rounds\.txt: give --format csv\|parquet\|arrow/);
    r = await runCli(['export', out, '--out', path.join(root, 'x.csv'), '--format', 'xlsx']);
    expect(r.code).toBe(2);
    const empty = fs.mkdtempSync(path.join(root, 'empty-'));
    r = await runCli(['export', empty, '--out', path.join(root, 'x.csv')]);
    expect([r.code, r.stderr]).toEqual([2, `eofd export: ${empty}: no experiment folder here (none holds manifest.json, nor does any *-sweep or *-grid folder or reproduction in it)\n`]);
    expect(fs.readdirSync(root).filter((f) => f.startsWith('x.csv'))).toEqual([]);
  });

  it('point folder names split at the commas outside brackets', () => {
    expect(pointValues('l=0.5,e=-0.25')).toEqual([['l', '0.5'], ['e', '-0.25']]);
    expect(pointValues('actions=[3, 6],m=2')).toEqual([['actions', '[3, 6]'], ['m', '2']]);
    expect(pointValues('EOFD-MLogB')).toBeNull();
  });
});

describe('eofd export', () => {
  it('parquet: parquet-wasm reads back every round of every unit, every value equal to the trial CSVs and manifests', async () => {
    const file = path.join(root, 'rounds.parquet');
    const r = await runCli(['export', out, '--out', file]);
    expect(r.code).toBe(0);
    const { rows, columns } = arrowRows(readParquet(fs.readFileSync(file)).intoIPCStream());
    compare(rows, expectedRows(foldersOf(out)), columns);
    // Random reads no beta_scale: it ran at the first point only, and its 2 units stand for it at the second.
    const shared = rows.filter((row) => row.shared === true);
    expect(new Set(shared.map((row) => `${row.point}|${row.label}`))).toEqual(new Set(['beta_scale=2|Random']));
    expect(r.stderr).toBe(`eofd export: ${rows.length} rounds of ${(rows.length - shared.length) / 12} units from 3 experiment folders → ${file} (parquet, ${columns.length} columns; 2 units repeated at the sweep or grid points they stand for)\n`);
  });

  it("csv into a folder that does not exist yet: the folder is made (as other commands make --out)", async () => {
    const file = path.join(root, 'not-yet', 'there', 'rounds.csv');
    const r = await runCli(['export', out, '--out', file, '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toMatch(/^run,stage,experiment,/);
  });

  it('arrow: the IPC file holds the same table, typed (Int32, Float64, Utf8)', async () => {
    const file = path.join(root, 'rounds.arrow');
    expect((await runCli(['export', path.join(out, 'tiny'), path.join(out, 'tiny-sweep'), '--out', file, '--quiet'])).code).toBe(0);
    const bytes = fs.readFileSync(file);
    const { rows, columns } = arrowRows(bytes);
    compare(rows, expectedRows(foldersOf(out)), columns);
    const types = Object.fromEntries(tableFromIPC(bytes).schema.fields.map((f) => [f.name, String(f.type)]));
    expect([types.trial, types.t, types.m, types.regret, types.label, types.param_beta, types.shared, types.seed]).toEqual(['Int32', 'Int32', 'Int32', 'Float64', 'Utf8', 'Utf8', 'Bool', 'Int32']);
    expect([types.actions, types.best_reward]).toEqual(['Int32', 'Float64']);
    // A run of this version records both in every round: |A_t| within the config's [3, 6], best_reward − regret the played action's expected reward, within [0, 1].
    for (const row of rows) {
      expect(row.actions as number).toBeGreaterThanOrEqual(3);
      expect(row.actions as number).toBeLessThanOrEqual(6);
      expect(row.action as number).toBeLessThan(row.actions as number);
      expect((row.best_reward as number) - (row.regret as number)).toBeGreaterThanOrEqual(0);
      expect(row.best_reward as number).toBeLessThanOrEqual(1);
    }
  });

  it('csv: the same table; --force replaces a file, and a run in progress exports only its finished units', async () => {
    const file = path.join(root, 'rounds.csv');
    writeFile(root, 'rounds.csv', 'old\n');
    expect((await runCli(['export', out, '--out', file, '--force', '--quiet'])).code).toBe(0);
    const records = csvRows(file);
    compare(records, expectedRows(foldersOf(out)), Object.keys(records[0] as Row));
    // A unit that has not finished (no unit summary, no summary.csv) is left out.
    const copy = path.join(root, 'partial');
    fs.cpSync(path.join(out, 'tiny'), path.join(copy, 'tiny'), { recursive: true });
    fs.rmSync(path.join(copy, 'tiny', 'summary.csv'));
    fs.rmSync(path.join(copy, 'tiny', 'Random', 'trial-1.summary.json'));
    const r = await runCli(['export', copy, '--out', path.join(root, 'partial.csv')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/: 60 rounds of 5 units from 1 experiment folders → .* \(csv, 38 columns; 1 unfinished units left out\)\n$/);
  });

  it('trial CSVs written before actions and best_reward existed export them as null (Parquet and CSV)', async () => {
    const copy = path.join(root, 'old-format');
    fs.cpSync(path.join(out, 'tiny'), path.join(copy, 'tiny'), { recursive: true });
    for (const label of ['EOFD-MLogB', 'EOFD-m2', 'Random']) {
      for (const trial of [0, 1]) {
        const csv = path.join(copy, 'tiny', label, `trial-${trial}.csv`);
        const lines = fs.readFileSync(csv, 'utf8').trimEnd().split('\n');
        const drop = lines[0]!.split(',').map((name) => name === 'actions' || name === 'best_reward');
        fs.writeFileSync(csv, lines.map((line) => line.split(',').filter((_, i) => !drop[i]).join(',')).join('\n') + '\n');
        // Its unit summary holds the SHA-256 of the file as written: the file now stands for one of an older run.
        fs.rmSync(path.join(copy, 'tiny', label, `trial-${trial}.summary.json`));
      }
    }
    expect(fs.readFileSync(path.join(copy, 'tiny', 'Random', 'trial-0.csv'), 'utf8').split('\n')[0]).toBe('trial,policy,t,action,outcome,reward,regret,cum_regret,select_ms,update_ms,m');
    const parquet = path.join(root, 'old-format.parquet');
    const csv = path.join(root, 'old-format.csv');
    for (const file of [parquet, csv]) expect((await runCli(['export', copy, '--out', file, '--quiet'])).code).toBe(0);
    const expected = expectedRows(foldersOf(copy));
    const records = csvRows(csv);
    for (const { rows, columns } of [arrowRows(readParquet(fs.readFileSync(parquet)).intoIPCStream()), { rows: records, columns: Object.keys(records[0] as Row) }]) {
      compare(rows, expected, columns);
      expect(rows).toHaveLength(3 * 2 * 12);
      expect(new Set(rows.map((row) => `${row.actions ?? null}|${row.best_reward ?? null}`))).toEqual(new Set(['null|null']));
    }
  });

  it('reliability: a plain run whose --out ends in -grid or -sweep exports as a run (folder kinds told apart by content, not by name)', async () => {
    for (const folder of ['x-grid', 'y-sweep']) {
      const runOut = path.join(root, folder);
      fs.cpSync(path.join(out, 'tiny'), path.join(runOut, 'tiny'), { recursive: true });
      for (const given of [runOut, path.join(runOut, 'tiny')]) {
        const file = path.join(root, `${folder}-${path.basename(given)}.csv`);
        const r = await runCli(['export', given, '--out', file, '--quiet']);
        expect(r.stderr, given).toBe('');
        expect(r.code, given).toBe(0);
        const records = parse(fs.readFileSync(file, 'utf8'), { columns: true }) as Row[];
        expect(new Set(records.map((row) => `${row.experiment}|${row.point ?? ''}`)), given).toEqual(new Set(['tiny|']));
        expect(records.length).toBe(expectedRows(foldersOf(out)).filter((row) => row.experiment === 'tiny').length);
      }
    }
  });
});

describe('eofd export: reliability', () => {
  it('reliability: writes refuse special files and folders being read (--force over a link; --out inside a folder it exports)', async () => {
    const target = writeFile(root, 'kept.csv', 'mine\n');
    const link = path.join(root, 'link.csv');
    fs.symlinkSync(target, link);
    let r = await runCli(['export', out, '--out', link, '--force']);
    expect([r.code, r.stderr]).toEqual([2, `eofd export: ${link}: is a symbolic link; not replaced (give the name of a regular file or a new one)\n`]);
    expect([fs.lstatSync(link).isSymbolicLink(), fs.readFileSync(target, 'utf8')]).toEqual([true, 'mine\n']);
    // A unit's own CSV, a new file in an experiment folder, a file in a sweep folder: all among what is read.
    const unit = path.join(out, 'tiny', 'Random', 'trial-0.csv');
    const before = fs.readFileSync(unit);
    for (const [file, folder] of [
      [unit, path.join(out, 'tiny')],
      [path.join(out, 'tiny', 'rounds.csv'), path.join(out, 'tiny')],
      [path.join(out, 'tiny-sweep', 'rounds.csv'), path.resolve(out, 'tiny-sweep')],
    ] as const) {
      r = await runCli(['export', out, '--out', file, '--force']);
      expect([r.code, r.stderr]).toEqual([2, `eofd export: --out ${file}: is inside ${folder}, a folder being exported; write the table elsewhere\n`]);
    }
    expect(fs.readFileSync(unit).equals(before)).toBe(true);
    expect(fs.existsSync(path.join(out, 'tiny', 'rounds.csv'))).toBe(false);
  });

  it('reliability: export checks units as report does (a consistently edited trial CSV without its unit summary is refused by both, with one message)', async () => {
    const copy = path.join(root, 'edited');
    fs.cpSync(path.join(out, 'tiny'), path.join(copy, 'tiny'), { recursive: true });
    const csv = path.join(copy, 'tiny', 'Random', 'trial-0.csv');
    // The last round's regret and cum_regret both 1 higher: the running sum still holds, the final regret moves.
    const lines = fs.readFileSync(csv, 'utf8').trimEnd().split('\n');
    const header = (lines[0] as string).split(',');
    const cells = (lines[lines.length - 1] as string).split(',');
    for (const column of ['regret', 'cum_regret']) cells[header.indexOf(column)] = String(Number(cells[header.indexOf(column)]) + 1);
    lines[lines.length - 1] = cells.join(',');
    fs.writeFileSync(csv, lines.join('\n') + '\n');
    fs.rmSync(path.join(copy, 'tiny', 'Random', 'trial-0.summary.json'));
    const report = await runCli(['report', copy, '--out', path.join(root, 'edited-report')]);
    const exported = await runCli(['export', copy, '--out', path.join(root, 'edited.csv')]);
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/^eofd report: .*summary\.csv:\d+: final_regret: .* disagrees with the last cum_regret .* of .*trial-0\.csv\n$/);
    expect([exported.code, exported.stderr]).toEqual([2, report.stderr.replace('eofd report:', 'eofd export:')]);
    expect(fs.existsSync(path.join(root, 'edited.csv'))).toBe(false);
  });
});

describe('eofd export: a reproduction and a grid in one table', () => {
  let repro: string;
  let grid: string;
  /** Every experiment folder of both, as the export must label it. */
  const folders = (): Folder[] => [
    ...REPRODUCE_RUN_STAGES.flatMap((stage) => foldersOf(path.join(repro, stage), stage, repro)),
    ...foldersOf(grid),
  ];
  beforeAll(async () => {
    repro = path.join(root, 'repro');
    grid = path.join(root, 'grid');
    const tiny = writeFile(root, 'repro.yaml', tinyConfig('tiny', { horizon: 20 }));
    // MNL-UCB reads l but not e; Random reads neither (the grid's reference, run at one point).
    const g = writeFile(root, 'g.yaml', tinyConfig('g', { horizon: 20, policies: '[EOFD-MLogB, MNL-UCB, Random]' }));
    for (const args of [
      ['reproduce', tiny, '--trials', '2', '--over', 'params.l=0,0.75', '--over', 'params.e=0.75', '--out', repro],
      ['grid', g, '--l', '0,0.75', '--e', '0,0.75', '--out', grid],
    ]) {
      // (reproduce times its runs: on a busy machine it warns of the load, which is no failure here)
      const result = await runCli([...args, '--jobs', '1', '--quiet']);
      expect(result.code, result.stderr).toBe(0);
    }
  });

  it('parquet read back by parquet-wasm: every stage of the reproduction (tuned and paper-choice apart) and the grid, with run, stage and split; each grid reference at every point', async () => {
    const file = path.join(root, 'together.parquet');
    const r = await runCli(['export', repro, grid, '--out', file]);
    expect([r.code, r.stderr]).toEqual([0, expect.stringMatching(/ from 8 experiment folders .*; 12 units repeated at the sweep or grid points they stand for\)\n$/)]);
    const { rows, columns } = arrowRows(readParquet(fs.readFileSync(file)).intoIPCStream());
    compare(rows, expectedRows(folders()), columns);
    // Where each row comes from: the reproduction's stages (its grid on validation seeds, both runs reported), the grid.
    const origins = new Map<string, number>();
    for (const row of rows) {
      const origin = `${row.run}|${row.stage}|${row.experiment}|${row.split}`;
      origins.set(origin, (origins.get(origin) ?? 0) + 1);
    }
    expect(origins).toEqual(
      new Map([
        [`${repro}|tune|tiny-grid|validation`, (3 + 2) * 2 * 20 + 2 * 20], // l=0: all three labels; l=0.75: two, and Random shared
        [`${repro}|tuned|tiny|report`, 3 * 2 * 20],
        [`${repro}|paper-choice|tiny|report`, 3 * 2 * 20],
        [`${grid}|null|g-grid|validation`, 4 * 3 * 2 * 20],
      ]),
    );
    // groupby(point) keeps the reference: at every point of both grids, every label, each unit once; Random ran at one point.
    for (const experiment of ['tiny-grid', 'g-grid']) {
      const own = rows.filter((row) => row.experiment === experiment);
      const points = [...new Set(own.map((row) => row.point))];
      expect(points.length).toBe(experiment === 'g-grid' ? 4 : 2);
      const labels = new Set(own.map((row) => row.label));
      for (const point of points) {
        const here = own.filter((row) => row.point === point);
        expect(new Set(here.map((row) => row.label)), `${experiment} ${point}`).toEqual(labels);
        for (const label of labels) expect(here.filter((row) => row.label === label).length, `${experiment} ${point} ${label}`).toBe(2 * 20);
      }
      const randomRanAt = new Set(own.filter((row) => row.label === 'Random' && row.shared === false).map((row) => row.point));
      expect(randomRanAt).toEqual(new Set([experiment === 'g-grid' ? 'l=0,e=0' : 'l=0,e=0.75']));
    }
    // MNL-UCB at (0.75, 0.75) is its (0.75, 0) units, not its (0, 0) ones (which differ: compare tells them apart).
    const mnl = (point: string): string => fs.readFileSync(path.join(grid, 'g-grid', point, 'MNL-UCB', 'trial-1.csv'), 'utf8');
    expect(mnl('l=0,e=0')).not.toBe(mnl('l=0.75,e=0'));
    const shared = rows.filter((row) => row.experiment === 'g-grid' && row.label === 'MNL-UCB' && row.shared === true);
    expect(new Set(shared.map((row) => `${row.point}|${row.param_l}`))).toEqual(new Set(['l=0,e=0.75|0', 'l=0.75,e=0.75|0.75']));
  });

  it('--units: one row per unit, its summary.csv values (CSV read back by csv-parse); each shared unit repeated with shared = true', async () => {
    const file = path.join(root, 'units.csv');
    const r = await runCli(['export', repro, grid, '--units', '--out', file]);
    expect(r.code, r.stderr).toBe(0);
    const rows = csvRows(file);
    compare(rows, expectedRows(folders(), true), Object.keys(rows[0] as Row));
    const shared = rows.filter((row) => row.shared === true).length;
    expect(r.stderr).toBe(`eofd export: ${rows.length - shared} units from 8 experiment folders → ${file} (csv, ${Object.keys(rows[0] as Row).length} columns; ${shared} units repeated at the sweep or grid points they stand for)\n`);
    expect(shared).toBe(2 + 2 * 2 + 3 * 2); // Random at 1 point of 2, MNL-UCB at 2 of 4 and Random at 3 of 4
  });

  it("a reproduction's stage folder, experiment folder or grid given alone is still its run and stage", async () => {
    const file = path.join(root, 'stage.csv');
    const given = [path.join(repro, 'paper-choice'), path.join(repro, 'tuned', 'tiny'), path.join(repro, 'tune', 'tiny-grid')];
    expect((await runCli(['export', ...given, '--out', file, '--quiet'])).code).toBe(0);
    const rows = csvRows(file);
    compare(rows, expectedRows(folders().filter((f) => f.run === repro)), Object.keys(rows[0] as Row));
  });

  it('a grid exported without some of its points: a label whose home point is missing has no rows where that point stood for it', async () => {
    const copy = path.join(root, 'partial-grid');
    fs.cpSync(grid, copy, { recursive: true });
    fs.rmSync(path.join(copy, 'g-grid', 'l=0.75,e=0'), { recursive: true });
    const file = path.join(root, 'partial-grid.csv');
    expect((await runCli(['export', copy, '--out', file, '--quiet'])).code).toBe(0);
    const rows = csvRows(file);
    compare(rows, expectedRows(foldersOf(copy)), Object.keys(rows[0] as Row));
    const at = (point: string): Set<unknown> => new Set(rows.filter((row) => row.point === point).map((row) => row.label));
    expect([at('l=0,e=0.75'), at('l=0.75,e=0.75')]).toEqual([new Set(['EOFD-MLogB', 'MNL-UCB', 'Random']), new Set(['EOFD-MLogB', 'Random'])]);
  });

  it("the names export takes for a reproduction's files and for the unit table are those reproduce and summary.csv use", () => {
    const stages = reproduceFolders('x');
    expect(REPRODUCE_RUN_STAGES.map((stage) => path.join('x', stage))).toEqual([stages.tune, stages.tuned, stages.paperChoice]);
    expect(UNIT_COLUMNS.map((c) => c.name)).toEqual(SUMMARY_COLUMNS.filter((c) => c !== 'policy' && c !== 'trial'));
  });
});
