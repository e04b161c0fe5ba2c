/**
 * A running experiment's progress record, `<out>/.<name>.progress.json` beside its lock (layout.ts
 * lockFile): the rounds each of its running units has played and the run's ETA, as the command's
 * progress display (cli/progress.ts) counts them, rewritten (atomically) at most every
 * PROGRESS_RECORD_EVERY_MS while the run plays. `eofd status` reads it: the per-round CSVs are written
 * in blocks, so their rows trail the rounds played, and a CSV holds no estimate. The command removes
 * it when it ends; the record of a run killed is stale, and status trusts one only under a live lock
 * held by the process that wrote it.
 */
import fs from 'node:fs';
import path from 'node:path';

export const PROGRESS_RECORD_FORMAT = 'eofd-progress/1';

/** Least milliseconds between two writes of an experiment's record while its units play. */
export const PROGRESS_RECORD_EVERY_MS = 1000;

export interface ProgressRecord {
  format: typeof PROGRESS_RECORD_FORMAT;
  pid: number;
  host: string;
  /** When it was written (ms since the epoch). */
  written_ms: number;
  /** The experiment's units running, and the rounds each has played. */
  running: { policy: string; trial: number; rounds: number }[];
  /**
   * Seconds left when written, as the progress display estimates them (the ETA rule, docs/guide.md
   * "Progress and output"): this run's (`run`), and the work the command runs after it (`later`: a reproduction's later
   * stages; 0 none; null not known yet); null before the first rate.
   */
  eta: { run: number; later: number | null } | null;
}

/** `<out>/.<name>.progress.json` for the experiment folder `<out>/<name>`. */
export function progressRecordFile(experimentDir: string): string {
  const resolved = path.resolve(experimentDir);
  return path.join(path.dirname(resolved), `.${path.basename(resolved)}.progress.json`);
}

/** The record of `experimentDir`'s run, or null (none, or unreadable: a write is atomic, so only a foreign file). */
export function readProgressRecord(experimentDir: string): ProgressRecord | null {
  try {
    const record = JSON.parse(fs.readFileSync(progressRecordFile(experimentDir), 'utf8')) as ProgressRecord;
    return record.format === PROGRESS_RECORD_FORMAT && Array.isArray(record.running) && typeof record.written_ms === 'number' ? record : null;
  } catch {
    return null;
  }
}

/**
 * Writes `experimentDir`'s record: whole for a reader at every moment (a temporary file renamed over
 * it), not flushed to the disk (it informs status while the run lives; a crash loses nothing that
 * matters), so that writing it costs the run nothing it would notice.
 */
export function writeProgressRecord(experimentDir: string, record: ProgressRecord): void {
  const file = progressRecordFile(experimentDir);
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(record) + '\n');
    fs.renameSync(tmp, file);
  } catch (error) {
    fs.rmSync(tmp, { force: true });
    throw error;
  }
}

/** Removes `experimentDir`'s record, if any (its run ended, or its folder is cleared). */
export function removeProgressRecord(experimentDir: string): void {
  try {
    fs.rmSync(progressRecordFile(experimentDir), { force: true });
  } catch {
    // A folder not writable: the record stays, stale once its lock is released.
  }
}
