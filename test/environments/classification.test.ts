import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { loadConfigs } from '../../src/config/load.js';
import {
  createClassificationEnvironment,
  loadFeatureTable,
  SCALED_BIAS,
  scaleFeatures,
  STANDARDIZE_MAX_CELLS,
  writeFeatures,
  type ClassificationConfig,
  type FeatureNormalization,
  type FeatureTable,
} from '../../src/environments/classification.js';
import { readCsvHeader, readLabelledData } from '../../src/environments/labelled-data.js';
import { createEnvironment } from '../../src/environments/registry.js';
import { runExperiments } from '../../src/experiment/runner.js';
import { resolveExperiment } from '../../src/experiment/setup.js';
import { RandomStream } from '../../src/random/stream.js';
import { runCli, trialCsvs, withoutTimings } from '../experiment/fixtures.js';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const IRIS_CSV = path.join(REPO, 'data', 'iris.csv');
const IRIS_LIBSVM = path.join(REPO, 'data', 'iris.libsvm');
let root: string;
/** Labels a (3 rows), b (1 row, all zero), c (2 rows); 2 features. */
let small: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-classification-'));
  small = write('small.csv', 'u,v,label\n3,4,a\n0,0,b\n1,0,a\n0,-2,c\n0.5,0.5,a\n6,8,c\n');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const file = path.join(root, name);
  fs.writeFileSync(file, content);
  return file;
}

/** A config document around one environment mapping (YAML flow text). */
function configText(name: string, environment: string, extra: { horizon?: number; trials?: number; policies?: string } = {}): string {
  return [
    `name: ${name}`,
    `environment: ${environment}`,
    `horizon: ${extra.horizon ?? 20}`,
    `trials: ${extra.trials ?? 1}`,
    'seed: 0',
    `policies: ${extra.policies ?? '[EOFD-MLogB, OFUL-MLogB, Random]'}`,
    'params: {S: 5, beta: order}',
    '',
  ].join('\n');
}

function configError(environment: string): ConfigError {
  try {
    const [config] = loadConfigs(write('bad.yaml', configText('bad', environment)));
    resolveExperiment(config);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).exitCode).toBe(2);
    return error as ConfigError;
  }
  throw new Error(`expected ${environment} to be refused`);
}

function smallConfig(fields: Partial<ClassificationConfig> = {}): ClassificationConfig {
  return {
    type: 'classification',
    file: small,
    format: 'csv',
    label: 'label',
    features: null,
    outcomes: [['a']],
    reward: [0, 1],
    candidates: 'classes',
    normalize: 'global',
    bias: true,
    classes: null,
    max_file_mb: 1,
    ...fields,
  };
}

describe('classification: bad configs (exit 2, naming the field)', () => {
  it('refuses a protocol that is not exactly one of target and outcomes, or inconsistent rewards', () => {
    expect(configError('{type: classification, file: small.csv}').message).toMatch(/environment: expected exactly one of target .* and outcomes/);
    expect(configError('{type: classification, file: small.csv, target: a, outcomes: [[b]]}').message).toMatch(/exactly one of target/);
    expect(configError('{type: classification, file: small.csv, target: a, reward: [0, 2]}').message).toMatch(/environment\.reward: target: plays r = \[0, 1\]/);
    expect(configError('{type: classification, file: small.csv, outcomes: [[a], [c, a]]}').message).toMatch(/environment\.outcomes\.1: label "a" is in two outcomes \(y = 1 and y = 2\)/);
    expect(configError('{type: classification, file: small.csv, outcomes: [[a], [c]], reward: [0, 1]}').message).toMatch(/environment\.reward: expected K \+ 1 = 3 entries/);
    expect(configError('{type: classification, file: small.csv, outcomes: [[a]], reward: [1, 1]}').message).toMatch(/environment\.reward\.0: r_0/);
    expect(configError('{type: classification, file: small.csv, target: z, classes: [a, b]}').message).toMatch(/environment\.target: label "z" is not one of classes/);
    expect(configError('{type: classification, file: small.csv, target: a, normalize: zscore}').message).toMatch(/environment\.normalize: expected 'global', 'per-row', 'none' or 'standardize'/);
  });

  it('refuses a file it cannot read or whose format it cannot tell, and labels not in the data', () => {
    write('small.data', 'x\n');
    expect(configError('{type: classification, file: small.data, target: a}').message).toMatch(/environment\.format: cannot tell the format of "small\.data"/);
    expect(configError('{type: classification, file: absent.csv, target: a}').message).toMatch(/environment\.file: no such file/);
    expect(configError('{type: classification, file: small.csv, target: [a, zebra]}').message).toMatch(
      /bad\.yaml: environment: outcome y = 1: label "zebra" is not in .*small\.csv \(its labels: a, b, c\)/,
    );
    expect(configError('{type: classification, file: small.csv, target: a, candidates: 7}').message).toMatch(/candidates must be an integer in \[1, 6\]/);
    // A malformed row is reported at its line in the data file, not in the config.
    const error = configError(`{type: classification, file: ${path.join(REPO, 'data', 'fixtures', 'malformed-number.csv')}, target: a}`);
    expect(error.message).toMatch(/malformed-number\.csv:3:3: "abc" in column "y"/);
    expect(configError(`{type: classification, file: ${path.join(REPO, 'data', 'fixtures', 'malformed-label.csv')}, target: a, classes: [a, b]}`).message).toMatch(
      /malformed-label\.csv:3:5: label "zebra" is not one of the classes/,
    );
  });

  it('eofd run exits 2 with file:line:column for every malformed-row fixture, writing nothing', async () => {
    const fixtures = fs.readdirSync(path.join(REPO, 'data', 'fixtures')).filter((f) => f.startsWith('malformed-'));
    expect(fixtures.length).toBe(8);
    for (const name of fixtures) {
      const data = path.join(REPO, 'data', 'fixtures', name);
      const config = write(`cli-${name}.yaml`, configText('cli', `{type: classification, file: ${data}, target: a, classes: [a, b, '1', '2']}`));
      const out = path.join(root, `cli-out-${name}`);
      const result = await runCli(['run', config, '--out', out, '--quiet']);
      expect(result.code, name).toBe(2);
      expect(result.stderr, name).toMatch(new RegExp(`${name.replace(/[.]/g, '\\.')}:[23]:\\d+: `));
      expect(result.stderr.trim().split('\n'), name).toHaveLength(1);
      expect(fs.existsSync(path.join(out, 'cli')), name).toBe(false);
    }
  });

  it('refuses a bandit where every candidate pays the same (one class, every class in one outcome, one candidate): regret would be 0 in every round', () => {
    write('one-class.csv', 'x,label\n1,a\n2,a\n3,a\n');
    const oneClass = configError('{type: classification, file: one-class.csv, target: a}').message;
    expect(oneClass).toMatch(/bad\.yaml: environment: .*one-class\.csv has one class \("a", 3 rows\)/);
    expect(oneClass).toMatch(/needs at least two classes/);
    expect(configError('{type: classification, file: one-class.csv, target: a, candidates: 2}').message).toMatch(/has one class/);
    expect(configError('{type: classification, file: small.csv, target: [a, b, c]}').message).toMatch(/every class of .*small\.csv pays the same reward \(1\)/);
    expect(configError('{type: classification, file: small.csv, outcomes: [[a, b, c]], reward: [0, 0.5]}').message).toMatch(/pays the same reward \(0\.5\)/);
    expect(configError('{type: classification, file: small.csv, target: a, candidates: 1}').message).toMatch(/candidates: 1 offers one action a round/);
  });

  it('refuses rounds out of order and plays out of turn or range', () => {
    const env = createClassificationEnvironment(loadFeatureTable(smallConfig()), { outcomes: [['a']], reward: Float64Array.of(1), candidates: null, horizon: 1 }, new RandomStream('turns'));
    expect(() => env.play(0)).toThrow(/must follow actions/);
    expect(() => env.actions(2)).toThrow(/expected round 1/);
    env.actions(1);
    expect(() => env.play(3)).toThrow(RangeError);
    env.play(0);
    expect(() => env.play(0)).toThrow(/once per round/);
    expect(() => env.actions(2)).toThrow(/past the horizon/);
  });
});

describe('classification: features', () => {
  /** The rows of small.csv, dense. */
  const rows = [[3, 4], [0, 0], [1, 0], [0, -2], [0.5, 0.5], [6, 8]];

  function scaled(normalize: FeatureNormalization, bias: boolean): number[][] {
    const table = scaleFeatures(readLabelledData(small, { format: 'csv' }), normalize, bias);
    const { data } = table;
    return rows.map((_, i) => {
      const x = new Array<number>(table.d).fill(0);
      for (let k = data.rowStart[i]; k < data.rowStart[i + 1]; k++) x[data.indices.at(k)] = data.values.at(k);
      if (bias) x[table.d - 1] = table.biasValue;
      return x;
    });
  }
  const norm = (x: number[]): number => Math.hypot(...x);

  it('global: divides by the largest row norm (10), appends the bias and divides by √2', () => {
    const x = scaled('global', true);
    x.forEach((row, i) => {
      expect(row).toHaveLength(3);
      expect(row[0]).toBeCloseTo(rows[i][0] / 10 / Math.SQRT2, 15);
      expect(row[1]).toBeCloseTo(rows[i][1] / 10 / Math.SQRT2, 15);
      expect(row[2]).toBe(SCALED_BIAS);
      expect(norm(row)).toBeLessThanOrEqual(1 + 1e-15);
    });
    expect(norm(x[5])).toBeCloseTo(1, 15);
    // One multiplication by c / max‖v‖ per value (as the mnist environment does): 3 · 0.1, not 3 / 10.
    expect(scaled('global', false)[0]).toEqual([3 * 0.1, 4 * 0.1]);
  });

  it('per-row: each non-zero row to unit norm (a zero row stays zero), then the bias', () => {
    const x = scaled('per-row', true);
    x.forEach((row, i) => {
      const n = Math.hypot(rows[i][0], rows[i][1]);
      expect(row[0]).toBeCloseTo(n > 0 ? rows[i][0] / n / Math.SQRT2 : 0, 15);
      expect(row[1]).toBeCloseTo(n > 0 ? rows[i][1] / n / Math.SQRT2 : 0, 15);
      expect(norm(row)).toBeCloseTo(n > 0 ? 1 : SCALED_BIAS, 15);
    });
  });

  it('none: keeps the values unless some ‖(v, 1)‖ exceeds 1, then divides everything by the largest', () => {
    const x = scaled('none', true);
    const largest = Math.hypot(6, 8, 1);
    x.forEach((row, i) => {
      expect(row[0]).toBeCloseTo(rows[i][0] / largest, 15);
      expect(row[2]).toBeCloseTo(1 / largest, 15);
    });
    const fits = write('fits.csv', 'u,label\n0.25,a\n-0.5,b\n');
    const table = scaleFeatures(readLabelledData(fits, { format: 'csv' }), 'none', false);
    expect([table.data.values.at(0), table.data.values.at(1)]).toEqual([0.25, -0.5]);
    expect(table.d).toBe(1);
  });
});

describe('classification: standardize', () => {
  /** Every row of a table as dense features (what the environment hands a policy). */
  function features(table: FeatureTable): number[][] {
    return Array.from({ length: table.data.rows }, (_, i) => {
      const x = new Float64Array(table.d);
      writeFeatures(table, i, x, 0);
      return Array.from(x);
    });
  }
  const standardized = (file: string, bias: boolean, format: 'csv' | 'libsvm' = 'csv'): FeatureTable =>
    scaleFeatures(readLabelledData(file, { format }), 'standardize', bias);
  const norm = (x: number[]): number => Math.hypot(...x);

  // Columns u = 1, 2, 3, 6 (μ 3, s = √(14/3)); w = 5 (constant); v = 0, 0, 4, 0 (μ 1, s = 2).
  // z_u = (−2, −1, 0, 3)·√(3/14), z_w = 0, z_v = (−½, −½, 3/2, −½); ‖z_i‖² = 31/28, 13/28, 63/28, 61/28,
  // so M = √(63/28) = 3/2 (row 2) and x = z · c / (3/2).
  const HAND = 'u,w,v,label\n1,5,0,a\n2,5,0,a\n3,5,4,b\n6,5,0,b\n';
  const r = Math.sqrt(3 / 14);
  const expected = [
    [-2 * r, 0, -0.5],
    [-r, 0, -0.5],
    [0, 0, 1.5],
    [3 * r, 0, -0.5],
  ].map((z) => z.map((v) => v / 1.5));

  it('z-scores each column over all rows (a constant column to 0), divides by the largest norm, then appends the bias', () => {
    const file = write('hand.csv', HAND);
    const plain = standardized(file, false);
    expect(plain.d).toBe(3);
    expect(plain.biasValue).toBe(0);
    features(plain).forEach((x, i) => {
      expect(x).toHaveLength(3);
      x.forEach((v, j) => expect(v, `row ${i} column ${j}`).toBeCloseTo(expected[i][j], 15));
      expect(x[1]).toBe(0);
    });
    expect(norm(features(plain)[2])).toBeCloseTo(1, 15);
    // With the bias: c = 1/√2 on every feature, the bias c appended (not centred: it is no column of the file).
    const withBias = standardized(write('hand-bias.csv', HAND), true);
    expect(withBias.d).toBe(4);
    features(withBias).forEach((x, i) => {
      x.slice(0, 3).forEach((v, j) => expect(v, `row ${i} column ${j}`).toBeCloseTo(expected[i][j] * SCALED_BIAS, 15));
      expect(x[3]).toBe(SCALED_BIAS);
    });
    expect(norm(features(withBias)[2])).toBeCloseTo(1, 15);
    expect(withBias.facts).toEqual({ standardize: { constant_columns: 1, largest_z_norm: 1.5, scale: SCALED_BIAS / 1.5 } });
  });

  it('the same rows as CSV and as sparse LIBSVM give the same bits, run after run', () => {
    const csv = features(standardized(write('hand2.csv', HAND), true));
    const libsvm = features(standardized(write('hand2.libsvm', 'a 1:1 2:5\na 1:2 2:5\nb 1:3 2:5 3:4\nb 1:6 2:5\n'), true, 'libsvm'));
    expect(libsvm).toEqual(csv);
    expect(features(standardized(write('hand3.csv', HAND), true))).toEqual(csv);
  });

  it('keeps every ‖x‖ ≤ 1, the largest = 1, on iris, blobs and the hand set, with and without the bias', () => {
    for (const file of [IRIS_CSV, path.join(REPO, 'data', 'blobs.csv'), write('hand4.csv', HAND)]) {
      for (const bias of [true, false]) {
        const norms = features(standardized(file, bias)).map(norm);
        for (const n of norms) expect(n).toBeLessThanOrEqual(1 + 1e-15);
        expect(Math.max(...norms), `${file} bias ${bias}`).toBeCloseTo(1, 14);
      }
    }
  });

  it('on data already z-scored and scaled to largest norm 1 it is the identity (with the bias: times 1/√2)', () => {
    // 40 rows × 4 columns of a fixed pseudo-random sequence, z-scored (sample sd), divided by the largest norm.
    const N = 40;
    const p = 4;
    let seed = 12345;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const raw = Array.from({ length: N }, () => Array.from({ length: p }, (_, j) => (next() - 0.5) * 10 ** j));
    for (let j = 0; j < p; j++) {
      const mean = raw.reduce((sum, row) => sum + row[j], 0) / N;
      const sd = Math.sqrt(raw.reduce((sum, row) => sum + (row[j] - mean) ** 2, 0) / (N - 1));
      for (const row of raw) row[j] = (row[j] - mean) / sd;
    }
    const largest = Math.max(...raw.map(norm));
    const input = raw.map((row) => row.map((v) => v / largest));
    const text = ['a,b,c,e,label', ...input.map((row, i) => `${row.map(String).join(',')},${i % 2}`)].join('\n') + '\n';
    const file = write('zscored.csv', text);
    for (const [bias, c] of [[false, 1], [true, SCALED_BIAS]] as const) {
      features(standardized(file, bias)).forEach((x, i) => {
        for (let j = 0; j < p; j++) expect(Math.abs(x[j] - c * input[i][j]), `row ${i} column ${j}`).toBeLessThan(1e-14);
      });
    }
  });

  it('the environment plays the standardised rows, and the manifest records the mode and its scale', async () => {
    const file = write('hand5.csv', HAND);
    const config = { ...smallConfig(), file, normalize: 'standardize' as const, outcomes: [['b']] };
    const table = loadFeatureTable(config);
    const env = createEnvironment(config, { horizon: 10, stream: new RandomStream('standardize') });
    expect(env.d).toBe(4);
    expect(env.facts).toMatchObject({ examples: 4, feature_columns: 3, standardize: { constant_columns: 1, largest_z_norm: 1.5 } });
    for (let t = 1; t <= 10; t++) {
      const set = env.actions(t);
      const rowsPlayed = Array.from((env as unknown as { roundExamples: Int32Array }).roundExamples);
      rowsPlayed.forEach((row, i) => {
        const x = new Float64Array(4);
        writeFeatures(table, row, x, 0);
        expect(set.features.subarray(i * 4, i * 4 + 4)).toEqual(x);
      });
      env.play(0);
    }
    const configFile = write('standardize.yaml', configText('standardize', `{type: classification, file: ${file}, target: b, normalize: standardize}`));
    await runExperiments(loadConfigs(configFile), { out: path.join(root, 'standardize-out'), jobs: 1 });
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'standardize-out', 'standardize', 'manifest.json'), 'utf8'));
    expect(manifest.config.environment).toMatchObject({
      normalize: 'standardize',
      d: 4,
      standardize: { constant_columns: 1, largest_z_norm: 1.5, scale: SCALED_BIAS / 1.5 },
    });
  });

  it('refuses a data set with more cells than it will visit (exit 2), before reading any of them', () => {
    const rows = Math.floor(STANDARDIZE_MAX_CELLS / 999_999) + 1;
    const file = write('wide.libsvm', 'a 999999:1\n'.repeat(rows));
    try {
      standardized(file, true, 'libsvm');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).exitCode).toBe(2);
      expect((error as ConfigError).message).toMatch(/wide\.libsvm: normalize: standardize needs every value .* use normalize: global or per-row/);
    }
  });
});

describe('classification: protocol', () => {
  it('one example per class: integer(0, n_c − 1) per class, then a Fisher–Yates order; reward 1 for a target', () => {
    const env = createEnvironment({ ...smallConfig(), outcomes: [['a', 'c']] }, { horizon: 30, stream: new RandomStream('replay') });
    const replay = new RandomStream('replay');
    const classRows = [[0, 2, 4], [1], [3, 5]];
    for (let t = 1; t <= 30; t++) {
      const set = env.actions(t);
      expect(set.count).toBe(3);
      const picks = classRows.map((r) => replay.integer(0, r.length - 1));
      const order = replay.shuffle([0, 1, 2]);
      const examples = order.map((c) => classRows[c][picks[c]]);
      const typed = env as unknown as { roundExamples: Int32Array; roundClasses: Int32Array };
      expect(Array.from(typed.roundClasses)).toEqual(order);
      expect(Array.from(typed.roundExamples)).toEqual(examples);
      // The b example (all zero) pays nothing; the best candidate pays 1.
      expect(env.play(order.indexOf(1))).toEqual({ outcome: 0, reward: 0, regret: 1, bestReward: 1 });
    }
  });

  it('graded outcomes: the played label gives y, regret is the best candidate\'s r_y minus the played one\'s', () => {
    const env = createEnvironment(
      { ...smallConfig(), outcomes: [['a'], ['c']], reward: [0, 0.25, 1], candidates: 2 },
      { horizon: 40, stream: new RandomStream('graded') },
    );
    const replay = new RandomStream('graded');
    const labels = [0, 1, 0, 2, 0, 2];
    const rewardOf = [0.25, 0, 1];
    expect(env.K).toBe(2);
    for (let t = 1; t <= 40; t++) {
      env.actions(t);
      const drawn: number[] = [];
      while (drawn.length < 2) {
        const row = replay.integer(0, 5);
        if (!drawn.includes(row)) drawn.push(row);
      }
      const typed = env as unknown as { roundExamples: Int32Array };
      expect(Array.from(typed.roundExamples)).toEqual(drawn);
      const best = Math.max(...drawn.map((r) => rewardOf[labels[r]]));
      const feedback = env.play(t % 2);
      const played = labels[drawn[t % 2]];
      expect(feedback).toEqual({ outcome: [1, 0, 2][played], reward: rewardOf[played], regret: best - rewardOf[played], bestReward: best });
    }
  });
});

describe('classification: runs', () => {
  it('CSV and LIBSVM of the same data give byte-identical runs', async () => {
    const csv = loadConfigs(write('iris-csv.yaml', configText('iris', `{type: classification, file: ${IRIS_CSV}, target: virginica}`, { horizon: 120, trials: 2 })));
    const libsvm = loadConfigs(write('iris-libsvm.yaml', configText('iris', `{type: classification, file: ${IRIS_LIBSVM}, target: 3}`, { horizon: 120, trials: 2 })));
    await runExperiments(csv, { out: path.join(root, 'csv'), jobs: 1 });
    await runExperiments(libsvm, { out: path.join(root, 'libsvm'), jobs: 1 });
    const a = trialCsvs(path.join(root, 'csv', 'iris'));
    const b = trialCsvs(path.join(root, 'libsvm', 'iris'));
    expect(a.size).toBe(6);
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [file, text] of a) expect(withoutTimings(b.get(file) as string), file).toBe(withoutTimings(text));
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'csv', 'iris', 'manifest.json'), 'utf8'));
    expect(manifest.config.environment).toMatchObject({
      d: 5,
      K: 1,
      examples: 150,
      feature_columns: 4,
      class_counts: [
        { label: 'setosa', count: 50 },
        { label: 'versicolor', count: 50 },
        { label: 'virginica', count: 50 },
      ],
      inputs: [{ file: IRIS_CSV, bytes: fs.statSync(IRIS_CSV).size }],
    });
    expect(manifest.config.environment.inputs[0].sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('classification: the label column when the config names none', () => {
  const environmentOf = (file: string, overrides: string[] = []): ClassificationConfig =>
    loadConfigs(file, overrides)[0].environment as ClassificationConfig;

  it('is `label` or `target`, whichever the header has, and is recorded in the resolved config', () => {
    const target = write('target.csv', 'u,v,target\n3,4,a\n0,0,b\n1,0,a\n');
    expect(environmentOf(write('t.yaml', configText('t', `{type: classification, file: ${target}, target: a}`))).label).toBe('target');
    expect(environmentOf(write('l.yaml', configText('l', `{type: classification, file: ${small}, target: a}`))).label).toBe('label');
    // The data read through it: the same rows and classes as the file written with `label`.
    const data = readLabelledData(target, { format: 'csv' });
    expect(data.classes).toEqual(['a', 'b']);
    expect(Array.from(data.labels)).toEqual([0, 1, 0]);
  });
  it('is refused when the header has both (the other would be a feature) or neither, naming the file and the fix', () => {
    const both = write('both.csv', 'label,u,target\na,1,x\n');
    const error = configError(`{type: classification, file: ${both}, target: a}`);
    expect(error.message).toContain('both.csv:1:1');
    expect(error.message).toContain('the header has both "label" and "target"; set label: to the label column');
    const neither = write('neither.csv', 'u,v,class\n1,2,a\n');
    expect(configError(`{type: classification, file: ${neither}, target: a}`).message).toContain('no column named "label" or "target" in the header (columns: u, v, class)');
    // Naming it resolves either case.
    expect(environmentOf(write('b.yaml', configText('b', `{type: classification, file: ${both}, target: x, label: target}`))).label).toBe('target');
  });
  it('applies again after --set environment.label=null removes a configured column', () => {
    const target = write('target2.csv', 'target,u\na,1\nb,2\n');
    const file = write('n.yaml', configText('n', `{type: classification, file: ${target}, target: a, label: u}`));
    expect(environmentOf(file).label).toBe('u');
    expect(environmentOf(file, ['environment.label=null']).label).toBe('target');
  });
  it('reads no further than the header to decide (a bad byte 2 MiB on is never decoded), plain or gzipped', () => {
    // Text is decoded a chunk (1 MiB) at a time: the bad byte sits two chunks after the header.
    const rows = Buffer.from('1,a\n'.repeat((2 << 20) / 4));
    const plain = path.join(root, 'broken.csv');
    fs.writeFileSync(plain, Buffer.concat([Buffer.from('x,target\n'), rows, Buffer.from([0xff, 0xfe, 0x0a])]));
    expect(readCsvHeader(plain)).toEqual(['x', 'target']);
    const gz = path.join(root, 'broken.csv.gz');
    fs.writeFileSync(gz, zlib.gzipSync(Buffer.concat([Buffer.from('\n"x", "target"\r\n'), rows, Buffer.from([0xff, 0x0a])])));
    expect(readCsvHeader(gz)).toEqual(['x', 'target']);
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(fs.readFileSync(plain))).toThrow(TypeError);
    expect(() => readCsvHeader(write('empty.csv', '\n\n'))).toThrow(/empty file: expected a header line/);
  });
  it('leaves LIBSVM files as they were (no header)', () => {
    expect(environmentOf(write('s.yaml', configText('s', `{type: classification, file: ${IRIS_LIBSVM}, target: 3}`))).label).toBe('label');
  });
});
