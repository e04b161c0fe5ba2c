/**
 * Section 4's hyperparameter search: λ = (√K d)^l λ0 and η = (√K d)^e η0 over a grid of (l, e)
 * (by default {−0.5, −0.25, 0, 0.25, 0.5, 0.75, 1}², 49 points), for the policies that read λ or η,
 * on the VALIDATION seed split (disjoint from the trials `eofd run` reports).
 *
 * The grid is the sweep (sweep.ts) over params.l and params.e with λ and η left to them: every point
 * `l=<l>,e=<e>` is an ordinary run under `<out>/<name>-grid/` on the base experiment's seeds, so every
 * point plays the same instances. Afterwards `grid.csv`, one heatmap per policy and `best.json` are
 * written (atomically).
 */
import path from 'node:path';
import { RunError } from '../base/errors.js';
import type { ExperimentConfig, PolicyExponents } from '../config/schema.js';
import { hasStepParameters, POLICY_NAMES } from '../policies/registry.js';
import { gridHeatmapSvg } from '../report/heatmap.js';
import { BEST_FILE, GRID_FILE, gridDir, heatmapFile, SWEEP_SHARD_FILE } from '../results/layout.js';
import { readBestFile as readBestJson, ResultsError } from '../results/read.js';
import { BEST_FORMAT, gridCsv, SWEEP_SHARD_FORMAT, type BestEntry, type BestFile, type GridRow, type SweepShardFile } from '../results/sweep.js';
import { writeFileAtomic, writeJsonAtomic } from '../results/write.js';
import { mean, sampleStd } from '../stats/descriptive.js';
import type { RunOptions, RunResult } from './runner.js';
import { pointInfoFromRun, readPointUnits, runSweepPoints, sweepPoints, sweepVariant, type PointInfo, type PointUnits, type SweepAxis, type SweepPoint } from './sweep.js';

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

/** The grid as a sweep: params.l (slowest), then params.e. */
export function gridAxes(ls: readonly number[], es: readonly number[]): SweepAxis[] {
  return [
    { key: 'params.l', values: [...ls] },
    { key: 'params.e', values: [...es] },
  ];
}

/** Every (l, e), l-major, in the given orders. */
export function gridPoints(ls: readonly number[], es: readonly number[]): GridPoint[] {
  return ls.flatMap((l) => es.map((e) => ({ l, e })));
}

/** The folder (and variant) name of a grid point: `l=<l>,e=<e>`, as the sweep names it. */
export function pointName(point: GridPoint): string {
  return `l=${point.l},e=${point.e}`;
}

/** The policies a grid tunes: those of the config's that read λ or η. */
export function tunedPolicies(config: ExperimentConfig): string[] {
  return config.policies.filter(hasStepParameters);
}

/** The config of one grid point (the sweep's variant at l, e). */
export function variantConfig(config: ExperimentConfig, point: GridPoint): ExperimentConfig {
  return sweepVariant(config, gridAxes([point.l], [point.e]), { name: pointName(point), values: [point.l, point.e] }, gridVariant(config));
}

/** The variant options of the grid: validation seeds, tuned policies only, λ and η from (l, e). */
function gridVariant(config: ExperimentConfig) {
  return {
    split: 'validation' as const,
    policies: tunedPolicies(config),
    edit: (document: Record<string, unknown>) => {
      const params = document.params as Record<string, unknown>;
      delete params.lambda;
      delete params.eta;
    },
  };
}

/** Lower is better: mean final regret, then parameter error (a known one beats an unknown one), then l, then e. */
export function compareRows(a: GridRow, b: GridRow): number {
  if (a.meanFinalRegret !== b.meanFinalRegret) return a.meanFinalRegret - b.meanFinalRegret;
  const pa = a.meanParameterError;
  const pb = b.meanParameterError;
  if (pa !== pb) {
    if (pa === null) return 1;
    if (pb === null) return -1;
    return pa - pb;
  }
  return a.l - b.l || a.e - b.e;
}

/** Per policy, the row with the lowest mean final regret (ties: see compareRows). */
export function selectBest(rows: readonly GridRow[]): Map<string, GridRow> {
  const best = new Map<string, GridRow>();
  for (const row of rows) {
    const current = best.get(row.policy);
    if (current === undefined || compareRows(row, current) < 0) best.set(row.policy, row);
  }
  return best;
}

export function bestFile(config: Pick<ExperimentConfig, 'name' | 'trials'>, ls: readonly number[], es: readonly number[], rows: readonly GridRow[]): BestFile {
  const policies: Record<string, BestEntry> = {};
  for (const [policy, r] of selectBest(rows)) {
    policies[policy] = {
      l: r.l,
      e: r.e,
      lambda: r.lambda,
      eta: r.eta,
      mean_final_regret: r.meanFinalRegret,
      std_final_regret: r.stdFinalRegret,
      mean_parameter_error: r.meanParameterError,
    };
  }
  return { format: BEST_FORMAT, experiment: config.name, split: 'validation', trials: config.trials, l_values: [...ls], e_values: [...es], policies };
}

export interface GridOptions extends Omit<RunOptions, 'split' | 'out'> {
  /** Parent folder: the grid goes to `<out>/<name>-grid/`. */
  out: string;
  /** Exponents of λ (default DEFAULT_GRID). */
  l?: readonly number[];
  /** Exponents of η (default DEFAULT_GRID). */
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

/** grid.csv's rows from the units of every grid point (points l-major, then policies). */
export function gridRows(units: readonly PointUnits[]): GridRow[] {
  return units.map(({ point, policy, derived, summaries }) => {
    const regrets = summaries.map((s) => s.finalRegret);
    const errors = summaries.map((s) => s.parameterError);
    return {
      l: point.values[0] as number,
      e: point.values[1] as number,
      lambda: derived.lambda,
      eta: derived.eta,
      policy,
      trials: summaries.length,
      meanFinalRegret: mean(regrets),
      stdFinalRegret: sampleStd(regrets),
      meanParameterError: errors.every((x): x is number => typeof x === 'number') ? mean(errors) : null,
      meanRoundMs: mean(summaries.map((s) => s.meanRoundMs)),
    };
  });
}

/** Writes grid.csv, one heatmap per tuned policy and best.json into `dir` (atomically); returns best.json's content and the files. */
export function writeGridOutputs(
  dir: string,
  base: Pick<ExperimentConfig, 'name' | 'trials'>,
  policies: readonly string[],
  ls: readonly number[],
  es: readonly number[],
  rows: readonly GridRow[],
): { best: BestFile; files: string[] } {
  const files: string[] = [];
  const write = (name: string, text: string): void => {
    const file = path.join(dir, name);
    writeFileAtomic(file, text);
    files.push(file);
  };
  write(GRID_FILE, gridCsv(rows));
  const ordered = POLICY_NAMES.filter((p) => policies.includes(p));
  for (const policy of ordered) {
    write(heatmapFile(policy), gridHeatmapSvg({ experiment: base.name, policy, ls, es, rows: rows.filter((r) => r.policy === policy) }));
  }
  const best = bestFile(base, ls, es, rows);
  write(BEST_FILE, JSON.stringify(best, null, 2) + '\n');
  return { best, files };
}

/** The outputs of a complete grid folder from its units (used by runGrid and by merge). */
export function finishGrid(dir: string, base: Pick<ExperimentConfig, 'name' | 'trials'>, policies: readonly string[], axes: readonly SweepAxis[], info: (point: SweepPoint) => PointInfo | null): { rows: GridRow[]; best: BestFile; files: string[] } | null {
  const units = readPointUnits(dir, sweepPoints(axes), info);
  if (units === null) return null;
  const rows = gridRows(units);
  const [ls, es] = axes.map((a) => a.values as number[]) as [number[], number[]];
  return { rows, ...writeGridOutputs(dir, base, policies, ls, es, rows) };
}

/** Runs the grid of one experiment and writes its outputs when complete. */
export async function runGrid(config: ExperimentConfig, options: GridOptions): Promise<GridResult> {
  if (options.out.trim() === '') throw new RunError('--out: expected a folder, got an empty string', 2);
  const ls = options.l ?? DEFAULT_GRID;
  const es = options.e ?? DEFAULT_GRID;
  if (ls.length === 0 || es.length === 0) throw new RunError('the grid needs at least one l and one e', 2);
  const policies = tunedPolicies(config);
  if (policies.length === 0) {
    throw new RunError(`${config.name}: no policy to tune (Random has no λ or η); list EOFD-MLogB or OFUL-MLogB`, 2);
  }
  const axes = gridAxes(ls, es);
  const dir = gridDir(options.out, config.name);
  const { l: _l, e: _e, ...runOptions } = options;
  void _l;
  void _e;
  const { run } = await runSweepPoints(config, axes, gridVariant(config), { ...runOptions, out: dir });
  if (options.shard !== undefined) {
    // A shard's folder: no grid outputs (they need every unit), but what `eofd merge` needs to make them.
    const info: SweepShardFile = {
      format: SWEEP_SHARD_FORMAT,
      kind: 'grid',
      experiment: config.name,
      trials: config.trials,
      policies,
      axes,
      reference: null,
      shard: { index: options.shard.index, count: options.shard.count },
    };
    writeJsonAtomic(path.join(dir, SWEEP_SHARD_FILE), info);
    return { name: config.name, dir, run, rows: [], files: [], best: null };
  }
  const done = run.interrupted ? null : finishGrid(dir, config, policies, axes, pointInfoFromRun(run));
  if (done === null) return { name: config.name, dir, run, rows: [], files: [], best: null };
  return { name: config.name, dir, run, rows: done.rows, files: done.files, best: done.best };
}

/**
 * Reads and validates a best.json (as `eofd grid` writes it) → per policy (l, e). λ and η are
 * recomputed from them for each experiment. Problems are one-line ResultsErrors (exit 2).
 */
export function readBestFile(file: string): { experiment: string | null; policies: Record<string, PolicyExponents> } {
  const best = readBestJson(file);
  const tuned = POLICY_NAMES.filter(hasStepParameters);
  const policies: Record<string, PolicyExponents> = {};
  for (const [policy, { l, e }] of Object.entries(best.policies)) {
    if (!tuned.includes(policy)) throw new ResultsError(`${file}: policies.${policy}: unknown policy (expected ${tuned.join(' or ')})`);
    policies[policy] = { l, e };
  }
  return { experiment: typeof best.experiment === 'string' ? best.experiment : null, policies };
}

/** `config` with per-policy (l, e) from a best.json applied (policies absent from it keep params.l/e). */
export function withPolicyParams(config: ExperimentConfig, policies: Record<string, PolicyExponents>): ExperimentConfig {
  const own: Record<string, PolicyExponents> = {};
  for (const policy of config.policies) {
    const p = policies[policy];
    if (p !== undefined) own[policy] = { l: p.l, e: p.e };
  }
  return { ...config, policyParams: own };
}
