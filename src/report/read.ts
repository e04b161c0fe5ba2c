/**
 * Reads and validates what `eofd run` wrote (DESIGN §4): per experiment folder a `manifest.json`, a
 * `summary.csv` (one row per policy × trial) and `<policy>/trial-<i>.csv` (one row per round).
 *
 * Every defect is reported as one line naming the file and, where there is one, the line:
 * `results/x/EOFD-MLogB/trial-3.csv:118: cum_regret: expected a finite number, got "abc"`.
 * A file cut short (a row with too few fields, fewer than T rounds, a gap in t) is a defect.
 * Files this reader does not know (grid.csv, best.json, a report folder, …) are ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import type { TrialSummary } from '../experiment/trial.js';

/**
 * A report failure with the process exit code it maps to:
 * 2 = bad usage or bad input data (missing folder, malformed manifest or CSV) — the default;
 * 1 = anything else (for instance the report folder cannot be written).
 */
export class ReportError extends Error {
  readonly exitCode: 1 | 2;
  constructor(message: string, exitCode: 1 | 2 = 2) {
    super(message);
    this.name = 'ReportError';
    this.exitCode = exitCode;
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

/** Provenance copied from the manifest for the report (display only; absent fields are null). */
export interface Provenance {
  package: string | null;
  git: string | null;
  node: string | null;
  cpu: string | null;
  cores: number | null;
}

/** One row of summary.csv: a unit's per-trial figures (the runner's TrialSummary) and its identity. */
export interface SummaryRow extends TrialSummary {
  policy: string;
  trial: number;
}

/** The per-round columns of one `<policy>/trial-<i>.csv` this report uses; index = t − 1. */
export interface TrialSeries {
  policy: string;
  trial: number;
  cumRegret: Float64Array;
  selectMs: Float64Array;
  updateMs: Float64Array;
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
  /** summary.csv rows, policy by policy in manifest order, trials ascending. */
  summary: SummaryRow[];
  /** Per-round series, policy by policy in manifest order, trials ascending. */
  trials: TrialSeries[];
}

export const SUMMARY_COLUMNS = [
  'policy',
  'trial',
  'final_regret',
  'mean_select_ms',
  'mean_update_ms',
  'median_select_ms',
  'median_update_ms',
  'mean_round_ms',
  'state_bytes',
  'sketch_error',
  'projections',
  'parameter_error',
] as const;

export const TRIAL_COLUMNS = [
  'trial',
  'policy',
  't',
  'action',
  'outcome',
  'reward',
  'regret',
  'cum_regret',
  'select_ms',
  'update_ms',
] as const;

/** Relative tolerance of the check `summary.csv final_regret = last cum_regret of the trial file`. */
const FINAL_REGRET_TOLERANCE = 1e-6;

export interface ReadOptions {
  /** Folders never taken as experiments when scanning a parent (e.g. the report's own output). */
  exclude?: string[];
}

/**
 * Reads every experiment under `dirs`. Each entry is an experiment folder (it holds manifest.json)
 * or a parent whose immediate sub-folders holding a manifest.json are read, in name order.
 * The same folder given twice is read once. Throws ReportError (exit code 2) on the first defect.
 */
export function readResults(dirs: readonly string[], options: ReadOptions = {}): ExperimentData[] {
  if (dirs.length === 0) throw new ReportError('no results folder given');
  const excluded = new Set((options.exclude ?? []).map((d) => path.resolve(d)));
  const seen = new Set<string>();
  const experiments: ExperimentData[] = [];
  for (const dir of dirs) {
    for (const experimentDir of findExperimentDirs(dir, excluded)) {
      const key = realPath(experimentDir);
      if (seen.has(key)) continue;
      seen.add(key);
      experiments.push(readExperiment(experimentDir));
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
    throw new ReportError(`${dir}: no such folder`);
  }
  if (!stat.isDirectory()) throw new ReportError(`${dir}: not a folder`);
  if (fs.existsSync(path.join(dir, 'manifest.json'))) return [dir];
  const found = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => path.join(dir, name))
    .filter((sub) => !excluded.has(path.resolve(sub)) && fs.existsSync(path.join(sub, 'manifest.json')));
  if (found.length === 0) {
    throw new ReportError(`${path.join(dir, 'manifest.json')}: not found (and no sub-folder holds one)`);
  }
  return found;
}

/** Reads and validates one experiment folder. */
export function readExperiment(dir: string): ExperimentData {
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = readManifest(manifestFile);
  const summary = readSummary(path.join(dir, 'summary.csv'), manifest.setting);
  const trials: TrialSeries[] = [];
  for (const policy of manifest.setting.policies) {
    for (let trial = 0; trial < manifest.setting.trials; trial++) {
      const file = path.join(dir, policy, `trial-${trial}.csv`);
      const series = readTrial(file, policy, trial, manifest.setting.horizon);
      const row = summary.rows.find((r) => r.policy === policy && r.trial === trial) as SummaryRow;
      const last = series.cumRegret[series.cumRegret.length - 1] as number;
      const scale = Math.max(1, Math.abs(last), Math.abs(row.finalRegret));
      if (Math.abs(last - row.finalRegret) > FINAL_REGRET_TOLERANCE * scale) {
        const line = summary.lines.get(`${policy}\u0000${trial}`);
        throw new ReportError(
          `${path.join(dir, 'summary.csv')}:${line}: final_regret: ${row.finalRegret} disagrees with ` +
            `the last cum_regret ${last} of ${file}`,
        );
      }
      trials.push(series);
    }
  }
  return {
    dir,
    name: manifest.name,
    setting: manifest.setting,
    derived: manifest.derived,
    provenance: manifest.provenance,
    summary: summary.rows,
    trials,
  };
}

// ---------------------------------------------------------------------------------------------
// manifest.json

interface ManifestFields {
  name: string;
  setting: Setting;
  derived: Record<string, unknown>;
  provenance: Provenance;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function show(v: unknown): string {
  if (v === undefined) return 'nothing';
  const s = JSON.stringify(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function readManifest(file: string): ManifestFields {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ReportError(`${file}: not found`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    const message = (err instanceof Error ? err.message : String(err)).replace(/\s+/g, ' ').trim();
    const position = /position (\d+)/.exec(message);
    const where = position ? `:${lineOf(text, Number(position[1]))}` : '';
    throw new ReportError(`${file}${where}: not valid JSON (${message})`);
  }
  const fail = (field: string, expected: string, got: unknown): never => {
    throw new ReportError(`${file}: ${field}: expected ${expected}, got ${show(got)}`);
  };
  if (!isObject(json)) fail('(top level)', 'an object', json);
  const m = json as Record<string, unknown>;
  if (typeof m.name !== 'string' || m.name === '') fail('name', 'a non-empty string', m.name);
  if (!isObject(m.config)) fail('config', 'an object', m.config);
  const config = m.config as Record<string, unknown>;
  if (!isObject(config.environment)) fail('config.environment', 'an object', config.environment);
  const env = config.environment as Record<string, unknown>;
  if (typeof env.type !== 'string' || env.type === '') {
    fail('config.environment.type', 'a non-empty string', env.type);
  }
  const positiveInt = (v: unknown, field: string): number =>
    typeof v === 'number' && Number.isInteger(v) && v >= 1 ? v : fail(field, 'a positive integer', v);
  const K = positiveInt(env.K, 'config.environment.K');
  const d = positiveInt(env.d, 'config.environment.d');
  const horizon = positiveInt(config.horizon, 'config.horizon');
  const trials = positiveInt(config.trials, 'config.trials');
  const policies = config.policies;
  if (
    !Array.isArray(policies) ||
    policies.length === 0 ||
    !policies.every((p): p is string => typeof p === 'string' && p !== '')
  ) {
    fail('config.policies', 'a non-empty list of policy names', policies);
  }
  const policyList = policies as string[];
  const duplicate = policyList.find((p, i) => policyList.indexOf(p) !== i);
  if (duplicate !== undefined) fail('config.policies', 'distinct names', policyList);
  if (m.derived !== undefined && !isObject(m.derived)) fail('derived', 'an object', m.derived);
  const pkg = isObject(m.package) ? m.package : {};
  const host = isObject(m.host) ? m.host : {};
  const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  return {
    name: m.name as string,
    setting: { environment: env.type as string, K, d, horizon, trials, policies: [...policyList] },
    derived: (m.derived as Record<string, unknown> | undefined) ?? {},
    provenance: {
      package:
        typeof pkg.name === 'string' && typeof pkg.version === 'string' ? `${pkg.name} ${pkg.version}` : null,
      git: str(m.git),
      node: str(m.node),
      cpu: str(host.cpu),
      cores: typeof host.cores === 'number' ? host.cores : null,
    },
  };
}

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

// ---------------------------------------------------------------------------------------------
// CSV

interface CsvRecord {
  fields: string[];
  line: number;
}

/** Parses a CSV file into its header (with its line) and data records, each with its line number. */
function readCsv(file: string): { header: CsvRecord; rows: CsvRecord[] } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ReportError(`${file}: not found`);
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
    throw new ReportError(`${file}${typeof lines === 'number' ? `:${lines}` : ''}: ${message}`);
  }
  const first = records[0];
  if (first === undefined) throw new ReportError(`${file}:1: empty file (no header)`);
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
    if (index.has(key)) throw new ReportError(`${file}:${header.line}: header: column "${key}" appears twice`);
    index.set(key, i);
  });
  for (const name of required) {
    if (!index.has(name)) throw new ReportError(`${file}:${header.line}: header: missing column "${name}"`);
  }
  return index;
}

/** Cell accessor for one record: checks the field count first (a short row is a truncated file). */
function cells(file: string, header: CsvRecord, row: CsvRecord, index: Map<string, number>) {
  if (row.fields.length !== header.fields.length) {
    const hint = row.fields.length < header.fields.length ? ' (truncated file?)' : '';
    throw new ReportError(
      `${file}:${row.line}: expected ${header.fields.length} fields as in the header, got ${row.fields.length}${hint}`,
    );
  }
  const raw = (column: string): string => (row.fields[index.get(column) as number] as string).trim();
  const fail = (column: string, expected: string): never => {
    throw new ReportError(`${file}:${row.line}: ${column}: expected ${expected}, got ${JSON.stringify(raw(column))}`);
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
  const index = columnIndex(file, header, SUMMARY_COLUMNS);
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
      throw new ReportError(`${file}:${row.line}: second row for policy ${policy}, trial ${trial} (first on line ${lines.get(key)})`);
    }
    const parameterError = c.raw('parameter_error') === '' ? null : c.num('parameter_error');
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
    });
    lines.set(key, row.line);
  }
  const ordered: SummaryRow[] = [];
  for (const policy of setting.policies) {
    for (let trial = 0; trial < setting.trials; trial++) {
      const row = byKey.get(`${policy}\u0000${trial}`);
      if (row === undefined) {
        throw new ReportError(`${file}: no row for policy ${policy}, trial ${trial} (the manifest lists ${setting.trials} trials)`);
      }
      ordered.push(row);
    }
  }
  return { rows: ordered, lines };
}

/** Reads one trial file, which must hold rounds t = 1..T of (policy, trial), in order. */
export function readTrial(file: string, policy: string, trial: number, horizon: number): TrialSeries {
  const { header, rows } = readCsv(file);
  const index = columnIndex(file, header, TRIAL_COLUMNS);
  const cumRegret = new Float64Array(horizon);
  const selectMs = new Float64Array(horizon);
  const updateMs = new Float64Array(horizon);
  let t = 0;
  for (const row of rows) {
    const c = cells(file, header, row, index);
    if (t === horizon) {
      throw new ReportError(`${file}:${row.line}: more rounds than the manifest's T = ${horizon}`);
    }
    const rowTrial = c.int('trial', 0);
    if (rowTrial !== trial) c.fail('trial', `${trial} (the file's trial index)`);
    if (c.raw('policy') !== policy) c.fail('policy', JSON.stringify(policy));
    const rowT = c.int('t', 1);
    if (rowT !== t + 1) c.fail('t', `${t + 1} (rounds run 1, 2, … without gaps)`);
    c.int('action', 0);
    c.int('outcome', 0);
    c.num('reward');
    c.num('regret');
    cumRegret[t] = c.num('cum_regret');
    selectMs[t] = c.num('select_ms');
    updateMs[t] = c.num('update_ms');
    t++;
  }
  if (t < horizon) {
    const after = rows.length > 0 ? (rows[rows.length - 1] as CsvRecord).line : header.line;
    throw new ReportError(
      `${file}:${after}: ends after t = ${t}, the manifest's T is ${horizon} (truncated file?)`,
    );
  }
  return { policy, trial, cumRegret, selectMs, updateMs };
}
