/**
 * `eofd export`: every round of every finished unit under some results folders as one tidy long table
 * (one row per experiment × label × trial × round) in CSV, Parquet or Arrow IPC, for pandas, polars, R
 * or DuckDB to read in one call. Columns:
 *
 *   experiment, [point], label, policy, trial, t,            who and when (policy: the label's algorithm)
 *   action, outcome, reward, regret, cum_regret,             the trial CSV's round, as written
 *   select_ms, update_ms, m,                                 (m: the sketch size m_t; null if unsketched)
 *   environment, K, d, horizon,                              the setting (manifest)
 *   point_<key>…                                             a sweep or grid point's swept values
 *   param_<key>…                                             the label's resolved hyperparameters (derived.policies)
 *
 * A sweep's or grid's point folder is exported with experiment = the sweep folder's name
 * (`<name>-sweep`, `<name>-grid`) and point = the point folder's name. Units are read and validated one
 * at a time (read.ts) and written in batches, so memory stays bounded by a batch; the file is written
 * under a temporary name and renamed into place when complete.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { Data } from 'apache-arrow';
import { describeFsError, EofdError } from '../base/errors.js';
import { checkReplaceable, isWithin } from '../base/files.js';
import { BEST_FILE, GRID_FILE, MANIFEST_FILE, splitTopLevel, SWEEP_FILE, SWEEP_SHARD_FILE, unitFiles } from './layout.js';
import type { ManifestRead } from './manifest.js';
import { experimentUnits, forEachCsvRecord, readManifest, readUnit, ResultsError } from './read.js';
import { syncFolder } from './write.js';

export const EXPORT_FORMATS = ['csv', 'parquet', 'arrow'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The format a file name asks for (`.csv`, `.parquet`, `.arrow`/`.feather`/`.ipc`), or null. */
export function formatOfFile(file: string): ExportFormat | null {
  const ext = path.extname(file).toLowerCase();
  if (ext === '.csv') return 'csv';
  if (ext === '.parquet' || ext === '.pq') return 'parquet';
  if (ext === '.arrow' || ext === '.feather' || ext === '.ipc') return 'arrow';
  return null;
}

type Kind = 'string' | 'int' | 'double';
type Cell = string | number | null;

export interface ExportColumn {
  name: string;
  kind: Kind;
  nullable: boolean;
}

/** One experiment folder to export, with what its rows share. */
interface Source {
  dir: string;
  manifest: ManifestRead;
  /** The experiment column: the manifest's name, or the sweep folder's name for a point. */
  experiment: string;
  /** A sweep or grid point: the folder's name and its swept values by axis label. */
  point: { name: string; values: Map<string, Cell> } | null;
}

export interface ExportOptions {
  format: ExportFormat;
  out: string;
  /** Replace an existing `out`. */
  force?: boolean;
  /** Rows per batch (a Parquet row group, an Arrow record batch). */
  batchRows?: number;
}

export interface ExportResult {
  out: string;
  format: ExportFormat;
  columns: ExportColumn[];
  rows: number;
  units: number;
  experiments: number;
  /** Planned units not exported because they have not finished. */
  unfinished: number;
}

const ROUND_COLUMNS: readonly ExportColumn[] = [
  { name: 'trial', kind: 'int', nullable: false },
  { name: 't', kind: 'int', nullable: false },
  { name: 'action', kind: 'int', nullable: false },
  { name: 'outcome', kind: 'int', nullable: false },
  { name: 'reward', kind: 'double', nullable: false },
  { name: 'regret', kind: 'double', nullable: false },
  { name: 'cum_regret', kind: 'double', nullable: false },
  { name: 'select_ms', kind: 'double', nullable: false },
  { name: 'update_ms', kind: 'double', nullable: false },
  { name: 'm', kind: 'int', nullable: true },
];

/** The trial CSV columns copied into each row (ROUND_COLUMNS but `trial`, which the unit gives). */
const COPIED = ROUND_COLUMNS.filter((c) => c.name !== 'trial');

const SETTING_COLUMNS: readonly ExportColumn[] = [
  { name: 'environment', kind: 'string', nullable: false },
  { name: 'K', kind: 'int', nullable: false },
  { name: 'd', kind: 'int', nullable: false },
  { name: 'horizon', kind: 'int', nullable: false },
];

const DEFAULT_BATCH_ROWS = 65_536;

// ---------------------------------------------------------------------------------------------
// Finding the experiment folders

const hasManifest = (dir: string): boolean => fs.existsSync(path.join(dir, MANIFEST_FILE));

/** A sweep's or grid's point: its manifest names it `key=value,…`, which no experiment name can be (an '='). */
const isPointManifest = (manifest: ManifestRead): boolean => pointValues(manifest.name) !== null;

/**
 * Whether `dir` is a sweep's or grid's folder, told by what it holds (not by its name, which any
 * `--out` may share): a sweep's or grid's outputs, or an experiment folder that is a point.
 */
function isSweepFolder(dir: string): boolean {
  const names = fs.readdirSync(dir);
  if (names.some((name) => [GRID_FILE, SWEEP_FILE, SWEEP_SHARD_FILE, BEST_FILE].includes(name))) return true;
  return subfolders(dir).some((sub) => {
    if (!hasManifest(sub)) return false;
    try {
      return isPointManifest(readManifest(sub));
    } catch {
      return false;
    }
  });
}

function subfolders(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => path.join(dir, name));
}

/**
 * The experiment folders under `dir`: itself when it holds a manifest; else its sub-folders that do,
 * and the point folders of its `*-sweep` / `*-grid` sub-folders (or its own, when it is one).
 */
function experimentFolders(dir: string): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (error) {
    throw new ResultsError(`${dir}: ${describeFsError(error)}`);
  }
  if (!stat.isDirectory()) throw new ResultsError(`${dir}: not a folder (give experiment, sweep, grid or --out folders)`);
  if (hasManifest(dir)) return [dir];
  const found = subfolders(dir).flatMap((sub) => (hasManifest(sub) ? [sub] : isSweepFolder(sub) ? subfolders(sub).filter(hasManifest) : []));
  if (found.length === 0) throw new ResultsError(`${dir}: no experiment folder here (none holds ${MANIFEST_FILE}, nor does any *-sweep or *-grid folder in it)`);
  return found;
}

/** `l=0.5,e=[1, 2]` → [['l', '0.5'], ['e', '[1, 2]']]: split at the commas outside brackets and braces. */
export function pointValues(name: string): [label: string, value: string][] | null {
  const pairs = splitTopLevel(name).map((p) => {
    const at = p.indexOf('=');
    return at <= 0 ? null : ([p.slice(0, at), p.slice(at + 1)] as [string, string]);
  });
  return pairs.every((p) => p !== null) ? (pairs as [string, string][]) : null;
}

/** A point value as a cell: a number when its text is one, else the text. */
function pointCell(text: string): Cell {
  const n = text.trim() === '' ? Number.NaN : Number(text);
  return Number.isFinite(n) ? n : text;
}

function sourceOf(dir: string): Source {
  const manifest = readManifest(dir);
  const parent = path.dirname(path.resolve(dir));
  if (!isPointManifest(manifest)) return { dir, manifest, experiment: manifest.name, point: null };
  const name = path.basename(path.resolve(dir));
  const pairs = pointValues(name);
  if (pairs === null) throw new ResultsError(`${dir}: a folder in a sweep or grid folder whose name is not a point (label=value,…)`);
  return { dir, manifest, experiment: path.basename(parent), point: { name, values: new Map(pairs.map(([k, v]) => [k, pointCell(v)])) } };
}

/** The sources under `dirs`, each folder once; two of one (experiment, point) are refused. */
function findSources(dirs: readonly string[]): Source[] {
  if (dirs.length === 0) throw new ResultsError('no results folder given');
  const seen = new Set<string>();
  const byKey = new Map<string, string>();
  const sources: Source[] = [];
  for (const dir of dirs) {
    for (const folder of experimentFolders(dir)) {
      const real = fs.realpathSync(folder);
      if (seen.has(real)) continue;
      seen.add(real);
      const source = sourceOf(folder);
      const key = `${source.experiment}\u0000${source.point?.name ?? ''}`;
      const twin = byKey.get(key);
      if (twin !== undefined) throw new ResultsError(`${twin} and ${folder} both hold experiment ${JSON.stringify(source.experiment)}${source.point === null ? '' : ` point ${source.point.name}`}; give only one of them`);
      byKey.set(key, folder);
      sources.push(source);
    }
  }
  return sources;
}

// ---------------------------------------------------------------------------------------------
// Columns

/** A label's resolved hyperparameters from the manifest's derived.policies (none when absent). */
function policyEntry(manifest: ManifestRead, label: string): Record<string, unknown> {
  const policies = (manifest.derived as { policies?: unknown } | undefined)?.policies;
  const entry = typeof policies === 'object' && policies !== null ? (policies as Record<string, unknown>)[label] : undefined;
  return typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
}

/** The label's algorithm: derived.policies[label].policy, else config.variants[label].policy, else the label. */
function algorithmOf(manifest: ManifestRead, label: string): string {
  const derived = policyEntry(manifest, label).policy;
  if (typeof derived === 'string') return derived;
  const variant = ((manifest.config as { variants?: Record<string, { policy?: unknown }> }).variants ?? {})[label]?.policy;
  return typeof variant === 'string' ? variant : label;
}

function cellOf(value: unknown): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string') return value;
  return JSON.stringify(value);
}

/** The kind of a column of these cells: double when every non-null one is a number, else string. */
function kindOf(cells: Iterable<Cell>): Kind {
  for (const c of cells) if (c !== null && typeof c !== 'number') return 'string';
  return 'double';
}

/** A cell for a column of `kind`: numbers become their shortest exact text in a string column. */
function asKind(cell: Cell, kind: Kind): Cell {
  return cell === null || kind !== 'string' ? cell : String(cell);
}

interface Layout {
  columns: ExportColumn[];
  pointKeys: string[];
  paramKeys: string[];
  kinds: Map<string, Kind>;
}

function layoutOf(sources: readonly Source[]): Layout {
  const pointCells = new Map<string, Cell[]>();
  const paramCells = new Map<string, Cell[]>();
  const add = (map: Map<string, Cell[]>, key: string, cell: Cell): void => void (map.get(key) ?? map.set(key, []).get(key))?.push(cell);
  for (const s of sources) {
    for (const [key, cell] of s.point?.values ?? []) add(pointCells, key, cell);
    for (const label of s.manifest.config.policies) {
      for (const [key, value] of Object.entries(policyEntry(s.manifest, label))) if (key !== 'policy') add(paramCells, key, cellOf(value));
    }
  }
  const kinds = new Map<string, Kind>();
  const dynamic = (prefix: string, cells: Map<string, Cell[]>): ExportColumn[] =>
    [...cells].map(([key, values]) => {
      const name = prefix + key;
      kinds.set(name, kindOf(values));
      return { name, kind: kindOf(values), nullable: true };
    });
  const hasPoints = sources.some((s) => s.point !== null);
  const columns: ExportColumn[] = [
    { name: 'experiment', kind: 'string', nullable: false },
    ...(hasPoints ? [{ name: 'point', kind: 'string', nullable: true } as const] : []),
    { name: 'label', kind: 'string', nullable: false },
    { name: 'policy', kind: 'string', nullable: false },
    ...ROUND_COLUMNS,
    ...SETTING_COLUMNS,
    ...dynamic('point_', pointCells),
    ...dynamic('param_', paramCells),
  ];
  const names = columns.map((c) => c.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new ResultsError(`two columns would be named ${twice}; export the folders separately`);
  return { columns, pointKeys: [...pointCells.keys()], paramKeys: [...paramCells.keys()], kinds };
}

// ---------------------------------------------------------------------------------------------
// Writers: one per format, each taking column-major batches

interface BatchWriter {
  write(columns: Cell[][], rows: number): void;
  finish(): void;
}

/** Writes all of `bytes` at the file's current position. */
function writeAll(fd: number, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += fs.writeSync(fd, bytes, offset);
}

function csvWriter(fd: number, columns: readonly ExportColumn[]): BatchWriter {
  writeAll(fd, Buffer.from(stringify([columns.map((c) => c.name)]), 'utf8'));
  return {
    write(cells, rows) {
      const records: string[][] = [];
      for (let r = 0; r < rows; r++) records.push(cells.map((column) => (column[r] === null ? '' : String(column[r]))));
      writeAll(fd, Buffer.from(stringify(records), 'utf8'));
    },
    finish() {},
  };
}

async function parquetWriter(fd: number, columns: readonly ExportColumn[]): Promise<BatchWriter> {
  const { ByteWriter, ParquetWriter, schemaFromColumnData } = await import('hyparquet-writer');
  const TYPES = { string: 'STRING', int: 'INT32', double: 'DOUBLE' } as const;
  const columnData = (cells: Cell[][]) =>
    columns.map((c, i) => ({ name: c.name, type: TYPES[c.kind], nullable: c.nullable, data: cells[i] as Cell[] }));
  // An in-memory ByteWriter emptied into the file after each row group (ParquetWriter calls flush).
  const bytes = new ByteWriter();
  const flush = (): void => {
    writeAll(fd, new Uint8Array(bytes.buffer, 0, bytes.index));
    bytes.index = 0;
  };
  const sink = Object.assign(bytes, { flush, finish: flush });
  const writer = new ParquetWriter({ writer: sink, schema: schemaFromColumnData({ columnData: columnData(columns.map(() => [])) }), createdBy: 'eofd export (hyparquet-writer)' });
  return {
    write(cells, rows) {
      void writer.write({ columnData: columnData(cells), rowGroupSize: rows });
    },
    finish() {
      void writer.finish();
    },
  };
}

async function arrowWriter(fd: number, columns: readonly ExportColumn[]): Promise<BatchWriter> {
  const arrow = await import('apache-arrow');
  const types = { string: () => new arrow.Utf8(), int: () => new arrow.Int32(), double: () => new arrow.Float64() };
  const schema = new arrow.Schema(columns.map((c) => new arrow.Field(c.name, types[c.kind](), c.nullable)));
  // The writer's byte queue, drained into the file as each message is written.
  class FileSink extends arrow.AsyncByteQueue {
    override write(value: Uint8Array): void {
      writeAll(fd, value);
    }
  }
  const writer = new arrow.RecordBatchFileWriter();
  writer.reset(new FileSink(), schema);
  return {
    write(cells, rows) {
      const children = columns.map((c, i) => {
        // One column of one batch is one chunk (vectorFromArray builds it in one piece).
        const [chunk, ...more] = arrow.vectorFromArray(cells[i] as Cell[], types[c.kind]()).data;
        if (chunk === undefined || more.length > 0) throw new Error(`export: column ${c.name} came out in ${more.length + 1} chunks`);
        return chunk as Data;
      });
      const data = arrow.makeData({ type: new arrow.Struct(schema.fields), length: rows, nullCount: 0, children });
      writer.write(new arrow.RecordBatch(schema, data));
    },
    finish() {
      writer.finish();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Export

/**
 * Writes every round of every finished unit under `dirs` to `options.out`, atomically; refuses an
 * existing `out` without `force`. Throws ResultsError (exit 2) on bad input.
 */
export async function exportResults(dirs: readonly string[], options: ExportOptions): Promise<ExportResult> {
  const { out, format } = options;
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) throw new ResultsError(`--format: expected one of ${EXPORT_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  const existing = fs.lstatSync(out, { throwIfNoEntry: false });
  if (existing?.isDirectory() === true) throw new ResultsError(`${out}: is a folder; --out names the file to write`);
  if (existing !== undefined && options.force !== true) throw new ResultsError(`${out} exists; not overwritten (--force replaces it)`);
  checkReplaceable(out);
  const sources = findSources(dirs);
  // The table never lands among the files it is read from (a unit's CSV, a sweep's own files).
  for (const folder of readFolders(sources)) {
    if (isWithin(out, folder)) throw new ResultsError(`--out ${out}: is inside ${folder}, a folder being exported; write the table elsewhere`);
  }
  const layout = layoutOf(sources);
  const batchRows = options.batchRows ?? DEFAULT_BATCH_ROWS;

  // The table's folder is made as other commands make their --out.
  try {
    fs.mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
  } catch (error) {
    throw new ResultsError(`${out}: cannot make its folder: ${describeFsError(error)}`, 1);
  }
  const tmp = `${out}.tmp-${process.pid}`;
  let fd: number;
  try {
    fd = fs.openSync(tmp, 'wx');
  } catch (error) {
    throw new ResultsError(`${out}: cannot write: ${describeFsError(error)}`, 1);
  }
  const result: ExportResult = { out, format, columns: layout.columns, rows: 0, units: 0, experiments: 0, unfinished: 0 };
  try {
    const writer = format === 'csv' ? csvWriter(fd, layout.columns) : format === 'parquet' ? await parquetWriter(fd, layout.columns) : await arrowWriter(fd, layout.columns);
    let batch: Cell[][] = layout.columns.map(() => []);
    let pending = 0;
    const flush = (): void => {
      if (pending === 0) return;
      writer.write(batch, pending);
      batch = layout.columns.map(() => []);
      pending = 0;
    };
    for (const source of sources) {
      const { config } = source.manifest;
      // Finished units as `eofd report` takes them (read-folders.ts: one rule for both).
      const units = experimentUnits(source.dir, { inProgress: true });
      result.unfinished += config.policies.length * config.trials - units.summary.rows.length;
      let exported = 0;
      for (const label of config.policies) {
        const shared = new Map<string, Cell>([
          ['experiment', source.experiment],
          ['point', source.point?.name ?? null],
          ['label', label],
          ['policy', algorithmOf(source.manifest, label)],
          ['environment', config.environment.type],
          ['K', config.environment.K],
          ['d', config.environment.d],
          ['horizon', config.horizon],
        ]);
        for (const key of layout.pointKeys) shared.set(`point_${key}`, source.point?.values.get(key) ?? null);
        const params = policyEntry(source.manifest, label);
        for (const key of layout.paramKeys) shared.set(`param_${key}`, asKind(cellOf(params[key]), layout.kinds.get(`param_${key}`) as Kind));
        for (const [key, cell] of shared) if (key.startsWith('point_')) shared.set(key, asKind(cell, layout.kinds.get(key) as Kind));
        for (const row of units.summary.rows) {
          if (row.policy !== label) continue;
          readUnit(units, row);
          shared.set('trial', row.trial);
          // Per column: the trial CSV's field to copy, or the unit's shared value; the file streamed row by row.
          let plan: { field: number | null; value: Cell }[] | null = null;
          forEachCsvRecord(unitFiles(source.dir, label, row.trial).csv, ({ fields }) => {
            if (plan === null) {
              const header = fields.map((h) => h.trim());
              plan = layout.columns.map((column) => {
                const copied = COPIED.some((x) => x.name === column.name);
                return { field: copied ? header.indexOf(column.name) : null, value: shared.get(column.name) ?? null };
              });
              return;
            }
            plan.forEach(({ field, value }, c) => {
              const text = field === null ? null : field === -1 ? '' : (fields[field] as string).trim();
              (batch[c] as Cell[]).push(text === null ? value : text === '' ? null : Number(text));
            });
            result.rows++;
            if (++pending >= batchRows) flush();
          });
          result.units++;
          exported++;
        }
      }
      if (exported > 0) result.experiments++;
    }
    flush();
    if (result.units === 0) throw new ResultsError(`no finished unit under ${dirs.join(', ')}; nothing to export`);
    writer.finish();
    fs.fsyncSync(fd);
    fs.closeSync(fd);
    fd = -1;
    place(tmp, out, options.force === true);
  } catch (error) {
    if (fd !== -1) fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  syncFolder(path.dirname(path.resolve(out)));
  return result;
}

/** The folders an export reads: each experiment folder, and the sweep or grid folder of a point. */
function readFolders(sources: readonly Source[]): string[] {
  return [...new Set(sources.flatMap((s) => (s.point === null ? [s.dir] : [s.dir, path.dirname(path.resolve(s.dir))])))];
}

/** Moves the finished temporary file to `out`: replacing it only with `force` (a link never replaces). */
function place(tmp: string, out: string, force: boolean): void {
  try {
    if (force) {
      checkReplaceable(out);
      fs.renameSync(tmp, out);
    }
    else {
      fs.linkSync(tmp, out);
      fs.rmSync(tmp);
    }
  } catch (error) {
    if (error instanceof EofdError) throw error;
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw new ResultsError(`${out} appeared while exporting; not overwritten (--force replaces it)`);
    throw new ResultsError(`${out}: cannot write: ${describeFsError(error)}`, 1);
  }
}
