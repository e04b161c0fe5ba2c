/**
 * `eofd status <dirs>... [--json]`: how far a run is, from its files alone, while it runs or after.
 * Each <dir> is an experiment folder, a grid or sweep folder (its point folders), a shard's folder
 * (`<out>/shard-<i>-of-<n>`) or a parent of any of these. Every unit (policy × trial) is
 *   - done: its CSV and summary file are in place (sizes checked, not hashes: `eofd report` checks those);
 *   - running: its `.partial` CSV exists and the experiment's lock (`<out>/.<name>.lock`) is live;
 *   - missing: anything else: queued, failed, never started (a shard whose folder does not exist),
 *     or cut short by a run that is gone (a stale `.partial`: redone by --resume).
 * The folders of one experiment in several shards are counted as one (units dealt as plan.ts deals
 * them), so a shard that never started shows as missing units; with the folder `eofd merge` made of
 * them beside the shards (`<out>/<path>` for `<out>/shard-<i>-of-<n>/<path>`), still one: a unit is
 * done when done in either. A lock is live when its holder runs
 * (same host: asked of the kernel) or, from another host, when its heartbeat is younger than
 * STALE_BEATS heartbeats (lock.ts); ages are measured against this machine's clock.
 * Exit codes: 0 (whatever the counts), 2 a folder that holds no experiment or a bad manifest.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { RunError } from '../../base/errors.js';
import { currentIdentity, holderVerdict, HEARTBEAT_MS, STALE_BEATS, type LockOwner } from '../../experiment/lock.js';
import { formatShort } from '../../report/format.js';
import { lockFile, MANIFEST_FILE, unitFiles } from '../../results/layout.js';
import { readFinishedUnit, readManifest } from '../../results/read.js';
import { EXIT, failureExitCode, processIo, type CliIo } from '../io.js';
import { formatDuration } from '../progress.js';

/** An experiment's lock as found on disk. */
export interface LockStatus {
  file: string;
  host: string | null;
  pid: number | null;
  /** When the holding run started (ISO 8601, as the lock records it). */
  started: string | null;
  /** Seconds since its last heartbeat (the file's mtime). */
  heartbeatAge: number;
  live: boolean;
}

export interface UnitStatus {
  policy: string;
  trial: number;
  /** The experiment folder that holds (or would hold) it. */
  dir: string;
  /** Rounds in its `.partial` CSV (0 without one). */
  rounds: number;
  /** Seconds since its `.partial` CSV was last written; null without one. */
  writtenAge: number | null;
  /** The lock of its folder while it runs. */
  lock: LockStatus | null;
}

export interface ExperimentStatus {
  /** The experiment as the user sees it: its folder, or `<parent>/shard-*-of-<n>/<path>` for one spread over shards. */
  name: string;
  horizon: number;
  units: number;
  done: number;
  running: UnitStatus[];
  /** Units cut short by a run that is gone: a `.partial` under a lock that is not live. */
  stale: UnitStatus[];
  missing: number;
  /** Shard count of a sharded experiment, and the shards with no folder of it. */
  shards: { count: number; absent: number[] } | null;
  locks: LockStatus[];
}

export interface StatusReport {
  units: number;
  done: number;
  running: number;
  missing: number;
  stale: number;
  experiments: ExperimentStatus[];
}

const SHARD_FOLDER = /^shard-(\d+)-of-(\d+)$/;

/** Experiment folders (holding manifest.json) at or below `dir`, at most `depth` levels down, in name order. */
function experimentFolders(dir: string, depth: number): string[] {
  if (fs.existsSync(path.join(dir, MANIFEST_FILE))) return [dir];
  if (depth === 0) return [];
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() && !e.name.startsWith('.'))
    .map((e) => e.name)
    .sort()
    .flatMap((name) => experimentFolders(path.join(dir, name), depth - 1));
}

/** The shard folder `dir` lies in (itself or an ancestor), if any. */
function shardFolderOf(dir: string): string | null {
  for (let current = path.resolve(dir); path.dirname(current) !== current; current = path.dirname(current)) {
    if (SHARD_FOLDER.test(path.basename(current))) return current;
  }
  return null;
}

function readLock(file: string, now: number): LockStatus | null {
  let text: string;
  let mtimeMs: number;
  try {
    mtimeMs = fs.statSync(file).mtimeMs;
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  let owner: Partial<LockOwner> | null = null;
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    owner = typeof parsed === 'object' && parsed !== null ? parsed : null;
  } catch {
    owner = null;
  }
  const heartbeatAge = Math.max(0, (now - mtimeMs) / 1000);
  const beat = typeof owner?.heartbeat_ms === 'number' && owner.heartbeat_ms > 0 ? owner.heartbeat_ms : HEARTBEAT_MS;
  const verdict = typeof owner?.pid === 'number' && typeof owner.host === 'string' ? holderVerdict(owner, currentIdentity()) : 'unknown';
  return {
    file,
    host: typeof owner?.host === 'string' ? owner.host : null,
    pid: typeof owner?.pid === 'number' ? owner.pid : null,
    started: typeof owner?.started === 'string' ? owner.started : null,
    heartbeatAge,
    live: verdict === 'alive' || (verdict === 'unknown' && heartbeatAge * 1000 <= STALE_BEATS * beat),
  };
}

/** Bytes read per chunk when counting a `.partial` CSV's lines: the file is never held whole. */
const COUNT_CHUNK_BYTES = 1 << 20;

/** Rounds written to a `.partial` CSV (whole lines after the header) and its age; null when there is none. */
function partialOf(file: string, now: number): { rounds: number; age: number } | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    const { mtimeMs, size } = fs.fstatSync(fd);
    const chunk = Buffer.allocUnsafe(COUNT_CHUNK_BYTES);
    let lines = 0;
    // The bytes present now: a run appending meanwhile does not keep the count going.
    for (let left = size; left > 0; ) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, left), null);
      if (n === 0) break;
      left -= n;
      for (let i = chunk.indexOf(10); i >= 0 && i < n; i = chunk.indexOf(10, i + 1)) lines++;
    }
    return { rounds: Math.max(0, lines - 1), age: Math.max(0, (now - mtimeMs) / 1000) };
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

interface Member {
  dir: string;
  shard: { index: number; count: number; first_unit: number } | null;
}

/** Counts the units of `dirs` (see the module comment). Throws RunError (exit 2) when a folder holds no experiment. */
export function collectStatus(dirs: readonly string[], now: number = Date.now()): StatusReport {
  if (dirs.length === 0) throw new RunError('no folder given', 2);
  // One experiment spread over shards: its folders under shard-<i>-of-<n> of one parent, by path inside the shard folder.
  const groups = new Map<string, { name: string; members: Member[] }>();
  for (const given of dirs) {
    if (!fs.existsSync(given) || !fs.statSync(given).isDirectory()) throw new RunError(`${given}: no such folder`, 2);
    const found = experimentFolders(given, 4);
    if (found.length === 0) throw new RunError(`${given}: no experiment folder (one holding ${MANIFEST_FILE}) in it or up to 4 levels below`, 2);
    for (const dir of found) {
      const shardDir = shardFolderOf(dir);
      const count = shardDir === null ? null : (SHARD_FOLDER.exec(path.basename(shardDir)) as RegExpExecArray)[2];
      const inner = shardDir === null ? '' : path.relative(shardDir, dir);
      // Where the experiment is under its run's --out: a shard's folder and the merged folder share it.
      const home = shardDir === null ? path.resolve(dir) : path.resolve(path.dirname(shardDir), inner);
      const manifest = readManifest(dir);
      const key = `${home}\u0000${JSON.stringify(manifest.config)}`;
      const name = shardDir === null ? dir : path.join(path.relative(process.cwd(), path.dirname(shardDir)) || '.', `shard-*-of-${count}`, inner);
      const group = groups.get(key) ?? { name, members: [] };
      if (group.members.some((m) => path.resolve(m.dir) === path.resolve(dir))) continue;
      const shard = manifest.shard ?? null;
      if (shard === null) group.name = dir;
      group.members.push({ dir, shard: shard === null ? null : { index: shard.index, count: shard.count, first_unit: shard.first_unit } });
      groups.set(key, group);
    }
  }
  const experiments = [...groups.values()].map((group) => experimentStatus(group.name, group.members, now));
  const sum = (f: (e: ExperimentStatus) => number): number => experiments.reduce((n, e) => n + f(e), 0);
  return {
    units: sum((e) => e.units),
    done: sum((e) => e.done),
    running: sum((e) => e.running.length),
    missing: sum((e) => e.missing),
    stale: sum((e) => e.stale.length),
    experiments,
  };
}

function experimentStatus(name: string, members: readonly Member[], now: number): ExperimentStatus {
  const first = members[0] as Member;
  const { config } = readManifest(first.dir);
  // The whole folder (a run without shards, or merged from them), and the shards.
  const whole = members.find((m) => m.shard === null) ?? null;
  const shards = members.filter((m) => m.shard !== null);
  const count = shards[0]?.shard?.count ?? null;
  const locks = new Map<string, LockStatus | null>();
  const lockOf = (dir: string): LockStatus | null => {
    const file = lockFile(path.dirname(path.resolve(dir)), path.basename(path.resolve(dir)));
    if (!locks.has(file)) locks.set(file, readLock(file, now));
    return locks.get(file) ?? null;
  };
  const status: ExperimentStatus = {
    name,
    horizon: config.horizon,
    units: config.policies.length * config.trials,
    done: 0,
    running: [],
    stale: [],
    missing: 0,
    shards: count === null ? null : { count, absent: [] },
    locks: [],
  };
  let j = 0;
  for (const policy of config.policies) {
    for (let trial = 0; trial < config.trials; trial++, j++) {
      if (whole !== null && readFinishedUnit(unitFiles(whole.dir, policy, trial), policy, trial, config.horizon, 'size') !== null) {
        status.done++;
        continue;
      }
      // The folder whose shard runs unit j (plan.ts: unit k runs on shard k mod n), else the whole folder.
      const owner = count === null ? whole : shards.find((m) => m.shard !== null && m.shard.index === (m.shard.first_unit + j) % count);
      if (owner === undefined || owner === null) {
        status.missing++;
        continue;
      }
      const files = unitFiles(owner.dir, policy, trial);
      if (owner !== whole && readFinishedUnit(files, policy, trial, config.horizon, 'size') !== null) {
        status.done++;
        continue;
      }
      const partial = partialOf(files.partial, now);
      const lock = lockOf(owner.dir);
      if (partial === null) {
        status.missing++;
        continue;
      }
      const unit: UnitStatus = { policy, trial, dir: owner.dir, rounds: partial.rounds, writtenAge: partial.age, lock: lock?.live === true ? lock : null };
      if (lock?.live === true) status.running.push(unit);
      else {
        status.stale.push(unit);
        status.missing++;
      }
    }
  }
  if (status.shards !== null && status.done < status.units) {
    const present = new Set(shards.map((m) => m.shard?.index));
    status.shards.absent = Array.from({ length: status.shards.count }, (_, i) => i).filter((i) => !present.has(i));
  }
  for (const member of members) {
    const lock = lockOf(member.dir);
    if (lock !== null) status.locks.push(lock);
  }
  return status;
}

const age = (seconds: number): string => `${formatDuration(seconds)} ago`;

function lockText(lock: LockStatus): string {
  const who = `${lock.host ?? '?'} pid ${lock.pid ?? '?'}`;
  return `${who}, heartbeat ${age(lock.heartbeatAge)}${lock.live ? '' : ' (stale: that run is gone)'}`;
}

/** The report as lines of text. */
export function formatStatus(report: StatusReport): string {
  const counts = (x: { units: number; done: number; missing: number }, running: number, stale: number): string =>
    `${x.done} of ${x.units} units done, ${running} running, ${x.missing} missing` + (stale > 0 ? ` (${stale} cut short by a run that is gone)` : '');
  const lines = [`eofd status: ${counts(report, report.running, report.stale)}`];
  for (const e of report.experiments) {
    lines.push(`${e.name}: ${counts(e, e.running.length, e.stale.length)}`);
    for (const u of e.running) {
      const written = u.writtenAge === null ? '' : `, written ${age(u.writtenAge)}`;
      lines.push(`  running: ${u.policy} trial ${u.trial}, ${u.rounds}/${e.horizon} rounds (${formatShort((100 * u.rounds) / e.horizon, 3)}%)${written}, on ${u.lock === null ? '?' : lockText(u.lock)}`);
    }
    for (const u of e.stale) {
      lines.push(`  cut short: ${u.policy} trial ${u.trial} at ${u.rounds}/${e.horizon} rounds, written ${age(u.writtenAge ?? 0)}; --resume redoes it`);
    }
    if (e.shards !== null && e.shards.absent.length > 0) {
      lines.push(`  not started: shard${e.shards.absent.length === 1 ? '' : 's'} ${e.shards.absent.join(', ')} of ${e.shards.count} (no folder)`);
    }
    for (const lock of e.locks) {
      if (!e.running.some((u) => u.lock?.file === lock.file)) lines.push(`  lock ${lock.file}: ${lockText(lock)}`);
    }
  }
  return lines.join('\n') + '\n';
}

export function statusCommand(dirs: readonly string[], options: { json?: boolean }, io: CliIo): number {
  try {
    const report = collectStatus(dirs);
    io.stdout.write(options.json === true ? JSON.stringify(report, null, 2) + '\n' : formatStatus(report));
    return EXIT.ok;
  } catch (caught) {
    return failureExitCode(caught, io, 'status');
  }
}

export function registerStatus(program: Command, io: CliIo = processIo()): void {
  program
    .command('status')
    .summary('count done / running / missing units of experiments, grids, sweeps and shards, with hosts and ages')
    .description(
      'Each <dir> is an experiment folder, a grid or sweep folder, a shard folder (<out>/shard-<i>-of-<n>) or a parent ' +
        'of these. A unit is done (its files are in place), running (its .partial CSV grows under a live lock: the host, ' +
        'pid and heartbeat age are shown) or missing (queued, failed, in a shard not started, or cut short by a run that ' +
        'is gone). The shards of one experiment count as one. Reads files only: safe while runs write.',
    )
    .argument('<dirs...>', 'result folders')
    .option('--json', 'print the counts as one JSON document')
    .addHelpText('after', '\nExample:\n  $ eofd status results\n  $ eofd status results/shard-*-of-8 --json\n\nExit codes: 0 counted; 2 a folder holds no experiment.')
    .action((dirs: string[], options: { json?: boolean }) => {
      process.exitCode = statusCommand(dirs, options, io);
    });
}
