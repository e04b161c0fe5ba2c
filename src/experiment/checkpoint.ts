/**
 * Mid-unit checkpoints. A running unit writes `trial-<i>.checkpoint` (atomically) every so often and
 * when a signal stops the run: its policy's snapshot (policies/snapshot.ts) and the mark of its partial
 * CSV (results/write.ts CsvMark: how many bytes and rounds of it are whole). `--resume` continues the
 * unit there (unit.ts): the policy restored, the CSV cut back to the mark, and the environment replayed
 * to the same round from the CSV's actions (an environment's state is a function of its seeds and of
 * the actions played), its regret checked against the CSV's. The trial CSV then holds the same rounds
 * as an uninterrupted run's: the same actions, outcomes and regret; the rounds before the mark keep the
 * times measured when they ran.
 *
 * File (little-endian): "EOFDCKPT" · u32 header length · header (UTF-8 JSON) · the policy's snapshot.
 */
import fs from 'node:fs';
import { RunError } from '../base/errors.js';
import type { UnitFiles } from '../results/layout.js';
import { writeFileAtomic, type CsvMark } from '../results/write.js';

const MAGIC = 'EOFDCKPT';
/** The header layout; a reader refuses another. */
export const CHECKPOINT_FORMAT = 1;

/** When a running unit checkpoints: after `rounds` rounds or `ms` milliseconds since its last checkpoint, whichever comes first. */
export interface CheckpointEvery {
  rounds?: number;
  ms?: number;
}

/**
 * Every 10 minutes of a unit's running time: a checkpoint costs a policy snapshot and an fsync (median
 * 50 ms for OFUL-MLogB at Kd = 785, whose snapshot is 15 MB; docs/guide.md "Checkpoints"), under 0.01%
 * of the interval, and a preemption loses at most 10 minutes of a unit.
 */
export const DEFAULT_CHECKPOINT_EVERY: CheckpointEvery = { ms: 10 * 60_000 };

/** What a checkpoint file's header says. */
export interface CheckpointHeader {
  format: number;
  /** The policy label and trial of the unit. */
  policy: string;
  trial: number;
  /** Rounds played (1..rounds are in the CSV up to the mark). */
  rounds: number;
  csv: CsvMark;
}

/**
 * `--checkpoint EVERY`: `off`, a number of rounds (`5000`), or a time (`90s`, `10m`, `1h`).
 * Throws a RunError (exit 2) naming the option otherwise.
 */
export function parseCheckpointEvery(text: string): CheckpointEvery | null {
  const value = text.trim();
  if (value === 'off') return null;
  if (/^[1-9]\d*$/.test(value)) return { rounds: Number(value) };
  const match = /^(\d+(?:\.\d+)?)(s|m|h)$/.exec(value);
  const ms = match === null ? NaN : Number(match[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[match[2] as 's' | 'm' | 'h'];
  if (!(ms >= 1000)) throw new RunError(`--checkpoint ${text}: expected off, a number of rounds (e.g. 5000) or a time of at least 1s (e.g. 90s, 10m, 1h)`, 2);
  return { ms };
}

/** The checkpoint file's bytes. */
export function checkpointBytes(header: Omit<CheckpointHeader, 'format'>, snapshot: Uint8Array): Uint8Array {
  const json = Buffer.from(JSON.stringify({ format: CHECKPOINT_FORMAT, ...header } satisfies CheckpointHeader), 'utf8');
  const bytes = new Uint8Array(MAGIC.length + 4 + json.length + snapshot.length);
  bytes.set(Buffer.from(MAGIC, 'latin1'), 0);
  new DataView(bytes.buffer).setUint32(MAGIC.length, json.length, true);
  bytes.set(json, MAGIC.length + 4);
  bytes.set(snapshot, MAGIC.length + 4 + json.length);
  return bytes;
}

/** Writes the unit's checkpoint (atomically: the file is the previous checkpoint or this one). */
export function writeCheckpoint(files: UnitFiles, header: Omit<CheckpointHeader, 'format'>, snapshot: Uint8Array): void {
  writeFileAtomic(files.checkpoint, checkpointBytes(header, snapshot));
}

/** The checkpoint of (policy, trial): its header and the policy's snapshot; throws an Error saying what is wrong with it. */
export function readCheckpoint(file: string, policy: string, trial: number): { header: CheckpointHeader; snapshot: Uint8Array } {
  const bytes = new Uint8Array(fs.readFileSync(file));
  if (bytes.length < MAGIC.length + 4 || Buffer.from(bytes.subarray(0, MAGIC.length)).toString('latin1') !== MAGIC) throw new Error(`${file} is not a checkpoint`);
  const length = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MAGIC.length, true);
  const start = MAGIC.length + 4;
  if (start + length > bytes.length) throw new Error(`${file} is cut short`);
  const header = JSON.parse(Buffer.from(bytes.subarray(start, start + length)).toString('utf8')) as CheckpointHeader;
  if (header.format !== CHECKPOINT_FORMAT) throw new Error(`${file}: checkpoint format ${header.format}; this eofd reads format ${CHECKPOINT_FORMAT}`);
  if (header.policy !== policy || header.trial !== trial) throw new Error(`${file} is the checkpoint of ${header.policy}, trial ${header.trial}, not of ${policy}, trial ${trial}`);
  const { csv } = header;
  if (!(Number.isInteger(header.rounds) && header.rounds >= 1 && csv.rows === header.rounds && Number.isInteger(csv.bytes) && typeof csv.sha256 === 'string')) {
    throw new Error(`${file}: its header does not describe a checkpoint (rounds ${header.rounds}, csv ${JSON.stringify(csv)})`);
  }
  return { header, snapshot: bytes.subarray(start + length) };
}
