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
import { pointValues } from '../../src/results/export.js';
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

/** What the export must hold, built from the files the run wrote: one row per round of every unit. */
function expectedRows(): Row[] {
  const rows: Row[] = [];
  const experiments: { dir: string; experiment: string; point: string | null }[] = [{ dir: path.join(out, 'tiny'), experiment: 'tiny', point: null }];
  for (const point of fs.readdirSync(path.join(out, 'tiny-sweep')).sort()) {
    const dir = path.join(out, 'tiny-sweep', point);
    if (fs.statSync(dir).isDirectory()) experiments.push({ dir, experiment: 'tiny-sweep', point });
  }
  for (const { dir, experiment, point } of experiments) {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    for (const label of manifest.config.policies as string[]) {
      const params = manifest.derived.policies[label] as Record<string, unknown>;
      for (let trial = 0; trial < manifest.config.trials; trial++) {
        const [header, ...lines] = fs.readFileSync(path.join(dir, label, `trial-${trial}.csv`), 'utf8').trim().split('\n');
        const names = (header as string).split(',');
        for (const line of lines) {
          const cells = Object.fromEntries(line.split(',').map((v, i) => [names[i], v]));
          const row: Row = { experiment, point, label, policy: params.policy, trial, environment: 'synthetic', K: 2, d: 6, horizon: 12 };
          for (const name of ['t', 'action', 'outcome', 'reward', 'regret', 'cum_regret', 'select_ms', 'update_ms']) row[name] = Number(cells[name]);
          row.m = cells.m === '' ? null : Number(cells.m);
          row.point_beta_scale = point === null ? null : Number(point.split('=')[1]);
          for (const [key, value] of Object.entries(params)) if (key !== 'policy') row[`param_${key}`] = value;
          rows.push(row);
        }
      }
    }
  }
  return rows;
}

/** A table's rows with the keys `expected` rows have (a key absent from a row reads as null). */
function compare(actual: Row[], expected: Row[], columns: string[]): void {
  expect(actual.length).toBe(expected.length);
  const keys = new Set(expected.flatMap((r) => Object.keys(r)));
  expect(new Set(columns)).toEqual(keys);
  const key = (r: Row): string => `${r.experiment}|${r.point}|${r.label}|${r.trial}|${r.t}`;
  const byKey = new Map(expected.map((r) => [key(r), r]));
  for (const row of actual) {
    const want = byKey.get(key(row));
    expect(want, key(row)).toBeDefined();
    for (const k of keys) expect(row[k] ?? null, `${key(row)} ${k}`).toEqual((want as Row)[k] ?? null);
  }
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
    expect([r.code, r.stderr]).toEqual([2, `eofd export: ${empty}: no experiment folder here (none holds manifest.json, nor does any *-sweep or *-grid folder in it)\n`]);
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
    compare(rows, expectedRows(), columns);
    expect(r.stderr).toBe(`eofd export: ${rows.length} rounds of ${rows.length / 12} units from 3 experiment folders → ${file} (parquet, ${columns.length} columns)\n`);
  });

  it("csv into a folder that does not exist yet: the folder is made (as other commands make --out)", async () => {
    const file = path.join(root, 'not-yet', 'there', 'rounds.csv');
    const r = await runCli(['export', out, '--out', file, '--format', 'csv']);
    expect(r.code, r.stderr).toBe(0);
    expect(fs.readFileSync(file, 'utf8').split('\n')[0]).toMatch(/^experiment,/);
  });

  it('arrow: the IPC file holds the same table, typed (Int32, Float64, Utf8)', async () => {
    const file = path.join(root, 'rounds.arrow');
    expect((await runCli(['export', path.join(out, 'tiny'), path.join(out, 'tiny-sweep'), '--out', file, '--quiet'])).code).toBe(0);
    const bytes = fs.readFileSync(file);
    const { rows, columns } = arrowRows(bytes);
    compare(rows, expectedRows(), columns);
    const types = Object.fromEntries(tableFromIPC(bytes).schema.fields.map((f) => [f.name, String(f.type)]));
    expect([types.trial, types.t, types.m, types.regret, types.label, types.param_beta]).toEqual(['Int32', 'Int32', 'Int32', 'Float64', 'Utf8', 'Utf8']);
  });

  it('csv: the same table; --force replaces a file, and a run in progress exports only its finished units', async () => {
    const file = path.join(root, 'rounds.csv');
    writeFile(root, 'rounds.csv', 'old\n');
    expect((await runCli(['export', out, '--out', file, '--force', '--quiet'])).code).toBe(0);
    const records = parse(fs.readFileSync(file, 'utf8'), { columns: true, cast: (v, c) => (c.header ? v : v === '' ? null : /^[a-z]/i.test(v) ? v : Number(v)) }) as Row[];
    compare(records, expectedRows(), Object.keys(records[0] as Row));
    // A unit that has not finished (no unit summary, no summary.csv) is left out.
    const copy = path.join(root, 'partial');
    fs.cpSync(path.join(out, 'tiny'), path.join(copy, 'tiny'), { recursive: true });
    fs.rmSync(path.join(copy, 'tiny', 'summary.csv'));
    fs.rmSync(path.join(copy, 'tiny', 'Random', 'trial-1.summary.json'));
    const r = await runCli(['export', copy, '--out', path.join(root, 'partial.csv')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/: 60 rounds of 5 units from 1 experiment folders → .* \(csv, 28 columns; 1 unfinished units left out\)\n$/);
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
        expect(records.length).toBe(expectedRows().filter((row) => row.experiment === 'tiny').length);
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
