/**
 * Experiment folders (layout.ts), read and validated for resume, merge and the report: the manifest,
 * summary.csv (or, of a run in progress, the finished units' summaries), and every unit's trial CSV,
 * checked against its unit summary's SHA-256 and summary.csv's final_regret. Files this reader does not
 * know (grid.csv, best.json, a report folder, …) are ignored by `readResults`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST_FILE, SUMMARY_FILE, unitFiles } from './layout.js';
import { readPartialTrial, readSummary, readTrial, type TrialSeries } from './read-csv.js';
import { checkUnitHash, describeManifest, readFinishedUnit, readManifest, ResultsError, type Provenance, type Setting, type Timing } from './read-json.js';
import type { SummaryRow } from './records.js';

/** How much of an experiment has finished (a unit is one policy × trial). */
export interface Progress {
  /** true when summary.csv exists: the run writes it once every unit has finished. */
  complete: boolean;
  finishedUnits: number;
  /** Policies × trials, as the manifest plans. */
  plannedUnits: number;
}

/** One validated experiment folder. */
export interface ExperimentData {
  /** The folder, spelled as given (or joined onto the parent folder given). */
  dir: string;
  name: string;
  setting: Setting;
  /** The manifest's derived hyperparameters (λ, η, m, δ, β, …), as written. */
  derived: Record<string, unknown>;
  provenance: Provenance;
  timing: Timing;
  progress: Progress;
  /**
   * summary.csv rows, policy by policy in manifest order, trials ascending; of a run in progress,
   * the finished units' summaries.
   */
  summary: SummaryRow[];
  /** Per-round series, policy by policy in manifest order, trials ascending. */
  trials: TrialSeries[];
  /**
   * Of a run in progress (`inProgress`): the units not finished whose `trial-<i>.csv.partial` holds
   * rounds, each series as long as its rounds so far (running, or left by a stopped run). Never judged.
   */
  partial: TrialSeries[];
}

/** Relative tolerance of the check `summary.csv final_regret = last cum_regret of the trial file`. */
const FINAL_REGRET_TOLERANCE = 1e-6;

export interface ReadOptions {
  /** Folders never taken as experiments when scanning a parent (e.g. the report's own output). */
  exclude?: string[];
  /**
   * Also read an experiment whose run has not finished (no summary.csv yet): its finished units
   * (`readFinishedUnit`), with `progress.complete` false, and apart from them its partial units' rounds
   * so far (`partial`). Default false: a missing summary.csv is a defect.
   */
  inProgress?: boolean;
}

/**
 * Reads every experiment under `dirs`. Each entry is an experiment folder (it holds manifest.json)
 * or a parent whose immediate sub-folders holding a manifest.json are read, in name order.
 * The same folder given twice is read once. Throws ResultsError (exit code 2) on the first defect.
 */
export function readResults(dirs: readonly string[], options: ReadOptions = {}): ExperimentData[] {
  if (dirs.length === 0) throw new ResultsError('no results folder given');
  const excluded = new Set((options.exclude ?? []).map((d) => path.resolve(d)));
  const seen = new Set<string>();
  const experiments: ExperimentData[] = [];
  for (const dir of dirs) {
    for (const experimentDir of findExperimentDirs(dir, excluded)) {
      const key = realPath(experimentDir);
      if (seen.has(key)) continue;
      seen.add(key);
      const experiment = readExperiment(experimentDir, options);
      // Experiments are known by name (tables, claims, the baseline check): two of one name is ambiguous.
      const twin = experiments.find((e) => e.name === experiment.name);
      if (twin !== undefined) {
        throw new ResultsError(`${twin.dir} and ${experiment.dir} both hold an experiment named ${JSON.stringify(experiment.name)}; give only one of them`);
      }
      experiments.push(experiment);
    }
  }
  return experiments;
}

function realPath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

function findExperimentDirs(dir: string, excluded: Set<string>): string[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw new ResultsError(`${dir}: no such folder`);
  }
  if (!stat.isDirectory()) throw new ResultsError(`${dir}: not a folder`);
  if (fs.existsSync(path.join(dir, MANIFEST_FILE))) return [dir];
  const found = fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort()
    .map((name) => path.join(dir, name))
    .filter((sub) => fs.existsSync(path.join(sub, MANIFEST_FILE)));
  // An excluded folder (the report's own output) that holds an experiment is not silently left out.
  const clash = found.find((sub) => excluded.has(path.resolve(sub)));
  if (clash !== undefined) {
    throw new ResultsError(`${clash}: an experiment folder (it holds ${MANIFEST_FILE}) is also the report's output folder; give --out another folder`);
  }
  if (found.length === 0) {
    throw new ResultsError(`${path.join(dir, MANIFEST_FILE)}: not found (and no sub-folder holds one)`);
  }
  return found;
}

/**
 * An experiment folder's validated manifest and its finished units, listed but not yet read: of a
 * complete experiment, summary.csv's rows; of a run in progress (`options.inProgress`, no summary.csv),
 * the units `readFinishedUnit` finds finished. `readUnit` reads each: the one rule by which report and
 * export take a unit.
 */
export interface ExperimentUnits {
  dir: string;
  manifest: ReturnType<typeof describeManifest>;
  complete: boolean;
  summaryFile: string;
  /** Policy by policy in manifest order, trials ascending; `lines`: each row's line in summary.csv. */
  summary: { rows: SummaryRow[]; lines: Map<string, number> };
}

/** Lists one experiment folder's finished units (see ExperimentUnits). Without summary.csv it is a defect, unless `options.inProgress`. */
export function experimentUnits(dir: string, options: ReadOptions = {}): ExperimentUnits {
  const manifest = describeManifest(readManifest(dir));
  const summaryFile = path.join(dir, SUMMARY_FILE);
  const complete = !options.inProgress || fs.existsSync(summaryFile);
  const summary = complete ? readSummary(summaryFile, manifest.setting) : finishedUnits(dir, manifest.setting);
  return { dir, manifest, complete, summaryFile, summary };
}

/**
 * Reads one finished unit of `units`: its trial CSV must hash to what its run recorded (when its unit
 * summary exists; a run in progress's units were hashed when found finished), hold rounds 1..T, and end
 * on the final regret its summary states.
 */
export function readUnit(units: ExperimentUnits, row: SummaryRow): TrialSeries {
  const files = unitFiles(units.dir, row.policy, row.trial);
  if (units.complete) checkUnitHash(files);
  const series = readTrial(files.csv, row.policy, row.trial, units.manifest.setting.horizon);
  const last = series.cumRegret[series.cumRegret.length - 1] as number;
  const scale = Math.max(1, Math.abs(last), Math.abs(row.finalRegret));
  if (Math.abs(last - row.finalRegret) > FINAL_REGRET_TOLERANCE * scale) {
    const where = units.complete ? `${units.summaryFile}:${units.summary.lines.get(`${row.policy}\u0000${row.trial}`)}` : files.summary;
    throw new ResultsError(`${where}: final_regret: ${row.finalRegret} disagrees with the last cum_regret ${last} of ${files.csv}`);
  }
  return series;
}

/**
 * Reads and validates one experiment folder: its finished units (experimentUnits, readUnit) and, of a
 * run in progress, its partial units' rounds so far.
 */
export function readExperiment(dir: string, options: ReadOptions = {}): ExperimentData {
  const units = experimentUnits(dir, options);
  const { manifest, complete, summary } = units;
  const { policies, trials: planned } = manifest.setting;
  return {
    dir,
    name: manifest.name,
    setting: manifest.setting,
    derived: manifest.derived,
    provenance: manifest.provenance,
    timing: manifest.timing,
    progress: { complete, finishedUnits: summary.rows.length, plannedUnits: policies.length * planned },
    summary: summary.rows,
    trials: summary.rows.map((row) => readUnit(units, row)),
    partial: complete ? [] : partialUnits(dir, manifest.setting, summary.rows),
  };
}

/** The partial units of a run in progress (see ExperimentData.partial), in manifest order. */
function partialUnits(dir: string, setting: Setting, finished: readonly SummaryRow[]): TrialSeries[] {
  const done = new Set(finished.map((r) => `${r.policy}\u0000${r.trial}`));
  const out: TrialSeries[] = [];
  for (const policy of setting.policies) {
    for (let trial = 0; trial < setting.trials; trial++) {
      if (done.has(`${policy}\u0000${trial}`)) continue;
      const series = readPartialTrial(unitFiles(dir, policy, trial).partial, policy, trial, setting.horizon);
      if (series !== null) out.push(series);
    }
  }
  return out;
}

/** The summaries of a run in progress's finished units, policy by policy in manifest order, trials ascending. */
function finishedUnits(dir: string, setting: Setting): { rows: SummaryRow[]; lines: Map<string, number> } {
  const rows: SummaryRow[] = [];
  for (const policy of setting.policies) {
    for (let trial = 0; trial < setting.trials; trial++) {
      const unit = readFinishedUnit(unitFiles(dir, policy, trial), policy, trial, setting.horizon);
      if (unit !== null) rows.push({ policy, trial, ...unit.summary });
    }
  }
  return { rows, lines: new Map() };
}
