/**
 * `eofd export`: every round of every finished unit under some results folders as one tidy long table
 * (one row per run × stage × experiment × point × label × trial × round) in CSV, Parquet or Arrow IPC,
 * for pandas, polars, R or DuckDB to read in one call; with `units`, one row per unit instead (its
 * end statistics). Columns:
 *
 *   run, stage, experiment, point, shared, split,            where the rows come from (see below)
 *   label, policy, trial, seed, env_seed, policy_seed,       the unit (policy: the label's algorithm)
 *   t, action, actions, outcome, reward, regret,             the trial CSV's round, as written (actions: |A_t|;
 *   best_reward, cum_regret, select_ms, update_ms, m,        best_reward: max_{x∈A_t} rᵀσ(W*x); m: the sketch size
 *                                                            m_t, null if unsketched; a column the file lacks: null)
 *   or, with `units`: final_regret … m_T                     the unit's summary (summary.csv's columns)
 *   environment, K, d, horizon,                              the setting (manifest)
 *   point_<key>…                                             a sweep or grid point's swept values
 *   param_<key>…                                             the label's resolved hyperparameters (derived.policies)
 *
 * run: the folder a command wrote into (its --out; a reproduction's own folder), spelled as given;
 * stage: a reproduction's stage (tune, tuned, paper-choice), null elsewhere; split: the seed split of the
 * trials (manifest seeds.split: validation for a grid, report for a run). A sweep's or grid's point folder
 * is exported with experiment = the sweep folder's name (`<name>-sweep`, `<name>-grid`) and point = the
 * point folder's name. A label that does not read every swept key runs only at its home point (sweep.ts
 * `homePoint`; a grid's reference, e.g. Random, runs once) and stands for itself at the others: its rows
 * are repeated at every point folder it stands for, with shared = true there. Units are read and
 * validated one at a time (read.ts) and written in batches, so memory stays bounded by a batch; the file
 * is written under a temporary name and renamed into place when complete.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import type { Data } from 'apache-arrow';
import { describeFsError, EofdError } from '../base/errors.js';
import { checkReplaceable, isWithin } from '../base/files.js';
import { BEST_FILE, GRID_FILE, MANIFEST_FILE, REPRODUCE_FILE, REPRODUCE_RUN_STAGES, splitTopLevel, SWEEP_FILE, SWEEP_SHARD_FILE, unitFiles } from './layout.js';
import type { ManifestRead } from './manifest.js';
import { experimentUnits, forEachCsvRecord, readManifest, readUnit, ResultsError, type ExperimentUnits } from './read.js';
import type { SummaryRow, TrialSummary } from './records.js';
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

type Kind = 'string' | 'int' | 'double' | 'bool';
type Cell = string | number | boolean | null;

export interface ExportColumn {
  name: string;
  kind: Kind;
  nullable: boolean;
}

/** One experiment folder to export, with what its rows share. */
interface Source {
  dir: string;
  manifest: ManifestRead;
  /** The run column: the folder the command wrote into (a reproduction's own folder), spelled as given. */
  run: string;
  /** A reproduction's stage (`tune`, `tuned`, `paper-choice`), or null. */
  stage: string | null;
  /** The experiment column: the manifest's name, or the sweep folder's name for a point. */
  experiment: string;
  /** A sweep or grid point: the folder's name and its swept values by axis label (as written, and as cells). */
  point: { name: string; texts: Map<string, string>; values: Map<string, Cell> } | null;
  /** Of a point: the labels it does not run, each with the point of its sweep whose units stand for it here. */
  shared: Map<string, Source>;
}

export interface ExportOptions {
  format: ExportFormat;
  out: string;
  /** One row per unit (its summary) instead of one per round. */
  units?: boolean;
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
  /** Units exported (each once, at its own point). */
  units: number;
  /** Units exported again at the other points of their sweep or grid (shared = true). */
  repeated: number;
  experiments: number;
  /** Planned units not exported because they have not finished. */
  unfinished: number;
}

/** Who made the rows: the unit and the seeds its streams came from (manifest seeds). */
const UNIT_ID_COLUMNS: readonly ExportColumn[] = [
  { name: 'label', kind: 'string', nullable: false },
  { name: 'policy', kind: 'string', nullable: false },
  { name: 'trial', kind: 'int', nullable: false },
];

const SEED_COLUMNS: readonly ExportColumn[] = [
  { name: 'env_seed', kind: 'string', nullable: true },
  { name: 'policy_seed', kind: 'string', nullable: true },
];

/** The trial CSV columns copied into each row of the round table. */
const ROUND_COLUMNS: readonly ExportColumn[] = [
  { name: 't', kind: 'int', nullable: false },
  { name: 'action', kind: 'int', nullable: false },
  // actions and best_reward: null in trial CSVs written before they existed (best_reward: or by a module environment without it).
  { name: 'actions', kind: 'int', nullable: true },
  { name: 'outcome', kind: 'int', nullable: false },
  { name: 'reward', kind: 'double', nullable: false },
  { name: 'regret', kind: 'double', nullable: false },
  { name: 'best_reward', kind: 'double', nullable: true },
  { name: 'cum_regret', kind: 'double', nullable: false },
  { name: 'select_ms', kind: 'double', nullable: false },
  { name: 'update_ms', kind: 'double', nullable: false },
  { name: 'm', kind: 'int', nullable: true },
];

/** The unit table's columns: summary.csv's (records.ts SUMMARY_COLUMNS) after policy and trial, each with its TrialSummary field. */
export const UNIT_COLUMNS: readonly (ExportColumn & { field: keyof TrialSummary })[] = [
  { name: 'final_regret', field: 'finalRegret', kind: 'double', nullable: false },
  { name: 'mean_select_ms', field: 'meanSelectMs', kind: 'double', nullable: false },
  { name: 'mean_update_ms', field: 'meanUpdateMs', kind: 'double', nullable: false },
  { name: 'median_select_ms', field: 'medianSelectMs', kind: 'double', nullable: false },
  { name: 'median_update_ms', field: 'medianUpdateMs', kind: 'double', nullable: false },
  { name: 'mean_round_ms', field: 'meanRoundMs', kind: 'double', nullable: false },
  // Counts that may pass Int32 (bytes of a large policy's state; projections over a long run).
  { name: 'state_bytes', field: 'stateBytes', kind: 'double', nullable: false },
  { name: 'sketch_error', field: 'sketchError', kind: 'double', nullable: false },
  { name: 'projections', field: 'projections', kind: 'double', nullable: false },
  { name: 'parameter_error', field: 'parameterError', kind: 'double', nullable: true },
  { name: 'delta_T', field: 'deltaT', kind: 'double', nullable: true },
  { name: 'beta_T', field: 'betaT', kind: 'double', nullable: true },
  { name: 'm_T', field: 'mT', kind: 'int', nullable: true },
];

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

/** A reproduction's folder (`eofd reproduce --out`): it holds reproduce.json. */
const isReproduction = (dir: string): boolean => fs.existsSync(path.join(dir, REPRODUCE_FILE));

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

/** The experiment folders a `--out` folder holds: its sub-folders with a manifest, and the point folders of its sweep and grid folders. */
function heldBy(dir: string): string[] {
  return subfolders(dir).flatMap((sub) => (hasManifest(sub) ? [sub] : isSweepFolder(sub) ? subfolders(sub).filter(hasManifest) : []));
}

/** A reproduction's experiment folders: those of its stage folders, in stage order. */
function reproduced(dir: string): string[] {
  return REPRODUCE_RUN_STAGES.map((stage) => path.join(dir, stage))
    .filter((stage) => fs.statSync(stage, { throwIfNoEntry: false })?.isDirectory() === true)
    .flatMap(heldBy);
}

/**
 * The experiment folders under `dir`: itself when it holds a manifest; a reproduction's (its stages');
 * else those it holds (heldBy), and those of the reproductions among its sub-folders.
 */
function experimentFolders(dir: string): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (error) {
    throw new ResultsError(`${dir}: ${describeFsError(error)}`);
  }
  if (!stat.isDirectory()) throw new ResultsError(`${dir}: not a folder (give experiment, sweep, grid, reproduction or --out folders)`);
  if (hasManifest(dir)) return [dir];
  const found = isReproduction(dir) ? reproduced(dir) : [...heldBy(dir), ...subfolders(dir).filter(isReproduction).flatMap(reproduced)];
  if (found.length === 0) throw new ResultsError(`${dir}: no experiment folder here (none holds ${MANIFEST_FILE}, nor does any *-sweep or *-grid folder or reproduction in it)`);
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

/**
 * The run and stage of the rows of a folder written into `out` (absolute: an experiment's parent, a
 * sweep folder's parent): a reproduction's stage folder is its stage, of the run that is the
 * reproduction. The run is spelled relative to the working folder when the folder was given relative.
 */
function runOf(out: string, relative: boolean): { run: string; stage: string | null } {
  const name = path.basename(out);
  const reproduction = path.dirname(out);
  const stage = (REPRODUCE_RUN_STAGES as readonly string[]).includes(name) && isReproduction(reproduction) ? name : null;
  const run = stage === null ? out : reproduction;
  return { run: relative ? path.relative(process.cwd(), run) || '.' : run, stage };
}

function sourceOf(dir: string): Source {
  const manifest = readManifest(dir);
  const parent = path.dirname(path.resolve(dir));
  const relative = !path.isAbsolute(dir);
  if (!isPointManifest(manifest)) return { dir, manifest, ...runOf(parent, relative), experiment: manifest.name, point: null, shared: new Map() };
  const name = path.basename(path.resolve(dir));
  const pairs = pointValues(name);
  if (pairs === null) throw new ResultsError(`${dir}: a folder in a sweep or grid folder whose name is not a point (label=value,…)`);
  const point = { name, texts: new Map(pairs), values: new Map(pairs.map(([k, v]) => [k, pointCell(v)])) };
  return { dir, manifest, ...runOf(path.dirname(parent), relative), experiment: path.basename(parent), point, shared: new Map() };
}

/** The sources under `dirs`, each folder once; two of one (run, stage, experiment, point) are refused. */
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
      const key = [source.run, source.stage ?? '', source.experiment, source.point?.name ?? ''].join('\u0000');
      const twin = byKey.get(key);
      if (twin !== undefined) {
        const what = `run ${source.run}${source.stage === null ? '' : ` stage ${source.stage}`} experiment ${JSON.stringify(source.experiment)}${source.point === null ? '' : ` point ${source.point.name}`}`;
        throw new ResultsError(`${twin} and ${folder} both hold ${what}; give only one of them`);
      }
      byKey.set(key, folder);
      sources.push(source);
    }
  }
  linkShared(sources);
  return sources;
}

/**
 * Gives every point the labels of its sweep that it does not run (Source.shared): a label runs only at
 * its home point, with every swept key it does not read at the key's first value (sweep.ts `homePoint`),
 * and stands for itself at the other points. Its home for a point is the one point folder of the same
 * sweep that runs it and agrees with the point on every key the label reads: those among its resolved
 * hyperparameters (derived.policies, a `params.` key without the prefix), and those on which the folders
 * that run it differ. Two folders that run it differ on some key, which is then one of these: the home is
 * unique. A label whose home is not among the folders exported has no rows there.
 */
function linkShared(sources: readonly Source[]): void {
  const sweeps = new Map<string, Source[]>();
  for (const s of sources) {
    if (s.point === null) continue;
    const sweep = path.dirname(path.resolve(s.dir));
    (sweeps.get(sweep) ?? sweeps.set(sweep, []).get(sweep))?.push(s);
  }
  for (const points of sweeps.values()) {
    const labels = [...new Set(points.flatMap((p) => p.manifest.config.policies))];
    for (const label of labels) {
      const homes = points.filter((p) => p.manifest.config.policies.includes(label));
      const keys = [...new Set(points.flatMap((p) => [...(p.point?.texts.keys() ?? [])]))];
      const text = (p: Source, key: string): string | undefined => p.point?.texts.get(key);
      const reads = keys.filter(
        (key) => homes.some((h) => Object.hasOwn(policyEntry(h.manifest, label), key.replace(/^params\./, ''))) || new Set(homes.map((h) => text(h, key))).size > 1,
      );
      for (const point of points) {
        if (point.manifest.config.policies.includes(label)) continue;
        const home = homes.filter((h) => reads.every((key) => text(h, key) === text(point, key)));
        if (home.length === 1) point.shared.set(label, home[0] as Source);
      }
    }
  }
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

/** What the manifest records of a run's seeds: the split, the config's seed and, per trial, each stream's seed (hex). */
function seedsOf(manifest: ManifestRead): { split: string | null; seed: number | null; trials: Record<string, Record<string, unknown>> } {
  const seeds = (manifest.seeds ?? {}) as { split?: unknown; seed?: unknown; trials?: unknown };
  const seed = (manifest.config as { seed?: unknown }).seed ?? seeds.seed;
  const trials = typeof seeds.trials === 'object' && seeds.trials !== null ? (seeds.trials as Record<string, Record<string, unknown>>) : {};
  return { split: typeof seeds.split === 'string' ? seeds.split : null, seed: typeof seed === 'number' ? seed : null, trials };
}

/** A unit's stream seeds: its trial's environment stream, and its policy's own (keyed by algorithm, `policy:<name>`), when it draws. */
function unitSeeds(manifest: ManifestRead, policy: string, trial: number): { env_seed: Cell; policy_seed: Cell } {
  const streams = seedsOf(manifest).trials[String(trial)] ?? {};
  const hex = (value: unknown): Cell => (typeof value === 'string' ? value : null);
  return { env_seed: hex(streams.environment), policy_seed: hex(streams[`policy:${policy}`]) };
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

function layoutOf(sources: readonly Source[], units: boolean): Layout {
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
  // The config's seed is an integer ≥ 0 of any size: Int32 when every one fits.
  const seeds = sources.map((s) => seedsOf(s.manifest).seed);
  const seedKind: Kind = seeds.every((x) => x === null || (Number.isInteger(x) && x < 2 ** 31)) ? 'int' : 'double';
  const columns: ExportColumn[] = [
    { name: 'run', kind: 'string', nullable: false },
    { name: 'stage', kind: 'string', nullable: true },
    { name: 'experiment', kind: 'string', nullable: false },
    { name: 'point', kind: 'string', nullable: true },
    { name: 'shared', kind: 'bool', nullable: false },
    { name: 'split', kind: 'string', nullable: true },
    ...UNIT_ID_COLUMNS,
    { name: 'seed', kind: seedKind, nullable: true },
    ...SEED_COLUMNS,
    ...(units ? UNIT_COLUMNS.map(({ name, kind, nullable }) => ({ name, kind, nullable })) : ROUND_COLUMNS),
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
  const TYPES = { string: 'STRING', int: 'INT32', double: 'DOUBLE', bool: 'BOOLEAN' } as const;
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
  const types = { string: () => new arrow.Utf8(), int: () => new arrow.Int32(), double: () => new arrow.Float64(), bool: () => new arrow.Bool() };
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
 * Writes every round (with `options.units`, every unit) of every finished unit under `dirs` to
 * `options.out`, atomically; refuses an existing `out` without `force`. Throws ResultsError (exit 2) on
 * bad input.
 */
export async function exportResults(dirs: readonly string[], options: ExportOptions): Promise<ExportResult> {
  const { out, format } = options;
  const perUnit = options.units === true;
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
  const layout = layoutOf(sources, perUnit);
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
  const result: ExportResult = { out, format, columns: layout.columns, rows: 0, units: 0, repeated: 0, experiments: 0, unfinished: 0 };
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
    const push = (cellOfColumn: (column: ExportColumn, c: number) => Cell): void => {
      layout.columns.forEach((column, c) => (batch[c] as Cell[]).push(cellOfColumn(column, c)));
      result.rows++;
      if (++pending >= batchRows) flush();
    };
    // Finished units as `eofd report` takes them (read-folders.ts: one rule for both), each folder's listed once.
    const listed = new Map<string, ExperimentUnits>();
    const unitsOf = (source: Source): ExperimentUnits => listed.get(source.dir) ?? listed.set(source.dir, experimentUnits(source.dir, { inProgress: true })).get(source.dir) as ExperimentUnits;
    const validated = new Set<string>();
    for (const source of sources) {
      const { config } = source.manifest;
      result.unfinished += config.policies.length * config.trials - unitsOf(source).summary.rows.length;
      // Its own labels, then those its sweep's other points stand in for (each from its home point).
      const labels: [label: string, home: Source][] = [...config.policies.map((label): [string, Source] => [label, source]), ...source.shared];
      let exported = 0;
      for (const [label, home] of labels) {
        const policy = algorithmOf(home.manifest, label);
        const common = new Map<string, Cell>([
          ['run', source.run],
          ['stage', source.stage],
          ['experiment', source.experiment],
          ['point', source.point?.name ?? null],
          ['shared', home !== source],
          ['split', seedsOf(home.manifest).split],
          ['label', label],
          ['policy', policy],
          ['seed', seedsOf(home.manifest).seed],
          ['environment', config.environment.type],
          ['K', config.environment.K],
          ['d', config.environment.d],
          ['horizon', config.horizon],
        ]);
        for (const key of layout.pointKeys) common.set(`point_${key}`, asKind(source.point?.values.get(key) ?? null, layout.kinds.get(`point_${key}`) as Kind));
        const params = policyEntry(home.manifest, label);
        for (const key of layout.paramKeys) common.set(`param_${key}`, asKind(cellOf(params[key]), layout.kinds.get(`param_${key}`) as Kind));
        const units = unitsOf(home);
        for (const row of units.summary.rows) {
          if (row.policy !== label) continue;
          const id = `${home.dir}\u0000${label}\u0000${row.trial}`;
          if (!validated.has(id)) readUnit(units, row);
          validated.add(id);
          common.set('trial', row.trial);
          for (const [key, cell] of Object.entries(unitSeeds(home.manifest, policy, row.trial))) common.set(key, cell);
          if (perUnit) push(unitCell(common, row));
          else exportRounds(unitFiles(home.dir, label, row.trial).csv, common, layout.columns, push);
          if (home === source) {
            result.units++;
            exported++;
          } else result.repeated++;
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

/** The unit table's cell of a column: the unit's summary value, or what the unit's rows share. */
function unitCell(common: ReadonlyMap<string, Cell>, row: SummaryRow): (column: ExportColumn) => Cell {
  return (column) => {
    const field = UNIT_COLUMNS.find((u) => u.name === column.name)?.field;
    return field === undefined ? (common.get(column.name) ?? null) : (row[field] ?? null);
  };
}

/** Pushes a unit's rounds: per column, the trial CSV's field to copy or what the unit's rows have in common; the file streamed row by row. */
function exportRounds(csv: string, common: ReadonlyMap<string, Cell>, columns: readonly ExportColumn[], push: (cellOfColumn: (column: ExportColumn, c: number) => Cell) => void): void {
  let plan: { field: number | null; value: Cell }[] | null = null;
  forEachCsvRecord(csv, ({ fields }) => {
    if (plan === null) {
      const header = fields.map((h) => h.trim());
      plan = columns.map((column) => {
        const copied = ROUND_COLUMNS.some((x) => x.name === column.name);
        return { field: copied ? header.indexOf(column.name) : null, value: common.get(column.name) ?? null };
      });
      return;
    }
    const steps = plan;
    push((_, c) => {
      const { field, value } = steps[c] as { field: number | null; value: Cell };
      const text = field === null ? null : field === -1 ? '' : (fields[field] as string).trim();
      return text === null ? value : text === '' ? null : Number(text);
    });
  });
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
