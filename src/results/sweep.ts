/**
 * The files of sweeps: `eofd sweep` writes sweep.csv (one row per point and policy) into
 * `<out>/<name>-sweep/`; `eofd grid` (the (l, e) sweep) writes grid.csv and best.json (per policy the
 * chosen (l, e)) into `<out>/<name>-grid/`. A shard's sweep or grid folder holds sweep-shard.json,
 * what `eofd merge` needs to rebuild them. Readers validate through the schemas here (read.ts).
 */
import { z } from 'zod';
import { stringify as stringifyCsv } from 'csv-stringify/sync';
import { exact } from './records.js';

export const BEST_FORMAT = 'eofd-best/1';
export const SWEEP_SHARD_FORMAT = 'eofd-sweep-shard/1';

/** One row of grid.csv: one (grid point, label) the label ran at. */
export interface GridRow {
  /** The point's value of each swept key, in axis order; null for a key the label's policy does not read. */
  values: unknown[];
  /** λ and η the policy used (null: it reads neither). */
  lambda: number | null;
  eta: number | null;
  /** The label. */
  policy: string;
  /** The label's policy (registry name). */
  policyName: string;
  trials: number;
  meanFinalRegret: number;
  stdFinalRegret: number;
  /** null when W* is unknown (MNIST) or a trial gave none. */
  meanParameterError: number | null;
  meanRoundMs: number;
  /** Final regret per validation trial, in trial order (for paired comparisons between rows). */
  finalRegrets: number[];
}

/** grid.csv's columns after the swept keys' (one each, named as in the point folders: `l`, `e`, `m`, …). */
export const GRID_COLUMNS = ['lambda', 'eta', 'policy', 'trials', 'mean_final_regret', 'std_final_regret', 'mean_parameter_error', 'mean_round_ms'] as const;

/**
 * The header cells of the swept keys before `columns`: each key as given, or `over:<key>` when a
 * column has its name (a swept `trials` beside the trials count, `params.lambda` as `lambda` beside
 * λ), so that every column of the file has its own name.
 */
export function axisColumns(keys: readonly string[], columns: readonly string[]): string[] {
  return keys.map((key) => (columns.includes(key) ? `over:${key}` : key));
}

/** grid.csv's text (a key a label does not read is an empty cell). */
export function gridCsv(keys: readonly string[], rows: readonly GridRow[]): string {
  return stringifyCsv([
    [...axisColumns(keys, GRID_COLUMNS), ...GRID_COLUMNS],
    ...rows.map((r) => [
      ...r.values.map((v) => (v === null ? '' : typeof v === 'number' ? exact(v) : typeof v === 'string' ? v : JSON.stringify(v))),
      r.lambda === null ? '' : exact(r.lambda),
      r.eta === null ? '' : exact(r.eta),
      r.policy,
      String(r.trials),
      exact(r.meanFinalRegret),
      exact(r.stdFinalRegret),
      r.meanParameterError === null ? '' : exact(r.meanParameterError),
      r.meanRoundMs.toFixed(6),
    ]),
  ]);
}

/** One label's choice in best.json. */
export interface BestEntry {
  /** The label's policy. */
  policy: string;
  /** The chosen value of each swept key the policy reads (`params.l`, …). */
  values: Record<string, unknown>;
  lambda: number | null;
  eta: number | null;
  mean_final_regret: number;
  std_final_regret: number;
  mean_parameter_error: number | null;
  /**
   * The second-best values and the paired difference best − runner-up of final regret over the
   * validation trials (95% Student-t); `separated` when its interval lies below 0. null: one candidate.
   */
  runner_up: {
    values: Record<string, unknown>;
    mean_final_regret: number;
    difference: { mean: number; ci_low: number | null; ci_high: number | null; level: number; trials: number };
    separated: boolean;
  } | null;
  /** Keys whose chosen value is the smallest or largest of its list (≥ 3 numbers): widen the list. */
  edge: string[];
}

export interface BestFile {
  format: typeof BEST_FORMAT;
  experiment: string;
  split: 'validation';
  trials: number;
  axes: { key: string; values: unknown[] }[];
  /** The (l, e) grid's lists (only for that grid). */
  l_values?: number[];
  e_values?: number[];
  policies: Record<string, BestEntry>;
}

const finite = z.number({ error: 'expected a finite number' }).refine(Number.isFinite, { error: 'expected a finite number' });

/** A best.json's chosen values: `params.*` keys only (only params can be applied per policy). */
const chosenValues = z.record(z.string(), z.unknown()).check((ctx) => {
  const key = Object.keys(ctx.value).find((k) => !k.startsWith('params.'));
  if (key !== undefined) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: `${key} is not a params key; only params can be applied per policy` });
  }
});

/**
 * What `eofd run --params` reads of a best.json: per label its chosen values (`values`, or l and e as
 * older files give them); λ and η are recomputed for each experiment. `format` may be absent (a
 * hand-written file).
 */
export const bestFileSchema = z.looseObject(
  {
    format: z.literal(BEST_FORMAT, { error: `expected ${JSON.stringify(BEST_FORMAT)}` }).optional(),
    experiment: z.unknown().optional(),
    policies: z
      .record(
        z.string(),
        z
          .looseObject({ policy: z.string({ error: 'expected the name of the policy tuned' }).optional(), values: chosenValues.optional(), l: finite.optional(), e: finite.optional() }, { error: 'expected an object {values} or {l, e}' })
          .refine((p) => p.values !== undefined || (p.l !== undefined && p.e !== undefined), { error: 'expected {values: {key: value}} or both l and e' }),
        { error: 'expected an object mapping labels to their chosen values' },
      )
      .refine((p) => Object.keys(p).length > 0, { error: 'expected at least one policy' }),
  },
  { error: 'expected a JSON object as `eofd grid` writes it' },
);

/** One row of sweep.csv: one (point, policy), with the paired difference to the reference policy. */
export interface SweepRow {
  /** The point's value of each swept key, in axis order. */
  values: unknown[];
  policy: string;
  trials: number;
  meanFinalRegret: number;
  stdFinalRegret: number;
  /** The policy the differences are taken against (null for the reference's own row). */
  reference: string | null;
  /** Mean per-trial difference of final regret, policy − reference, with its 95% Student-t interval. */
  regretDiff: number | null;
  regretDiffLow: number | null;
  regretDiffHigh: number | null;
  /** regretDiff as % of the reference's mean final regret. */
  regretDiffPct: number | null;
  meanRoundMs: number;
  /** Mean Δ_T and β_T over trials (null for policies without them). */
  meanDeltaT: number | null;
  meanBetaT: number | null;
  meanProjections: number;
  meanParameterError: number | null;
}

/** sweep.csv's columns after the swept keys (one column each, named by key). */
export const SWEEP_COLUMNS = [
  'policy',
  'trials',
  'mean_final_regret',
  'std_final_regret',
  'reference',
  'regret_diff',
  'regret_diff_ci_low',
  'regret_diff_ci_high',
  'regret_diff_pct',
  'mean_round_ms',
  'delta_T',
  'beta_T',
  'projections',
  'mean_parameter_error',
] as const;

/** sweep.csv's text: the swept keys (axisColumns), then SWEEP_COLUMNS. */
export function sweepCsv(keys: readonly string[], rows: readonly SweepRow[]): string {
  const num = (x: number | null): string => (x === null || !Number.isFinite(x) ? '' : exact(x));
  const text = (v: unknown): string => (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v));
  return stringifyCsv([
    [...axisColumns(keys, SWEEP_COLUMNS), ...SWEEP_COLUMNS],
    ...rows.map((r) => [
      ...r.values.map(text),
      r.policy,
      String(r.trials),
      num(r.meanFinalRegret),
      num(r.stdFinalRegret),
      r.reference ?? '',
      num(r.regretDiff),
      num(r.regretDiffLow),
      num(r.regretDiffHigh),
      num(r.regretDiffPct),
      r.meanRoundMs.toFixed(6),
      num(r.meanDeltaT),
      num(r.meanBetaT),
      num(r.meanProjections),
      num(r.meanParameterError),
    ]),
  ]);
}

/** In a shard's sweep or grid folder: what `eofd merge` needs to rebuild the folder's outputs. */
export interface SweepShardFile {
  format: typeof SWEEP_SHARD_FORMAT;
  /** 'grid': grid.csv, heatmaps and best.json; 'sweep': sweep.csv and its figures. */
  kind: 'grid' | 'sweep';
  experiment: string;
  trials: number;
  policies: string[];
  /** Per label, the swept keys it reads (sweep.ts axisReaders); absent: every label reads every key. */
  readers?: Record<string, string[]>;
  axes: { key: string; values: unknown[] }[];
  /** The sweep's reference policy (null for a grid). */
  reference: string | null;
  shard: { index: number; count: number };
}

const integer = z.number({ error: 'expected an integer' }).int({ error: 'expected an integer' });

export const sweepShardSchema = z.looseObject(
  {
    format: z.literal(SWEEP_SHARD_FORMAT, { error: `expected ${JSON.stringify(SWEEP_SHARD_FORMAT)}` }),
    kind: z.enum(['grid', 'sweep'], { error: "expected 'grid' or 'sweep'" }),
    experiment: z.string({ error: 'expected a name' }),
    trials: integer,
    policies: z.array(z.string({ error: 'expected a name' }), { error: 'expected a list of names' }),
    readers: z
      .record(z.string(), z.array(z.string({ error: 'expected a key' }), { error: 'expected a list of keys' }), { error: 'expected an object mapping labels to keys' })
      .optional(),
    axes: z
      .array(z.looseObject({ key: z.string({ error: 'expected a key' }), values: z.array(z.unknown(), { error: 'expected a list of values' }).min(1, { error: 'expected values' }) }), {
        error: 'expected a list of {key, values}',
      })
      .min(1, { error: 'expected at least one axis' }),
    reference: z.string({ error: 'expected a policy name or null' }).nullable(),
    shard: z.looseObject({ index: integer, count: integer }, { error: 'expected {index, count}' }),
  },
  { error: 'expected a JSON object' },
);
