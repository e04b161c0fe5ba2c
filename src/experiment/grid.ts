/**
 * Tuning every policy the same way: a sweep (sweep.ts) over `--over` keys on the VALIDATION seed split
 * (disjoint from the trials `eofd run` reports), by default Section 4's (l, e) grid, λ = (√K d)^l λ0
 * and η = (√K d)^e η0 over {−0.5, −0.25, 0, 0.25, 0.5, 0.75, 1}² (49 points). Each label runs only
 * over the keys its policy reads (a label that reads none runs once, as the reference). Every point
 * is an ordinary run under `<out>/<name>-grid/` on the base experiment's seeds, so every point plays
 * the same instances and every comparison between points is paired. Afterwards grid.csv, one heatmap
 * per label (for the (l, e) grid) and best.json (per label the chosen values, the runner-up and the
 * paired interval between them, and the keys whose choice lies on the edge of its list) are written
 * (atomically).
 */
import fs from 'node:fs';
import path from 'node:path';
import { RunError } from '../base/errors.js';
import { reconfigure } from '../config/load.js';
import { entryOf, type ExperimentConfig } from '../config/schema.js';
import { entryCostOnly } from '../config/policy-entries.js';
import { gridHeatmapSvg } from '../report/heatmap.js';
import { BEST_FILE, GRID_FILE, gridDir, heatmapFile, SUMMARY_FILE } from '../results/layout.js';
import { readBestFile, ResultsError } from '../results/read.js';
import { BEST_FORMAT, gridCsv, type BestEntry, type BestFile, type GridRow } from '../results/sweep.js';
import { writeFileAtomic } from '../results/write.js';
import { mean, sampleStd } from '../stats/descriptive.js';
import { pairedDifference } from '../stats/paired.js';
import { checkResumable, unitCsvsHere } from './folders.js';
import type { RunOptions, RunResult } from './runner.js';
import { resolveExperiment, type ResolveOptions } from './setup.js';
import { axisLabels, axisReaders, checkNotSwept, labelsAt, parseAxis, pointInfoFromRun, readPointUnits, runSweepPoints, sweepPoints, sweepVariant, valueText, writeShardRecord, type PointInfo, type PointUnits, type SweepAxis, type SweepPoint } from './sweep.js';

export { gridDir, type BestFile, type GridRow };

/** The paper's exponents for l and for e. */
export const DEFAULT_GRID: readonly number[] = [-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1];

export interface GridPoint {
  l: number;
  e: number;
}

/** `"-0.5,0,1"` → [-0.5, 0, 1]; throws a one-line RunError (exit 2) naming `what` otherwise. */
export function parseExponentList(text: string, what: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const values = parts.map(Number);
  if (parts.some((p) => p === '') || values.some((v) => !Number.isFinite(v))) {
    throw new RunError(`${what}: expected a comma-separated list of numbers, got ${JSON.stringify(text)}`, 2);
  }
  const duplicate = values.find((v, i) => values.indexOf(v) !== i);
  if (duplicate !== undefined) throw new RunError(`${what}: ${duplicate} is listed twice`, 2);
  return values;
}

/** The (l, e) grid as a sweep: params.l (slowest), then params.e. */
export function gridAxes(ls: readonly number[] = DEFAULT_GRID, es: readonly number[] = DEFAULT_GRID): SweepAxis[] {
  return [
    { key: 'params.l', values: [...ls] },
    { key: 'params.e', values: [...es] },
  ];
}

/** The grid's axes as `eofd grid` (and `eofd reproduce`) take them. */
export interface GridAxesArguments {
  /** `--over KEY=V1,V2,…` (repeatable): these keys instead of the (l, e) grid. */
  over?: readonly string[];
  /** `--l`, `--e`: the (l, e) grid's exponent lists (default DEFAULT_GRID); not with `over`. */
  l?: string;
  e?: string;
  /** `--set` and `--trials`, which must not set a swept key. */
  set?: readonly string[];
  trials?: number;
}

/** The swept axes of a grid from its arguments: `--over`, else the (l, e) grid over `--l` and `--e`; one-line RunErrors (exit 2). */
export function resolveGridAxes(args: GridAxesArguments): SweepAxis[] {
  const overs = args.over ?? [];
  const over = overs.map(parseAxis);
  if (over.length > 0 && (args.l !== undefined || args.e !== undefined)) {
    throw new RunError('--l and --e set the (l, e) grid; with --over, give params.l=… and params.e=… there instead', 2);
  }
  const axes =
    over.length > 0
      ? over
      : gridAxes(args.l === undefined ? DEFAULT_GRID : parseExponentList(args.l, '--l'), args.e === undefined ? DEFAULT_GRID : parseExponentList(args.e, '--e'));
  const given = (axis: SweepAxis, i: number): string => {
    if (over.length > 0) return `--over ${overs[i]}`;
    const flag = axis.key === 'params.l' ? args.l : args.e;
    return flag === undefined ? `the (l, e) grid (${axis.key})` : `--${axis.key.slice('params.'.length)} ${flag}`;
  };
  checkNotSwept(axes.map((axis, i) => ({ key: axis.key, given: given(axis, i) })), args.set ?? [], args.trials);
  sweepPoints(axes);
  return axes;
}

/** Every (l, e), l-major, in the given orders. */
export function gridPoints(ls: readonly number[], es: readonly number[]): GridPoint[] {
  return ls.flatMap((l) => es.map((e) => ({ l, e })));
}

/** The folder (and variant) name of an (l, e) grid point: `l=<l>,e=<e>`, as the sweep names it. */
export function pointName(point: GridPoint): string {
  return `l=${point.l},e=${point.e}`;
}

/** The labels a grid tunes: those whose policy reads at least one of its keys. */
export function tunedPolicies(readers: Readonly<Record<string, readonly string[]>>): string[] {
  return Object.entries(readers)
    .filter(([, keys]) => keys.length > 0)
    .map(([label]) => label);
}

/** Numbers compare as numbers, anything else by its text. */
function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return valueText(a) < valueText(b) ? -1 : valueText(a) > valueText(b) ? 1 : 0;
}

/** Lower is better: mean final regret, then parameter error (a known one beats an unknown one), then the values in axis order. */
export function compareRows(a: GridRow, b: GridRow): number {
  if (a.meanFinalRegret !== b.meanFinalRegret) return a.meanFinalRegret - b.meanFinalRegret;
  const pa = a.meanParameterError;
  const pb = b.meanParameterError;
  if (pa !== pb) {
    if (pa === null) return 1;
    if (pb === null) return -1;
    return pa - pb;
  }
  for (let i = 0; i < a.values.length; i++) {
    const c = compareValues(a.values[i], b.values[i]);
    if (c !== 0) return c;
  }
  return 0;
}

/** Per label, its rows best first (see compareRows). */
export function rankRows(rows: readonly GridRow[]): Map<string, GridRow[]> {
  const ranked = new Map<string, GridRow[]>();
  for (const row of rows) {
    const list = ranked.get(row.policy);
    if (list === undefined) ranked.set(row.policy, [row]);
    else list.push(row);
  }
  for (const list of ranked.values()) list.sort(compareRows);
  return ranked;
}

/** The keys (read by the row's label, with ≥ 3 numeric values) whose chosen value is the smallest or largest listed. */
export function edgeKeys(axes: readonly SweepAxis[], row: GridRow): string[] {
  return axes
    .filter((axis, i) => {
      const value = row.values[i];
      if (value === null || typeof value !== 'number' || axis.values.length < 3 || !axis.values.every((v) => typeof v === 'number')) return false;
      const listed = axis.values as number[];
      return value === Math.min(...listed) || value === Math.max(...listed);
    })
    .map((axis) => axis.key);
}

/** best.json: per tuned label the best row's values, the runner-up and the paired interval between them. */
export function bestFile(config: Pick<ExperimentConfig, 'name' | 'trials'>, axes: readonly SweepAxis[], readers: Readonly<Record<string, readonly string[]>>, rows: readonly GridRow[]): BestFile {
  // Keyed by validated labels, built without a prototype so that no label is lost as a prototype key.
  const policies: Record<string, BestEntry> = Object.create(null) as Record<string, BestEntry>;
  const tuned = tunedPolicies(readers);
  for (const [label, ranked] of rankRows(rows)) {
    if (!tuned.includes(label)) continue;
    const [best, runnerUp] = ranked as [GridRow, GridRow | undefined];
    const values: Record<string, unknown> = {};
    axes.forEach((axis, i) => {
      if (best.values[i] !== null) values[axis.key] = best.values[i];
    });
    const difference = runnerUp === undefined ? null : pairedDifference(best.finalRegrets, runnerUp.finalRegrets);
    const known = (x: number): number | null => (Number.isFinite(x) ? x : null);
    policies[label] = {
      policy: best.policyName,
      values,
      lambda: best.lambda,
      eta: best.eta,
      mean_final_regret: best.meanFinalRegret,
      std_final_regret: best.stdFinalRegret,
      mean_parameter_error: best.meanParameterError,
      runner_up:
        runnerUp === undefined || difference === null
          ? null
          : {
              values: Object.fromEntries(axes.flatMap((axis, i) => (runnerUp.values[i] === null ? [] : [[axis.key, runnerUp.values[i]]]))),
              mean_final_regret: runnerUp.meanFinalRegret,
              difference: { mean: difference.mean, ci_low: known(difference.low), ci_high: known(difference.high), level: 0.95, trials: best.finalRegrets.length },
              separated: Number.isFinite(difference.high) && difference.high < 0,
            },
      edge: edgeKeys(axes, best),
    };
  }
  const le = axes.length === 2 && axes[0]?.key === 'params.l' && axes[1]?.key === 'params.e';
  return {
    format: BEST_FORMAT,
    experiment: config.name,
    split: 'validation',
    trials: config.trials,
    axes: axes.map((a) => ({ key: a.key, values: [...a.values] })),
    ...(le ? { l_values: [...(axes[0]?.values as number[])], e_values: [...(axes[1]?.values as number[])] } : {}),
    policies,
  };
}

export interface GridOptions extends Omit<RunOptions, 'split' | 'out'> {
  /** Parent folder: the grid goes to `<out>/<name>-grid/`. */
  out: string;
  /** The swept keys and their values (default: the (l, e) grid of `l` and `e`). */
  axes?: readonly SweepAxis[];
  /** Exponents of λ for the (l, e) grid (default DEFAULT_GRID). */
  l?: readonly number[];
  /** Exponents of η for the (l, e) grid (default DEFAULT_GRID). */
  e?: readonly number[];
}

export interface GridResult {
  name: string;
  dir: string;
  run: RunResult;
  /** Empty unless every unit finished. */
  rows: GridRow[];
  /** Written files (grid.csv, heatmaps, best.json); empty when the grid is incomplete. */
  files: string[];
  best: BestFile | null;
}

/** grid.csv's rows: one per label and point it ran at (its home points), points in sweep order, labels in config order. */
export function gridRows(units: readonly PointUnits[], axes: readonly SweepAxis[], readers: Readonly<Record<string, readonly string[]>>, policyOf: (label: string) => string): GridRow[] {
  return units
    .filter((u) => u.home.name === u.point.name)
    .map(({ point, policy, derived, summaries }) => {
      const regrets = summaries.map((s) => s.finalRegret);
      const errors = summaries.map((s) => s.parameterError);
      const reads = readers[policy] ?? [];
      return {
        values: point.values.map((v, i) => (reads.includes((axes[i] as SweepAxis).key) ? v : null)),
        lambda: derived.lambda ?? null,
        eta: derived.eta ?? null,
        policy,
        policyName: policyOf(policy),
        trials: summaries.length,
        meanFinalRegret: mean(regrets),
        stdFinalRegret: sampleStd(regrets),
        meanParameterError: errors.every((x): x is number => typeof x === 'number') ? mean(errors) : null,
        meanRoundMs: mean(summaries.map((s) => s.meanRoundMs)),
        finalRegrets: regrets,
      };
    });
}

/** Writes grid.csv, a heatmap per label tuned over (l, e), and best.json into `dir` (atomically). */
export function writeGridOutputs(
  dir: string,
  base: Pick<ExperimentConfig, 'name' | 'trials'>,
  readers: Readonly<Record<string, readonly string[]>>,
  axes: readonly SweepAxis[],
  rows: readonly GridRow[],
): { best: BestFile; files: string[] } {
  const files: string[] = [];
  const write = (name: string, text: string): void => {
    const file = path.join(dir, name);
    writeFileAtomic(file, text);
    files.push(file);
  };
  write(GRID_FILE, gridCsv(axisLabels(axes), rows));
  const le = axes.length === 2 && axes[0]?.key === 'params.l' && axes[1]?.key === 'params.e';
  if (le) {
    const [ls, es] = axes.map((a) => a.values as number[]) as [number[], number[]];
    for (const [label, keys] of Object.entries(readers)) {
      if (keys.length === 0) continue;
      const own = rows.filter((r) => r.policy === label).map((r) => ({ ...r, l: r.values[0] as number, e: r.values[1] as number }));
      write(heatmapFile(label), gridHeatmapSvg({ experiment: base.name, policy: label, ls: keys.includes('params.l') ? ls : [ls[0] as number], es: keys.includes('params.e') ? es : [es[0] as number], rows: own }));
    }
  }
  const best = bestFile(base, axes, readers, rows);
  write(BEST_FILE, JSON.stringify(best, null, 2) + '\n');
  return { best, files };
}

/** The outputs of a complete grid folder from its units (used by runGrid and by merge). */
export function finishGrid(
  dir: string,
  base: Pick<ExperimentConfig, 'name' | 'trials'>,
  readers: Readonly<Record<string, readonly string[]>>,
  axes: readonly SweepAxis[],
  info: (point: SweepPoint) => PointInfo | null,
  policyOf: (label: string) => string = (label) => label,
): { rows: GridRow[]; best: BestFile; files: string[] } | null {
  const units = readPointUnits(dir, axes, readers, info);
  if (units === null) return null;
  const rows = gridRows(units, axes, readers, policyOf);
  return { rows, ...writeGridOutputs(dir, base, readers, axes, rows) };
}

/** Runs the grid of one experiment and writes its outputs when complete. */
export async function runGrid(given: ExperimentConfig, options: GridOptions): Promise<GridResult> {
  if (options.out.trim() === '') throw new RunError('--out: expected a folder, got an empty string', 2);
  const config = withoutCostTwins(given); // a cost twin takes its label's values when they are applied
  const { axes: givenAxes, l, e, ...runOptions } = options;
  const axes = givenAxes ?? gridAxes(l, e);
  if (axes.some((a) => a.values.length === 0)) throw new RunError('every swept key needs at least one value', 2);
  const readers = axisReaders(config, axes);
  if (tunedPolicies(readers).length === 0) {
    throw new RunError(`${config.name}: no policy reads ${axes.map((a) => a.key).join(' or ')}; nothing to tune`, 2);
  }
  const dir = gridDir(options.out, config.name);
  const { run } = await runSweepPoints(config, axes, { split: 'validation' }, { ...runOptions, out: dir });
  if (options.shard !== undefined) {
    writeShardRecord(dir, 'grid', config, readers, axes, null, options.shard);
    return { name: config.name, dir, run, rows: [], files: [], best: null };
  }
  const policyOf = (label: string): string => entryOf(config, label).policy;
  const done = run.interrupted ? null : finishGrid(dir, config, readers, axes, pointInfoFromRun(run), policyOf);
  if (done === null) return { name: config.name, dir, run, rows: [], files: [], best: null };
  return { name: config.name, dir, run, rows: done.rows, files: done.files, best: done.best };
}

/**
 * Whether the grid of `config` over `axes` under `out` is finished: its best.json is over the same
 * axes and validation trials, and every point folder is complete (has its summary.csv).
 */
export function isGridFinished(out: string, given: ExperimentConfig, axes: readonly SweepAxis[]): boolean {
  const config = withoutCostTwins(given);
  const dir = gridDir(out, config.name);
  let best: BestFileRead;
  try {
    best = readBestFile(path.join(dir, BEST_FILE));
  } catch {
    return false;
  }
  const same = JSON.stringify(best.axes) === JSON.stringify(axes.map((a) => ({ key: a.key, values: [...a.values] })));
  if (!same || best.trials !== config.trials) return false;
  const readers = axisReaders(config, axes);
  return sweepPoints(axes)
    .filter((point) => labelsAt(axes, readers, point).length > 0)
    .every((point) => fs.existsSync(path.join(dir, point.name, SUMMARY_FILE)));
}

/**
 * Whether resuming must keep the grid of `config` under `out` as it stands: it is finished
 * (isGridFinished) but some unit's files are not here (a grid committed with its best.json and its
 * points' summary.csv and manifest.json only), and every point folder records the config the grid would
 * run there now. A point that records another config is refused as `--resume` refuses it
 * (checkResumable: a RunError).
 */
export function isGridKept(out: string, given: ExperimentConfig, axes: readonly SweepAxis[], options: Omit<ResolveOptions, 'split'> = {}): boolean {
  if (!isGridFinished(out, given, axes)) return false;
  const config = withoutCostTwins(given);
  const readers = axisReaders(config, axes);
  const dir = gridDir(out, config.name);
  const points = sweepPoints(axes).filter((point) => labelsAt(axes, readers, point).length > 0);
  // With every unit's files here the runner resumes it as usual (nothing left to play).
  if (points.every((point) => unitCsvsHere(path.join(dir, point.name), labelsAt(axes, readers, point), config.trials))) return false;
  for (const point of points) {
    const variant = sweepVariant(config, axes, point, { split: 'validation' }, labelsAt(axes, readers, point));
    checkResumable(path.join(dir, point.name), resolveExperiment(variant, { ...options, split: 'validation' }), undefined);
  }
  return true;
}

/** Per label, the `params` values a best.json chose (keys without `params.`); λ and η are derived again per experiment. */
export type TunedValues = Record<string, Record<string, unknown>>;

/** A best.json as results/read.ts reads it. */
type BestFileRead = ReturnType<typeof readBestFile>;

/** What a best.json gives `--params`: the experiment it was tuned on, per label the chosen values and the policy tuned (null in older files). */
export interface Tuned {
  experiment: string | null;
  policies: TunedValues;
  algorithms: ReadonlyMap<string, string | null>;
}

/**
 * Per label the `params` values a best.json (read by results/read.ts `readBestFile`) chose; older
 * files give only l and e, and no policy. A chosen key outside `params` is a one-line ResultsError
 * naming `file` (exit 2).
 */
export function tunedValues(file: string, best: BestFileRead): Tuned {
  const policies: TunedValues = Object.create(null) as TunedValues;
  const algorithms = new Map<string, string | null>();
  for (const [label, entry] of Object.entries(best.policies)) {
    const chosen: Record<string, unknown> = {};
    const values = entry.values ?? { 'params.l': entry.l, 'params.e': entry.e };
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) continue;
      if (!key.startsWith('params.')) throw new ResultsError(`${file}: policies.${label}.values: ${key} is not a params key; only params can be applied per policy`);
      chosen[key.slice('params.'.length)] = value;
    }
    policies[label] = chosen;
    algorithms.set(label, typeof entry.policy === 'string' ? entry.policy : null);
  }
  return { experiment: typeof best.experiment === 'string' ? best.experiment : null, policies, algorithms };
}

/**
 * Refuses (exit 2) to apply `tuned` to a label whose policy differs from the one it was tuned for:
 * values chosen for one algorithm say nothing of another's.
 */
function checkAlgorithms(config: ExperimentConfig, tuned: Tuned, file: string): void {
  for (const entry of config.policies) {
    const algorithm = tuned.algorithms.get(entry.label);
    if (algorithm !== undefined && algorithm !== null && algorithm !== entry.policy) {
      throw new RunError(
        `--params ${file}: policies.${entry.label}: tuned for ${algorithm}, but ${entry.label} runs ${entry.policy} in experiment ${config.name}; tune ${entry.label} again, or give it the label it was tuned under`,
        2,
      );
    }
  }
}

/** JSON with object keys sorted (two params objects compare equal whatever their key order). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Cost twins: labels whose entry differs from an earlier label's of the same policy only in keys that
 * change what a round costs, never what it decides (PolicyDescriptor.costOnly, e.g. OFUL-MLogB's
 * oful_solver), as label → that earlier label. A twin plays the same actions at the same values, so a
 * tuning grid runs only the earlier label and the twin takes its values (`withPolicyParams`).
 */
export function costTwins(config: Pick<ExperimentConfig, 'policies'>): Map<string, string> {
  const twins = new Map<string, string>();
  const seen: { policy: string; label: string; key: string }[] = [];
  for (const entry of config.policies) {
    const costOnly = entryCostOnly(entry);
    const decisive = Object.fromEntries(Object.entries(entry.params).filter(([key]) => !(costOnly as readonly string[]).includes(key)));
    const key = canonical(decisive);
    const earlier = costOnly.length === 0 ? undefined : seen.find((s) => s.policy === entry.policy && s.key === key);
    if (earlier === undefined) seen.push({ policy: entry.policy, label: entry.label, key });
    else twins.set(entry.label, earlier.label);
  }
  return twins;
}

/** The units (policy × trial) the grid of `given` over `axes` runs, per label: each label at the points of the keys it reads, × trials; cost twins not run. */
export function gridUnits(given: ExperimentConfig, axes: readonly SweepAxis[]): Map<string, number> {
  const config = withoutCostTwins(given);
  const readers = axisReaders(config, axes);
  const units = new Map(config.policies.map((entry) => [entry.label, 0]));
  for (const point of sweepPoints(axes)) for (const label of labelsAt(axes, readers, point)) units.set(label, (units.get(label) ?? 0) + config.trials);
  return units;
}

/** `config` without its cost twins (what a tuning grid runs; see `costTwins`). */
export function withoutCostTwins(config: ExperimentConfig): ExperimentConfig {
  const twins = costTwins(config);
  if (twins.size === 0) return config;
  const variant = reconfigure(
    config,
    (document) => {
      document.policies = (document.policies as unknown[]).filter((_, i) => !twins.has((config.policies[i] as ExperimentConfig['policies'][number]).label));
    },
    `tuned once with ${[...twins].map(([twin, label]) => `${twin} (as ${label})`).join(', ')}`,
  );
  return { ...variant, ...(config.seedName === undefined ? {} : { seedName: config.seedName }) };
}

/**
 * `config` with a best.json's values applied to the entries of the same labels (as their own params,
 * validated again: a value a policy does not read is refused). A label absent from it takes its cost
 * twin's values (`costTwins`); other absent labels keep theirs.
 */
export function withPolicyParams(config: ExperimentConfig, policies: TunedValues, origin = '--params'): ExperimentConfig {
  const twins = costTwins(config);
  const variant = reconfigure(
    config,
    (document) => {
      document.policies = (document.policies as unknown[]).map((raw, i) => {
        const entry = config.policies[i] as ExperimentConfig['policies'][number];
        const twin = twins.get(entry.label);
        const own = (label: string | undefined) => (label !== undefined && Object.hasOwn(policies, label) ? policies[label] : undefined);
        const chosen = own(entry.label) ?? own(twin);
        if (chosen === undefined) return raw;
        // An external entry keeps its form ({module, …}, {command, …}), with the chosen values among its params.
        if (entry.external !== undefined) return { ...(raw as Record<string, unknown>), params: { ...(raw as { params?: Record<string, unknown> }).params, ...chosen } };
        const params: Record<string, unknown> = { ...entry.params };
        if ('l' in chosen) delete params.lambda;
        if ('e' in chosen) delete params.eta;
        // A label that is the policy's own name stays implicit (a name such as OFULog+ is no valid label).
        const label = entry.label === entry.policy ? {} : { label: entry.label };
        return { policy: entry.policy, ...label, params: { ...params, ...chosen } };
      });
    },
    origin,
  );
  return { ...variant, ...(config.seedName === undefined ? {} : { seedName: config.seedName }) };
}

/**
 * `--params`: one best.json applies to every experiment (with a note where it was tuned on another);
 * several apply each to the experiment it names, and every experiment needs one. A file tuned on an
 * experiment that `--experiment` left out (`left`) is not used. Values tuned for another policy than
 * the label's are refused. `log` gets the notes (`note: …`).
 */
export function applyBestFiles(configs: readonly ExperimentConfig[], files: readonly string[], log: (line: string) => void, left: readonly string[] = []): ExperimentConfig[] {
  const bests = files.map((file) => ({ file, ...tunedValues(file, readBestFile(file)) }));
  const apply = (config: ExperimentConfig, best: (typeof bests)[number]): ExperimentConfig => {
    checkAlgorithms(config, best, best.file);
    return withPolicyParams(config, best.policies, `--params ${best.file}`);
  };
  if (bests.length === 1) {
    const [best] = bests as [(typeof bests)[number]];
    return configs.map((config) => {
      if (best.experiment !== null && best.experiment !== (config.seedName ?? config.name)) {
        log(`note: ${best.file} was tuned on experiment ${best.experiment}, applied to ${config.name}`);
      }
      return apply(config, best);
    });
  }
  for (const best of bests) {
    const known = configs.some((config) => (config.seedName ?? config.name) === best.experiment) || left.includes(best.experiment as string);
    if (!known) {
      throw new RunError(`--params ${best.file}: tuned on ${JSON.stringify(best.experiment)}, which is not an experiment of this run (${[...configs.map((c) => c.name), ...left].join(', ')})`, 2);
    }
  }
  return configs.map((config) => {
    const matching = bests.filter((best) => best.experiment === (config.seedName ?? config.name));
    if (matching.length !== 1) {
      throw new RunError(`--params: ${matching.length === 0 ? 'no' : `${matching.length}`} best.json tuned on ${config.name} (give exactly one per experiment, or a single file for all)`, 2);
    }
    return apply(config, matching[0] as (typeof bests)[number]);
  });
}
