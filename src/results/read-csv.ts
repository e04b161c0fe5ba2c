/**
 * The CSV files of an experiment folder (layout.ts): summary.csv and the per-round
 * `<policy>/trial-<i>.csv` (or its `.partial` while the unit runs). Every defect is one line naming the
 * file, the line and the column: `results/x/EOFD-MLogB/trial-3.csv:118: cum_regret: expected a finite
 * number, got "abc"`. A file cut short (a row with too few fields, fewer than T rounds, a gap in t) is
 * a defect.
 */
import fs from 'node:fs';
import { parse } from 'csv-parse/sync';
import { describeFsError, errnoCode } from '../base/errors.js';
import { ResultsError, type Setting } from './read-json.js';
import { OPTIONAL_SUMMARY_COLUMNS, OPTIONAL_TRIAL_COLUMNS, SUMMARY_COLUMNS, TRIAL_COLUMNS, type SummaryRow } from './records.js';

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

/** Relative tolerance of the check that each cum_regret is the previous one plus regret. */
const RUNNING_SUM_TOLERANCE = 1e-9;

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

/**
 * summary.csv: one row per (policy, trial) of the manifest, returned policy by policy in manifest
 * order, trials ascending, with the line each row is on.
 */
export function readSummary(
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
