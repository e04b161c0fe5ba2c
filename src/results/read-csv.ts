/**
 * The CSV files of an experiment folder (layout.ts): summary.csv and the per-round
 * `<policy>/trial-<i>.csv` (or its `.partial` while the unit runs). Every defect is one line naming the
 * file, the line and the column: `results/x/EOFD-MLogB/trial-3.csv:118: cum_regret: expected a finite
 * number, got "abc"`. A file cut short (a row with too few fields, fewer than T rounds, a gap in t) is
 * a defect. Files are read in chunks (forEachCsvRecord), never as one string, so a trial of any
 * horizon the schema allows is read; what a reader keeps is its series (TrialSeries, 36 bytes a round).
 */
import fs from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { describeFsError, errnoCode } from '../base/errors.js';
import { ResultsError, type Setting } from './read-json.js';
import { OPTIONAL_SUMMARY_COLUMNS, OPTIONAL_TRIAL_COLUMNS, SUMMARY_COLUMNS, TRIAL_COLUMNS, type SummaryRow } from './records.js';

/** The per-round columns of one `<policy>/trial-<i>.csv` a reader uses; index = t − 1. */
export interface TrialSeries {
  policy: string;
  trial: number;
  /** The action played in each round. */
  actions: Int32Array;
  /** |A_t| per round (column actions), or null when the file has none. */
  actionCounts: Int32Array | null;
  cumRegret: Float64Array;
  selectMs: Float64Array;
  updateMs: Float64Array;
  /** m_t per round (column m), or null when the file has none or the policy is not sketched. */
  sketchSize: Float64Array | null;
}

/** Relative tolerance of the check that each cum_regret is the previous one plus regret. */
const RUNNING_SUM_TOLERANCE = 1e-9;

export interface CsvRecord {
  fields: string[];
  /** The line the record ends on (1-based). */
  line: number;
}

/** Bytes read per chunk: a CSV file is never held whole (V8's strings end at 2²⁹ characters). */
export const CSV_CHUNK_BYTES = 1 << 20;

export interface CsvReadOptions {
  /** Bytes per read (tests use small ones to cross chunk boundaries). */
  chunkBytes?: number;
  /**
   * A file its run may be appending to: only the bytes it held when opened are read, and a last line
   * without its line end (a row being written) is left out.
   */
  growing?: boolean;
  /** 'skip': a missing file is no error (the function returns false); default 'throw'. */
  missing?: 'throw' | 'skip';
}

/**
 * Visits each record of a CSV file in order, reading it in chunks: memory is one chunk and one record,
 * whatever the file's length. RFC 4180: a field in double quotes may hold commas, doubled quotes and
 * line breaks (read as LF); LF or CRLF line ends; empty lines skipped; a last line without a line end is a record
 * (unless `growing`). Throws a one-line ResultsError naming the file: not found (only when it does not
 * exist), cannot read (the file system's error), a stray or unclosed quote (with the line).
 * Returns false when the file is missing and `missing` is 'skip', true otherwise.
 */
export function forEachCsvRecord(file: string, visit: (record: CsvRecord) => void, options: CsvReadOptions = {}): boolean {
  let fd: number;
  try {
    // O_NONBLOCK: a FIFO put in a results folder does not block the reader.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') {
      if (options.missing === 'skip') return false;
      throw new ResultsError(`${file}: not found`);
    }
    throw new ResultsError(`${file}: cannot read: ${describeFsError(error)}`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (stat.isDirectory()) throw new ResultsError(`${file}: cannot read: is a folder, not a file`);
    if (!stat.isFile()) throw new ResultsError(`${file}: cannot read: not a regular file (a device, FIFO or socket)`);
    const records = new RecordAssembler(file, visit);
    const buffer = Buffer.allocUnsafe(Math.max(1, options.chunkBytes ?? CSV_CHUNK_BYTES));
    const decoder = new StringDecoder('utf8');
    let remaining = options.growing === true ? stat.size : Number.POSITIVE_INFINITY;
    let carry = '';
    for (;;) {
      let n: number;
      try {
        n = remaining === 0 ? 0 : fs.readSync(fd, buffer, 0, Math.min(buffer.length, remaining), null);
      } catch (error) {
        throw new ResultsError(`${file}: cannot read: ${describeFsError(error)}`);
      }
      if (n === 0) break;
      remaining -= n;
      const text = carry + decoder.write(buffer.subarray(0, n));
      let start = 0;
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
        records.line(text.slice(start, end));
        start = end + 1;
      }
      carry = text.slice(start);
    }
    carry += decoder.end();
    if (options.growing !== true && carry !== '') records.line(carry);
    records.end(options.growing === true);
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

/** Turns physical lines into records: a quoted field may span lines. */
class RecordAssembler {
  private lines = 0;
  /** The text so far of a record whose quoted field is still open. */
  private pending: string | null = null;

  constructor(
    private readonly file: string,
    private readonly visit: (record: CsvRecord) => void,
  ) {}

  line(raw: string): void {
    this.lines++;
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const record = this.pending === null ? text : `${this.pending}\n${text}`;
    if (this.pending === null && record === '') return;
    const fields = record.includes('"') ? this.quoted(record) : record.split(',');
    this.pending = fields === null ? record : null;
    if (fields !== null) this.visit({ fields, line: this.lines });
  }

  /** At the end of the file: a quote left open is a defect, unless the file is still being written. */
  end(growing: boolean): void {
    if (this.pending !== null && !growing) throw new ResultsError(`${this.file}:${this.lines}: a quoted field is not closed (truncated file?)`);
  }

  /** The fields of a record holding quotes, or null when a quoted field is still open. */
  private quoted(text: string): string[] | null {
    const fields: string[] = [];
    let i = 0;
    for (;;) {
      if (text.charCodeAt(i) === 34) {
        let value = '';
        let from = i + 1;
        for (;;) {
          const quote = text.indexOf('"', from);
          if (quote < 0) return null;
          value += text.slice(from, quote);
          if (text.charCodeAt(quote + 1) !== 34) {
            i = quote + 1;
            break;
          }
          value += '"';
          from = quote + 2;
        }
        fields.push(value);
        if (i === text.length) return fields;
        if (text.charCodeAt(i) !== 44) throw new ResultsError(`${this.file}:${this.lines}: a closing quote followed by ${JSON.stringify(text[i])}, not a comma or the line's end`);
        i++;
      } else {
        const comma = text.indexOf(',', i);
        const value = text.slice(i, comma < 0 ? text.length : comma);
        if (value.includes('"')) throw new ResultsError(`${this.file}:${this.lines}: a quote inside the field ${JSON.stringify(value)}, which does not start with one`);
        fields.push(value);
        if (comma < 0) return fields;
        i = comma + 1;
      }
    }
  }
}

/** Reads a small CSV file (summary.csv) into its header and data records. */
function readCsv(file: string): { header: CsvRecord; rows: CsvRecord[] } {
  const records: CsvRecord[] = [];
  forEachCsvRecord(file, (record) => records.push(record));
  const [header, ...rows] = records;
  if (header === undefined) throw new ResultsError(`${file}:1: empty file (no header)`);
  return { header, rows };
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
  return parseTrial(file, policy, trial, horizon, true);
}

/**
 * The rounds so far of a unit's `.partial` CSV, which its run may be appending to: the bytes it holds
 * when opened, without the text after the last line end (a row being written). null when the file is
 * gone (the unit finished or was stopped meanwhile) or holds no whole round yet. Rows are checked as
 * in `readTrial`.
 */
export function readPartialTrial(file: string, policy: string, trial: number, horizon: number): TrialSeries | null {
  const series = parseTrial(file, policy, trial, horizon, false);
  return series === null || series.cumRegret.length === 0 ? null : series;
}

/**
 * Rounds t = 1, 2, … of (policy, trial), in order, at most T of them, streamed from the file; `whole`:
 * exactly T (else the file may be growing, and may be gone: null). The series are as long as the
 * rounds read.
 */
function parseTrial(file: string, policy: string, trial: number, horizon: number, whole: true): TrialSeries;
function parseTrial(file: string, policy: string, trial: number, horizon: number, whole: boolean): TrialSeries | null;
function parseTrial(file: string, policy: string, trial: number, horizon: number, whole: boolean): TrialSeries | null {
  // Set by the visitor (an object: its fields are not narrowed away across the call).
  const seen: { header: CsvRecord | null; last: CsvRecord | null; actionCounts: Int32Array | null; sketchSize: Float64Array | null } = {
    header: null,
    last: null,
    actionCounts: null,
    sketchSize: null,
  };
  let index = new Map<string, number>();
  const actions = new Int32Array(horizon);
  const cumRegret = new Float64Array(horizon);
  const selectMs = new Float64Array(horizon);
  const updateMs = new Float64Array(horizon);
  let t = 0;
  const row = (record: CsvRecord): void => {
    if (seen.header === null) {
      seen.header = record;
      index = columnIndex(file, record, TRIAL_COLUMNS.filter((c) => !OPTIONAL_TRIAL_COLUMNS.includes(c)));
      return;
    }
    seen.last = record;
    const c = cells(file, seen.header, record, index);
    if (t === horizon) {
      throw new ResultsError(`${file}:${record.line}: more rounds than the manifest's T = ${horizon}`);
    }
    const rowTrial = c.int('trial', 0);
    if (rowTrial !== trial) c.fail('trial', `${trial} (the file's trial index)`);
    if (c.raw('policy') !== policy) c.fail('policy', JSON.stringify(policy));
    const rowT = c.int('t', 1);
    if (rowT !== t + 1) c.fail('t', `${t + 1} (rounds run 1, 2, … without gaps)`);
    // Columns of later versions (OPTIONAL_TRIAL_COLUMNS): absent in older files; m and best_reward may be empty.
    const filled = (column: string): boolean => index.has(column) && c.raw(column) !== '';
    actions[t] = c.int('action', 0);
    if (index.has('actions')) {
      // action is a 0-based index into the round's |A_t| = actions.
      const offered = c.int('actions', 1);
      if ((actions[t] as number) >= offered) c.fail('action', `an index below actions = ${offered} (0-based)`);
      seen.actionCounts ??= new Int32Array(horizon);
      seen.actionCounts[t] = offered;
    }
    c.int('outcome', 0);
    c.num('reward');
    const regret = c.num('regret');
    if (filled('best_reward')) c.num('best_reward');
    cumRegret[t] = c.num('cum_regret');
    // cum_regret is the running sum of regret (eofd's own files: exactly; others: to rounding).
    const runningSum = (t === 0 ? 0 : (cumRegret[t - 1] as number)) + regret;
    if (Math.abs(cumRegret[t] - runningSum) > RUNNING_SUM_TOLERANCE * Math.max(1, Math.abs(runningSum))) {
      c.fail('cum_regret', `${runningSum} (the running sum of regret)`);
    }
    selectMs[t] = c.num('select_ms');
    updateMs[t] = c.num('update_ms');
    if (filled('m')) {
      seen.sketchSize ??= new Float64Array(horizon);
      seen.sketchSize[t] = c.int('m', 1);
    }
    t++;
  };
  const found = forEachCsvRecord(file, row, whole ? {} : { growing: true, missing: 'skip' });
  if (!found) return null;
  if (seen.header === null) {
    if (!whole) return null;
    throw new ResultsError(`${file}:1: empty file (no header)`);
  }
  if (whole && t < horizon) {
    const after = (seen.last ?? seen.header).line;
    throw new ResultsError(
      `${file}:${after}: ends after t = ${t}, the manifest's T is ${horizon} (truncated file?)`,
    );
  }
  if (t === horizon) return { policy, trial, actions, actionCounts: seen.actionCounts, cumRegret, selectMs, updateMs, sketchSize: seen.sketchSize };
  return {
    policy,
    trial,
    actions: actions.slice(0, t),
    actionCounts: seen.actionCounts?.slice(0, t) ?? null,
    cumRegret: cumRegret.slice(0, t),
    selectMs: selectMs.slice(0, t),
    updateMs: updateMs.slice(0, t),
    sketchSize: seen.sketchSize?.slice(0, t) ?? null,
  };
}
