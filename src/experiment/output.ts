/**
 * The files of a run (DESIGN §4), all written so that a crash never leaves a file that looks finished:
 *
 *   <out>/<name>/manifest.json                 resolved config, derived values, seeds, provenance
 *   <out>/<name>/summary.csv                   one row per policy × trial (written when all are done)
 *   <out>/<name>/<policy>/trial-<i>.csv        one row per round
 *   <out>/<name>/<policy>/trial-<i>.summary.json   the unit's summary (the resume marker's partner)
 *
 * A unit's rows go to `trial-<i>.csv.partial`; when the trial ends its summary is written (atomically)
 * and only then is the CSV renamed to its final name. A final `trial-<i>.csv` whose summary records
 * its byte length is a finished unit; anything else is redone by `--resume`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { SUMMARY_COLUMNS, TRIAL_COLUMNS } from '../report/read.js';
import type { RoundRecord, TrialSummary } from './trial.js';

export { SUMMARY_COLUMNS, TRIAL_COLUMNS };

/** Suffix of a unit's CSV while it is being written. */
export const PARTIAL_SUFFIX = '.partial';
/** Version tag of a unit's summary file. */
export const UNIT_SUMMARY_FORMAT = 'eofd-unit/1';

export interface UnitFiles {
  /** `<out>/<name>/<policy>` */
  folder: string;
  /** `trial-<i>.csv` (final name). */
  csv: string;
  /** `trial-<i>.csv.partial` (while running). */
  partial: string;
  /** `trial-<i>.summary.json` */
  summary: string;
}

export function unitFiles(experimentDir: string, policy: string, trial: number): UnitFiles {
  const folder = path.join(experimentDir, policy);
  const csv = path.join(folder, `trial-${trial}.csv`);
  return { folder, csv, partial: csv + PARTIAL_SUFFIX, summary: path.join(folder, `trial-${trial}.summary.json`) };
}

/** What `trial-<i>.summary.json` holds. */
export interface UnitSummaryFile {
  format: typeof UNIT_SUMMARY_FORMAT;
  policy: string;
  trial: number;
  horizon: number;
  /** Byte length of the finished trial CSV. */
  bytes: number;
  summary: TrialSummary;
}

/** Writes `text` to `file` through a temporary file in the same folder and a rename. */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/** Full round-trip precision (shortest text that parses back to the same double). */
export function exact(x: number): string {
  return String(x);
}

/** Milliseconds with 4 decimals (0.1 µs): the resolution the per-round timings deserve. */
export function milliseconds(x: number): string {
  return x.toFixed(4);
}

const ROWS_PER_WRITE = 256;

/** Streams one unit's rounds to its `.partial` CSV, in batches, through csv-stringify. */
export class TrialCsvWriter {
  private readonly fd: number;
  private readonly trial: string;
  private readonly policy: string;
  private pending: string[][] = [];
  private closed = false;
  /** Bytes written so far. */
  bytes = 0;
  rows = 0;

  constructor(
    readonly file: string,
    policy: string,
    trial: number,
  ) {
    this.fd = fs.openSync(file, 'w');
    this.policy = policy;
    this.trial = String(trial);
    this.write(stringify([[...TRIAL_COLUMNS]]));
  }

  add(record: RoundRecord): void {
    this.pending.push([
      this.trial,
      this.policy,
      String(record.t),
      String(record.action),
      String(record.outcome),
      exact(record.reward),
      exact(record.regret),
      exact(record.cumRegret),
      milliseconds(record.selectMs),
      milliseconds(record.updateMs),
    ]);
    this.rows++;
    if (this.pending.length >= ROWS_PER_WRITE) this.flush();
  }

  /** Writes what is pending and closes the file. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    fs.closeSync(this.fd);
  }

  /** Closes the file without flushing and deletes it. */
  discard(): void {
    if (!this.closed) {
      this.closed = true;
      fs.closeSync(this.fd);
    }
    fs.rmSync(this.file, { force: true });
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.write(stringify(this.pending));
    this.pending = [];
  }

  private write(text: string): void {
    const buffer = Buffer.from(text, 'utf8');
    let offset = 0;
    while (offset < buffer.length) offset += fs.writeSync(this.fd, buffer, offset);
    this.bytes += buffer.length;
  }
}

/** Records a finished unit: its summary file, then the CSV under its final name. */
export function completeUnit(files: UnitFiles, record: Omit<UnitSummaryFile, 'format'>): void {
  const content: UnitSummaryFile = { format: UNIT_SUMMARY_FORMAT, ...record };
  writeFileAtomic(files.summary, JSON.stringify(content, null, 2) + '\n');
  fs.renameSync(files.partial, files.csv);
}

/**
 * The unit's summary if the unit finished: the final CSV exists, its summary file is readable, names
 * the same policy, trial and horizon, and records the CSV's byte length. Otherwise null.
 */
export function readFinishedUnit(files: UnitFiles, policy: string, trial: number, horizon: number): UnitSummaryFile | null {
  let size: number;
  let content: unknown;
  try {
    size = fs.statSync(files.csv).size;
    content = JSON.parse(fs.readFileSync(files.summary, 'utf8'));
  } catch {
    return null;
  }
  const unit = content as Partial<UnitSummaryFile> | null;
  if (
    unit === null ||
    typeof unit !== 'object' ||
    unit.format !== UNIT_SUMMARY_FORMAT ||
    unit.policy !== policy ||
    unit.trial !== trial ||
    unit.horizon !== horizon ||
    unit.bytes !== size ||
    typeof unit.summary !== 'object' ||
    unit.summary === null
  ) {
    return null;
  }
  return unit as UnitSummaryFile;
}

/** Removes what an unfinished unit may have left: its partial CSV, summary and final CSV. */
export function clearUnit(files: UnitFiles): void {
  for (const file of [files.partial, files.summary, files.csv]) fs.rmSync(file, { force: true });
}

/** Removes leftovers of killed writers (`*.partial`, `*.tmp-<pid>`) in a folder, if it exists. */
export function removeLeftovers(folder: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.endsWith(PARTIAL_SUFFIX) || /\.tmp-\d+$/.test(name)) fs.rmSync(path.join(folder, name), { force: true });
  }
}

/** summary.csv: one row per (policy, trial), in the order given, with the header the report reads. */
export function summaryCsv(units: readonly UnitSummaryFile[]): string {
  const rows: string[][] = [[...SUMMARY_COLUMNS]];
  for (const { policy, trial, summary: s } of units) {
    rows.push([
      policy,
      String(trial),
      exact(s.finalRegret),
      s.meanSelectMs.toFixed(6),
      s.meanUpdateMs.toFixed(6),
      s.medianSelectMs.toFixed(6),
      s.medianUpdateMs.toFixed(6),
      s.meanRoundMs.toFixed(6),
      String(s.stateBytes),
      exact(s.sketchError),
      String(s.projections),
      s.parameterError === null ? '' : exact(s.parameterError),
    ]);
  }
  return stringify(rows);
}
