/**
 * Writing a run's files (layout.ts) so that a crash never leaves a file that looks finished: every
 * file but a unit's streaming CSV is written through a temporary file and a rename, and a unit's CSV
 * is renamed to its final name only after its summary file is in place.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { PARTIAL_SUFFIX, type UnitFiles } from './layout.js';
import { roundCells, SUMMARY_COLUMNS, summaryCells, TRIAL_COLUMNS, type RoundRecord } from './records.js';
import { UNIT_SUMMARY_FORMAT, type UnitSummaryFile } from './unit.js';

/** Writes `text` to `file` through a temporary file in the same folder and a rename. */
export function writeFileAtomic(file: string, text: string | Uint8Array): void {
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, text);
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/** Writes `value` as pretty JSON (2 spaces, final newline), atomically. */
export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
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
    this.pending.push(roundCells(this.trial, this.policy, record));
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
  writeJsonAtomic(files.summary, { format: UNIT_SUMMARY_FORMAT, ...record } satisfies UnitSummaryFile);
  fs.renameSync(files.partial, files.csv);
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

/** summary.csv: one row per (policy, trial), in the order given. */
export function summaryCsv(units: readonly UnitSummaryFile[]): string {
  return stringify([[...SUMMARY_COLUMNS], ...units.map((u) => summaryCells(u.policy, u.trial, u.summary))]);
}
