/**
 * Reads and validates what a run wrote (layout.ts), for resume, merge and the report. Every defect
 * is one line naming the file and, where there is one, the line and field:
 * `results/x/EOFD-MLogB/trial-3.csv:118: cum_regret: expected a finite number, got "abc"`.
 * A file cut short (a row with too few fields, fewer than T rounds, a gap in t) is a defect.
 * Files this reader does not know (grid.csv, best.json, a report folder, …) are ignored by `readResults`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { z } from 'zod';
import { describeFsError, EofdError, errnoCode } from '../base/errors.js';
import { fileSha256 } from '../base/hash.js';
import { bestFileSchema, sweepShardSchema } from './sweep.js';
import { MANIFEST_FILE, SUMMARY_FILE, unitFiles, type UnitFiles } from './layout.js';
import { manifestSchema, type ManifestRead } from './manifest.js';
import { OPTIONAL_SUMMARY_COLUMNS, OPTIONAL_TRIAL_COLUMNS, SUMMARY_COLUMNS, TRIAL_COLUMNS, type SummaryRow } from './records.js';
import { unitSummarySchema, type UnitSummaryFile } from './unit.js';

/** A defect in a results file (or a missing one): exit code 2. */
export class ResultsError extends EofdError {
  constructor(message: string, exitCode = 2) {
    super(message, exitCode);
  }
}

/** The setting an experiment ran in, as the manifest's resolved config states it. */
export interface Setting {
  /** `config.environment.type`: synthetic, mnist, trace, … */
  environment: string;
  /** Number of non-null outcomes K. */
  K: number;
  /** Feature dimension d. */
  d: number;
  /** Rounds per trial T (`config.horizon`). */
  horizon: number;
  /** Trials per policy (`config.trials`). */
  trials: number;
  /** Policies in the order the manifest lists them. */
  policies: string[];
}

/** Provenance copied from the manifest (display only; absent fields are null). */
export interface Provenance {
  package: string | null;
  git: string | null;
  node: string | null;
  cpu: string | null;
  cores: number | null;
}

/** How an experiment's units were timed, from the manifest's `timing` (null fields: not recorded). */
export interface Timing {
  /** The most units any run of this folder timed at once. */
  jobs: number | null;
  /** The highest 1-minute load average seen when a run started or ended. */
  load: number | null;
  /** Cores of the machine (manifest's host). */
  cores: number | null;
}

/** The per-round columns of one `<policy>/trial-<i>.csv` a reader uses; index = t − 1. */
export interface TrialSeries {
  policy: string;
  trial: number;
  /** The action played in each round. */
  actions: Int32Array;
  cumRegret: Float64Array;
  selectMs: Float64Array;
  updateMs: Float64Array;
  /** m_t per round (column m), or null when the file has none or the policy is not sketched. */
  sketchSize: Float64Array | null;
}

/** How much of an experiment has finished (a unit is one policy × trial). */
export interface Progress {
  /** true when summary.csv exists: the run writes it once every unit has finished. */
  complete: boolean;
  finishedUnits: number;
  /** Policies × trials, as the manifest plans. */
  plannedUnits: number;
}

/** One validated experiment folder. */
export interface ExperimentData {
  /** The folder, spelled as given (or joined onto the parent folder given). */
  dir: string;
  name: string;
  setting: Setting;
  /** The manifest's derived hyperparameters (λ, η, m, δ, β, …), as written. */
  derived: Record<string, unknown>;
  provenance: Provenance;
  timing: Timing;
  progress: Progress;
  /**
   * summary.csv rows, policy by policy in manifest order, trials ascending; of a run in progress,
   * the finished units' summaries.
   */
  summary: SummaryRow[];
  /** Per-round series, policy by policy in manifest order, trials ascending. */
  trials: TrialSeries[];
  /**
   * Of a run in progress (`inProgress`): the units not finished whose `trial-<i>.csv.partial` holds
   * rounds, each series as long as its rounds so far (running, or left by a stopped run). Never judged.
   */
  partial: TrialSeries[];
}

// ---------------------------------------------------------------------------------------------
// JSON files

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  if (s === undefined) return String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function valueAt(data: unknown, keys: readonly PropertyKey[]): unknown {
  let v: unknown = data;
  for (const key of keys) {
    if (typeof v !== 'object' || v === null) return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Reads `file` as JSON and validates it against `schema` (which must not transform: the JSON is
 * returned as written, key order included); throws a one-line ResultsError
 * `file[:line]: field: expected …, got …` (`what` names the file's role when it cannot be read).
 */
export function readJsonFile<Schema extends z.ZodType>(file: string, schema: Schema, what: string): z.output<Schema> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ResultsError(`${file}: cannot read ${what}: ${describeFsError(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
    const position = /position (\d+)/.exec(message);
    const where = position ? `:${lineOf(text, Number(position[1]))}` : '';
    throw new ResultsError(`${file}${where}: not valid JSON (${message})`);
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0] as z.core.$ZodIssue;
    const field = issue.path.length === 0 ? '(file)' : issue.path.map(String).join('.');
    const value = valueAt(json, issue.path);
    throw new ResultsError(`${file}: ${field}: ${issue.message}, got ${show(value)}`);
  }
  return json as z.output<Schema>;
}

/** The manifest of an experiment folder. */
export function readManifest(dir: string): ManifestRead {
  const file = path.join(dir, MANIFEST_FILE);
  if (!fs.existsSync(file)) throw new ResultsError(`${file}: not found`);
  return readJsonFile(file, manifestSchema, 'the manifest');
}

/** A best.json as `eofd grid` writes it (per policy (l, e)). */
export function readBestFile(file: string): z.output<typeof bestFileSchema> {
  return readJsonFile(file, bestFileSchema, 'the best.json');
}

/** A shard's sweep-shard.json. */
export function readSweepShard(file: string): z.output<typeof sweepShardSchema> {
  return readJsonFile(file, sweepShardSchema, 'the sweep shard record');
}

/**
 * The unit's summary if the unit finished: the final CSV exists, its summary file is readable, names
 * the same policy, trial and horizon, and records the CSV's byte length and (`check = 'content'`, the
 * default) its SHA-256. Otherwise null. `'size'` skips the hash, for a quick count (`eofd status`).
 */
export function readFinishedUnit(
  files: UnitFiles,
  policy: string,
  trial: number,
  horizon: number,
  check: 'content' | 'size' = 'content',
): UnitSummaryFile | null {
  let size: number;
  let content: unknown;
  try {
    size = fs.statSync(files.csv).size;
    content = JSON.parse(fs.readFileSync(files.summary, 'utf8'));
  } catch {
    return null;
  }
  const parsed = unitSummarySchema.safeParse(content);
  if (!parsed.success) return null;
  const unit = parsed.data;
  if (unit.policy !== policy || unit.trial !== trial || unit.horizon !== horizon || unit.bytes !== size) return null;
  // The content, not only the length: one edited digit makes the unit unfinished.
  if (check === 'content' && fileSha256(files.csv) !== unit.sha256) return null;
  return unit;
}

// ---------------------------------------------------------------------------------------------
// Experiment folders

/** Relative tolerance of the check that each cum_regret is the previous one plus regret. */
const RUNNING_SUM_TOLERANCE = 1e-9;

/** Relative tolerance of the check `summary.csv final_regret = last cum_regret of the trial file`. */
const FINAL_REGRET_TOLERANCE = 1e-6;

export interface ReadOptions {
  /** Folders never taken as experiments when scanning a parent (e.g. the report's own output). */
  exclude?: string[];
  /**
   * Also read an experiment whose run has not finished (no summary.csv yet): its finished units
   * (`readFinishedUnit`), with `progress.complete` false, and apart from them its partial units' rounds
   * so far (`partial`). Default false: a missing summary.csv is a defect.
   */
  inProgress?: boolean;
}

/**
 * Reads every experiment under `dirs`. Each entry is an experiment folder (it holds manifest.json)
 * or a parent whose immediate sub-folders holding a manifest.json are read, in name order.
 * The same folder given twice is read once. Throws ResultsError (exit code 2) on the first defect.
 */
export function readResults(dirs: readonly string[], options: ReadOptions = {}): ExperimentData[] {
  if (dirs.length === 0) throw new ResultsError('no results folder given');
  const excluded = new Set((options.exclude ?? []).map((d) => path.resolve(d)));
  const seen = new Set<string>();
  const experiments: ExperimentData[] = [];
  for (const dir of dirs) {
    for (const experimentDir of findExperimentDirs(dir, excluded)) {
      const key = realPath(experimentDir);
      if (seen.has(key)) continue;
      seen.add(key);
      const experiment = readExperiment(experimentDir, options);
      // Experiments are known by name (tables, claims, the baseline check): two of one name is ambiguous.
      const twin = experiments.find((e) => e.name === experiment.name);
      if (twin !== undefined) {
        throw new ResultsError(`${twin.dir} and ${experiment.dir} both hold an experiment named ${JSON.stringify(experiment.name)}; give only one of them`);
      }
      experiments.push(experiment);
    }
  }
  return experiments;
}

function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function findExperimentDirs(dir: string, excluded: Set<string>): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new ResultsError(`${dir}: no such folder`);
  }
  if (!stat.isDirectory()) throw new ResultsError(`${dir}: not a folder`);
  if (fs.existsSync(path.join(dir, MANIFEST_FILE))) return [dir];
  const found = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => path.join(dir, name))
    .filter((sub) => fs.existsSync(path.join(sub, MANIFEST_FILE)));
  // An excluded folder (the report's own output) that holds an experiment is not silently left out.
  const clash = found.find((sub) => excluded.has(path.resolve(sub)));
  if (clash !== undefined) {
    throw new ResultsError(`${clash}: an experiment folder (it holds ${MANIFEST_FILE}) is also the report's output folder; give --out another folder`);
  }
  if (found.length === 0) {
    throw new ResultsError(`${path.join(dir, MANIFEST_FILE)}: not found (and no sub-folder holds one)`);
  }
  return found;
}

/**
 * A trial CSV whose unit summary (written by the run) exists must hash to what the run recorded: an
 * edited or swapped file is a defect, not a result.
 */
function checkUnitHash(files: UnitFiles): void {
  let content: unknown;
  try {
    content = JSON.parse(fs.readFileSync(files.summary, 'utf8'));
  } catch {
    return;
  }
  const recorded = (content as { sha256?: unknown } | null)?.sha256;
  if (typeof recorded !== 'string' || !fs.existsSync(files.csv)) return;
  if (fileSha256(files.csv) !== recorded) {
    throw new ResultsError(`${files.csv}: its content differs from what the run wrote (SHA-256 in ${path.basename(files.summary)}); the file was changed after the run`);
  }
}

/**
 * Reads and validates one experiment folder. Without summary.csv it is a defect, unless
 * `options.inProgress`: then the finished units are read (each trial CSV checked against its unit summary).
 */
export function readExperiment(dir: string, options: ReadOptions = {}): ExperimentData {
  const manifest = describeManifest(readManifest(dir));
  const { policies, trials: planned, horizon } = manifest.setting;
  const summaryFile = path.join(dir, SUMMARY_FILE);
  const complete = !options.inProgress || fs.existsSync(summaryFile);
  const summary = complete ? readSummary(summaryFile, manifest.setting) : finishedUnits(dir, manifest.setting);
  const trials: TrialSeries[] = [];
  for (const row of summary.rows) {
    const files = unitFiles(dir, row.policy, row.trial);
    const file = files.csv;
    checkUnitHash(files);
    const series = readTrial(file, row.policy, row.trial, horizon);
    const last = series.cumRegret[series.cumRegret.length - 1] as number;
    const scale = Math.max(1, Math.abs(last), Math.abs(row.finalRegret));
    if (Math.abs(last - row.finalRegret) > FINAL_REGRET_TOLERANCE * scale) {
      const where = complete ? `${summaryFile}:${summary.lines.get(`${row.policy}\u0000${row.trial}`)}` : unitFiles(dir, row.policy, row.trial).summary;
      throw new ResultsError(`${where}: final_regret: ${row.finalRegret} disagrees with the last cum_regret ${last} of ${file}`);
    }
    trials.push(series);
  }
  return {
    dir,
    name: manifest.name,
    setting: manifest.setting,
    derived: manifest.derived,
    provenance: manifest.provenance,
    timing: manifest.timing,
    progress: { complete, finishedUnits: summary.rows.length, plannedUnits: policies.length * planned },
    summary: summary.rows,
    trials,
    partial: complete ? [] : partialUnits(dir, manifest.setting, summary.rows),
  };
}

/** The partial units of a run in progress (see ExperimentData.partial), in manifest order. */
function partialUnits(dir: string, setting: Setting, finished: readonly SummaryRow[]): TrialSeries[] {
  const done = new Set(finished.map((r) => `${r.policy}\u0000${r.trial}`));
  const out: TrialSeries[] = [];
  for (const policy of setting.policies) {
    for (let trial = 0; trial < setting.trials; trial++) {
      if (done.has(`${policy}\u0000${trial}`)) continue;
      const series = readPartialTrial(unitFiles(dir, policy, trial).partial, policy, trial, setting.horizon);
      if (series !== null) out.push(series);
    }
  }
  return out;
}

/**
 * The rounds so far of a unit's `.partial` CSV, which its run may be appending to: the text after
 * the last newline (a row being written) is left out. null when the file is gone (the unit finished
 * or was stopped meanwhile) or holds no whole round yet. Rows are checked as in `readTrial`.
 */
export function readPartialTrial(file: string, policy: string, trial: number, horizon: number): TrialSeries | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw new ResultsError(`${file}: cannot read: ${describeFsError(error)}`);
  }
  text = text.slice(0, text.lastIndexOf('\n') + 1);
  if (text.indexOf('\n') === text.length - 1 || text === '') return null;
  return parseTrial(file, text, policy, trial, horizon, false);
}

/** The summaries of a run in progress's finished units, policy by policy in manifest order, trials ascending. */
function finishedUnits(dir: string, setting: Setting): { rows: SummaryRow[]; lines: Map<string, number> } {
  const rows: SummaryRow[] = [];
  for (const policy of setting.policies) {
    for (let trial = 0; trial < setting.trials; trial++) {
      const unit = readFinishedUnit(unitFiles(dir, policy, trial), policy, trial, setting.horizon);
      if (unit !== null) rows.push({ policy, trial, ...unit.summary });
    }
  }
  return { rows, lines: new Map() };
}

/** The setting, derived values and provenance a reader shows, from a validated manifest. */
function describeManifest(m: ManifestRead): { name: string; setting: Setting; derived: Record<string, unknown>; provenance: Provenance; timing: Timing } {
  const { environment, horizon, trials, policies } = m.config;
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const pkg = (m.package ?? {}) as { name?: unknown; version?: unknown };
  const host = (m.host ?? {}) as { cpu?: unknown; cores?: unknown };
  return {
    name: m.name,
    setting: { environment: environment.type, K: environment.K, d: environment.d, horizon, trials, policies: [...policies] },
    derived: m.derived ?? {},
    provenance: {
      package: typeof pkg.name === 'string' && typeof pkg.version === 'string' ? `${pkg.name} ${pkg.version}` : null,
      git: str(m.git),
      node: str(m.node),
      cpu: str(host.cpu),
      cores: typeof host.cores === 'number' ? host.cores : null,
    },
    timing: timingOf(m, typeof host.cores === 'number' ? host.cores : null),
  };
}

function timingOf(m: ManifestRead, cores: number | null): Timing {
  const runs = m.timing?.runs ?? [];
  const loads = runs.flatMap((r) => [r.load_start?.[0], r.load_end?.[0] ?? undefined]).filter((x): x is number => typeof x === 'number');
  return {
    jobs: runs.length === 0 ? null : Math.max(...runs.map((r) => r.jobs)),
    load: loads.length === 0 ? null : Math.max(...loads),
    cores,
  };
}

// ---------------------------------------------------------------------------------------------
// CSV

interface CsvRecord {
  fields: string[];
  line: number;
}

/** Reads a CSV file (or parses its `text`) into its header (with its line) and data records, each with its line number. */
function readCsv(file: string, given?: string): { header: CsvRecord; rows: CsvRecord[] } {
  let text: string;
  try {
    text = given ?? fs.readFileSync(file, 'utf8');
  } catch {
    throw new ResultsError(`${file}: not found`);
  }
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { info: true, relax_column_count: true, skip_empty_lines: true }) as unknown as {
      record: string[];
      info: { lines: number };
    }[];
  } catch (err) {
    const lines = (err as { lines?: unknown }).lines;
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
    throw new ResultsError(`${file}${typeof lines === 'number' ? `:${lines}` : ''}: ${message}`);
  }
  const first = records[0];
  if (first === undefined) throw new ResultsError(`${file}:1: empty file (no header)`);
  return {
    header: { fields: first.record, line: first.info.lines },
    rows: records.slice(1).map((r) => ({ fields: r.record, line: r.info.lines })),
  };
}

/** Column name → index, after checking that every required column is in the header exactly once. */
function columnIndex(file: string, header: CsvRecord, required: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  header.fields.forEach((name, i) => {
    const key = name.trim();
    if (index.has(key)) throw new ResultsError(`${file}:${header.line}: header: column "${key}" appears twice`);
    index.set(key, i);
  });
  for (const name of required) {
    if (!index.has(name)) throw new ResultsError(`${file}:${header.line}: header: missing column "${name}"`);
  }
  return index;
}

/** Cell accessor for one record: checks the field count first (a short row is a truncated file). */
function cells(file: string, header: CsvRecord, row: CsvRecord, index: Map<string, number>) {
  if (row.fields.length !== header.fields.length) {
    const hint = row.fields.length < header.fields.length ? ' (truncated file?)' : '';
    throw new ResultsError(
      `${file}:${row.line}: expected ${header.fields.length} fields as in the header, got ${row.fields.length}${hint}`,
    );
  }
  const raw = (column: string): string => (row.fields[index.get(column) as number] as string).trim();
  const fail = (column: string, expected: string): never => {
    throw new ResultsError(`${file}:${row.line}: ${column}: expected ${expected}, got ${JSON.stringify(raw(column))}`);
  };
  const num = (column: string): number => {
    const s = raw(column);
    const v = s === '' ? Number.NaN : Number(s);
    return Number.isFinite(v) ? v : fail(column, 'a finite number');
  };
  const int = (column: string, min: number): number => {
    const v = num(column);
    return Number.isInteger(v) && v >= min ? v : fail(column, min === 0 ? 'an integer ≥ 0' : `an integer ≥ ${min}`);
  };
  return { raw, num, int, fail };
}

function readSummary(
  file: string,
  setting: Setting,
): { rows: SummaryRow[]; lines: Map<string, number> } {
  const { header, rows } = readCsv(file);
  const index = columnIndex(file, header, SUMMARY_COLUMNS.filter((c) => !OPTIONAL_SUMMARY_COLUMNS.includes(c)));
  const byKey = new Map<string, SummaryRow>();
  const lines = new Map<string, number>();
  for (const row of rows) {
    const c = cells(file, header, row, index);
    const policy = c.raw('policy');
    if (!setting.policies.includes(policy)) {
      c.fail('policy', `one of the manifest's policies (${setting.policies.join(', ')})`);
    }
    const trial = c.int('trial', 0);
    if (trial >= setting.trials) c.fail('trial', `a trial index below the manifest's ${setting.trials} trials`);
    const key = `${policy}\u0000${trial}`;
    if (byKey.has(key)) {
      throw new ResultsError(`${file}:${row.line}: second row for policy ${policy}, trial ${trial} (first on line ${lines.get(key)})`);
    }
    const optional = (column: string): number | null => (!index.has(column) || c.raw(column) === '' ? null : c.num(column));
    const parameterError = optional('parameter_error');
    byKey.set(key, {
      policy,
      trial,
      finalRegret: c.num('final_regret'),
      meanSelectMs: c.num('mean_select_ms'),
      meanUpdateMs: c.num('mean_update_ms'),
      medianSelectMs: c.num('median_select_ms'),
      medianUpdateMs: c.num('median_update_ms'),
      meanRoundMs: c.num('mean_round_ms'),
      stateBytes: c.num('state_bytes'),
      sketchError: c.num('sketch_error'),
      projections: c.num('projections'),
      parameterError,
      deltaT: optional('delta_T'),
      betaT: optional('beta_T'),
      mT: optional('m_T'),
    });
    lines.set(key, row.line);
  }
  const ordered: SummaryRow[] = [];
  for (const policy of setting.policies) {
    for (let trial = 0; trial < setting.trials; trial++) {
      const row = byKey.get(`${policy}\u0000${trial}`);
      if (row === undefined) {
        throw new ResultsError(`${file}: no row for policy ${policy}, trial ${trial} (the manifest lists ${setting.trials} trials)`);
      }
      ordered.push(row);
    }
  }
  return { rows: ordered, lines };
}

/** Reads one trial file, which must hold rounds t = 1..T of (policy, trial), in order. */
export function readTrial(file: string, policy: string, trial: number, horizon: number): TrialSeries {
  return parseTrial(file, undefined, policy, trial, horizon, true);
}

/**
 * Rounds t = 1, 2, … of (policy, trial), in order, at most T of them; `whole`: exactly T. The
 * series are as long as the rounds read.
 */
function parseTrial(file: string, text: string | undefined, policy: string, trial: number, horizon: number, whole: boolean): TrialSeries {
  const { header, rows } = readCsv(file, text);
  const index = columnIndex(file, header, TRIAL_COLUMNS.filter((c) => !OPTIONAL_TRIAL_COLUMNS.includes(c)));
  const actions = new Int32Array(horizon);
  const cumRegret = new Float64Array(horizon);
  const selectMs = new Float64Array(horizon);
  const updateMs = new Float64Array(horizon);
  let sketchSize: Float64Array | null = null;
  let t = 0;
  for (const row of rows) {
    const c = cells(file, header, row, index);
    if (t === horizon) {
      throw new ResultsError(`${file}:${row.line}: more rounds than the manifest's T = ${horizon}`);
    }
    const rowTrial = c.int('trial', 0);
    if (rowTrial !== trial) c.fail('trial', `${trial} (the file's trial index)`);
    if (c.raw('policy') !== policy) c.fail('policy', JSON.stringify(policy));
    const rowT = c.int('t', 1);
    if (rowT !== t + 1) c.fail('t', `${t + 1} (rounds run 1, 2, … without gaps)`);
    actions[t] = c.int('action', 0);
    c.int('outcome', 0);
    c.num('reward');
    const regret = c.num('regret');
    cumRegret[t] = c.num('cum_regret');
    // cum_regret is the running sum of regret (eofd's own files: exactly; others: to rounding).
    const runningSum = (t === 0 ? 0 : (cumRegret[t - 1] as number)) + regret;
    if (Math.abs(cumRegret[t] - runningSum) > RUNNING_SUM_TOLERANCE * Math.max(1, Math.abs(runningSum))) {
      c.fail('cum_regret', `${runningSum} (the running sum of regret)`);
    }
    selectMs[t] = c.num('select_ms');
    updateMs[t] = c.num('update_ms');
    if (index.has('m') && c.raw('m') !== '') {
      sketchSize ??= new Float64Array(horizon);
      sketchSize[t] = c.int('m', 1);
    }
    t++;
  }
  if (whole && t < horizon) {
    const after = rows.length > 0 ? (rows[rows.length - 1] as CsvRecord).line : header.line;
    throw new ResultsError(
      `${file}:${after}: ends after t = ${t}, the manifest's T is ${horizon} (truncated file?)`,
    );
  }
  if (t === horizon) return { policy, trial, actions, cumRegret, selectMs, updateMs, sketchSize };
  return {
    policy,
    trial,
    actions: actions.slice(0, t),
    cumRegret: cumRegret.slice(0, t),
    selectMs: selectMs.slice(0, t),
    updateMs: updateMs.slice(0, t),
    sketchSize: sketchSize?.slice(0, t) ?? null,
  };
}
