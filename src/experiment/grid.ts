/**
 * Section 4's hyperparameter search: λ = (√K d)^l λ0 and η = (√K d)^e η0 over a grid of (l, e)
 * (by default {−0.5, −0.25, 0, 0.25, 0.5, 0.75, 1}², 49 points), each policy but Random, on the
 * VALIDATION seed split (disjoint from the trials `eofd run` reports).
 *
 * Every grid point is one variant of the experiment, named `l=<l>,e=<e>`, run by the ordinary runner
 * under `<out>/<name>-grid/` (so it is resumable and --jobs-parallel with the runner's guarantees). The
 * variants keep the base experiment's seed name, so every grid point plays the same instances.
 * Afterwards `grid.csv`, one heatmap per policy and `best.json` are written (atomically).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ExperimentConfig, PolicyExponents } from '../config/schema.js';
import { POLICY_NAMES } from '../policies/policy.js';
import { gridHeatmapSvg } from '../report/heatmap.js';
import { readFinishedUnit, unitFiles, writeFileAtomic } from './output.js';
import { RunError, runExperiments, type RunOptions, type RunResult } from './runner.js';

/** The paper's exponents for l and for e. */
export const DEFAULT_GRID: readonly number[] = [-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1];

export const BEST_FORMAT = 'eofd-best/1';

export interface GridPoint {
  l: number;
  e: number;
}

/** One row of grid.csv: one (grid point, policy). */
export interface GridRow {
  l: number;
  e: number;
  lambda: number;
  eta: number;
  policy: string;
  trials: number;
  meanFinalRegret: number;
  stdFinalRegret: number;
  /** null when W* is unknown (MNIST) or a trial gave none. */
  meanParameterError: number | null;
  meanRoundMs: number;
}

export interface BestEntry {
  l: number;
  e: number;
  lambda: number;
  eta: number;
  mean_final_regret: number;
  std_final_regret: number;
  mean_parameter_error: number | null;
}

export interface BestFile {
  format: typeof BEST_FORMAT;
  experiment: string;
  split: 'validation';
  trials: number;
  l_values: number[];
  e_values: number[];
  policies: Record<string, BestEntry>;
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

/** Every (l, e), l-major, in the given orders. */
export function gridPoints(ls: readonly number[], es: readonly number[]): GridPoint[] {
  return ls.flatMap((l) => es.map((e) => ({ l, e })));
}

/** The folder (and variant) name of a grid point. */
export function pointName(point: GridPoint): string {
  return `l=${point.l},e=${point.e}`;
}

/** `<out>/<name>-grid` */
export function gridDir(out: string, name: string): string {
  return path.join(out, `${name}-grid`);
}

/** The policies a grid tunes: every one of the config's except Random (no λ, η). */
export function tunedPolicies(config: ExperimentConfig): string[] {
  return config.policies.filter((p) => p !== 'Random');
}

/** The variant of `config` at one grid point: λ and η from (l, e), validation seeds of the base name. */
export function variantConfig(config: ExperimentConfig, point: GridPoint): ExperimentConfig {
  const params = { ...config.params, l: point.l, e: point.e };
  delete params.lambda;
  delete params.eta;
  const variant: ExperimentConfig = {
    ...config,
    name: pointName(point),
    seedName: config.seedName ?? config.name,
    policies: tunedPolicies(config) as ExperimentConfig['policies'],
    params,
  };
  delete (variant as { policyParams?: unknown }).policyParams;
  return variant;
}

function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

/** Sample standard deviation (n − 1); 0 for one value. */
function sampleStd(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((s, v) => s + (v - m) ** 2, 0) / (values.length - 1));
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

/** Shortest round-trip form of a number (`exact`-like), empty for null. */
function num(x: number | null): string {
  return x === null ? '' : String(x);
}

export const GRID_COLUMNS = [
  'l',
  'e',
  'lambda',
  'eta',
  'policy',
  'trials',
  'mean_final_regret',
  'std_final_regret',
  'mean_parameter_error',
  'mean_round_ms',
] as const;

export function gridCsv(rows: readonly GridRow[]): string {
  const lines = [GRID_COLUMNS.join(',')];
  for (const r of rows) {
    lines.push(
      [r.l, r.e, r.lambda, r.eta, r.policy, r.trials, r.meanFinalRegret, r.stdFinalRegret, num(r.meanParameterError), r.meanRoundMs.toFixed(6)]
        .map((v) => (typeof v === 'number' ? num(v) : v))
        .join(','),
    );
  }
  return lines.join('\n') + '\n';
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

/** What the rows of one grid point need from its variant (the resolved config, or its manifest). */
export interface VariantInfo {
  derived: { lambda: number; eta: number };
  policies: readonly string[];
  trials: number;
  horizon: number;
}

/**
 * Reads the finished units of every grid point under `dir` into rows (grid point order, then policy
 * order); null if a grid point is unknown or a unit is not finished.
 */
export function gridRows(dir: string, points: readonly GridPoint[], variant: (point: GridPoint) => VariantInfo | null): GridRow[] | null {
  const rows: GridRow[] = [];
  for (const point of points) {
    const info = variant(point);
    if (info === null) return null;
    for (const policy of info.policies) {
      const summaries = [];
      for (let trial = 0; trial < info.trials; trial++) {
        const unit = readFinishedUnit(unitFiles(path.join(dir, pointName(point)), policy, trial), policy, trial, info.horizon);
        if (unit === null) return null;
        summaries.push(unit.summary);
      }
      const regrets = summaries.map((s) => s.finalRegret);
      const errors = summaries.map((s) => s.parameterError);
      rows.push({
        l: point.l,
        e: point.e,
        lambda: info.derived.lambda,
        eta: info.derived.eta,
        policy,
        trials: summaries.length,
        meanFinalRegret: mean(regrets),
        stdFinalRegret: sampleStd(regrets),
        meanParameterError: errors.every((x): x is number => typeof x === 'number') ? mean(errors) : null,
        meanRoundMs: mean(summaries.map((s) => s.meanRoundMs)),
      });
    }
  }
  return rows;
}

function collectRows(dir: string, result: RunResult, points: readonly GridPoint[]): GridRow[] | null {
  return gridRows(dir, points, (point) => {
    const outcome = result.experiments.find((x) => x.name === pointName(point));
    if (outcome === undefined || !outcome.complete) return null;
    const { derived, config: variant } = outcome.resolved;
    return { derived, policies: variant.policies, trials: variant.trials, horizon: variant.horizon };
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
  write('grid.csv', gridCsv(rows));
  const ordered = POLICY_NAMES.filter((p) => policies.includes(p));
  for (const policy of ordered) {
    write(heatmapFile(policy), gridHeatmapSvg({ experiment: base.name, policy, ls, es, rows: rows.filter((r) => r.policy === policy) }));
  }
  const best = bestFile(base, ls, es, rows);
  write('best.json', JSON.stringify(best, null, 2) + '\n');
  return { best, files };
}

/** In a shard's grid folder: what `eofd merge` needs to rebuild grid.csv, heatmaps and best.json. */
export const GRID_SHARD_FILE = 'grid-shard.json';
export const GRID_SHARD_FORMAT = 'eofd-grid-shard/1';

export interface GridShardFile {
  format: typeof GRID_SHARD_FORMAT;
  experiment: string;
  trials: number;
  policies: string[];
  l_values: number[];
  e_values: number[];
  shard: { index: number; count: number };
}

/** A file name for a policy's heatmap: `heatmap-EOFD-MLogB.svg`. */
export function heatmapFile(policy: string): string {
  return `heatmap-${policy.replace(/[^A-Za-z0-9._-]/g, '_')}.svg`;
}

/** Runs the grid of one experiment and writes its outputs when complete. */
export async function runGrid(config: ExperimentConfig, options: GridOptions): Promise<GridResult> {
  const ls = options.l ?? DEFAULT_GRID;
  const es = options.e ?? DEFAULT_GRID;
  if (ls.length === 0 || es.length === 0) throw new RunError('the grid needs at least one l and one e', 2);
  const policies = tunedPolicies(config);
  if (policies.length === 0) {
    throw new RunError(`${config.name}: no policy to tune (Random has no λ or η); list EOFD-MLogB or OFUL-MLogB`, 2);
  }
  const points = gridPoints(ls, es);
  const dir = gridDir(options.out, config.name);
  const { l: _l, e: _e, ...runOptions } = options;
  void _l;
  void _e;
  const run = await runExperiments(
    points.map((p) => variantConfig(config, p)),
    { ...runOptions, out: dir, split: 'validation' },
  );
  if (options.shard !== undefined) {
    // A shard's folder: no grid outputs (they need every unit), but what `eofd merge` needs to make them.
    const info: GridShardFile = {
      format: GRID_SHARD_FORMAT,
      experiment: config.name,
      trials: config.trials,
      policies,
      l_values: [...ls],
      e_values: [...es],
      shard: { index: options.shard.index, count: options.shard.count },
    };
    writeFileAtomic(path.join(dir, GRID_SHARD_FILE), JSON.stringify(info, null, 2) + '\n');
    return { name: config.name, dir, run, rows: [], files: [], best: null };
  }
  const rows = run.interrupted ? null : collectRows(dir, run, points);
  if (rows === null) return { name: config.name, dir, run, rows: [], files: [], best: null };
  const { best, files } = writeGridOutputs(dir, config, policies, ls, es, rows);
  return { name: config.name, dir, run, rows, files, best };
}

/** A best.json problem: one line naming the file and the field (exit code 2). */
function bad(file: string, field: string, detail: string): never {
  throw new RunError(`${file}: ${field}: ${detail}`, 2);
}

/**
 * Reads and validates a best.json (as `eofd grid` writes it) → per policy (l, e).
 * Only `policies.<name>.l` and `.e` are used; λ and η are recomputed from them for each experiment.
 */
export function readBestFile(file: string): { experiment: string | null; policies: Record<string, PolicyExponents> } {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    const code = String((error as NodeJS.ErrnoException).code ?? '');
    throw new RunError(`${file}: cannot read it (${code === 'ENOENT' ? 'no such file' : code || String(error)})`, 2);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    bad(file, '(file)', `not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) bad(file, '(file)', 'expected a JSON object as `eofd grid` writes it');
  const doc = json as Record<string, unknown>;
  if (doc.format !== undefined && doc.format !== BEST_FORMAT) {
    bad(file, 'format', `expected ${JSON.stringify(BEST_FORMAT)}, got ${JSON.stringify(doc.format)}`);
  }
  const policies = doc.policies;
  if (typeof policies !== 'object' || policies === null || Array.isArray(policies)) {
    bad(file, 'policies', `expected an object mapping policy names to {l, e}, got ${JSON.stringify(policies) ?? 'nothing'}`);
  }
  const out: Record<string, PolicyExponents> = {};
  const entries = Object.entries(policies as Record<string, unknown>);
  if (entries.length === 0) bad(file, 'policies', 'expected at least one policy');
  for (const [policy, entry] of entries) {
    const field = `policies.${policy}`;
    if (!(POLICY_NAMES as readonly string[]).includes(policy) || policy === 'Random') {
      bad(file, field, `unknown policy (expected ${POLICY_NAMES.filter((p) => p !== 'Random').join(' or ')})`);
    }
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) bad(file, field, `expected an object {l, e}, got ${JSON.stringify(entry)}`);
    const { l, e } = entry as Record<string, unknown>;
    if (typeof l !== 'number' || !Number.isFinite(l)) bad(file, `${field}.l`, `expected a finite number, got ${JSON.stringify(l) ?? 'nothing'}`);
    if (typeof e !== 'number' || !Number.isFinite(e)) bad(file, `${field}.e`, `expected a finite number, got ${JSON.stringify(e) ?? 'nothing'}`);
    out[policy] = { l, e };
  }
  const experiment = typeof doc.experiment === 'string' ? doc.experiment : null;
  return { experiment, policies: out };
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
