import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  acquireLock,
  currentIdentity,
  holderVerdict,
  LockedError,
  lockHolder,
  processStartTicks,
  takeOver,
  type LockOwner,
  type ProcessIdentity,
} from '../../src/experiment/lock.js';
import { exitOf, tempDir, waitFor } from './fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-lock-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

let counter = 0;
function lockPath(): string {
  return path.join(root, `.run-${counter++}.lock`);
}

/** A lock file as a (possibly killed) holder left it; mtime set `ageMs` into the past. */
function writeLock(file: string, owner: Partial<LockOwner>, ageMs = 0): void {
  fs.writeFileSync(file, JSON.stringify({ started: 'then', heartbeat_ms: 20, token: `t-${counter++}`, ...owner }) + '\n');
  const then = new Date(Date.now() - ageMs);
  fs.utimesSync(file, then, then);
}

function refusal(run: () => unknown): LockedError {
  try {
    run();
  } catch (error) {
    if (error instanceof LockedError) return error;
    throw error;
  }
  throw new Error('expected a LockedError');
}

const self = currentIdentity();
const otherHost: ProcessIdentity = { ...self, host: `${self.host}-other`, pid: 4242 };

describe('acquireLock: bad places', () => {
  it('reports the file system error for a missing folder or a file in the way, not a lock', () => {
    expect(() => acquireLock(path.join(root, 'missing', '.x.lock'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
    const file = path.join(root, 'a-file');
    fs.writeFileSync(file, 'x');
    expect(() => acquireLock(path.join(file, '.x.lock'))).toThrow(expect.objectContaining({ code: 'ENOTDIR' }));
  });
});

describe('acquireLock: a lock is never seen empty', () => {
  it('links the lock into place already holding its owner, and leaves no other file', () => {
    const folder = tempDir('eofd-lock-link-');
    const file = path.join(folder, '.run.lock');
    const atLink: string[] = [];
    const link = vi.spyOn(fs, 'linkSync').mockImplementation((existing, target) => {
      // What the lock will hold the moment it appears.
      atLink.push(fs.readFileSync(existing, 'utf8'));
      return fs.renameSync(existing, target);
    });
    try {
      const lock = acquireLock(file);
      expect(link).toHaveBeenCalledTimes(1);
      const owner = JSON.parse(atLink[0] as string) as LockOwner;
      expect(owner.pid).toBe(process.pid);
      expect(fs.readFileSync(file, 'utf8')).toBe(atLink[0]);
      expect(fs.readdirSync(folder)).toEqual(['.run.lock']);
      lock.release();
      expect(fs.readdirSync(folder)).toEqual([]);
    } finally {
      link.mockRestore();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('on a file system without hard links (link fails with EPERM), creates it with O_EXCL and fills it', () => {
    const folder = tempDir('eofd-lock-nolink-');
    const file = path.join(folder, '.run.lock');
    const link = vi.spyOn(fs, 'linkSync').mockImplementation(() => {
      throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
    });
    try {
      const lock = acquireLock(file);
      expect(link).toHaveBeenCalled();
      expect((JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner).pid).toBe(process.pid);
      expect(fs.readdirSync(folder)).toEqual(['.run.lock']);
      // A second taker is refused as before (the holder is this live process).
      expect(refusal(() => acquireLock(file)).owner?.pid).toBe(process.pid);
      lock.release();
    } finally {
      link.mockRestore();
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses while another live run holds it, leaving no file of its own behind', () => {
    const folder = tempDir('eofd-lock-held-');
    const file = path.join(folder, '.run.lock');
    try {
      const lock = acquireLock(file);
      const before = fs.readFileSync(file, 'utf8');
      expect(refusal(() => acquireLock(file)).owner?.token).toBe((JSON.parse(before) as LockOwner).token);
      expect(fs.readdirSync(folder)).toEqual(['.run.lock']);
      expect(fs.readFileSync(file, 'utf8')).toBe(before);
      lock.release();
    } finally {
      fs.rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('lock identity and heartbeat', () => {
  it('records who holds it (host, pid, boot, pid namespace, start time) and releases only its own file', () => {
    const file = lockPath();
    const lock = acquireLock(file);
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner;
    expect(owner).toMatchObject({ pid: process.pid, host: self.host, heartbeat_ms: 5000 });
    // On Linux the identity comes from /proc; the start time is this process's, read independently.
    expect(owner.boot_id).toBe(fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    expect(owner.pid_namespace).toBe(fs.readlinkSync('/proc/self/ns/pid'));
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    expect(owner.start_ticks).toBe(Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]));
    expect(refusal(() => acquireLock(file)).message).toMatch(new RegExp(`pid ${process.pid} on `));
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
    // A lock taken over by another run (this one was judged dead) is not deleted by a late release.
    const second = acquireLock(file);
    fs.writeFileSync(file, JSON.stringify({ ...otherHost, token: 'successor' }));
    second.release();
    second.release();
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ token: 'successor' });
  });

  it('keeps refreshing the file while the main thread is busy', async () => {
    const file = lockPath();
    const lock = acquireLock(file, { heartbeatMs: 20 });
    try {
      const first = fs.statSync(file).mtimeMs;
      await waitFor(() => fs.statSync(file).mtimeMs !== first);
      const before = fs.statSync(file).mtimeMs;
      // Busy for 25 heartbeats without yielding (as a unit running with --jobs 1).
      const end = Date.now() + 25 * 20;
      while (Date.now() < end) {
        /* busy */
      }
      expect(fs.statSync(file).mtimeMs).toBeGreaterThan(before);
    } finally {
      lock.release();
    }
  });
});

describe('stale locks on this machine: asking the kernel', () => {
  it('refuses while the holder runs, takes over once it is killed', async () => {
    const child = spawn('sleep', ['60'], { stdio: 'ignore' });
    try {
      await waitFor(() => processStartTicks(child.pid as number) !== null);
      const file = lockPath();
      writeLock(file, { ...self, pid: child.pid as number, start_ticks: processStartTicks(child.pid as number) }, 3_600_000);
      // An hour without a heartbeat does not matter: the kernel says the holder runs.
      expect(holderVerdict(JSON.parse(fs.readFileSync(file, 'utf8')), self)).toBe('alive');
      expect(refusal(() => acquireLock(file)).message).toMatch(new RegExp(`another eofd run \\(pid ${child.pid} on ${self.host}`));
      child.kill('SIGKILL');
      await exitOf(child);
      acquireLock(file).release();
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('takes over the lock of the same pid with another start time (a restarted container: pid 1 again)', () => {
    for (const pid of [process.pid, 1]) {
      const file = lockPath();
      const ticks = processStartTicks(pid) as number;
      writeLock(file, { ...self, pid, start_ticks: ticks + 1 });
      expect(holderVerdict(JSON.parse(fs.readFileSync(file, 'utf8')), self)).toBe('dead');
      const lock = acquireLock(file);
      expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, start_ticks: self.start_ticks });
      lock.release();
    }
    // The same start time and pid is this very process: alive.
    expect(holderVerdict({ ...self }, self)).toBe('alive');
  });

  it('takes over a lock without a boot id (written before heartbeats) whose pid is gone', () => {
    const file = lockPath();
    fs.writeFileSync(file, JSON.stringify({ pid: 2 ** 30, host: self.host, started: 'then' }));
    acquireLock(file).release();
    expect(fs.existsSync(file)).toBe(false);
  });
});

describe('stale locks elsewhere: watching the heartbeat', () => {
  it.each([
    ['another host (a requeued Slurm job, a new pod)', { host: otherHost.host }],
    ['another boot of this host', { boot_id: 'another-boot' }],
    ['another pid namespace with the same pid (a restarted container)', { pid_namespace: 'pid:[1]', start_ticks: self.start_ticks }],
  ])('takes over a lock from %s that is not refreshed', (_what, differs) => {
    const file = lockPath();
    writeLock(file, { ...self, ...differs });
    expect(holderVerdict(JSON.parse(fs.readFileSync(file, 'utf8')), self)).toBe('unknown');
    const lock = acquireLock(file);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid, host: self.host });
    lock.release();
  });

  it('refuses a live holder on another host whose heartbeat is fresh, then takes the lock once it is released', async () => {
    const file = lockPath();
    // The holder's heartbeat (100 ms) runs on its own thread; the newcomer watches for STALE_BEATS of them.
    const holder = acquireLock(file, { identity: otherHost, heartbeatMs: 100 });
    try {
      const first = fs.statSync(file).mtimeMs;
      await waitFor(() => fs.statSync(file).mtimeMs !== first);
      expect(refusal(() => acquireLock(file)).message).toMatch(new RegExp(`pid 4242 on ${otherHost.host}`));
    } finally {
      holder.release();
    }
    acquireLock(file).release();
  });
});

describe('lockHolder', () => {
  it('names a live holder (this host: the kernel; another: a fresh heartbeat) and no one for a missing, dead, stale or empty lock, taking nothing', async () => {
    expect(lockHolder(lockPath())).toBeNull();
    const file = lockPath();
    const held = acquireLock(file);
    expect(lockHolder(file)).toMatchObject({ pid: process.pid, host: self.host });
    held.release();
    writeLock(file, { ...self, start_ticks: (self.start_ticks as number) + 1 });
    expect(lockHolder(file)).toBeNull();
    writeLock(file, { ...self, host: otherHost.host }); // another host, not refreshed: stale
    expect(lockHolder(file)).toBeNull();
    fs.writeFileSync(file, '');
    expect(lockHolder(file)).toBeNull();
    expect(fs.readFileSync(file, 'utf8')).toBe(''); // looked at, never taken over
    fs.rmSync(file);
    const remote = acquireLock(file, { identity: otherHost, heartbeatMs: 100 });
    try {
      const first = fs.statSync(file).mtimeMs;
      await waitFor(() => fs.statSync(file).mtimeMs !== first);
      expect(lockHolder(file)).toMatchObject({ pid: 4242, host: otherHost.host });
    } finally {
      remote.release();
    }
  });
});

describe('takeOver', () => {
  it('removes only the lock judged stale; a lock another newcomer created meanwhile stands', () => {
    const file = lockPath();
    writeLock(file, { ...otherHost });
    const stale = { text: fs.readFileSync(file, 'utf8'), mtimeMs: fs.statSync(file).mtimeMs };
    // Another newcomer took over first and wrote its own lock.
    writeLock(file, { ...self, token: 'winner' });
    expect(takeOver(file, stale)).toBe(false);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ token: 'winner' });
    expect(fs.readdirSync(root).filter((f) => f.includes('.stale-'))).toEqual([]);
    // The stale one itself is removed.
    writeLock(file, { ...otherHost, token: 'stale' });
    expect(takeOver(file, { text: fs.readFileSync(file, 'utf8'), mtimeMs: 0 })).toBe(true);
    expect(fs.existsSync(file)).toBe(false);
    expect(takeOver(file, stale)).toBe(false);
  });
});
