/**
 * Any labelled data set as a bandit (`type: classification`), the protocol of Cesa-Bianchi et al.
 * (2013) that Section 4 uses for MNIST, generalised:
 * - candidates: each round one example of every class, in a random order (default), or
 *   `candidates: n` distinct examples drawn uniformly from the whole file;
 * - outcomes: `target` (a label or a list) makes the binary problem, K = 1, r = [1]: y = 1 iff the
 *   played example's label is a target; `outcomes: [[labels for y = 1], …]` makes K = its length with
 *   rewards r_0..r_K (default r_k = k/K); a label in no list is the null outcome y = 0. The outcome is
 *   the played example's, not sampled; regret is the best candidate's reward minus the played one's
 *   (with one example per class and a target present: 1 − reward, as for MNIST).
 *
 * Features (d = feature columns + 1 with `bias`, the default): with ‖v‖² summed over a row's values
 * in column order, `normalize` 'global' multiplies every value by c / max_rows ‖v‖, 'per-row' by
 * c / ‖v‖ (an all-zero row stays zero), where c = 1/√2 with a bias and 1 without; the bias coordinate
 * is c. So ‖x‖ ≤ 1 (D = 1). 'none' keeps the values and, when some ‖(v, 1)‖ (or ‖v‖ without bias)
 * exceeds 1, divides every coordinate by the largest. Each value is scaled by one multiplication, so
 * a file and the `mnist` package's digits give bit-identical features (test/environments).
 * 'standardize' z-scores every feature column over all N rows of the file first (columnStatistics:
 * μ_j = Σ_i v_ij / N, s_j = √(Σ_i (v_ij − μ_j)² / (N − 1)), a value a row does not store being 0):
 * z_ij = (v_ij − μ_j) / s_j, and z_ij = 0 in a column with s_j = 0 (a constant column); then, with
 * M = max_i ‖z_i‖ over the rows (feature columns only), x_ij = z_ij · (c / M) (0 when M = 0), and the
 * bias c is appended after standardising (it is not a column of the file and is never centred).
 * Zeros stop being special, so every row is dense: stored values hold their x_ij and a value a row
 * does not store takes its column's x for v = 0 (FeatureTable.columnBase), bit for bit what a dense
 * file of the same rows gives.
 *
 * Random numbers per round, from the environment's stream: one class at a time, `integer(0, n_c − 1)`
 * picking its example, then a Fisher–Yates shuffle of the C classes (C − 1 uniforms) — with 10
 * classes exactly the `mnist` environment's 19 uniforms; with `candidates: n`, `integer(0, N − 1)` per
 * candidate, a row already drawn this round being drawn again.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigError } from '../base/errors.js';
import { integer, listAllowed, positive, rewardVector, strictObject } from '../base/fields.js';
import type { RandomStream } from '../random/stream.js';
import { defineEnvironment, ENVIRONMENT_LIMITS, type ActionSet, type Environment, type Feedback } from './environment.js';
import {
  BlockColumn,
  canonicalLabel,
  columnStatistics,
  DATA_FORMATS,
  defaultLabelColumn,
  formatFromExtension,
  KNOWN_EXTENSIONS,
  readCsvHeader,
  readLabelledData,
  sharedFloat64,
  type DataFormat,
  type LabelledData,
  type SharedColumn,
} from './labelled-data.js';

/** The bias coordinate with feature vectors of norm ≤ 1: (v/‖v‖, 1)/√2 has norm 1. */
export const SCALED_BIAS = 1 / Math.SQRT2;

export const FEATURE_NORMALIZATIONS = ['global', 'per-row', 'none', 'standardize'] as const;
export type FeatureNormalization = (typeof FEATURE_NORMALIZATIONS)[number];

/** The resolved config (what the manifest records under `config.environment`). */
export interface ClassificationConfig {
  type: 'classification';
  /** Absolute path. */
  file: string;
  format: DataFormat;
  /** CSV: the label column. */
  label: string;
  /** Feature columns, when the config fixes them (LIBSVM: else the largest index). */
  features: number | null;
  /** Labels of each non-null outcome y = 1..K (canonical text). */
  outcomes: string[][];
  /** r_0..r_K (r_0 = 0). */
  reward: number[];
  /** Candidates per round: 'classes' (one example of each) or a count. */
  candidates: 'classes' | number;
  normalize: FeatureNormalization;
  bias: boolean;
  /** The labels rows may carry (null: any). */
  classes: string[] | null;
  /** Largest file read, MiB (after decompression). */
  max_file_mb: number;
}

/**
 * 'standardize' visits every (row, column) cell three times (two for the moments, one for the
 * norms): a file with more cells than this (rows × feature columns) is refused rather than left to
 * run for minutes; sparse, very wide data wants 'global' or 'per-row' (standardising makes it dense).
 */
export const STANDARDIZE_MAX_CELLS = 2_000_000_000;

/** A data set with its values scaled (module comment) and its bias coordinate. */
export interface FeatureTable {
  readonly data: LabelledData;
  /** d */
  readonly d: number;
  /** The bias coordinate's value (0 without a bias). */
  readonly biasValue: number;
  /**
   * The feature value of a column in a row that stores no value there (length: feature columns);
   * null: 0. Only 'standardize' has one: x_j for v = 0, i.e. (−μ_j / s_j) · c / M.
   */
  readonly columnBase: Float64Array | null;
  /** What the manifest records about the scaling (plain JSON; empty except for 'standardize'). */
  readonly facts: Readonly<Record<string, unknown>>;
}

/**
 * A scaled table as plain data for a worker thread: its large arrays (rows, indices, values, labels)
 * on SharedArrayBuffers, so a task message shares them and never copies them. Nothing writes to them.
 */
export interface SharedFeatureTable {
  readonly data: Omit<LabelledData, 'indices' | 'values'> & {
    readonly indices: SharedColumn<Int32Array>;
    readonly values: SharedColumn<Float64Array>;
  };
  readonly d: number;
  readonly biasValue: number;
  readonly columnBase: Float64Array | null;
  readonly facts: Readonly<Record<string, unknown>>;
}

/** `table` as plain shared data (shareFeatureTable ∘ openFeatureTable plays the same bits). */
export function shareFeatureTable(table: FeatureTable): SharedFeatureTable {
  const { data } = table;
  return { ...table, data: { ...data, indices: data.indices.toShared(), values: data.values.toShared() } };
}

/** The table a SharedFeatureTable holds (in a worker: over the same memory). */
export function openFeatureTable(shared: SharedFeatureTable): FeatureTable {
  const { data } = shared;
  return { ...shared, data: { ...data, indices: BlockColumn.fromShared(data.indices), values: BlockColumn.fromShared(data.values) } };
}

/** Writes row `row`'s d features (bias last) into `target[at .. at + d)`. */
export function writeFeatures(table: FeatureTable, row: number, target: Float64Array, at: number): void {
  const { data, d, biasValue, columnBase } = table;
  if (columnBase === null) target.fill(0, at, at + d);
  else target.set(columnBase, at);
  for (let k = data.rowStart[row]; k < data.rowStart[row + 1]; k++) target[at + data.indices.at(k)] = data.values.at(k);
  if (biasValue !== 0) target[at + d - 1] = biasValue;
}

/** 'standardize' (module comment): z-scores, then c / max ‖z‖; stored values rewritten in place. */
function standardizeFeatures(data: LabelledData, bias: boolean): FeatureTable {
  const { rows, features, rowStart, indices, values } = data;
  if (rows * features > STANDARDIZE_MAX_CELLS) {
    throw new ConfigError({
      file: data.file,
      detail: `normalize: standardize needs every value of the ${rows} rows × ${features} feature columns (${rows * features} cells, more than ${STANDARDIZE_MAX_CELLS}); use normalize: global or per-row, or a sample of the rows`,
    });
  }
  const { mean, sd } = columnStatistics(data);
  /** 1 / s_j is not used: (v − μ_j) / s_j is one correctly rounded division. */
  const zOf = (v: number, j: number): number => (sd[j] > 0 ? (v - mean[j]) / sd[j] : 0);
  let largest = 0;
  for (let i = 0; i < rows; i++) {
    let k = rowStart[i];
    const end = rowStart[i + 1];
    let sum = 0;
    for (let j = 0; j < features; j++) {
      let v = 0;
      if (k < end && indices.at(k) === j) v = values.at(k++);
      const z = zOf(v, j);
      sum += z * z;
    }
    if (sum > largest) largest = sum;
  }
  const c = bias ? SCALED_BIAS : 1;
  const norm = Math.sqrt(largest);
  const scale = norm > 0 ? c / norm : 0;
  const columnBase = sharedFloat64(features);
  for (let j = 0; j < features; j++) columnBase[j] = zOf(0, j) * scale;
  for (let i = 0; i < rows; i++) {
    for (let k = rowStart[i]; k < rowStart[i + 1]; k++) values.set(k, zOf(values.at(k), indices.at(k)) * scale);
  }
  let constantColumns = 0;
  for (let j = 0; j < features; j++) if (!(sd[j] > 0)) constantColumns++;
  return {
    data,
    d: features + (bias ? 1 : 0),
    biasValue: bias ? c : 0,
    columnBase,
    facts: { standardize: { constant_columns: constantColumns, largest_z_norm: norm, scale } },
  };
}

/** Scales `data`'s stored values in place (module comment) and returns the table. */
export function scaleFeatures(data: LabelledData, normalize: FeatureNormalization, bias: boolean): FeatureTable {
  if (normalize === 'standardize') return standardizeFeatures(data, bias);
  const { rows, rowStart, values } = data;
  const squaredNorms = new Float64Array(rows);
  let largest = 0;
  for (let i = 0; i < rows; i++) {
    let sum = 0;
    for (let k = rowStart[i]; k < rowStart[i + 1]; k++) {
      const v = values.at(k);
      sum += v * v;
    }
    squaredNorms[i] = sum;
    const withBias = normalize === 'none' && bias ? sum + 1 : sum;
    if (withBias > largest) largest = withBias;
  }
  const c = bias ? SCALED_BIAS : 1;
  let biasValue = bias ? c : 0;
  let shared = 0;
  if (normalize === 'global') {
    const norm = Math.sqrt(largest);
    shared = norm > 0 ? c / norm : 0;
  } else if (normalize === 'none') {
    const norm = Math.sqrt(largest);
    shared = norm > 1 ? 1 / norm : 1;
    biasValue = bias ? shared : 0;
  }
  for (let i = 0; i < rows; i++) {
    const norm = Math.sqrt(squaredNorms[i]);
    const scale = normalize === 'per-row' ? (norm > 0 ? c / norm : 0) : shared;
    for (let k = rowStart[i]; k < rowStart[i + 1]; k++) values.set(k, values.at(k) * scale);
  }
  return { data, d: data.features + (bias ? 1 : 0), biasValue, columnBase: null, facts: {} };
}

const cache = new Map<string, FeatureTable>();

/** The file as messages name it: relative to the working directory when that is shorter. */
function displayName(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative !== '' && relative.length < file.length ? relative : file;
}

/**
 * Reads (once per process, file version and options) and scales a config's data set. A run reads it
 * once, in the main thread (the descriptor's `load`), and its workers play that copy (shareFeatureTable).
 */
export function loadFeatureTable(config: ClassificationConfig): FeatureTable {
  let version = '';
  try {
    const stat = statSync(config.file);
    version = `${stat.size}:${stat.mtimeMs}`;
  } catch {
    // readLabelledData reports it.
  }
  const key = JSON.stringify([config.file, version, config.format, config.label, config.features, config.classes, config.max_file_mb, config.normalize, config.bias]);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const data = readLabelledData(config.file, {
    format: config.format,
    displayName: displayName(config.file),
    labelColumn: config.label,
    features: config.features ?? undefined,
    allowedLabels: config.classes ?? undefined,
    maxBytes: Math.floor(config.max_file_mb * 2 ** 20),
  });
  const table = scaleFeatures(data, config.normalize, config.bias);
  cache.set(key, table);
  return table;
}

export interface ClassificationEnvironment extends Environment {
  /** Row (0-based, file order) of each action of the current round. */
  readonly roundExamples: Int32Array;
  /** Class (index into the data's sorted classes) of each action of the current round. */
  readonly roundClasses: Int32Array;
}

/** What one trial plays over a scaled table. */
export interface ClassificationSpec {
  /** The labels of y = 1..K. */
  readonly outcomes: readonly (readonly string[])[];
  /** r_1..r_K */
  readonly reward: Float64Array;
  /** Examples per round; null: one example of each class. */
  readonly candidates: number | null;
  readonly horizon: number;
  /** Whether the environment states its data's facts (rows, class counts) for the manifest (default true; a preset over fixed data: false). */
  readonly facts?: boolean;
}

/**
 * A bandit in which every action of every round pays the same reward has regret 0 whatever a policy
 * does, and would read as "every policy is optimal": refused (a RangeError, a config error when the
 * experiment is resolved) when the data has one class, when every class pays the same reward, or when
 * a round offers one candidate.
 */
function refuseTrivial(data: LabelledData, classReward: Float64Array, candidates: number | null): void {
  const why = 'every action would pay the same, so every policy would have regret 0 in every round';
  if (data.classes.length < 2) {
    throw new RangeError(
      `${data.file} has one class (${JSON.stringify(data.classes[0])}, ${data.rows} rows): ${why}; a classification bandit needs at least two classes`,
    );
  }
  if (classReward.every((r) => r === classReward[0])) {
    throw new RangeError(
      `every class of ${data.file} pays the same reward (${classReward[0]}): ${why}; leave at least one class out of target/outcomes, or give them different rewards`,
    );
  }
  if (candidates === 1) throw new RangeError(`candidates: 1 offers one action a round: ${why}; give candidates ≥ 2`);
}

/** The environment of one trial over a scaled table. */
export function createClassificationEnvironment(
  table: FeatureTable,
  spec: ClassificationSpec,
  stream: RandomStream,
): ClassificationEnvironment {
  return new ClassificationEnvironmentImpl(table, spec, stream);
}

class ClassificationEnvironmentImpl implements ClassificationEnvironment {
  readonly d: number;
  readonly K: number;
  readonly reward: Float64Array;
  readonly maxActionNorm = 1;
  readonly horizon: number;
  readonly facts: Readonly<Record<string, unknown>> | undefined;
  readonly roundExamples: Int32Array;
  readonly roundClasses: Int32Array;

  private readonly table: FeatureTable;
  private readonly data: LabelledData;
  /** Reward of each class's outcome: r_y, 0 for the null outcome. */
  private readonly classReward: Float64Array;
  /** Outcome y of each class. */
  private readonly classOutcome: Int32Array;
  private readonly candidates: number | null;
  private readonly chosen: Int32Array;
  private readonly drawn: Uint8Array;
  private readonly actionSet: { count: number; d: number; features: Float64Array };
  /** The largest reward among the round's candidates (what regret is measured against). */
  private bestReward = 0;
  private round = 0;
  private played = true;

  constructor(
    table: FeatureTable,
    spec: ClassificationSpec,
    private readonly stream: RandomStream,
  ) {
    const { data } = table;
    const { outcomes, reward, candidates, horizon } = spec;
    if (outcomes.length < 1 || reward.length !== outcomes.length) {
      throw new RangeError(`classification: need K ≥ 1 outcome label lists and K rewards, got ${outcomes.length} and ${reward.length}`);
    }
    if (horizon !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(horizon) || horizon < 1)) {
      throw new RangeError(`classification: horizon must be an integer ≥ 1, got ${horizon}`);
    }
    this.classOutcome = new Int32Array(data.classes.length);
    this.classReward = new Float64Array(data.classes.length);
    outcomes.forEach((labels, k) => {
      for (const label of labels) {
        const c = data.classes.indexOf(label);
        if (c < 0) {
          throw new RangeError(
            `outcome y = ${k + 1}: label ${JSON.stringify(label)} is not in ${data.file} (its labels: ${data.classes.join(', ')})`,
          );
        }
        this.classOutcome[c] = k + 1;
        this.classReward[c] = reward[k];
      }
    });
    const count = candidates ?? data.classes.length;
    refuseTrivial(data, this.classReward, candidates);
    if (candidates === null && count > ENVIRONMENT_LIMITS.maxActions) {
      throw new RangeError(`classification: ${count} classes, more than ${ENVIRONMENT_LIMITS.maxActions} actions a round; set candidates: n`);
    }
    if (candidates !== null && (!Number.isSafeInteger(candidates) || candidates < 1 || candidates > data.rows)) {
      throw new RangeError(`classification: candidates must be an integer in [1, ${data.rows}] (the rows of ${data.file}), got ${candidates}`);
    }
    this.table = table;
    this.data = data;
    this.d = table.d;
    this.K = outcomes.length;
    this.reward = Float64Array.from(reward);
    this.horizon = horizon;
    this.candidates = candidates;
    this.roundExamples = new Int32Array(count);
    this.roundClasses = new Int32Array(count);
    this.chosen = new Int32Array(data.classes.length);
    this.drawn = new Uint8Array(candidates === null ? 0 : data.rows);
    this.actionSet = { count, d: table.d, features: new Float64Array(count * table.d) };
    this.facts =
      spec.facts === false
        ? undefined
        : {
            examples: data.rows,
            feature_columns: data.features,
            class_counts: data.classes.map((label, c) => ({ label, count: data.counts[c] })),
            ...table.facts,
          };
  }

  actions(t: number): ActionSet {
    if (t !== this.round + 1) {
      throw new RangeError(`classification: rounds must be taken in order; expected round ${this.round + 1}, got ${t}`);
    }
    if (t > this.horizon) throw new RangeError(`classification: round ${t} is past the horizon ${this.horizon}`);
    const { data, stream, roundExamples, roundClasses } = this;
    const count = roundExamples.length;
    if (this.candidates === null) {
      for (let c = 0; c < count; c++) this.chosen[c] = stream.integer(0, data.counts[c] - 1);
      for (let i = 0; i < count; i++) roundClasses[i] = i;
      stream.shuffle(roundClasses);
      for (let i = 0; i < count; i++) roundExamples[i] = data.classRows[roundClasses[i]][this.chosen[roundClasses[i]]];
    } else {
      const { drawn } = this;
      for (let i = 0; i < count; i++) {
        let row = stream.integer(0, data.rows - 1);
        while (drawn[row] === 1) row = stream.integer(0, data.rows - 1);
        drawn[row] = 1;
        roundExamples[i] = row;
        roundClasses[i] = data.labels[row];
      }
      for (let i = 0; i < count; i++) drawn[roundExamples[i]] = 0;
    }

    const { features, d } = this.actionSet;
    let best = 0;
    for (let i = 0; i < count; i++) {
      writeFeatures(this.table, roundExamples[i], features, i * d);
      if (this.classReward[roundClasses[i]] > best) best = this.classReward[roundClasses[i]];
    }
    this.bestReward = best;
    this.round = t;
    this.played = false;
    return this.actionSet;
  }

  play(index: number): Feedback {
    if (this.played) throw new Error(`classification: play() must follow actions(t) once per round (round ${this.round})`);
    if (!Number.isInteger(index) || index < 0 || index >= this.roundExamples.length) {
      throw new RangeError(`classification: action index must be an integer in [0, ${this.roundExamples.length - 1}], got ${index}`);
    }
    this.played = true;
    const c = this.roundClasses[index];
    const reward = this.classReward[c];
    return { outcome: this.classOutcome[c], reward, regret: this.bestReward - reward, bestReward: this.bestReward };
  }
}

const labelSchema = z.union([z.string().min(1), z.number()], { error: 'expected a label (text or a number)' });
const labelList = z.array(labelSchema, { error: 'expected a list of labels' }).min(1, { error: 'expected at least one label' });

const classificationSchema = strictObject(
  {
    type: z.literal('classification'),
    file: z
      .string({ error: 'expected a file path' })
      .min(1, { error: 'expected a file path' })
      .describe("the data file: CSV with a header or LIBSVM, optionally gzipped (.gz); relative to the config file's folder"),
    format: z
      .enum(DATA_FORMATS, { error: `expected ${listAllowed(DATA_FORMATS)}` })
      .optional()
      .describe('csv or libsvm; default: from the extension (.csv, .libsvm, .svm, … each optionally .gz)'),
    label: z
      .string({ error: 'expected a column name' })
      .min(1, { error: 'expected a column name' })
      .optional()
      .describe("CSV: the header of the label column; default: `label` or `target`, whichever the header has (both: an error, set it)"),
    features: integer(1, ENVIRONMENT_LIMITS.maxDimension - 1)
      .optional()
      .describe('the number of feature columns, checked against the file (LIBSVM default: the largest index); d = features + 1 with bias'),
    target: z
      .union([labelSchema, labelList], { error: 'expected a label or a list of labels' })
      .optional()
      .describe('binary protocol (K = 1): the label or labels whose examples pay reward 1 (y = 1); every other label pays 0'),
    outcomes: z
      .array(labelList, { error: 'expected a list of label lists, one per outcome y = 1..K' })
      .min(1, { error: 'expected at least one outcome' })
      .max(ENVIRONMENT_LIMITS.maxOutcomes, { error: `expected at most ${ENVIRONMENT_LIMITS.maxOutcomes} outcomes` })
      .optional()
      .describe('graded protocol (K ≥ 1): a list of label lists, the labels of outcome y = 1, 2, …, K; other labels are y = 0'),
    reward: rewardVector()
      .optional()
      .describe('with outcomes: the rewards r_0..r_K of outcomes y = 0..K, r_0 = 0 (default r_k = k/K)'),
    candidates: integer(1, ENVIRONMENT_LIMITS.maxActions)
      .optional()
      .describe('examples offered per round, drawn without replacement from all rows (default: one example of each class, in random order)'),
    normalize: z
      .enum(FEATURE_NORMALIZATIONS, { error: `expected ${listAllowed(FEATURE_NORMALIZATIONS)}` })
      .default('global')
      .describe(
        "feature scaling, always ending with ‖x‖ ≤ 1 (bias included): 'global' (every value by the largest row norm of the file), " +
          "'per-row' (each row to unit norm), 'none' (as read, shrunk only if some row exceeds norm 1), 'standardize' (each column " +
          'to mean 0, sample sd 1 over all rows of the file, a constant column to 0, then divided by the largest resulting row norm; ' +
          'the bias is appended afterwards): use standardize when columns have very different scales',
      ),
    bias: z.boolean({ error: 'expected true or false' }).default(true).describe('append a constant coordinate 1 (scaled with the row) to every example'),
    classes: labelList.optional().describe('the labels rows may carry; a row with another label is an error (default: any label)'),
    max_file_mb: positive('expected a positive number of MiB')
      .default(ENVIRONMENT_LIMITS.maxFileMiB)
      .describe('the largest data file read, MiB after decompression; a larger file is refused'),
  },
  'a classification environment mapping',
).superRefine((env, ctx) => {
  const issue = (field: (string | number)[], message: string): void => {
    ctx.addIssue({ code: 'custom', path: field, message });
  };
  if (env.format === undefined && typeof env.file === 'string' && formatFromExtension(env.file) === null) {
    issue(['format'], `cannot tell the format of ${JSON.stringify(env.file)} from its extension (known: ${KNOWN_EXTENSIONS.join(', ')}, each optionally .gz); set format: ${listAllowed(DATA_FORMATS)}`);
  }
  if ((env.target === undefined) === (env.outcomes === undefined)) {
    issue([], 'expected exactly one of target (binary, K = 1) and outcomes (graded, K ≥ 1)');
    return;
  }
  if (env.target !== undefined && env.reward !== undefined) {
    issue(['reward'], 'target: plays r = [0, 1]; give outcomes: for other rewards');
  }
  const lists = env.outcomes ?? [Array.isArray(env.target) ? env.target : [env.target as string | number]];
  const seen = new Map<string, number>();
  lists.forEach((labels, k) => {
    for (const label of labels) {
      const text = canonicalLabel(label);
      const before = seen.get(text);
      if (before !== undefined) issue(env.outcomes ? ['outcomes', k] : ['target'], `label ${JSON.stringify(text)} is in two outcomes (y = ${before} and y = ${k + 1})`);
      seen.set(text, k + 1);
      if (env.classes !== undefined && !env.classes.map(canonicalLabel).includes(text)) {
        issue(env.outcomes ? ['outcomes', k] : ['target'], `label ${JSON.stringify(text)} is not one of classes`);
      }
    }
  });
  if (env.reward !== undefined && env.outcomes !== undefined) {
    if (env.reward.length !== env.outcomes.length + 1) {
      issue(['reward'], `expected K + 1 = ${env.outcomes.length + 1} entries r_0..r_${env.outcomes.length}, got ${env.reward.length}`);
    } else if (env.reward[0] !== 0) {
      issue(['reward', 0], `r_0 (the null outcome's reward) must be 0, got ${String(env.reward[0])}`);
    }
  }
});

/** `data/x.csv` as a bandit: the binary or graded protocol over one example of each class a round. */
export const classificationEnvironment = defineEnvironment({
  type: 'classification',
  summary: 'a labelled CSV or LIBSVM file as a bandit: one example per class a round, reward by label (binary target or graded outcomes)',
  schema: classificationSchema,
  resolve: (parsed, { inputFile }): ClassificationConfig => {
    const file = inputFile(['environment', 'file'], parsed.file);
    // The schema made sure that one of the two names the format.
    const format = parsed.format ?? (formatFromExtension(file) as DataFormat);
    // The column is fixed here (and recorded in the manifest), not left to each reader.
    const label =
      parsed.label ??
      (format === 'csv' ? defaultLabelColumn(readCsvHeader(file, { displayName: displayName(file), maxBytes: parsed.max_file_mb * 2 ** 20 }), displayName(file)) : 'label');
    const outcomes = (parsed.outcomes ?? [Array.isArray(parsed.target) ? parsed.target : [parsed.target as string | number]]).map((labels) =>
      labels.map(canonicalLabel),
    );
    const K = outcomes.length;
    return {
      type: 'classification',
      file,
      format,
      label,
      features: parsed.features ?? null,
      outcomes,
      reward: parsed.reward ?? [0, ...outcomes.map((_, k) => (k + 1) / K)],
      candidates: parsed.candidates ?? 'classes',
      normalize: parsed.normalize,
      bias: parsed.bias,
      classes: parsed.classes?.map(canonicalLabel) ?? null,
      max_file_mb: parsed.max_file_mb,
    };
  },
  load: (config) => {
    const table = loadFeatureTable(config);
    const source = table.data.source as NonNullable<LabelledData['source']>;
    return { inputs: [{ file: config.file, bytes: source.bytes, sha256: source.sha256 }], data: shareFeatureTable(table) };
  },
  create: (config, { horizon, stream, loaded }) =>
    createClassificationEnvironment(
      openFeatureTable(loaded as SharedFeatureTable),
      {
        outcomes: config.outcomes,
        // The config lists r_0..r_K; environments hold r_1..r_K (r_0 = 0).
        reward: Float64Array.from(config.reward.slice(1)),
        candidates: config.candidates === 'classes' ? null : config.candidates,
        horizon,
      },
      stream,
    ),
  inputFiles: (config) => [config.file],
});
