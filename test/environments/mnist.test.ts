import { mkdtempSync, readFileSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFeatures, type ClassificationEnvironment } from '../../src/environments/classification.js';
import {
  createMnistEnvironment,
  defaultMnistRoot,
  loadMnistTable,
  MNIST_BIAS,
  MNIST_DIMENSION,
  MNIST_NORMALIZATIONS,
  MNIST_PIXELS,
  readMnistDigits,
  scanPixelArray,
  type MnistNormalization,
  type MnistTable,
} from '../../src/environments/mnist.js';
import { RandomStream } from '../../src/random/stream.js';

/** Image `image` of `digit` as its 785 features. */
function rowOf(table: MnistTable, digit: number, image: number): Float64Array {
  const row = new Float64Array(MNIST_DIMENSION);
  writeFeatures(table, table.firstRow[digit] + image, row, 0);
  return row;
}
/** The digit shown by each action of the current round. */
const labelsOf = (env: ClassificationEnvironment): number[] => Array.from(env.roundClasses);
/** The index, within its digit's images, of each action of the current round. */
const imagesOf = (env: ClassificationEnvironment, table: MnistTable): number[] =>
  Array.from(env.roundExamples, (row, i) => row - table.firstRow[env.roundClasses[i]]);

let root: string;
/** A tiny fixture: digit k has k + 1 images; image j of digit k has pixel 0 = k + 1, pixel 1 = j. */
let fixture: string;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'eofd-mnist-'));
  fixture = path.join(root, 'digits');
  mkdirSync(fixture);
  for (let digit = 0; digit < 10; digit++) {
    const data = new Array<number>((digit + 1) * MNIST_PIXELS).fill(0);
    for (let j = 0; j <= digit; j++) {
      data[j * MNIST_PIXELS] = digit + 1;
      data[j * MNIST_PIXELS + 1] = j;
    }
    writeFileSync(path.join(fixture, `${digit}.json`), JSON.stringify({ data }));
  }
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('createMnistEnvironment: bad arguments', () => {
  it('rejects bad targets and horizons', () => {
    const stream = new RandomStream('bad');
    expect(() => createMnistEnvironment({ target: 10, horizon: 5 }, stream, fixture)).toThrow(/target/);
    expect(() => createMnistEnvironment({ target: 1.5, horizon: 5 }, stream, fixture)).toThrow(/target/);
    expect(() => createMnistEnvironment({ horizon: 0 }, stream, fixture)).toThrow(/horizon/);
  });
  it('names the missing or malformed data file', () => {
    const empty = mkdtempSync(path.join(root, 'empty-'));
    expect(() => readMnistDigits(empty)).toThrow(/0\.json/);
    const bad = mkdtempSync(path.join(root, 'bad-'));
    for (let digit = 0; digit < 10; digit++) writeFileSync(path.join(bad, `${digit}.json`), JSON.stringify({ data: [1, 2, 3] }));
    expect(() => readMnistDigits(bad)).toThrow(/multiple of 784/);
  });
  it('rejects rounds out of order and plays out of turn or range', () => {
    const env = createMnistEnvironment({ horizon: 1 }, new RandomStream('turns'), fixture);
    expect(() => env.play(0)).toThrow(/must follow actions/);
    expect(() => env.actions(2)).toThrow(/expected round 1/);
    env.actions(1);
    expect(() => env.play(10)).toThrow(RangeError);
    env.play(3);
    expect(() => env.play(3)).toThrow(/once per round/);
    expect(() => env.actions(2)).toThrow(/past the horizon/);
  });
});

describe('MNIST features on a fixture', () => {
  it('scales pixels by the largest pixel norm, appends the bias and divides by √2', () => {
    const data = loadMnistTable(fixture, 'global');
    expect(data.data.counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(data.d).toBe(MNIST_DIMENSION);
    // Largest pixel norm: digit 9, image 9: ‖(10, 9)‖; every image is scaled by it.
    expect(rowOf(data, 3, 2)[0]).toBeCloseTo(4 / Math.hypot(10, 9) / Math.SQRT2, 15);
    const row = rowOf(data, 9, 9);
    expect(row[0]).toBeCloseTo(10 / Math.hypot(10, 9) / Math.SQRT2, 15);
    expect(row[1]).toBeCloseTo(9 / Math.hypot(10, 9) / Math.SQRT2, 15);
    expect(row[MNIST_PIXELS]).toBe(MNIST_BIAS);
    let norm = 0;
    for (const v of row) norm += v * v;
    expect(Math.abs(Math.sqrt(norm) - 1)).toBeLessThan(1e-12);
    expect(loadMnistTable(fixture, 'global')).toBe(data);
  });

  it('consumes 19 uniforms a round: one image per digit 0..9, then a Fisher–Yates order', () => {
    const env = createMnistEnvironment({ target: 4, horizon: 20, normalize: 'global' }, new RandomStream('replay'), fixture);
    const table = loadMnistTable(fixture, 'global');
    const replay = new RandomStream('replay');
    for (let t = 1; t <= 20; t++) {
      const set = env.actions(t);
      const images = Array.from({ length: 10 }, (_, digit) => replay.integer(0, digit));
      const order = replay.shuffle([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(labelsOf(env)).toEqual(order);
      for (let i = 0; i < 10; i++) {
        expect(imagesOf(env, table)[i]).toBe(images[order[i]]);
        // Pixel 0 encodes the digit, pixel 1 the image index.
        const scale = 1 / Math.hypot(10, 9) / Math.SQRT2;
        expect(set.features[i * MNIST_DIMENSION]).toBeCloseTo((order[i] + 1) * scale, 15);
        expect(set.features[i * MNIST_DIMENSION + 1]).toBeCloseTo(images[order[i]] * scale, 15);
      }
      const f = env.play(order.indexOf(4));
      expect(f).toEqual({ outcome: 1, reward: 1, regret: 0, bestReward: 1 });
    }
  });
});

describe('MNIST protocol on the installed data set', () => {
  it('reads the mnist package (10,000 digits) from its own folder', () => {
    const table = loadMnistTable();
    expect(table.data.file).toBe(defaultMnistRoot());
    expect(table.data.counts.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(table.data.rows).toBe(10_000);
    expect(table.d).toBe(MNIST_DIMENSION);
    expect(table.data.classes).toEqual(['0', '1', '2', '3', '4', '5', '6', '7', '8', '9']);
  });

  it('offers 10 distinct labels with exactly one target, unit-bounded 785-d actions with a constant bias', () => {
    for (const target of [1, 7]) {
      const env = createMnistEnvironment({ target, horizon: 300 }, new RandomStream(`protocol-${target}`));
      expect(env.d).toBe(785);
      expect(env.K).toBe(1);
      expect(Array.from(env.reward)).toEqual([1]);
      expect(env.maxActionNorm).toBe(1);
      expect(env.parameterError).toBeUndefined();
      const targetPositions = new Set<number>();
      for (let t = 1; t <= 300; t++) {
        const set = env.actions(t);
        expect(set.count).toBe(10);
        expect(set.d).toBe(785);
        expect(new Set(labelsOf(env)).size).toBe(10);
        const targets = labelsOf(env).filter((label) => label === target);
        expect(targets.length).toBe(1);
        for (let i = 0; i < 10; i++) {
          let norm = 0;
          for (let j = 0; j < 785; j++) norm += set.features[i * 785 + j] ** 2;
          expect(Math.sqrt(norm)).toBeLessThanOrEqual(1 + 1e-12);
          expect(set.features[i * 785 + 784]).toBe(MNIST_BIAS);
        }
        const played = t % 10;
        const f = env.play(played);
        const hit = labelsOf(env)[played] === target;
        expect(f).toEqual({ outcome: hit ? 1 : 0, reward: hit ? 1 : 0, regret: hit ? 0 : 1, bestReward: 1 });
        targetPositions.add(labelsOf(env).indexOf(target));
      }
      expect(targetPositions.size).toBe(10);
    }
  });

  it('gives the same rounds for the same seed and different ones for another', () => {
    const record = (seed: string): number[] => {
      const env = createMnistEnvironment({ horizon: 30 }, new RandomStream(seed));
      const out: number[] = [];
      for (let t = 1; t <= 30; t++) {
        const set = env.actions(t);
        out.push(...labelsOf(env), ...imagesOf(env, loadMnistTable()), set.features[123], set.features[4000]);
        env.play(0);
      }
      return out;
    };
    expect(record('mnist-seed')).toEqual(record('mnist-seed'));
    expect(record('mnist-seed')).not.toEqual(record('mnist-other'));
  });
});

describe('MNIST feature normalisation', () => {
  const norm = (v: ArrayLike<number>): number => {
    let squared = 0;
    for (let j = 0; j < v.length; j++) squared += v[j] * v[j];
    return Math.sqrt(squared);
  };
  /** One round's feature bytes, labels and images from a fresh environment. */
  const firstRound = (spec: { normalize?: MnistNormalization }, seed: string, dataRoot?: string) => {
    const env = createMnistEnvironment({ horizon: 5, ...spec }, new RandomStream(seed), dataRoot);
    const set = env.actions(1);
    return {
      env,
      bytes: Buffer.from(set.features.slice().buffer),
      labels: labelsOf(env),
      images: Array.from(env.roundExamples),
    };
  };

  it('exports the allowed values', () => {
    expect(MNIST_NORMALIZATIONS).toEqual(['global', 'per-image']);
  });

  it('per-image on the fixture: each image divided by its own norm, then the bias and 1/√2', () => {
    const data = loadMnistTable(fixture, 'per-image');
    expect(data.data.counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let digit = 0; digit < 10; digit++) {
      for (let image = 0; image <= digit; image++) {
        const row = rowOf(data, digit, image);
        const pixelNorm = Math.hypot(digit + 1, image);
        expect(row[0]).toBeCloseTo((digit + 1) / pixelNorm / Math.SQRT2, 15);
        expect(row[1]).toBeCloseTo(image / pixelNorm / Math.SQRT2, 15);
        expect(row[MNIST_PIXELS]).toBe(MNIST_BIAS);
        expect(Math.abs(norm(row) - 1)).toBeLessThan(1e-12);
      }
    }
    // Cached per (folder, normalisation).
    expect(loadMnistTable(fixture, 'per-image')).toBe(data);
    expect(loadMnistTable(fixture, 'per-image')).toBe(loadMnistTable(fixture));
    expect(loadMnistTable(fixture, 'global')).not.toBe(data);
  });

  it('per-image leaves an all-zero image zero (bias only)', () => {
    const blank = mkdtempSync(path.join(root, 'blank-'));
    for (let digit = 0; digit < 10; digit++) {
      const data = new Array<number>(2 * MNIST_PIXELS).fill(0);
      data[MNIST_PIXELS + 5] = 3; // image 1 non-blank, image 0 all zero
      writeFileSync(path.join(blank, `${digit}.json`), JSON.stringify({ data }));
    }
    const data = loadMnistTable(blank, 'per-image');
    const zero = rowOf(data, 4, 0);
    expect(zero.subarray(0, MNIST_PIXELS).every((v) => v === 0)).toBe(true);
    expect(zero[MNIST_PIXELS]).toBe(MNIST_BIAS);
    const one = rowOf(data, 4, 1);
    expect(one[5]).toBe(MNIST_BIAS);
    expect(Math.abs(norm(one) - 1)).toBeLessThan(1e-12);
  });

  it('per-image on the installed data: every action of a few rounds has norm 1 and bias 1/√2', () => {
    const env = createMnistEnvironment({ horizon: 10, normalize: 'per-image' }, new RandomStream('per-image-norm'));
    expect(env.maxActionNorm).toBe(1);
    for (let t = 1; t <= 10; t++) {
      const set = env.actions(t);
      for (let i = 0; i < 10; i++) {
        const row = set.features.subarray(i * MNIST_DIMENSION, (i + 1) * MNIST_DIMENSION);
        expect(Math.abs(norm(row) - 1)).toBeLessThan(1e-12);
        expect(row[MNIST_PIXELS]).toBe(MNIST_BIAS);
      }
      env.play(t % 10);
    }
  });

  it("per-image is the default and byte-identical to normalize: 'per-image'", () => {
    for (const dataRoot of [fixture, undefined]) {
      const implicit = firstRound({}, 'default-bytes', dataRoot);
      const explicit = firstRound({ normalize: 'per-image' }, 'default-bytes', dataRoot);
      expect(implicit.bytes.equals(explicit.bytes)).toBe(true);
      expect(implicit.labels).toEqual(explicit.labels);
      expect(implicit.images).toEqual(explicit.images);
    }
  });

  it('per-image and global features differ', () => {
    for (const dataRoot of [fixture, undefined]) {
      const global = firstRound({ normalize: 'global' }, 'differ', dataRoot);
      const perImage = firstRound({ normalize: 'per-image' }, 'differ', dataRoot);
      expect(perImage.bytes.equals(global.bytes)).toBe(false);
    }
  });

  it('the same seed draws the same images in the same order in both modes (same random consumption)', () => {
    const record = (normalize: MnistNormalization) => {
      const stream = new RandomStream('mnist-modes');
      const env = createMnistEnvironment({ horizon: 25, normalize }, stream);
      const rounds: number[][] = [];
      for (let t = 1; t <= 25; t++) {
        env.actions(t);
        rounds.push([...env.roundClasses, ...env.roundExamples]);
        env.play(t % 10);
      }
      return { rounds, next: stream.uniform() };
    };
    const global = record('global');
    const perImage = record('per-image');
    expect(perImage.rounds).toEqual(global.rounds);
    expect(perImage.next).toBe(global.next);
  });

  it('rejects an unknown normalisation with a RangeError naming the allowed values', () => {
    const bad = 'unit' as unknown as MnistNormalization;
    const stream = new RandomStream('bad-normalize');
    expect(() => createMnistEnvironment({ horizon: 5, normalize: bad }, stream, fixture)).toThrow(RangeError);
    expect(() => createMnistEnvironment({ horizon: 5, normalize: bad }, stream, fixture)).toThrow(
      /normalize must be one of 'global', 'per-image', got "unit"/,
    );
    expect(() => loadMnistTable(fixture, bad)).toThrow(RangeError);
    expect(() => loadMnistTable(fixture, bad)).toThrow(/'global', 'per-image'/);
  });
});

describe('scanPixelArray: the digit files read from their bytes', () => {
  it("gives JSON.parse's numbers, bit for bit, for three of the package's files (together all 256 values the ten hold)", () => {
    for (const digit of [0, 1, 8]) {
      const bytes = readFileSync(path.join(defaultMnistRoot(), `${digit}.json`));
      const scanned = scanPixelArray(bytes);
      const parsed = (JSON.parse(bytes.toString('utf8')) as { data: number[] }).data;
      expect(scanned?.length).toBe(parsed.length);
      let differ = 0;
      for (let i = 0; i < parsed.length; i++) if (!Object.is(scanned![i], parsed[i])) differ++;
      expect(differ, `${digit}.json`).toBe(0);
    }
  });

  it('reads any JSON number and whitespace; other forms are left to JSON.parse (null)', () => {
    const scan = (text: string) => {
      const out = scanPixelArray(Buffer.from(text, 'latin1'));
      return out === null ? null : Array.from(out);
    };
    const numbers = ['0', '-0', '0.5', '1e-3', '2.5E+2', '123456789012345678', '0.1000000000000000055511151231257827'];
    expect(scan(`{"data":[${numbers.join(',')}]}`)).toEqual(numbers.map(Number));
    expect(scan(' \n{ "data" :\t[ 1 ,\r\n0.25 ] }\n')).toEqual([1, 0.25]);
    expect(scan('{"data":[]}')).toEqual([]);
    for (const other of ['{"data":[1,"x"]}', '{"data":[01]}', '{"data":[1.]}', '{"data":[+1]}', '{"data":[1,]}', '{"data":[1]', '{"data":[1]}x', '{"other":[1]}', '[1]', '{"data":[1], "more": 2}']) {
      expect(scan(other), other).toBeNull();
    }
  });

  it('a file the scan leaves to JSON.parse is still read, or refused by name', () => {
    const odd = mkdtempSync(path.join(root, 'odd-'));
    for (let digit = 0; digit < 10; digit++) {
      writeFileSync(path.join(odd, `${digit}.json`), JSON.stringify({ note: 'first', data: new Array(MNIST_PIXELS).fill(0.5) }));
    }
    expect(readMnistDigits(odd).counts).toEqual(new Array(10).fill(1));
    const text = mkdtempSync(path.join(root, 'text-'));
    for (let digit = 0; digit < 10; digit++) {
      writeFileSync(path.join(text, `${digit}.json`), JSON.stringify({ data: [...new Array(MNIST_PIXELS - 1).fill(0), 'x'] }));
    }
    expect(() => readMnistDigits(text)).toThrow(/0\.json has a non-numeric pixel at index 783/);
  });
});
