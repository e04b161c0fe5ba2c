/**
 * `eofd status <dirs>... [--json] [--watch [seconds]]`: how far a run is, from its files alone, while it
 * runs or after; `--watch` reports again every so many seconds until nothing runs (no unit, no live lock).
 * Each <dir> is an experiment folder, a grid or sweep folder (its point folders), a shard's folder
 * (`<out>/shard-<i>-of-<n>`), a reproduction's folder (its reproduce.json: every stage, the units of the
 * run stages not started yet counted as missing, by StageRecord.units; found up to 2 levels below a
 * folder given) or a parent of any of these.
 * Every unit (policy × trial) is
 *   - done: its CSV and summary file are in place (sizes checked, not hashes: `eofd report` checks those);
 *   - running: its `.partial` CSV exists, or the run's progress record (results/progress-record.ts) lists
 *     it, and the experiment's lock (`<out>/.<name>.lock`) is live; its rounds are the larger of the CSV's
 *     rows and the record's count (the CSV is written in blocks), and the ETA is that of the live
 *     records (each process's freshest, less its age; the longest of several processes: shards);
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
import { readRecord, REPRODUCE_FILE, reproduceFolders, type StageName, type StageStatus } from '../../experiment/reproduce.js';
import { formatShort } from '../../report/format.js';
import { readProgressRecord, type ProgressRecord } from '../../results/progress-record.js';
import { lockFile, MANIFEST_FILE, unitFiles } from '../../results/layout.js';
import { readFinishedUnit, readManifest } from '../../results/read.js';
import { EXIT, failureExitCode, processIo, type CliIo } from '../io.js';
import { formatDuration, formatEta } from '../progress.js';

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
  /** Whether it has a checkpoint (`trial-<i>.checkpoint`): --resume continues it there rather than redoing it. */
  checkpointed: boolean;
}

export interface ExperimentStatus {
  /** The experiment as the user sees it: its folder, or `<parent>/shard-*-of-<n>/<path>` for one spread over shards. */
  name: string;
  /** Where it lives under its run's --out (absolute; a shard's folder and the merged one share it). */
  folder: string;
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
  /** Seconds left as its run's progress record estimated them, less the record's age (see Eta); null without a live record or before a rate. */
  eta: Eta | null;
}

/**
 * Seconds left: those of the run that plays now (`run`) and of what its command runs after it
 * (`later`: a reproduction's later stages; 0 none; null not known yet), from the freshest progress
 * record (results/progress-record.ts) of a process under a live lock, less the seconds since it was
 * written; of several processes (shards run side by side), the one that needs longest.
 */
export interface Eta {
  run: number;
  later: number | null;
  /** The process that wrote it. */
  host: string;
  pid: number;
  /** Seconds since the record was written. */
  age: number;
}

/** One stage of a reproduction (its reproduce.json and stage folders). */
export interface StageStatusLine {
  name: StageName;
  status: StageStatus;
  /** A run stage's units (from reproduce.json; else those found), done, running and missing (not started counted as missing); null for a report. */
  units: { units: number; done: number; running: number; missing: number } | null;
}

export interface ReproductionStatus {
  dir: string;
  stages: StageStatusLine[];
  /** Whether the reproduction's lock (`<parent>/.<out>.lock`) is live. */
  live: boolean;
}

export interface StatusReport {
  units: number;
  done: number;
  running: number;
  missing: number;
  stale: number;
  experiments: ExperimentStatus[];
  /** The reproductions among the folders (units of their stages not started are counted as missing). */
  reproductions: ReproductionStatus[];
  /** The live progress records' estimate (see Eta). */
  eta: Eta | null;
  /** Whether anything still runs: a unit, or a live lock of an experiment or reproduction. */
  active: boolean;
}

const SHARD_FOLDER = /^shard-(\d+)-of-(\d+)$/;

/**
 * Folders at or below `dir` holding `marker`, at most `depth` levels down, in name order; a folder
 * holding `stop` (and not `marker`) is not looked into.
 */
function foldersHolding(marker: string, dir: string, depth: number, stop?: string): string[] {
  if (fs.existsSync(path.join(dir, marker))) return [dir];
  if (depth === 0 || (stop !== undefined && fs.existsSync(path.join(dir, stop)))) return [];
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
    .flatMap((name) => foldersHolding(marker, path.join(dir, name), depth - 1, stop));
}

/** Experiment folders (holding manifest.json) at or below `dir`, at most `depth` levels down, in name order. */
const experimentFolders = (dir: string, depth: number): string[] => foldersHolding(MANIFEST_FILE, dir, depth);

/** Reproduction folders (holding reproduce.json) at or below `dir`, at most `depth` levels down, in name order. */
const reproductionFolders = (dir: string, depth: number): string[] => foldersHolding(REPRODUCE_FILE, dir, depth, MANIFEST_FILE);

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
  const groups = new Map<string, { name: string; home: string; members: Member[] }>();
  const reproductions: string[] = [];
  for (const given of dirs) {
    if (!fs.existsSync(given) || !fs.statSync(given).isDirectory()) throw new RunError(`${given}: no such folder`, 2);
    const inside = reproductionFolders(given, 2);
    reproductions.push(...inside);
    const found = experimentFolders(given, 4);
    if (found.length === 0 && inside.length === 0) throw new RunError(`${given}: no experiment folder (one holding ${MANIFEST_FILE}) in it or up to 4 levels below`, 2);
    for (const dir of found) {
      const shardDir = shardFolderOf(dir);
      const count = shardDir === null ? null : (SHARD_FOLDER.exec(path.basename(shardDir)) as RegExpExecArray)[2];
      const inner = shardDir === null ? '' : path.relative(shardDir, dir);
      // Where the experiment is under its run's --out: a shard's folder and the merged folder share it.
      const home = shardDir === null ? path.resolve(dir) : path.resolve(path.dirname(shardDir), inner);
      const manifest = readManifest(dir);
      const key = `${home}\u0000${JSON.stringify(manifest.config)}`;
      const name = shardDir === null ? dir : path.join(path.relative(process.cwd(), path.dirname(shardDir)) || '.', `shard-*-of-${count}`, inner);
      const group = groups.get(key) ?? { name, home, members: [] };
      if (group.members.some((m) => path.resolve(m.dir) === path.resolve(dir))) continue;
      const shard = manifest.shard ?? null;
      if (shard === null) group.name = dir;
      group.members.push({ dir, shard: shard === null ? null : { index: shard.index, count: shard.count, first_unit: shard.first_unit } });
      groups.set(key, group);
    }
  }
  const etas: Eta[] = [];
  const experiments = [...groups.values()].map((group) => experimentStatus(group.name, group.home, group.members, now, etas));
  const stages = reproductions.flatMap((dir) => reproductionStatus(dir, experiments, now));
  const sum = (f: (e: ExperimentStatus) => number): number => experiments.reduce((n, e) => n + f(e), 0);
  // Units of a reproduction's stages not started yet: counted as missing.
  const notStarted = stages.reduce((n, r) => n + r.notStarted, 0);
  // Each process's freshest estimate; the processes run side by side, so the one that needs longest.
  const byProcess = new Map<string, Eta>();
  for (const eta of etas) {
    const key = `${eta.host}\u0000${eta.pid}`;
    const seen = byProcess.get(key);
    if (seen === undefined || eta.age < seen.age) byProcess.set(key, eta);
  }
  const left = (eta: Eta): number => eta.run + (eta.later ?? 0);
  const longest = [...byProcess.values()].reduce<Eta | null>((a, b) => (a === null || left(b) > left(a) ? b : a), null);
  const running = sum((e) => e.running.length);
  return {
    units: sum((e) => e.units) + notStarted,
    done: sum((e) => e.done),
    running,
    missing: sum((e) => e.missing) + notStarted,
    stale: sum((e) => e.stale.length),
    experiments,
    reproductions: stages.map((r) => r.status),
    eta: longest,
    active: running > 0 || experiments.some((e) => e.locks.some((l) => l.live)) || stages.some((r) => r.status.live),
  };
}

/** Run stages of a reproduction and the folder each writes. */
const RUN_STAGE_DIRS = (out: string): Partial<Record<StageName, string>> => {
  const folders = reproduceFolders(out);
  return { tune: folders.tune, tuned: folders.tuned, 'paper-choice': folders.paperChoice };
};

/** A reproduction's stages from its reproduce.json and the experiments found in its stage folders; none when the record is not one. */
function reproductionStatus(out: string, experiments: readonly ExperimentStatus[], now: number): { status: ReproductionStatus; notStarted: number }[] {
  const record = readRecord(path.join(out, REPRODUCE_FILE));
  if (record === null) return [];
  const dirs = RUN_STAGE_DIRS(out);
  let notStarted = 0;
  const stages = record.stages.map((stage): StageStatusLine => {
    const dir = dirs[stage.name];
    if (dir === undefined) return { name: stage.name, status: stage.status, units: null };
    const inside = experiments.filter((e) => e.folder.startsWith(path.resolve(dir) + path.sep));
    const count = (f: (e: ExperimentStatus) => number): number => inside.reduce((n, e) => n + f(e), 0);
    const found = count((e) => e.units);
    const units = Math.max(found, stage.units ?? found);
    notStarted += units - found;
    return { name: stage.name, status: stage.status, units: { units, done: count((e) => e.done), running: count((e) => e.running.length), missing: count((e) => e.missing) + units - found } };
  });
  const resolved = path.resolve(out);
  const live = readLock(lockFile(path.dirname(resolved), path.basename(resolved)), now)?.live === true;
  return [{ status: { dir: out, stages, live }, notStarted }];
}

/** The status of one experiment (its folders `members`); the estimates of its live progress records are added to `etas`. */
function experimentStatus(name: string, folder: string, members: readonly Member[], now: number, etas: Eta[]): ExperimentStatus {
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
  // A progress record counts only when the live lock of its folder is held by the process that wrote it.
  const records = new Map<string, { record: ProgressRecord; age: number } | null>();
  const recordOf = (dir: string): { record: ProgressRecord; age: number } | null => {
    if (!records.has(dir)) {
      const record = readProgressRecord(dir);
      const lock = lockOf(dir);
      const live = record !== null && lock?.live === true && lock.pid === record.pid && lock.host === record.host;
      records.set(dir, live ? { record, age: Math.max(0, (now - record.written_ms) / 1000) } : null);
    }
    return records.get(dir) ?? null;
  };
  const status: ExperimentStatus = {
    name,
    folder,
    horizon: config.horizon,
    units: config.policies.length * config.trials,
    done: 0,
    running: [],
    stale: [],
    missing: 0,
    shards: count === null ? null : { count, absent: [] },
    locks: [],
    eta: null,
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
      // The rounds played as the run's progress record has them: its CSV rows are written in blocks and trail them.
      const record = recordOf(owner.dir);
      const played = record?.record.running.find((r) => r.policy === policy && r.trial === trial);
      if (partial === null && played === undefined) {
        status.missing++;
        continue;
      }
      const rounds = Math.max(partial?.rounds ?? 0, played?.rounds ?? 0);
      const writtenAge = Math.min(partial?.age ?? Infinity, played === undefined ? Infinity : (record as { age: number }).age);
      const unit: UnitStatus = { policy, trial, dir: owner.dir, rounds, writtenAge, lock: lock?.live === true ? lock : null, checkpointed: fs.existsSync(files.checkpoint) };
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
    const record = recordOf(member.dir);
    if (record?.record.eta == null) continue;
    const eta: Eta = { run: Math.max(0, record.record.eta.run - record.age), later: record.record.eta.later, age: record.age, host: record.record.host, pid: record.record.pid };
    etas.push(eta);
    if (status.eta === null || eta.age < status.eta.age) status.eta = eta;
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
  const eta = report.eta === null ? '' : `; ETA ${formatEta(report.eta.run, report.eta.later)} (estimated ${age(report.eta.age)})`;
  const lines = [`eofd status: ${counts(report, report.running, report.stale)}${eta}`];
  for (const r of report.reproductions) {
    const current = r.stages.findIndex((s) => s.status === 'running');
    const where = current < 0 ? (r.live ? 'running' : 'not running') : `stage ${current + 1} of ${r.stages.length} (${r.stages[current]?.name}) running`;
    lines.push(`reproduction ${r.dir}: ${where}`);
    r.stages.forEach((stage, i) => {
      const units = stage.units === null ? '' : `, ${counts(stage.units, stage.units.running, 0)}`;
      lines.push(`  [${i + 1}/${r.stages.length}] ${stage.name}: ${stage.status}${units}`);
    });
  }
  for (const e of report.experiments) {
    lines.push(`${e.name}: ${counts(e, e.running.length, e.stale.length)}`);
    for (const u of e.running) {
      const written = u.writtenAge === null ? '' : `, written ${age(u.writtenAge)}`;
      lines.push(`  running: ${u.policy} trial ${u.trial}, ${u.rounds}/${e.horizon} rounds (${formatShort((100 * u.rounds) / e.horizon, 3)}%)${written}, on ${u.lock === null ? '?' : lockText(u.lock)}`);
    }
    for (const u of e.stale) {
      const resume = u.checkpointed ? '--resume continues it from its checkpoint' : '--resume redoes it';
      lines.push(`  cut short: ${u.policy} trial ${u.trial} at ${u.rounds}/${e.horizon} rounds, written ${age(u.writtenAge ?? 0)}; ${resume}`);
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

/** `--watch`'s seconds between two reports when none is given. */
export const WATCH_SECONDS = 10;

export interface StatusOptions {
  json?: boolean;
  /** Report again every so many seconds until nothing runs (true: WATCH_SECONDS). */
  watch?: boolean | string;
}

/** `--watch [seconds]` as seconds, or null without it; a RunError (exit 2) for a bad value. */
function watchSeconds(watch: StatusOptions['watch']): number | null {
  if (watch === undefined || watch === false) return null;
  if (watch === true) return WATCH_SECONDS;
  const seconds = Number(watch);
  if (!Number.isFinite(seconds) || seconds < 0.1 || seconds > 86_400) throw new RunError(`--watch: expected seconds from 0.1 to 86400, got ${JSON.stringify(watch)}`, 2);
  return seconds;
}

/** Clears a terminal and puts the cursor at its top left. */
const CLEAR_SCREEN = '\x1b[H\x1b[2J';

export async function statusCommand(dirs: readonly string[], options: StatusOptions, io: CliIo, sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms))): Promise<number> {
  try {
    const every = watchSeconds(options.watch);
    for (let first = true; ; first = false) {
      const report = collectStatus(dirs);
      const text = options.json === true ? JSON.stringify(report, null, 2) + '\n' : formatStatus(report);
      // A terminal is redrawn; a pipe or a log gets each report after a time stamp.
      if (every === null) io.stdout.write(text);
      else if (io.stdout.isTTY === true) io.stdout.write(CLEAR_SCREEN + text);
      else io.stdout.write(`${first ? '' : '\n'}# ${new Date().toISOString()}\n${text}`);
      if (every === null || !report.active) return EXIT.ok;
      await sleep(every * 1000);
    }
  } catch (caught) {
    return failureExitCode(caught, io, 'status');
  }
}

export function registerStatus(program: Command, io: CliIo = processIo()): void {
  program
    .command('status')
    .summary('count done / running / missing units of experiments, grids, sweeps, shards and reproductions, with an ETA')
    .description(
      'Each <dir> is an experiment folder, a grid or sweep folder, a shard folder (<out>/shard-<i>-of-<n>), a reproduction ' +
        "(its --out: reproduce.json, each stage's units, those of stages not started counted as missing) or a parent " +
        'of these. A unit is done (its files are in place), running (its .partial CSV or its run\'s progress record, under a ' +
        'live lock: the host, pid and heartbeat age are shown) or missing (queued, failed, in a shard not started, or cut ' +
        "short by a run that is gone). The shards of one experiment count as one. Rounds and the ETA come from the progress " +
        'record a running eofd writes beside its lock (<out>/.<name>.progress.json, about every second): the rounds its ' +
        'units played (the CSVs are written in blocks and trail them) and its own ETA, from the round rates it measured ' +
        '(docs/guide.md, "Progress and output", the ETA rule), less the record\'s age. Reads files only: safe while runs write.',
    )
    .argument('<dirs...>', 'result folders')
    .option('--json', 'print the counts as one JSON document')
    .option('--watch [seconds]', `report again every so many seconds (default ${WATCH_SECONDS}) until nothing runs: no unit, no live lock`)
    .addHelpText(
      'after',
      '\nExample:\n  $ eofd status results\n  $ eofd status results/paper --watch 30\n  $ eofd status results/shard-*-of-8 --json\n\n' +
        'Exit codes: 0 counted; 2 a folder holds no experiment, or a bad --watch.',
    )
    .action(async (dirs: string[], options: StatusOptions) => {
      process.exitCode = await statusCommand(dirs, options, io);
    });
}
