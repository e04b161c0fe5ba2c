/**
 * `eofd merge`: combines the folders of `--shard i/n` runs (shard.ts) into the folder one machine would
 * have written. Each input is a shard's output folder (`<out>/shard-<i>-of-<n>`: experiment folders
 * `<name>/`, grid folders `<name>-grid/` and sweep folders `<name>-sweep/`), or one experiment folder.
 *
 * Everything is checked before anything is written: every input holds the same experiments and grids;
 * their manifests have the same resolved config (and seed split, package version, git commit when both
 * are known); each (policy, trial) is finished in exactly one input. Then per experiment the unit files
 * are copied, summary.csv is regenerated in the canonical order (policies as configured, trials
 * ascending) and manifest.json is rewritten without `shard` (provenance: the lowest shard's, the
 * earliest `started`, every shard's timing runs). Grids get grid.csv, heatmaps and best.json regenerated,
 * sweeps sweep.csv and their figures. Each result folder is built beside its place and swapped in
 * (results/write.ts replaceFolder) under its lock, replacing only a folder eofd wrote (folders.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeFsError, RunError } from '../base/errors.js';
import type { SweepShardFile } from '../results/sweep.js';
import { lockFile, MANIFEST_FILE, SUMMARY_FILE, SWEEP_SHARD_FILE, unitFiles } from '../results/layout.js';
import type { ManifestRead } from '../results/manifest.js';
import { readFinishedUnit, readManifest, readSweepShard, ResultsError } from '../results/read.js';
import type { UnitSummaryFile } from '../results/unit.js';
import { removeReplaceLeftovers, replaceFolder, summaryCsv, writeFileAtomic, writeJsonAtomic } from '../results/write.js';
import { finishGrid } from './grid.js';
import { derivedPerLabel, finishSweep, labelsAt, sweepPoints, type PointInfo, type SweepPoint } from './sweep.js';
import { configDifference } from './manifest.js';
import { isExperimentName } from '../config/schema.js';
import { checkReplaceable, lockFolder, makeFolder } from './folders.js';
import type { Lock } from './lock.js';

export interface MergeOptions {
  /** Parent folder of the merged experiment and grid folders. */
  out: string;
  /** Replace existing result folders under `out`. */
  force?: boolean;
}

export interface MergedFolder {
  name: string;
  dir: string;
  kind: 'experiment' | 'grid' | 'sweep';
  /** Units copied. */
  units: number;
  /** Input folders merged. */
  shards: number;
}

export interface MergeResult {
  folders: MergedFolder[];
}

function refuse(message: string): never {
  throw new RunError(message, 2);
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** A results file read through results/read.ts; its defects are refusals (exit 2). */
function readChecked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (error instanceof ResultsError) refuse(error.message);
    throw error;
  }
}

interface InputFolders {
  input: string;
  experiments: Map<string, string>;
  grids: Map<string, string>;
}

/**
 * A folder name taken from an input (a manifest's `name`, a folder's name) must be a legal experiment
 * name, so that the merged folder lands directly inside --out: a crafted manifest naming `..` or
 * `a/../../b` is refused, never followed.
 */
function checkedName(name: unknown, source: string): string {
  if (!isExperimentName(name)) refuse(`${source}: name ${JSON.stringify(name)} is not a legal experiment name (letters, digits, '.', '_', '-'; not '.' or '..'); not a folder eofd wrote`);
  return name;
}

/** `<name>-grid` or `<name>-sweep` of a legal experiment name (experiment names cannot end so). */
function isGridFolderName(name: string): boolean {
  const match = /^(.*)-(grid|sweep)$/.exec(name);
  return match !== null && isExperimentName(match[1]);
}

/** The experiment and grid folders of one input. */
function scanInput(input: string): InputFolders {
  if (!isDir(input)) refuse(`${input}: not a folder`);
  const found: InputFolders = { input, experiments: new Map(), grids: new Map() };
  if (fs.existsSync(path.join(input, MANIFEST_FILE))) {
    found.experiments.set(checkedName(readChecked(() => readManifest(input)).name, path.join(input, MANIFEST_FILE)), input);
    return found;
  }
  for (const name of fs.readdirSync(input).sort()) {
    const sub = path.join(input, name);
    // Names starting with '.' are legal experiment names; lock files (`.<name>.lock`) are not folders.
    if (!isDir(sub)) continue;
    if (isExperimentName(name) && fs.existsSync(path.join(sub, MANIFEST_FILE))) found.experiments.set(name, sub);
    else if (isGridFolderName(name) && fs.existsSync(path.join(sub, SWEEP_SHARD_FILE))) found.grids.set(name, sub);
  }
  if (found.experiments.size === 0 && found.grids.size === 0) {
    refuse(`${input}: holds no shard output (no <name>/manifest.json and no <name>-grid/ or <name>-sweep/ with ${SWEEP_SHARD_FILE}); give the folders that --shard runs wrote`);
  }
  return found;
}

/** Every input holds the same names (of experiments, or of grids). */
function sameNames(inputs: readonly InputFolders[], pick: (f: InputFolders) => Map<string, string>, what: string): string[] {
  const first = inputs[0] as InputFolders;
  const names = [...pick(first).keys()];
  for (const other of inputs.slice(1)) {
    for (const name of names) if (!pick(other).has(name)) refuse(`${other.input}: has no ${what} ${name} (${first.input} has); every shard of a run holds every ${what}`);
    for (const name of pick(other).keys()) if (!pick(first).has(name)) refuse(`${first.input}: has no ${what} ${name} (${other.input} has); every shard of a run holds every ${what}`);
  }
  return names;
}

interface PlannedUnit {
  policy: string;
  trial: number;
  from: string;
  unit: UnitSummaryFile;
}

interface ExperimentPlan {
  /** The folder's name: the experiment's, or a sweep point's (never read from an input's manifest). */
  name: string;
  manifest: ManifestRead;
  units: PlannedUnit[];
}

/** Checks one experiment's folders (one per input) and lists where each unit comes from. */
function planExperiment(label: string, dirs: readonly string[]): ExperimentPlan {
  const manifests = dirs.map((dir) => {
    const m = readChecked(() => readManifest(dir));
    if (m.seeds === undefined) refuse(`${path.join(dir, MANIFEST_FILE)}: seeds: missing (not a manifest written by eofd run)`);
    return m;
  });
  const first = manifests[0] as ManifestRead;
  const firstFile = path.join(dirs[0] as string, MANIFEST_FILE);
  manifests.forEach((m, i) => {
    if (i === 0) return;
    const file = path.join(dirs[i] as string, MANIFEST_FILE);
    const difference = configDifference(first.config, m.config);
    if (difference !== null) refuse(`${label}: ${file} and ${firstFile} have different resolved configs (at ${difference}); only shards of one run can be merged`);
    if (m.seeds?.split !== first.seeds?.split) refuse(`${label}: ${file} and ${firstFile} use different seed splits (${m.seeds?.split} vs ${first.seeds?.split})`);
    const version = (x: ManifestRead): unknown => (x.package as { version?: unknown } | undefined)?.version;
    if (version(m) !== version(first)) {
      refuse(`${label}: ${file} and ${firstFile} come from different eofd versions (${String(version(m))} vs ${String(version(first))})`);
    }
    if (typeof m.git === 'string' && typeof first.git === 'string' && m.git !== first.git) {
      refuse(`${label}: ${file} and ${firstFile} come from different git commits (${m.git.slice(0, 12)} vs ${first.git.slice(0, 12)})`);
    }
  });
  const { policies, trials, horizon } = first.config;
  const units: PlannedUnit[] = [];
  let j = 0;
  for (const policy of policies) {
    for (let trial = 0; trial < trials; trial++, j++) {
      const holders: PlannedUnit[] = [];
      dirs.forEach((dir) => {
        const unit = readFinishedUnit(unitFiles(dir, policy, trial), policy, trial, horizon);
        if (unit !== null) holders.push({ policy, trial, from: dir, unit });
      });
      if (holders.length === 0) {
        const shard = first.shard;
        const expected = shard === undefined ? '' : `, expected from shard ${(shard.first_unit + j) % shard.count}/${shard.count}`;
        refuse(`${label}: ${policy} trial ${trial} is missing (finished in none of the ${dirs.length} inputs${expected}); rerun that shard with --resume, then merge again`);
      }
      if (holders.length > 1) refuse(`${label}: ${policy} trial ${trial} is duplicated (finished in ${holders.map((h) => h.from).join(' and ')}); give each shard once`);
      units.push(holders[0] as PlannedUnit);
    }
  }
  // Provenance from the lowest shard; the earliest start.
  const order = manifests.map((m, i) => ({ m, i })).sort((a, b) => (a.m.shard?.index ?? 0) - (b.m.shard?.index ?? 0) || a.i - b.i);
  const manifest = JSON.parse(JSON.stringify((order[0] as { m: ManifestRead }).m)) as ManifestRead;
  delete manifest.shard;
  const starts = manifests.map((m) => m.started).filter((s): s is string => typeof s === 'string').sort();
  if (starts.length > 0) manifest.started = starts[0] as string;
  // Every shard's runs timed units of this experiment.
  const runs = order.flatMap(({ m }) => m.timing?.runs ?? []);
  if (runs.length > 0) manifest.timing = { ...manifest.timing, runs };
  return { name: label, manifest, units };
}

/** Writes a planned experiment into `dir` (which must not exist yet). */
function writeExperiment(dir: string, plan: ExperimentPlan): void {
  fs.mkdirSync(dir, { recursive: true });
  for (const { policy, trial, from } of plan.units) {
    const source = unitFiles(from, policy, trial);
    const target = unitFiles(dir, policy, trial);
    fs.mkdirSync(target.folder, { recursive: true });
    fs.copyFileSync(source.summary, target.summary);
    fs.copyFileSync(source.csv, target.csv);
  }
  writeJsonAtomic(path.join(dir, MANIFEST_FILE), plan.manifest);
  writeFileAtomic(path.join(dir, SUMMARY_FILE), summaryCsv(plan.units.map((u) => u.unit)));
}

interface SweepPlan {
  name: string;
  info: SweepShardFile;
  variants: ExperimentPlan[];
}

/** Checks one grid's or sweep's folders (one per input) and plans each point like an experiment. */
function planSweep(name: string, dirs: readonly string[]): SweepPlan {
  const infos = dirs.map((dir) => readChecked(() => readSweepShard(path.join(dir, SWEEP_SHARD_FILE))) as SweepShardFile);
  const info = infos[0] as SweepShardFile;
  const key = (g: SweepShardFile): unknown => ({ kind: g.kind, experiment: g.experiment, trials: g.trials, policies: g.policies, axes: g.axes, reference: g.reference });
  infos.forEach((g, i) => {
    const difference = configDifference(key(info), key(g));
    if (difference !== null) {
      refuse(`${name}: ${path.join(dirs[i] as string, SWEEP_SHARD_FILE)} and ${path.join(dirs[0] as string, SWEEP_SHARD_FILE)} describe different ${info.kind}s (at ${difference})`);
    }
  });
  const readers = shardReaders(info);
  const variants = sweepPoints(info.axes).filter((point) => labelsAt(info.axes, readers, point).length > 0).map((point) => {
    const variantDirs = dirs.map((dir) => path.join(dir, point.name));
    for (const d of variantDirs) if (!fs.existsSync(path.join(d, MANIFEST_FILE))) refuse(`${d}: missing (no manifest.json); every shard of a ${info.kind} holds every point`);
    const plan = planExperiment(`${name}/${point.name}`, variantDirs);
    if (plan.manifest.name !== point.name) refuse(`${path.join(variantDirs[0] as string, MANIFEST_FILE)}: name ${JSON.stringify(plan.manifest.name)} is not the point's (${point.name})`);
    return { ...plan, name: point.name };
  });
  return { name, info, variants };
}

/** Per label, the swept keys it reads, as the shard record states them (older records: every key). */
function shardReaders(info: SweepShardFile): Record<string, string[]> {
  return info.readers ?? Object.fromEntries(info.policies.map((label) => [label, info.axes.map((a) => a.key)]));
}

/** Rebuilds a merged grid's or sweep's outputs from its copied points. */
function finishMerged(staging: string, plan: SweepPlan): void {
  const byName = new Map(plan.variants.map((v) => [v.name, v.manifest]));
  const pointInfo = (point: SweepPoint): PointInfo | null => {
    const m = byName.get(point.name);
    if (m === undefined) return null;
    return { derived: derivedPerLabel(m.derived as Parameters<typeof derivedPerLabel>[0]), policies: m.config.policies, trials: m.config.trials, horizon: m.config.horizon };
  };
  const { info } = plan;
  const readers = shardReaders(info);
  const done =
    info.kind === 'grid'
      ? finishGrid(staging, { name: info.experiment, trials: info.trials }, readers, info.axes, pointInfo)
      : finishSweep(staging, info.experiment, info.axes, readers, info.reference ?? (info.policies[0] as string), pointInfo);
  if (done === null) throw new RunError(`${plan.name}: a point could not be read back after copying`);
}

/** Whether `inner` is `outer` or inside it. */
function within(inner: string, outer: string): boolean {
  const rel = path.relative(path.resolve(outer), path.resolve(inner));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Merges shard folders; see the module comment. Throws a one-line RunError (2: refused, 1: cannot write). */
export function mergeShards(inputs: readonly string[], options: MergeOptions): MergeResult {
  if (inputs.length === 0) refuse('give at least one shard folder');
  if (options.out.trim() === '') refuse('--out: expected a folder, got an empty string');
  const resolved = inputs.map((i) => path.resolve(i));
  const twice = resolved.find((r, i) => resolved.indexOf(r) !== i);
  if (twice !== undefined) refuse(`${twice} is given twice`);
  const scanned = inputs.map(scanInput);
  const experimentNames = sameNames(scanned, (f) => f.experiments, 'experiment folder');
  const gridNames = sameNames(scanned, (f) => f.grids, 'grid folder');

  const experiments = experimentNames.map((name) => planExperiment(name, scanned.map((f) => f.experiments.get(name) as string)));
  const grids = gridNames.map((name) => planSweep(name, scanned.map((f) => f.grids.get(name) as string)));

  const targets = [...experimentNames, ...gridNames].map((name) => path.join(options.out, name));
  for (const target of targets) {
    // Defence in depth: every name was checked, so each target is a child of --out.
    if (path.dirname(path.resolve(target)) !== path.resolve(options.out)) refuse(`${target}: not directly inside --out ${options.out}`);
    for (const input of inputs) {
      if (within(input, target) || within(target, input)) refuse(`--out ${options.out}: ${target} would overlap the input ${input}; merge into another folder`);
    }
  }

  makeFolder(options.out, 'the output folder');
  // The one rule (folders.ts): `<out>/<folder>` is replaced only under its lock, only when eofd wrote it
  // (of the same kind), never through a symbolic link; leftovers of a killed merge are cleaned first.
  const locks: Lock[] = [];
  try {
    const kinds = new Map<string, 'experiment' | 'sweep'>([...experimentNames.map((n) => [n, 'experiment'] as const), ...gridNames.map((n) => [n, 'sweep'] as const)]);
    for (const [name, kind] of kinds) {
      const target = path.join(options.out, name);
      locks.push(lockFolder(lockFile(options.out, name), target, options.out));
      removeReplaceLeftovers(target, true);
      if (checkReplaceable(target, kind) === 'occupied' && options.force !== true) refuse(`${target} already holds results; add --force to replace it`);
    }
    const folders: MergedFolder[] = [];
    const install = (target: string, build: (dir: string) => void): void => {
      try {
        replaceFolder(target, build, { word: 'merging', held: true });
      } catch (error) {
        if (error instanceof RunError) throw error;
        throw new RunError(`cannot write ${target}: ${describeFsError(error)}`);
      }
    };
    for (const plan of experiments) {
      const dir = path.join(options.out, plan.name);
      install(dir, (staging) => writeExperiment(staging, plan));
      folders.push({ name: plan.name, dir, kind: 'experiment', units: plan.units.length, shards: inputs.length });
    }
    for (const plan of grids) {
      const dir = path.join(options.out, plan.name);
      install(dir, (staging) => {
        fs.mkdirSync(staging, { recursive: true });
        for (const variant of plan.variants) writeExperiment(path.join(staging, variant.name), variant);
        finishMerged(staging, plan);
      });
      folders.push({ name: plan.name, dir, kind: plan.info.kind, units: plan.variants.reduce((n, v) => n + v.units.length, 0), shards: inputs.length });
    }
    return { folders };
  } finally {
    for (const lock of locks) lock.release();
  }
}
