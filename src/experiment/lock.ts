/**
 * One writer per experiment folder: `<out>/.<name>.lock`, created exclusively and already filled (a
 * hard link to a file written first; O_EXCL where there are no hard links), holding the writer's
 * identity, and kept fresh by a heartbeat. The rule that decides whether a lock is stale (its writer
 * was killed) works from any host:
 *
 *   - The holder touches the file's mtime every `heartbeat_ms` (HEARTBEAT_MS) from a worker thread,
 *     so a unit busy on the main thread (`--jobs 1`) does not stop it.
 *   - A newcomer that shares the holder's kernel and pid namespace (same host name, boot id and
 *     /proc/self/ns/pid) asks the kernel: the holder is alive iff its pid runs with the recorded start
 *     time (field 22 of /proc/<pid>/stat). A dead holder's lock is taken over at once; the same pid
 *     after a restart (a container's pid 1) has another start time, so it is dead too.
 *   - Any other newcomer (another host: a requeued Slurm job, a new Kubernetes pod; another boot;
 *     another container) watches the file for STALE_BEATS heartbeats: refreshed → alive (refused);
 *     not refreshed → stale (taken over). Only changes are compared, never clocks, so clock skew
 *     between hosts does not matter; the file is opened for every look (NFS close-to-open).
 *
 * Taking over renames the stale file aside and checks that it was the one judged stale (a token in
 * the file), so two newcomers cannot both win.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { EofdError, errnoCode } from '../base/errors.js';

/** How often the holder refreshes its lock (ms). */
export const HEARTBEAT_MS = 5000;
/** A lock not refreshed for this many of its heartbeats is stale. */
export const STALE_BEATS = 6;

/** What the lock file holds. */
export interface LockOwner {
  pid: number;
  host: string;
  started: string;
  /** /proc/sys/kernel/random/boot_id; null off Linux. */
  boot_id: string | null;
  /** /proc/self/ns/pid (e.g. `pid:[4026531836]`); null off Linux. */
  pid_namespace: string | null;
  /** The process start time in clock ticks since boot (/proc/<pid>/stat field 22); null off Linux. */
  start_ticks: number | null;
  heartbeat_ms: number;
  /** Unique per lock: tells this lock from a later one at the same path. */
  token: string;
}

/** Who is asking: this process, or (in tests) a process on another host or after a restart. */
export type ProcessIdentity = Pick<LockOwner, 'pid' | 'host' | 'boot_id' | 'pid_namespace' | 'start_ticks'>;

export interface LockOptions {
  /** The heartbeat interval written into the lock (default HEARTBEAT_MS). */
  heartbeatMs?: number;
  /** Who takes the lock (default: this process). */
  identity?: ProcessIdentity;
  /** Told (one line) when a lock left empty or unreadable by a writer that stopped is taken over (default: stderr). */
  onNotice?: (text: string) => void;
}

/** How long a lock file may stay empty or unreadable while its writer fills it (ms): it writes right after creating it. */
export const FILL_GRACE_MS = 1000;

export interface Lock {
  readonly file: string;
  release(): void;
}

/** Thrown when another live run holds the lock. */
export class LockedError extends EofdError {
  constructor(
    readonly file: string,
    readonly owner: Partial<LockOwner> | null,
  ) {
    super(
      owner === null
        ? `${file} is held by another eofd run (its heartbeat is fresh); if no other eofd run is writing there, delete it`
        : `another eofd run (pid ${owner.pid ?? '?'} on ${owner.host ?? '?'}, started ${owner.started ?? '?'}) is writing there; ` +
            `wait for it, or delete ${file} if that run is gone`,
      1,
    );
  }
}

function readOptional(read: () => string): string | null {
  try {
    return read().trim();
  } catch {
    return null;
  }
}

/** The start time of process `pid` in clock ticks since boot; null when it is not running (or off Linux). */
export function processStartTicks(pid: number): number | null {
  const stat = readOptional(() => fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (stat === null) return null;
  // Fields after the command name `(…)`, which may hold spaces: state is field 3, starttime field 22.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[22 - 3]);
  return Number.isSafeInteger(ticks) ? ticks : null;
}

/** This process's identity. */
export function currentIdentity(): ProcessIdentity {
  return {
    pid: process.pid,
    host: os.hostname(),
    boot_id: readOptional(() => fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pid_namespace: readOptional(() => fs.readlinkSync('/proc/self/ns/pid')),
    start_ticks: processStartTicks(process.pid),
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errnoCode(error) === 'EPERM';
  }
}

/** The lock file as seen now: its text and mtime (null when it is gone). Opened afresh for NFS. */
export interface Snapshot {
  text: string;
  mtimeMs: number;
}

function snapshot(file: string): Snapshot | null {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
  try {
    return { mtimeMs: fs.fstatSync(fd).mtimeMs, text: fs.readFileSync(fd, 'utf8') };
  } finally {
    fs.closeSync(fd);
  }
}

function parseOwner(text: string): Partial<LockOwner> | null {
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    return typeof owner === 'object' && owner !== null && typeof owner.pid === 'number' && typeof owner.host === 'string' ? owner : null;
  } catch {
    return null;
  }
}

/**
 * What the kernel says about the holder: `alive` or `dead` when the newcomer shares its host, boot and
 * pid namespace (or, for a lock without a boot id, the host with a pid no longer running: the rule
 * before heartbeats); `unknown` otherwise (then the heartbeat decides).
 */
export function holderVerdict(holder: Partial<LockOwner> | null, self: ProcessIdentity): 'alive' | 'dead' | 'unknown' {
  if (holder === null || holder.pid === undefined || holder.host !== self.host) return 'unknown';
  const sameKernel = self.boot_id !== null && holder.boot_id === self.boot_id && self.pid_namespace !== null && holder.pid_namespace === self.pid_namespace;
  if (sameKernel && typeof holder.start_ticks === 'number') {
    const ticks = holder.pid === self.pid ? self.start_ticks : processStartTicks(holder.pid);
    return ticks === holder.start_ticks ? 'alive' : 'dead';
  }
  // A lock without a boot id (off Linux, or written before heartbeats): a pid no longer running on this host.
  if (holder.boot_id == null && !isRunning(holder.pid)) return 'dead';
  return 'unknown';
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/** Watches the lock for STALE_BEATS of its heartbeats: `refreshed`, `gone`, or `stale` (unchanged throughout). */
function watch(file: string, seen: Snapshot, heartbeatMs: number): 'refreshed' | 'gone' | 'stale' {
  const windowMs = STALE_BEATS * heartbeatMs;
  const step = Math.max(1, Math.min(heartbeatMs, 1000));
  const deadline = performance.now() + windowMs;
  while (performance.now() < deadline) {
    sleep(Math.min(step, Math.max(1, deadline - performance.now())));
    const now = snapshot(file);
    if (now === null) return 'gone';
    if (now.mtimeMs !== seen.mtimeMs || now.text !== seen.text) return 'refreshed';
  }
  return 'stale';
}

/**
 * Removes the stale lock `seen`: renames whatever is at `file` aside, and if it is not `seen` (another
 * newcomer took over meanwhile) links it back. Returns whether the stale lock was removed.
 */
export function takeOver(file: string, seen: Snapshot): boolean {
  const aside = `${file}.stale-${randomUUID()}`;
  try {
    fs.renameSync(file, aside);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
  const moved = readOptional(() => fs.readFileSync(aside, 'utf8'));
  if (moved !== seen.text.trim()) {
    try {
      fs.linkSync(aside, file);
    } catch {
      // Yet another lock appeared meanwhile: it stands, the moved one was not stale either way.
    }
    fs.rmSync(aside, { force: true });
    return false;
  }
  fs.rmSync(aside, { force: true });
  return true;
}

/** The holder's heartbeat (ms) as recorded, within sane bounds; HEARTBEAT_MS when absent. */
function recordedHeartbeat(holder: Partial<LockOwner> | null): number {
  const ms = holder?.heartbeat_ms;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 1 ? Math.min(ms, 60_000) : HEARTBEAT_MS;
}

/** Whether the holder of the lock `seen` at `file` lives: the kernel's verdict, else its heartbeat (`watch`). */
function judge(file: string, seen: Snapshot, holder: Partial<LockOwner>, self: ProcessIdentity): 'alive' | 'dead' | 'gone' {
  const verdict = holderVerdict(holder, self);
  if (verdict !== 'unknown') return verdict;
  const watched = watch(file, seen, recordedHeartbeat(holder));
  return watched === 'refreshed' ? 'alive' : watched === 'stale' ? 'dead' : 'gone';
}

/**
 * The live holder of the lock at `file`, or null when no one holds it (missing, stale, or left empty),
 * judged as `acquireLock` judges it but without taking it: for a writer that must not run while another
 * holds a lock it shares with others (a reproduction's shards, each under its own lock). May wait as
 * `acquireLock` does.
 */
export function lockHolder(file: string, identity: ProcessIdentity = currentIdentity()): Partial<LockOwner> | null {
  for (;;) {
    const seen = snapshot(file);
    if (seen === null) return null;
    const holder = parseOwner(seen.text);
    if (holder === null) {
      sleep(FILL_GRACE_MS);
      const again = snapshot(file);
      if (again === null || again.text !== seen.text || again.mtimeMs !== seen.mtimeMs) continue;
      return null; // left empty or unreadable by a writer that stopped
    }
    const judged = judge(file, seen, holder, identity);
    if (judged === 'alive') return holder;
    if (judged === 'dead') return null;
  }
}

/** Errors of link() on a file system without hard links (then the lock is created with O_EXCL and filled). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EMLINK', 'EXDEV']);

/**
 * Creates `file` holding `text`, or throws EEXIST when it exists. The text is written to a file of its
 * own first and hard-linked into place, so the lock never exists empty (a writer stopped between O_EXCL
 * and its write would leave an empty lock, taken over only after FILL_GRACE_MS); link() is atomic and
 * exclusive on NFS as well. Where the file system has no hard links: O_EXCL, then the write.
 */
function createFilled(file: string, text: string): void {
  const filled = `${file}.new-${randomUUID()}`;
  let linked = false;
  try {
    fs.writeFileSync(filled, text, { flag: 'wx' });
    fs.linkSync(filled, file);
    linked = true;
  } catch (error) {
    if (!NO_HARD_LINKS.has(errnoCode(error))) throw error;
  } finally {
    fs.rmSync(filled, { force: true });
  }
  if (linked) return;
  const fd = fs.openSync(file, 'wx');
  try {
    fs.writeSync(fd, text);
  } catch (error) {
    // Never leave a lock without its owner (a full disk): the next run could not tell who holds it.
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw error;
  }
  fs.closeSync(fd);
}

/**
 * Takes the lock at `file`. Throws LockedError when a live process holds it, and the file system's
 * error (EACCES, ENOTDIR, …) when the folder cannot be written. May wait up to STALE_BEATS of the
 * holder's heartbeats when only the heartbeat can tell whether the holder lives.
 */
export function acquireLock(file: string, options: LockOptions = {}): Lock {
  const self = options.identity ?? currentIdentity();
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  const owner: LockOwner = { ...self, started: new Date().toISOString(), heartbeat_ms: heartbeatMs, token: randomUUID() };
  const text = JSON.stringify(owner) + '\n';
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      createFilled(file, text);
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
      const seen = snapshot(file);
      if (seen === null) continue;
      const holder = parseOwner(seen.text);
      if (holder === null) {
        // A writer fills its lock right after creating it; still empty or unreadable after a grace, and
        // unchanged, it was left by a writer that stopped (a full disk, a kill in between): no one holds it.
        sleep(FILL_GRACE_MS);
        const again = snapshot(file);
        if (again === null || again.text !== seen.text || again.mtimeMs !== seen.mtimeMs) continue;
        if (takeOver(file, seen)) {
          const notice = options.onNotice ?? ((text: string) => process.stderr.write(`eofd: ${text}\n`));
          notice(`${file} was ${seen.text.trim() === '' ? 'empty' : 'unreadable'} (left by a writer that stopped, e.g. on a full disk); taken over`);
        }
        continue;
      }
      const judged = judge(file, seen, holder, self);
      if (judged === 'alive') throw new LockedError(file, holder);
      if (judged === 'gone') continue;
      takeOver(file, seen);
      continue;
    }
    heartbeat().postMessage({ add: { file, token: owner.token, intervalMs: heartbeatMs } });
    let released = false;
    return {
      file,
      release() {
        if (released) return;
        released = true;
        heartbeat().postMessage({ remove: file });
        // Only our own lock: after a take-over (we were judged dead) the file is another run's.
        if (readOptional(() => fs.readFileSync(file, 'utf8'))?.includes(owner.token) === true) fs.rmSync(file, { force: true });
      },
    };
  }
  const last = snapshot(file);
  throw new LockedError(file, last === null ? null : parseOwner(last.text));
}

/**
 * The heartbeat thread of this process (one for all its locks): every tick it sets the mtime of each
 * lock that still holds its token. A worker thread, so a busy main thread cannot starve it; unref'd,
 * so it never keeps the process alive.
 */
const HEARTBEAT_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const held = new Map();
let timer = null;
function beat() {
  for (const [file, { token }] of held) {
    try {
      const fd = fs.openSync(file, 'r');
      try {
        if (fs.readFileSync(fd, 'utf8').includes(token)) { const now = new Date(); fs.futimesSync(fd, now, now); }
      } finally { fs.closeSync(fd); }
    } catch {}
  }
}
function schedule() {
  if (timer !== null) clearInterval(timer);
  timer = null;
  if (held.size === 0) return;
  timer = setInterval(beat, Math.min(...[...held.values()].map((h) => h.intervalMs)));
}
parentPort.on('message', (message) => {
  if (message.add) held.set(message.add.file, message.add);
  if (message.remove) held.delete(message.remove);
  schedule();
});
`;

let heartbeatWorker: Worker | null = null;
function heartbeat(): Worker {
  if (heartbeatWorker === null) {
    const worker = new Worker(HEARTBEAT_SOURCE, { eval: true });
    worker.unref();
    worker.on('error', () => {
      if (heartbeatWorker === worker) heartbeatWorker = null;
    });
    worker.on('exit', () => {
      if (heartbeatWorker === worker) heartbeatWorker = null;
    });
    heartbeatWorker = worker;
  }
  return heartbeatWorker;
}
