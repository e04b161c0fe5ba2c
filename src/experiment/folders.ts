/**
 * The experiment folders of a run, before any unit starts: the output folder can be written, each
 * experiment's lock is taken (lock.ts), and an existing `<out>/<name>` is refused unless resumed (its
 * manifest's config must match) or forced (deleted, once every config resolved without error).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeFsError, errnoCode, RunError } from '../base/errors.js';
import { BEST_FILE, GRID_FILE, MANIFEST_FILE, SWEEP_FILE, SWEEP_SHARD_FILE, unitFiles, type UnitFiles } from '../results/layout.js';
import { readFinishedUnit, readManifest, ResultsError } from '../results/read.js';
import { clearUnit, isLeftover, removeLeftovers, writeJsonAtomic } from '../results/write.js';
import type { Manifest, ManifestRead } from '../results/manifest.js';
import { changedInput } from '../environments/input-files.js';
import { acquireLock, LockedError, type Lock } from './lock.js';
import { configDifference, manifestConfig } from './manifest.js';
import type { Shard, UnitRef } from './plan.js';
import type { ResolvedExperiment } from './setup.js';
import { makeFolders } from '../base/files.js';

/** What to do with an experiment folder. */
export type FolderState = 'fresh' | 'resume' | 'replace';

/** The first existing path on the way to `target` that is not a folder, if any. */
function fileInTheWay(target: string): string | null {
  let current = path.resolve(target);
  const chain: string[] = [];
  for (;;) {
    chain.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const p of chain) {
    let stat: fs.Stats;
    try {
      stat = fs.statSync(p);
    } catch {
      return null;
    }
    if (!stat.isDirectory()) return p;
  }
  return null;
}

/** Creates `folder` (and parents), or throws a one-line RunError saying why it cannot be written. */
export function makeFolder(folder: string, what: string): void {
  try {
    makeFolders(folder);
    if (!fs.statSync(folder).isDirectory()) throw Object.assign(new Error('not a folder'), { code: 'ENOTDIR' });
  } catch (error) {
    const blocker = fileInTheWay(folder);
    if (blocker !== null) {
      throw new RunError(`cannot write ${what} ${folder}: ${path.relative(process.cwd(), blocker) || blocker} is a file, not a folder`);
    }
    throw new RunError(`cannot write ${what} ${folder}: ${describeFsError(error)}`);
  }
}

/** Takes the lock of `dir` (`lockPath`); a live holder or an unwritable folder is a RunError. */
export function lockFolder(lockPath: string, dir: string, out: string): Lock {
  try {
    return acquireLock(lockPath);
  } catch (error) {
    if (error instanceof LockedError) throw new RunError(`${dir}: ${error.message}`);
    throw new RunError(`cannot write to the output folder ${out}: ${describeFsError(error)}`);
  }
}

/** `dir`'s own status (a link not followed), or null when nothing is there; any other failure is a RunError. */
function lstatOrNull(dir: string): fs.Stats | null {
  try {
    return fs.lstatSync(dir);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw new RunError(`cannot read ${dir}: ${describeFsError(error)}`);
  }
}

/**
 * What to do with `dir`: refuse (throws), start fresh, resume, or replace. A refusal says whether the
 * folder holds this config (then --resume finishes it) or another one (then --name gives this run its
 * own folder), comparing `resolved` with the folder's manifest.
 */
export function inspectFolder(dir: string, options: { resume?: boolean; force?: boolean }, resolved?: ResolvedExperiment): FolderState {
  const stat = lstatOrNull(dir);
  if (stat === null) return 'fresh';
  if (stat.isSymbolicLink()) throw new RunError(`cannot write the experiment folder ${dir}: it is a symbolic link; give --out a real folder`, 2);
  if (!stat.isDirectory()) throw new RunError(`cannot write the experiment folder ${dir}: it is a file, not a folder`, 2);
  // Empty, or holding only a killed writer's leftovers: a run killed before its manifest.json landed
  // (prepareFolder writes it first, so no unit had started) begins afresh.
  const entries = fs.readdirSync(dir);
  if (entries.every(isLeftover)) {
    removeLeftovers(dir);
    return 'fresh';
  }
  if (options.force) {
    // --force replaces only what eofd wrote: a folder with a manifest.
    if (!isResultsFolder(dir)) throw new RunError(`${dir} holds files but no ${MANIFEST_FILE}: eofd did not write it, so --force will not delete it; move it away or pick another --out`, 2);
    return 'replace';
  }
  if (options.resume) return 'resume';
  const difference = resolved === undefined ? null : differenceFromFolder(dir, resolved);
  if (difference === null) {
    throw new RunError(`${dir} already holds results; add --resume to finish that run, or --force to delete it and start over`, 2);
  }
  const name = resolved?.config.name ?? path.basename(dir);
  throw new RunError(
    `${dir} holds a run of another config (${difference}); give this one its own folder with --name ${variantName(name, difference)} ` +
      `(or another --out), or --force to delete that run`,
    2,
  );
}

/** Where the folder's recorded config differs from `resolved` (`field: old vs new`); null when equal or unreadable. */
function differenceFromFolder(dir: string, resolved: ResolvedExperiment): string | null {
  let previous: ManifestRead;
  try {
    previous = readManifest(dir);
  } catch {
    return null;
  }
  return configDifference(previous.config, JSON.parse(JSON.stringify(manifestConfig(resolved))));
}

/** A folder name for a variant: `mnist` and `horizon: 2000 vs 500` → `mnist-horizon-500`. */
export function variantName(name: string, difference: string): string {
  const match = /^(?:.*\.)?([^.:]+): .* vs (.*)$/.exec(difference);
  const word = (text: string): string => text.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  const suffix = match === null ? '' : [word(match[1] as string), word(match[2] as string)].filter((w) => w !== '').join('-');
  return suffix === '' || suffix.length > 40 ? `${name}-2` : `${name}-${suffix}`;
}

/** Whether eofd wrote `dir` as a grid's or sweep's folder: its outputs, its shard record, or a point folder. */
export function isSweepFolder(dir: string): boolean {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  return entries.some(
    (e) => (e.isFile() && [GRID_FILE, SWEEP_FILE, SWEEP_SHARD_FILE, BEST_FILE].includes(e.name)) || (e.isDirectory() && e.name.includes('=') && isResultsFolder(path.join(dir, e.name))),
  );
}

/**
 * The one rule for replacing `<out>/<folder>` (merge; run and --force sweeps follow it through
 * inspectFolder and clearSweepOutputs): 'fresh' when missing or empty, 'occupied' when eofd wrote it
 * as a folder of `kind` (the caller replaces it only with --force, under its lock); anything else —
 * a symbolic link, a file, a folder eofd did not write or wrote as another kind — is refused (exit 2).
 */
export function checkReplaceable(dir: string, kind: 'experiment' | 'sweep'): 'fresh' | 'occupied' {
  const stat = lstatOrNull(dir);
  if (stat === null) return 'fresh';
  if (stat.isSymbolicLink()) throw new RunError(`${dir}: is a symbolic link; eofd never writes or deletes through one; give --out a real folder`, 2);
  if (!stat.isDirectory()) throw new RunError(`${dir}: is a file, not a folder`, 2);
  if (fs.readdirSync(dir).length === 0) return 'fresh';
  const owned = kind === 'experiment' ? isResultsFolder(dir) : isSweepFolder(dir) && !isResultsFolder(dir);
  if (!owned) {
    const what = kind === 'experiment' ? `no ${MANIFEST_FILE}` : 'no grid or sweep eofd wrote';
    throw new RunError(`${dir} holds files but ${what}: eofd did not write it, so it will not be replaced or deleted; move it away or pick another --out`, 2);
  }
  return 'occupied';
}

/** Whether eofd wrote `dir` (it holds a manifest.json file). */
export function isResultsFolder(dir: string): boolean {
  try {
    return fs.lstatSync(path.join(dir, MANIFEST_FILE)).isFile();
  } catch {
    return false;
  }
}

/** On --resume: the earlier run's config must be this run's, field for field, and the same shard. */
export function checkResumable(dir: string, resolved: ResolvedExperiment, shard: Shard | undefined): void {
  let previous: ManifestRead;
  try {
    previous = readManifest(dir);
  } catch (error) {
    const why = error instanceof ResultsError ? ` (${error.message})` : '';
    throw new RunError(`cannot resume ${dir}: it has no readable manifest.json${why}; use --force to replace it`, 2);
  }
  const config = manifestConfig(resolved);
  const changed = changedInput(previous.config.environment.inputs ?? [], config.environment.inputs ?? []);
  if (changed !== null) {
    throw new RunError(`cannot resume ${dir}: its input file ${changed}; restore that file, or use --force to start over`, 2);
  }
  const current: unknown = JSON.parse(JSON.stringify(config));
  const difference = configDifference(previous.config, current);
  if (difference !== null) {
    throw new RunError(
      `cannot resume ${dir}: its config differs from this one at ${difference}; rerun with the same config and --set values, or use --force to start over`,
      2,
    );
  }
  const was = previous.shard === undefined ? 'unsharded' : `shard ${previous.shard.index}/${previous.shard.count}`;
  const now = shard === undefined ? 'unsharded' : `shard ${shard.index}/${shard.count}`;
  if (was !== now) throw new RunError(`cannot resume ${dir}: it holds a ${was} run, this is ${now}; use the same --shard, or --force to start over`, 2);
}

/** Whether every unit's per-round CSV (each label × trial) is in the experiment folder `dir`. */
export function unitCsvsHere(dir: string, labels: readonly string[], trials: number): boolean {
  return labels.every((label) => Array.from({ length: trials }, (_, trial) => fs.existsSync(unitFiles(dir, label, trial).csv)).every(Boolean));
}

/** Readies `dir` for the run: deleted when replaced; created with its manifest unless resumed. */
export function prepareFolder(dir: string, state: FolderState, manifest: () => Manifest): void {
  if (state === 'replace') fs.rmSync(dir, { recursive: true, force: true });
  if (state === 'resume') return;
  makeFolder(dir, 'the experiment folder');
  const file = path.join(dir, MANIFEST_FILE);
  try {
    writeJsonAtomic(file, manifest());
  } catch (error) {
    throw new RunError(`cannot write ${file}: ${describeFsError(error)}`);
  }
}

/**
 * Splits an experiment's units into those an earlier run finished (kept, only on resume) and those
 * to run (their leftovers removed).
 */
export function sortUnits(dir: string, units: readonly UnitRef[], state: FolderState): { finished: UnitRef[]; pending: UnitRef[] } {
  try {
    return sortUnitFiles(dir, units, state);
  } catch (error) {
    if (error instanceof RunError) throw error;
    throw new RunError(`cannot prepare the unit files in ${dir}: ${describeFsError(error)} (${(error as { path?: string }).path ?? dir})`);
  }
}

function sortUnitFiles(dir: string, units: readonly UnitRef[], state: FolderState): { finished: UnitRef[]; pending: UnitRef[] } {
  const finished: UnitRef[] = [];
  const pending: UnitRef[] = [];
  // On resume, a unit with a checkpoint keeps it and its partial CSV: it continues there (unit.ts).
  const checkpointed = (files: UnitFiles): boolean => state === 'resume' && fs.existsSync(files.checkpoint) && fs.existsSync(files.partial);
  removeLeftovers(dir);
  for (const policy of new Set(units.map((u) => u.policy))) {
    const kept = units.filter((u) => u.policy === policy).map((u) => unitFiles(dir, u.policy, u.trial)).filter(checkpointed);
    removeLeftovers(path.join(dir, policy), new Set(kept.map((files) => path.basename(files.partial))));
  }
  for (const unit of units) {
    const files = unitFiles(dir, unit.policy, unit.trial);
    if (state === 'resume' && readFinishedUnit(files, unit.policy, unit.trial, unit.horizon) !== null) {
      finished.push(unit);
    } else {
      if (!checkpointed(files)) clearUnit(files);
      pending.push(unit);
    }
  }
  return { finished, pending };
}
