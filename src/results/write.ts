/**
 * Writing a run's files (layout.ts) so that a crash never leaves a file that looks finished: every
 * file but a unit's streaming CSV is written through a temporary file and a rename, and a unit's CSV
 * is renamed to its final name only after its summary file is in place.
 */
import { createHash, type Hash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { checkReplaceable } from '../base/files.js';
import { PARTIAL_SUFFIX, type UnitFiles } from './layout.js';
import { roundCells, SUMMARY_COLUMNS, summaryCells, TRIAL_COLUMNS, type RoundRecord } from './records.js';
import { UNIT_SUMMARY_FORMAT, type UnitSummaryFile } from './unit.js';

/**
 * Writes `text` to `file` through a temporary file in the same folder, flushed to the disk (fsync)
 * before the rename and the folder flushed after it, so that after a power cut the file is either the
 * old one or the whole new one. Only a regular file is replaced (base/files.ts checkReplaceable).
 */
export function writeFileAtomic(file: string, text: string | Uint8Array): void {
  checkReplaceable(file);
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeFileSync(fd, text);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    checkReplaceable(file);
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
  syncFolder(path.dirname(file));
}

/** Flushes a folder's entries (a rename) to the disk; file systems that cannot are left as they are. */
export function syncFolder(folder: string): void {
  let fd: number;
  try {
    fd = fs.openSync(folder, 'r');
  } catch {
    return;
  }
  try {
    fs.fsyncSync(fd);
  } catch {
    // EINVAL/EISDIR on file systems without directory fsync: nothing more can be done.
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `value` as pretty JSON (2 spaces, final newline), atomically. */
export function writeJsonAtomic(file: string, value: unknown): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n');
}

const ROWS_PER_WRITE = 256;

/** The header every trial CSV starts with. */
const TRIAL_HEADER = Buffer.from(stringify([[...TRIAL_COLUMNS]]), 'utf8');

/** Where a unit's `.partial` CSV was whole: its first `bytes` bytes (SHA-256 `sha256`) hold the header and `rows` rounds. */
export interface CsvMark {
  bytes: number;
  rows: number;
  sha256: string;
}

/**
 * Streams one unit's rounds to its `.partial` CSV, in batches, through csv-stringify. With `from`, it
 * continues a partial CSV that a checkpoint marked: the file is cut back to the mark (rows written
 * after it are dropped), must hash to the mark's SHA-256 and must start with this version's header
 * (rows of other columns cannot be continued), else the constructor throws.
 */
export class TrialCsvWriter {
  private readonly fd: number;
  private readonly trial: string;
  private readonly policy: string;
  private pending: string[][] = [];
  private closed = false;
  private readonly hash: Hash = createHash('sha256');
  /** Bytes written so far. */
  bytes = 0;
  rows = 0;

  constructor(
    readonly file: string,
    policy: string,
    trial: number,
    from?: CsvMark,
  ) {
    this.policy = policy;
    this.trial = String(trial);
    if (from === undefined) {
      this.fd = fs.openSync(file, 'w');
      this.write(TRIAL_HEADER);
      return;
    }
    this.fd = fs.openSync(file, 'r+');
    try {
      const size = fs.fstatSync(this.fd).size;
      if (size < from.bytes) throw new Error(`${file} holds ${size} bytes, fewer than the ${from.bytes} its checkpoint marked`);
      fs.ftruncateSync(this.fd, from.bytes);
      const chunk = Buffer.allocUnsafe(1 << 20);
      for (let at = 0; at < from.bytes; ) {
        const n = fs.readSync(this.fd, chunk, 0, Math.min(chunk.length, from.bytes - at), at);
        if (n === 0) throw new Error(`${file} ended at byte ${at} while being read`);
        this.hash.update(chunk.subarray(0, n));
        at += n;
      }
      if (this.hash.copy().digest('hex') !== from.sha256) throw new Error(`${file}'s first ${from.bytes} bytes are not those its checkpoint marked (SHA-256 differs)`);
      const header = Buffer.alloc(TRIAL_HEADER.length);
      if (fs.readSync(this.fd, header, 0, header.length, 0) < header.length || !header.equals(TRIAL_HEADER)) {
        throw new Error(`${file} does not start with the header this eofd writes (${TRIAL_COLUMNS.join(',')}): rows of other columns cannot be continued`);
      }
    } catch (error) {
      fs.closeSync(this.fd);
      throw error;
    }
    this.bytes = from.bytes;
    this.rows = from.rows;
  }

  add(record: RoundRecord): void {
    this.pending.push(roundCells(this.trial, this.policy, record));
    this.rows++;
    if (this.pending.length >= ROWS_PER_WRITE) this.flush();
  }

  /** Writes what is pending and flushes the file to the disk: everything added so far is whole on the disk. */
  mark(): CsvMark {
    this.flush();
    fs.fsyncSync(this.fd);
    return { bytes: this.bytes, rows: this.rows, sha256: this.hash.copy().digest('hex') };
  }

  /** Writes what is pending, flushes the file to the disk and closes it. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    fs.fsyncSync(this.fd);
    fs.closeSync(this.fd);
  }

  /** SHA-256 (hex) of everything written; call once, after close(). */
  sha256(): string {
    return this.hash.digest('hex');
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

  private write(text: string | Buffer): void {
    const buffer = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    let offset = 0;
    while (offset < buffer.length) offset += fs.writeSync(this.fd, buffer, offset, buffer.length - offset, this.bytes + offset);
    this.hash.update(buffer);
    this.bytes += buffer.length;
  }
}

/** Records a finished unit: its summary file, then the CSV under its final name (both flushed to the disk); its checkpoint goes. */
export function completeUnit(files: UnitFiles, record: Omit<UnitSummaryFile, 'format'>): void {
  writeJsonAtomic(files.summary, { format: UNIT_SUMMARY_FORMAT, ...record } satisfies UnitSummaryFile);
  fs.renameSync(files.partial, files.csv);
  syncFolder(files.folder);
  fs.rmSync(files.checkpoint, { force: true });
}

/** Removes what an unfinished unit may have left: its partial CSV, checkpoint, summary, final CSV and their temporary files. */
export function clearUnit(files: UnitFiles): void {
  // A writer stopped inside writeFileAtomic (a terminated worker thread shares the pid) leaves its temporary file.
  const temporary = [files.summary, files.csv, files.checkpoint].map((file) => `${file}.tmp-${process.pid}`);
  for (const file of [files.partial, files.checkpoint, files.summary, files.csv, ...temporary]) fs.rmSync(file, { force: true });
}

/** Whether `name` is a leftover of a killed writer: a unit's `*.partial` or an atomic write's `*.tmp-<pid>`. */
export function isLeftover(name: string): boolean {
  return name.endsWith(PARTIAL_SUFFIX) || /\.tmp-\d+$/.test(name);
}

/** Removes leftovers of killed writers (`*.partial`, `*.tmp-<pid>`) in a folder, if it exists; names in `keep` stay. */
export function removeLeftovers(folder: string, keep: ReadonlySet<string> = new Set()): void {
  let names: string[];
  try {
    names = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (isLeftover(name) && !keep.has(name)) fs.rmSync(path.join(folder, name), { force: true });
  }
}

/** summary.csv: one row per (policy, trial), in the order given. */
export function summaryCsv(units: readonly UnitSummaryFile[]): string {
  return stringify([[...SUMMARY_COLUMNS], ...units.map((u) => summaryCells(u.policy, u.trial, u.summary))]);
}

/** The folders a replacement leaves beside `<target>` while it runs: the new copy, the old one set aside. */
const REPLACE_LEFTOVER = /\.(merging|building|replaced)-(\d+)$/;

function isRunningHere(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Removes what a killed replaceFolder left beside `target`: a half-built copy is deleted; an old copy
 * set aside whose replacement never arrived is put back (it is whole: it was moved by one rename).
 * `held`: the caller holds `target`'s lock, so every leftover is a dead writer's; otherwise only those
 * of processes not running on this host are touched.
 */
export function removeReplaceLeftovers(target: string, held: boolean): void {
  const parent = path.dirname(target);
  const base = path.basename(target);
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return;
  }
  const leftovers = names
    .filter((name) => name.startsWith(`${base}.`) && REPLACE_LEFTOVER.exec(name.slice(base.length))?.index === 0)
    .map((name) => ({ file: path.join(parent, name), kind: (REPLACE_LEFTOVER.exec(name) as RegExpExecArray)[1], pid: Number((REPLACE_LEFTOVER.exec(name) as RegExpExecArray)[2]) }))
    .filter((l) => held || (l.pid !== process.pid && !isRunningHere(l.pid)));
  for (const l of leftovers) {
    if (l.kind === 'replaced' && !fs.existsSync(target)) fs.renameSync(l.file, target);
    else fs.rmSync(l.file, { recursive: true, force: true });
  }
}

/**
 * Replaces the folder `target` by one `build` makes beside it (`<target>.<word>-<pid>`), by renames:
 * the old folder is set aside (`<target>.replaced-<pid>`), the new one renamed into place, the old one
 * deleted. A kill at any moment leaves at `target` the old folder or the new one, each whole, or
 * nothing and the old one aside, which the next removeReplaceLeftovers puts back. `build` failing
 * leaves `target` as it was.
 */
export function replaceFolder(target: string, build: (staging: string) => void, options: { word: 'merging' | 'building'; held: boolean }): void {
  removeReplaceLeftovers(target, options.held);
  const staging = `${target}.${options.word}-${process.pid}`;
  const aside = `${target}.replaced-${process.pid}`;
  fs.rmSync(staging, { recursive: true, force: true });
  try {
    build(staging);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  let setAside = false;
  try {
    fs.renameSync(target, aside);
    setAside = true;
  } catch (error) {
    if ((error as { code?: string }).code !== 'ENOENT') {
      fs.rmSync(staging, { recursive: true, force: true });
      throw error;
    }
  }
  try {
    fs.renameSync(staging, target);
  } catch (error) {
    if (setAside) fs.renameSync(aside, target);
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  syncFolder(path.dirname(target));
  if (setAside) fs.rmSync(aside, { recursive: true, force: true });
}
