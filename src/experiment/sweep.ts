/**
 * Sweeps: an experiment run at every point of a cartesian product of config values
 * (`params.m=8,20,78`, `params.l=-0.5,0,0.75`, `environment.normalize=global,per-image`, …). Every
 * point is an ordinary run of a variant of the config (config/load.ts `reconfigure`: validated and
 * resolved as a file would be) in `<dir>/<label=value,…>/`, by the ordinary runner (resumable,
 * shardable, --jobs-parallel). Every point keeps the base experiment's seed name, so all points play
 * the same instances with the same outcome uniforms: differences between points, and between policies
 * within a point, are paired. `eofd grid` is the (l, e) sweep on validation seeds (grid.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { RunError } from '../base/errors.js';
import { reconfigure, setField } from '../config/load.js';
import { configKeyProblem } from '../config/overrides.js';
import { CONFIG_PARAM_KEYS, policyLabels, type ExperimentConfig, type PolicyEntry } from '../config/schema.js';
import { entryReadsParam } from '../config/policy-entries.js';
import { renderSweepFigure } from '../report/sweep-figure.js';
import { BEST_FILE, GRID_FILE, lockFile, splitTopLevel, SWEEP_FILE, SWEEP_SHARD_FILE, sweepDir, sweepFigureFile, unitFiles } from '../results/layout.js';
import type { DerivedValues } from '../results/manifest.js';
import { readFinishedUnit } from '../results/read.js';
import type { TrialSummary } from '../results/records.js';
import { sweepCsv, SWEEP_SHARD_FORMAT, type SweepRow, type SweepShardFile } from '../results/sweep.js';
import { removeLeftovers, writeFileAtomic, writeJsonAtomic } from '../results/write.js';
import { mean, sampleStd } from '../stats/descriptive.js';
import { pairedDifference } from '../stats/paired.js';
import { isResultsFolder, lockFolder, makeFolder } from './folders.js';
import type { Shard } from './plan.js';
import { runExperiments, type RunOptions, type RunResult } from './runner.js';
import type { SeedSplit } from './seeds.js';

/** One swept config key and its values (as YAML gives them: numbers, strings, lists, …). */
export interface SweepAxis {
  /** Dotted config key, e.g. `params.m`. */
  key: string;
  values: unknown[];
}

/** One point of a sweep: a value per axis, and the point's folder name. */
export interface SweepPoint {
  name: string;
  values: unknown[];
}

/** Keys a sweep may not vary: they name the experiment or its folders. */
const FIXED_KEYS = new Set(['name']);

/** `"params.m=8,20,78"` → {key: 'params.m', values: [8, 20, 78]}; throws a one-line RunError (exit 2). */
export function parseAxis(text: string): SweepAxis {
  const at = text.indexOf('=');
  const key = at < 0 ? '' : text.slice(0, at).trim();
  if (!/^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/.test(key)) {
    throw new RunError(`--over ${text}: expected KEY=V1,V2,… with a dotted config key (e.g. params.m=8,20,78)`, 2);
  }
  const problem = configKeyProblem(key.split('.'));
  if (problem !== null) throw new RunError(`--over ${text}: ${problem}`, 2);
  if (FIXED_KEYS.has(key)) throw new RunError(`--over ${text}: ${key} cannot be swept (it names the output folders)`, 2);
  const parts = splitTopLevel(text.slice(at + 1)).map((p) => p.trim());
  if (parts.some((p) => p === '')) throw new RunError(`--over ${text}: expected a comma-separated list of values`, 2);
  const values = parts.map((part) => {
    try {
      return parseYaml(part) as unknown;
    } catch (error) {
      throw new RunError(`--over ${text}: ${JSON.stringify(part)} is not a YAML value (${(error as Error).message.split('\n')[0]})`, 2);
    }
  });
  const seen = values.map((v) => JSON.stringify(v));
  const twice = seen.find((v, i) => seen.indexOf(v) !== i);
  if (twice !== undefined) throw new RunError(`--over ${text}: ${twice} is listed twice`, 2);
  return { key, values };
}

/** A key a sweep varies, and how the command line gave it (`--over params.m=2,3`, `--l 0,1`). */
export interface SweptKey {
  key: string;
  given: string;
}

/**
 * Refuses a `--set` or `--trials` (`trials`: the flag's value) on a key a sweep varies, or on an
 * ancestor or descendant of one: every point would set the key again and silently win (or lose), so
 * the sweep would not run what the command line says. Throws a one-line RunError (exit 2) naming both.
 */
export function checkNotSwept(swept: readonly SweptKey[], sets: readonly string[], trials: number | undefined): void {
  const given = [
    ...sets.map((text) => ({ flag: `--set ${text}`, key: (text.includes('=') ? text.slice(0, text.indexOf('=')) : text).trim() })),
    ...(trials === undefined ? [] : [{ flag: `--trials ${trials}`, key: 'trials' }]),
  ];
  for (const { flag, key } of given) {
    const path = key.split('.');
    for (const axis of swept) {
      const other = axis.key.split('.');
      const shared = Math.min(path.length, other.length);
      if (path.slice(0, shared).every((segment, i) => segment === other[i])) {
        throw new RunError(`${flag} sets ${key}, which ${axis.given} sweeps; drop one of them`, 2);
      }
    }
  }
}

/** The label of each axis in folder names: the key's last segment, or the whole key when two would clash. */
export function axisLabels(axes: readonly SweepAxis[]): string[] {
  const last = axes.map((a) => a.key.split('.').pop() as string);
  return axes.map((a, i) => (last.filter((l) => l === last[i]).length > 1 ? a.key : (last[i] as string)));
}

/** A value as folder names and tables show it: numbers and strings as written, anything else as JSON. */
export function valueText(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
}

/** The folder name of the point with `values`: `label=value,label=value`. */
function pointNameOf(axes: readonly SweepAxis[], values: readonly unknown[]): string {
  const labels = axisLabels(axes);
  return values.map((v, i) => `${labels[i]}=${valueText(v)}`).join(',');
}

/** Every point of the product, the first axis slowest; names `label=value,label=value`. */
export function sweepPoints(axes: readonly SweepAxis[]): SweepPoint[] {
  if (axes.length === 0) throw new RunError('a sweep needs at least one --over KEY=V1,V2,…', 2);
  const keys = axes.map((a) => a.key);
  const twice = keys.find((k, i) => keys.indexOf(k) !== i);
  if (twice !== undefined) throw new RunError(`--over ${twice} is given twice`, 2);
  let points: unknown[][] = [[]];
  for (const axis of axes) points = points.flatMap((prefix) => axis.values.map((v) => [...prefix, v]));
  return points.map((values) => {
    const name = pointNameOf(axes, values);
    if (/[/\\\0]/.test(name) || name.length > 200) throw new RunError(`sweep point ${JSON.stringify(name)} cannot name a folder; use simpler values`, 2);
    return { name, values };
  });
}

/** The `params` key an axis sets (`params.m` → 'm'), or null for any other config key. */
function paramOf(axis: SweepAxis): string | null {
  const parts = axis.key.split('.');
  return parts.length === 2 && parts[0] === 'params' ? (parts[1] as string) : null;
}

/**
 * Per label, the axes (keys) it reads: a `params` axis only if the label's policy reads that key, any
 * other axis (the environment, the horizon, …) always. Refuses a `params` axis that no policy reads.
 */
export function axisReaders(config: ExperimentConfig, axes: readonly SweepAxis[]): Record<string, string[]> {
  for (const axis of axes) {
    const key = paramOf(axis);
    if (key !== null && !config.policies.some((entry) => entryReadsParam(entry, key))) {
      throw new RunError(`--over ${axis.key}: no policy of ${config.name} reads ${key} (${config.policies.map((e) => e.policy).join(', ')})`, 2);
    }
  }
  return Object.fromEntries(
    config.policies.map((entry) => [
      entry.label,
      axes.filter((axis) => {
        const key = paramOf(axis);
        return key === null || entryReadsParam(entry, key);
      }).map((axis) => axis.key),
    ]),
  );
}

/**
 * Where a label's units of `point` live: the point with every axis the label does not read at its
 * first value. A label runs only at its own points; at the others its units are those of its home
 * point (the same seeds and the same values of everything it reads: the same bits).
 */
export function homePoint(axes: readonly SweepAxis[], reads: readonly string[], point: SweepPoint): SweepPoint {
  const values = point.values.map((v, i) => (reads.includes((axes[i] as SweepAxis).key) ? v : (axes[i] as SweepAxis).values[0]));
  return { name: pointNameOf(axes, values), values };
}

/** The labels that run at `point` (those whose home it is), in config order. */
export function labelsAt(axes: readonly SweepAxis[], readers: Readonly<Record<string, readonly string[]>>, point: SweepPoint): string[] {
  return Object.entries(readers)
    .filter(([, reads]) => homePoint(axes, reads, point).name === point.name)
    .map(([label]) => label);
}

/** How the variant of each point is made besides the swept values. */
export interface SweepVariantOptions {
  /** Trials come from this seed split ('report' for a sweep, 'validation' for the grid). */
  split: SeedSplit;
}

/**
 * Sets `params.<key>` in a config document, for the experiment and every entry that gives it; l drops
 * λ, e drops η. A key the shared `params` do not take (CONFIG_PARAM_KEYS: one a module policy declares) goes into the
 * entries that read it (`reads[i]`: whether entry i does) instead.
 */
function setParam(document: Record<string, unknown>, key: string, value: unknown, reads: readonly boolean[]): void {
  const shared = CONFIG_PARAM_KEYS.includes(key);
  const entries = (document.policies as unknown[]).map((e, i) => (typeof e === 'object' && e !== null && (shared || reads[i] === true) ? (e as { params?: Record<string, unknown> }) : null));
  if (!shared) {
    for (const entry of entries) if (entry !== null) entry.params = { ...entry.params, [key]: value };
    return;
  }
  const layers = [document.params as Record<string, unknown> | undefined, ...entries.map((e) => e?.params)].filter((p): p is Record<string, unknown> => p !== undefined);
  for (const [i, layer] of layers.entries()) {
    if (key === 'l') delete layer.lambda;
    if (key === 'e') delete layer.eta;
    if (i === 0 || key in layer) layer[key] = value;
  }
}

/**
 * The config of one point: the swept values set (a `params` value overrides the entries' own),
 * only the point's labels kept (and only the params they read), validated and resolved; seeds of the
 * base name, so every point plays the same instances.
 */
export function sweepVariant(config: ExperimentConfig, axes: readonly SweepAxis[], point: SweepPoint, options: SweepVariantOptions, labels: readonly string[] = policyLabels(config)): ExperimentConfig {
  const origin = `--over ${axes.map((a, i) => `${a.key}=${valueText(point.values[i])}`).join(' --over ')}`;
  const kept = config.policies.filter((entry) => labels.includes(entry.label));
  const variant = reconfigure(
    config,
    (document) => {
      if (document.params === undefined) document.params = {};
      document.policies = (document.policies as unknown[]).filter((_, i) => labels.includes((config.policies[i] as PolicyEntry).label));
      axes.forEach((axis, i) => {
        const key = paramOf(axis);
        if (key === null) setField(document, axis.key.split('.'), point.values[i]);
        else setParam(document, key, point.values[i], kept.map((entry) => entryReadsParam(entry, key)));
      });
      const params = document.params as Record<string, unknown>;
      for (const key of Object.keys(params)) if (!kept.some((entry) => entryReadsParam(entry, key))) delete params[key];
    },
    origin,
    // Swept values come from the command line: a relative input file resolves as a --set one does.
    // (A params value names no file, and may be dropped above for the labels kept here.)
    axes.filter((axis) => paramOf(axis) === null).map((axis) => axis.key.split('.')),
  );
  return { ...variant, name: point.name, seedName: config.seedName ?? config.name };
}

/** What reading a point's units needs (from the resolved variant, or from its manifest). */
export interface PointInfo {
  /** Per label, λ and η as that policy used them (absent: it reads neither). */
  derived: Record<string, { lambda?: number; eta?: number }>;
  /** The labels that ran at the point. */
  policies: readonly string[];
  trials: number;
  horizon: number;
}

/** One point and label: its trials' summaries, in trial order, read from the label's home point. */
export interface PointUnits {
  point: SweepPoint;
  policy: string;
  /** The label's home point (point itself when the label reads every axis). */
  home: SweepPoint;
  derived: { lambda?: number; eta?: number };
  summaries: TrialSummary[];
}

/**
 * The finished units of every point and label under `dir`, point by point, labels in config order,
 * each read from its home point; null if a point is unknown or a unit is not finished.
 */
export function readPointUnits(
  dir: string,
  axes: readonly SweepAxis[],
  readers: Readonly<Record<string, readonly string[]>>,
  info: (point: SweepPoint) => PointInfo | null,
): PointUnits[] | null {
  const out: PointUnits[] = [];
  for (const point of sweepPoints(axes)) {
    for (const [policy, reads] of Object.entries(readers)) {
      const home = homePoint(axes, reads, point);
      const known = info(home);
      if (known === null || !known.policies.includes(policy)) return null;
      const summaries: TrialSummary[] = [];
      for (let trial = 0; trial < known.trials; trial++) {
        const unit = readFinishedUnit(unitFiles(path.join(dir, home.name), policy, trial), policy, trial, known.horizon);
        if (unit === null) return null;
        summaries.push(unit.summary);
      }
      out.push({ point, policy, home, derived: known.derived[policy] ?? {}, summaries });
    }
  }
  return out;
}

/** λ and η per label of a manifest's or resolved experiment's derived values. */
export function derivedPerLabel(derived: { policies?: Record<string, { lambda?: number; eta?: number }> } | undefined): PointInfo['derived'] {
  return Object.fromEntries(Object.entries(derived?.policies ?? {}).map(([label, p]) => [label, { lambda: p.lambda, eta: p.eta }]));
}

/** The point infos of a finished run, by point name. */
export function pointInfoFromRun(run: RunResult): (point: SweepPoint) => PointInfo | null {
  return (point) => {
    const outcome = run.experiments.find((x) => x.name === point.name);
    if (outcome === undefined || !outcome.complete) return null;
    const { derived, config } = outcome.resolved;
    return { derived: derivedPerLabel(derived), policies: policyLabels(config), trials: config.trials, horizon: config.horizon };
  };
}

/** Runs every point of a sweep as one runner call into `dir` (units numbered point by point). */
export async function runSweepPoints(
  config: ExperimentConfig,
  axes: readonly SweepAxis[],
  variant: SweepVariantOptions,
  options: Omit<RunOptions, 'split'>,
): Promise<{ points: SweepPoint[]; run: RunResult }> {
  const readers = axisReaders(config, axes);
  // A point where no label runs (each has a swept key it does not read off its first value) has no folder.
  const points = sweepPoints(axes).filter((p) => labelsAt(axes, readers, p).length > 0);
  const variants = points.map((p) => sweepVariant(config, axes, p, variant, labelsAt(axes, readers, p)));
  // The one rule (folders.ts): the sweep's folder is changed only under its lock `<out>/.<name>-sweep.lock`,
  // so no other sweep or grid of the experiment runs there meanwhile.
  const parent = path.dirname(options.out);
  makeFolder(parent, 'to the output folder');
  const lock = lockFolder(lockFile(parent, path.basename(options.out)), options.out, parent);
  try {
    if (options.force !== true) checkSameSweep(options.out, axes);
    const beforeWriting = (): void => {
      removeLeftovers(options.out);
      if (options.force === true) clearSweepOutputs(options.out, points);
    };
    const run = await runExperiments(variants, { ...options, split: variant.split, beforeWriting });
    return { points, run };
  } finally {
    lock.release();
  }
}

/**
 * A sweep folder holds one sweep: point folders over other keys (another sweep of the experiment) are
 * refused unless --force replaces them, so that sweep.csv and the figures never describe a mix.
 */
function checkSameSweep(dir: string, axes: readonly SweepAxis[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const labels = axisLabels(axes).join(',');
  for (const entry of entries) {
    if (!entry.isDirectory() || !entry.name.includes('=') || !isResultsFolder(path.join(dir, entry.name))) continue;
    const theirs = splitTopLevel(entry.name).map((part) => part.slice(0, part.indexOf('='))).join(',');
    if (theirs !== labels) {
      throw new RunError(`${dir} holds a sweep over ${theirs} (${entry.name}, …), not over ${labels}; add --force to replace that sweep, or give this one another --out`, 2);
    }
  }
}

/** Whether `name` is an output that a grid or sweep writes into its folder once complete. */
function isSweepOutput(name: string): boolean {
  return [GRID_FILE, BEST_FILE, SWEEP_FILE, SWEEP_SHARD_FILE].includes(name) || /^(heatmap|sweep)-.*\.svg$/.test(name);
}

/**
 * Before a --force grid or sweep writes: its previous outputs (grid.csv, best.json, heatmaps, sweep.csv,
 * figures) and the folders of points it no longer has, so that a new grid that fails cannot leave the
 * old grid's best.json for `run --params` to use. Only what eofd wrote is removed.
 */
function clearSweepOutputs(dir: string, points: readonly SweepPoint[]): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const current = new Set(points.map((p) => p.name));
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isFile() && isSweepOutput(entry.name)) fs.rmSync(file, { force: true });
    else if (entry.isDirectory() && !current.has(entry.name) && isResultsFolder(file)) {
      // Never what a live run holds: its lock is taken first (refused, naming the holder).
      const held = lockFolder(lockFile(dir, entry.name), file, dir);
      try {
        fs.rmSync(file, { recursive: true, force: true });
      } finally {
        held.release();
      }
    }
  }
}

/** The default reference of a sweep's paired differences: OFUL-MLogB when it runs, else the first policy. */
export function defaultReference(policies: readonly string[]): string {
  return policies.includes('OFUL-MLogB') ? 'OFUL-MLogB' : (policies[0] as string);
}

/** sweep.csv's rows: per point and policy, the means and the paired difference to the reference. */
export function sweepRows(units: readonly PointUnits[], reference: string): SweepRow[] {
  const nullable = (xs: readonly (number | null)[]): number | null => (xs.every((x): x is number => x !== null) ? mean(xs as number[]) : null);
  return units.map(({ point, policy, summaries }) => {
    const regrets = summaries.map((s) => s.finalRegret);
    const ref = units.find((u) => u.point === point && u.policy === reference);
    let diff: { mean: number; low: number; high: number } | null = null;
    let pct: number | null = null;
    if (ref !== undefined && policy !== reference) {
      const refRegrets = ref.summaries.map((s) => s.finalRegret);
      diff = pairedDifference(regrets, refRegrets);
      const refMean = mean(refRegrets);
      pct = refMean === 0 ? null : (100 * diff.mean) / refMean;
    }
    return {
      values: point.values,
      policy,
      trials: summaries.length,
      meanFinalRegret: mean(regrets),
      stdFinalRegret: sampleStd(regrets),
      reference: ref === undefined || policy === reference ? null : reference,
      regretDiff: diff?.mean ?? null,
      regretDiffLow: diff === null || !Number.isFinite(diff.low) ? null : diff.low,
      regretDiffHigh: diff === null || !Number.isFinite(diff.high) ? null : diff.high,
      regretDiffPct: pct,
      meanRoundMs: mean(summaries.map((s) => s.meanRoundMs)),
      meanDeltaT: nullable(summaries.map((s) => s.deltaT)),
      meanBetaT: nullable(summaries.map((s) => s.betaT)),
      meanProjections: mean(summaries.map((s) => s.projections)),
      meanParameterError: nullable(summaries.map((s) => s.parameterError)),
    };
  });
}

/** Writes sweep.csv and one figure per swept key into `dir` (atomically); null if a unit is missing. */
export function finishSweep(
  dir: string,
  name: string,
  axes: readonly SweepAxis[],
  readers: Readonly<Record<string, readonly string[]>>,
  reference: string,
  info: (point: SweepPoint) => PointInfo | null,
): { rows: SweepRow[]; files: string[] } | null {
  const units = readPointUnits(dir, axes, readers, info);
  if (units === null) return null;
  const rows = sweepRows(units, reference);
  const files: string[] = [];
  const write = (file: string, text: string): void => {
    writeFileAtomic(path.join(dir, file), text);
    files.push(path.join(dir, file));
  };
  write(SWEEP_FILE, sweepCsv(axes.map((a) => a.key), rows));
  axes.forEach((axis, k) => write(sweepFigureFile(axis.key), renderSweepFigure({ experiment: name, axes, axis: k, rows })));
  return { rows, files };
}

/**
 * A shard's grid or sweep folder gets no outputs (they need every unit) but sweep-shard.json: what
 * `eofd merge` needs to make them (`reference`: the sweep's, null for a grid).
 */
export function writeShardRecord(
  dir: string,
  kind: SweepShardFile['kind'],
  config: Pick<ExperimentConfig, 'name' | 'trials' | 'policies'>,
  readers: Record<string, string[]>,
  axes: readonly SweepAxis[],
  reference: string | null,
  shard: Shard,
): void {
  const record: SweepShardFile = {
    format: SWEEP_SHARD_FORMAT,
    kind,
    experiment: config.name,
    trials: config.trials,
    policies: policyLabels(config),
    readers,
    axes: axes.map((a) => ({ key: a.key, values: [...a.values] })),
    reference,
    shard: { index: shard.index, count: shard.count },
  };
  writeJsonAtomic(path.join(dir, SWEEP_SHARD_FILE), record);
}

export interface SweepOptions extends Omit<RunOptions, 'split' | 'out'> {
  /** Parent folder: the sweep goes to `<out>/<name>-sweep/`. */
  out: string;
  axes: readonly SweepAxis[];
  /** The policy paired differences are taken against (default: defaultReference). */
  reference?: string;
}

export interface SweepResult {
  name: string;
  dir: string;
  run: RunResult;
  /** Empty unless every unit finished. */
  rows: SweepRow[];
  files: string[];
}

/** Runs the sweep of one experiment on the report seeds and writes sweep.csv and its figures when complete. */
export async function runSweep(config: ExperimentConfig, options: SweepOptions): Promise<SweepResult> {
  const { axes, reference: given, out, ...runOptions } = options;
  if (out.trim() === '') throw new RunError('--out: expected a folder, got an empty string', 2);
  const labels = policyLabels(config);
  const reference = given ?? defaultReference(labels);
  if (!labels.includes(reference)) {
    throw new RunError(`--reference ${reference}: not a policy of ${config.name} (${labels.join(', ')})`, 2);
  }
  const readers = axisReaders(config, axes);
  const dir = sweepDir(out, config.name);
  const { run } = await runSweepPoints(config, axes, { split: 'report' }, { ...runOptions, out: dir });
  if (options.shard !== undefined) {
    writeShardRecord(dir, 'sweep', config, readers, axes, reference, options.shard);
    return { name: config.name, dir, run, rows: [], files: [] };
  }
  const done = run.interrupted ? null : finishSweep(dir, config.name, axes, readers, reference, pointInfoFromRun(run));
  return { name: config.name, dir, run, rows: done?.rows ?? [], files: done?.files ?? [] };
}
