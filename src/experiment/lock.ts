/**
 * One writer per experiment folder: `<out>/.<name>.lock`, created exclusively (O_EXCL) and holding the
 * writer's pid, host and start time. A lock whose process is gone (same host, pid not running: a
 * killed run) is stale and taken over; any other existing lock refuses the run.
 */
import fs from 'node:fs';
import os from 'node:os';
import { EofdError, errnoCode } from '../base/errors.js';

export interface LockOwner {
  pid: number;
  host: string;
  started: string;
}

export interface Lock {
  readonly file: string;
  release(): void;
}

/** Thrown when another live run holds the lock. */
export class LockedError extends EofdError {
  constructor(
    readonly file: string,
    readonly owner: LockOwner | null,
  ) {
    super(
      owner === null
        ? `${file} exists and cannot be read; if no other eofd run is writing there, delete it`
        : `another eofd run (pid ${owner.pid} on ${owner.host}, started ${owner.started}) is writing there; ` +
            `wait for it, or delete ${file} if that run is gone`,
      1,
    );
  }
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

function readOwner(file: string): LockOwner | null {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockOwner>;
    if (typeof owner.pid !== 'number' || typeof owner.host !== 'string') return null;
    return { pid: owner.pid, host: owner.host, started: String(owner.started ?? '?') };
  } catch {
    return null;
  }
}

/**
 * Takes the lock at `file`. Throws LockedError when a live process holds it, and the file system's
 * error (EACCES, ENOTDIR, …) when the folder cannot be written.
 */
export function acquireLock(file: string): Lock {
  const owner: LockOwner = { pid: process.pid, host: os.hostname(), started: new Date().toISOString() };
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = fs.openSync(file, 'wx');
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') throw error;
      const holder = readOwner(file);
      const stale = holder !== null && holder.host === owner.host && holder.pid !== process.pid && !isRunning(holder.pid);
      if (!stale || attempt > 0) throw new LockedError(file, holder);
      fs.rmSync(file, { force: true });
      continue;
    }
    fs.writeSync(fd, JSON.stringify(owner) + '\n');
    fs.closeSync(fd);
    let released = false;
    return {
      file,
      release() {
        if (released) return;
        released = true;
        fs.rmSync(file, { force: true });
      },
    };
  }
  throw new LockedError(file, readOwner(file));
}
