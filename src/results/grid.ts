/**
 * The files of a grid search (`<out>/<name>-grid/`): grid.csv (one row per grid point and policy),
 * best.json (per policy the chosen (l, e)) and, in a shard's grid folder, grid-shard.json (what
 * `eofd merge` needs to rebuild the other two). Readers validate through the schemas here (read.ts).
 */
import { z } from 'zod';
import { exact } from './records.js';

export const BEST_FORMAT = 'eofd-best/1';
export const GRID_SHARD_FORMAT = 'eofd-grid-shard/1';

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

/** grid.csv's text. */
export function gridCsv(rows: readonly GridRow[]): string {
  const num = (x: number | null): string => (x === null ? '' : exact(x));
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

const finite = z.number({ error: 'expected a finite number' }).refine(Number.isFinite, { error: 'expected a finite number' });

/**
 * What `eofd run --params` reads of a best.json: per policy (l, e); λ and η are recomputed from them
 * for each experiment. `format` may be absent (a hand-written file).
 */
export const bestFileSchema = z.looseObject(
  {
    format: z.literal(BEST_FORMAT, { error: `expected ${JSON.stringify(BEST_FORMAT)}` }).optional(),
    experiment: z.unknown().optional(),
    policies: z
      .record(z.string(), z.looseObject({ l: finite, e: finite }, { error: 'expected an object {l, e}' }), {
        error: 'expected an object mapping policy names to {l, e}',
      })
      .refine((p) => Object.keys(p).length > 0, { error: 'expected at least one policy' }),
  },
  { error: 'expected a JSON object as `eofd grid` writes it' },
);

export interface GridShardFile {
  format: typeof GRID_SHARD_FORMAT;
  experiment: string;
  trials: number;
  policies: string[];
  l_values: number[];
  e_values: number[];
  shard: { index: number; count: number };
}

const numbers = z.array(finite, { error: 'expected a list of numbers' }).min(1, { error: 'expected a list of numbers' });

export const gridShardSchema = z.looseObject(
  {
    format: z.literal(GRID_SHARD_FORMAT, { error: `expected ${JSON.stringify(GRID_SHARD_FORMAT)}` }),
    experiment: z.string({ error: 'expected a name' }),
    trials: z.number({ error: 'expected an integer' }).int({ error: 'expected an integer' }),
    policies: z.array(z.string(), { error: 'expected a list of names' }),
    l_values: numbers,
    e_values: numbers,
    shard: z.looseObject(
      { index: z.number({ error: 'expected an integer' }).int({ error: 'expected an integer' }), count: z.number({ error: 'expected an integer' }).int({ error: 'expected an integer' }) },
      { error: 'expected {index, count}' },
    ),
  },
  { error: 'expected a JSON object' },
);
