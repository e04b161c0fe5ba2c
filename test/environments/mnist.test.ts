import { mkdtempSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createMnistEnvironment,
  defaultMnistRoot,
  loadMnistData,
  MNIST_BIAS,
  MNIST_DIMENSION,
  MNIST_NORMALIZATIONS,
  MNIST_PIXELS,
  type MnistNormalization,
} from '../../src/environments/mnist.js';
import { RandomStream } from '../../src/random/stream.js';

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
    expect(() => loadMnistData(empty)).toThrow(/0\.json/);
    const bad = mkdtempSync(path.join(root, 'bad-'));
    for (let digit = 0; digit < 10; digit++) writeFileSync(path.join(bad, `${digit}.json`), JSON.stringify({ data: [1, 2, 3] }));
    expect(() => loadMnistData(bad)).toThrow(/multiple of 784/);
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
    const data = loadMnistData(fixture, 'global');
    expect(data.counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // Largest pixel norm: digit 9, image 9: ‖(10, 9)‖.
    expect(data.maxPixelNorm).toBeCloseTo(Math.hypot(10, 9), 14);
    const row = data.features[9].subarray(9 * MNIST_DIMENSION, 10 * MNIST_DIMENSION);
    expect(row[0]).toBeCloseTo(10 / Math.hypot(10, 9) / Math.SQRT2, 15);
    expect(row[1]).toBeCloseTo(9 / Math.hypot(10, 9) / Math.SQRT2, 15);
    expect(row[MNIST_PIXELS]).toBe(MNIST_BIAS);
    let norm = 0;
    for (const v of row) norm += v * v;
    expect(Math.abs(Math.sqrt(norm) - 1)).toBeLessThan(1e-12);
    expect(loadMnistData(fixture, 'global')).toBe(data);
  });

  it('consumes 19 uniforms a round: one image per digit 0..9, then a Fisher–Yates order', () => {
    const env = createMnistEnvironment({ target: 4, horizon: 20, normalize: 'global' }, new RandomStream('replay'), fixture);
    const replay = new RandomStream('replay');
    for (let t = 1; t <= 20; t++) {
      const set = env.actions(t);
      const images = Array.from({ length: 10 }, (_, digit) => replay.integer(0, digit));
      const order = replay.shuffle([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(Array.from(env.roundLabels)).toEqual(order);
      for (let i = 0; i < 10; i++) {
        expect(env.roundImages[i]).toBe(images[order[i]]);
        // Pixel 0 encodes the digit, pixel 1 the image index.
        const scale = 1 / Math.hypot(10, 9) / Math.SQRT2;
        expect(set.features[i * MNIST_DIMENSION]).toBeCloseTo((order[i] + 1) * scale, 15);
        expect(set.features[i * MNIST_DIMENSION + 1]).toBeCloseTo(images[order[i]] * scale, 15);
      }
      const f = env.play(order.indexOf(4));
      expect(f).toEqual({ outcome: 1, reward: 1, regret: 0 });
    }
  });
});

describe('MNIST protocol on the installed data set', () => {
  it('reads the mnist package (10,000 digits) from its own folder', () => {
    const data = loadMnistData();
    expect(data.root).toBe(defaultMnistRoot());
    expect(data.counts.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(data.features.every((f, digit) => f.length === data.counts[digit] * MNIST_DIMENSION)).toBe(true);
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
        expect(new Set(env.roundLabels).size).toBe(10);
        const targets = Array.from(env.roundLabels).filter((label) => label === target);
        expect(targets.length).toBe(1);
        for (let i = 0; i < 10; i++) {
          let norm = 0;
          for (let j = 0; j < 785; j++) norm += set.features[i * 785 + j] ** 2;
          expect(Math.sqrt(norm)).toBeLessThanOrEqual(1 + 1e-12);
          expect(set.features[i * 785 + 784]).toBe(MNIST_BIAS);
        }
        const played = t % 10;
        const f = env.play(played);
        const hit = env.roundLabels[played] === target;
        expect(f).toEqual({ outcome: hit ? 1 : 0, reward: hit ? 1 : 0, regret: hit ? 0 : 1 });
        targetPositions.add(Array.from(env.roundLabels).indexOf(target));
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
        out.push(...env.roundLabels, ...env.roundImages, set.features[123], set.features[4000]);
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
      labels: Array.from(env.roundLabels),
      images: Array.from(env.roundImages),
    };
  };

  it('exports the allowed values', () => {
    expect(MNIST_NORMALIZATIONS).toEqual(['global', 'per-image']);
  });

  it('per-image on the fixture: each image divided by its own norm, then the bias and 1/√2', () => {
    const data = loadMnistData(fixture, 'per-image');
    expect(data.normalize).toBe('per-image');
    expect(data.counts).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let digit = 0; digit < 10; digit++) {
      for (let image = 0; image <= digit; image++) {
        const row = data.features[digit].subarray(image * MNIST_DIMENSION, (image + 1) * MNIST_DIMENSION);
        const pixelNorm = Math.hypot(digit + 1, image);
        expect(row[0]).toBeCloseTo((digit + 1) / pixelNorm / Math.SQRT2, 15);
        expect(row[1]).toBeCloseTo(image / pixelNorm / Math.SQRT2, 15);
        expect(row[MNIST_PIXELS]).toBe(MNIST_BIAS);
        expect(Math.abs(norm(row) - 1)).toBeLessThan(1e-12);
      }
    }
    // Cached per (folder, normalisation).
    expect(loadMnistData(fixture, 'per-image')).toBe(data);
    expect(loadMnistData(fixture, 'per-image')).toBe(loadMnistData(fixture));
    expect(loadMnistData(fixture, 'global')).not.toBe(data);
    expect(loadMnistData(fixture).normalize).toBe('per-image');
  });

  it('per-image leaves an all-zero image zero (bias only)', () => {
    const blank = mkdtempSync(path.join(root, 'blank-'));
    for (let digit = 0; digit < 10; digit++) {
      const data = new Array<number>(2 * MNIST_PIXELS).fill(0);
      data[MNIST_PIXELS + 5] = 3; // image 1 non-blank, image 0 all zero
      writeFileSync(path.join(blank, `${digit}.json`), JSON.stringify({ data }));
    }
    const data = loadMnistData(blank, 'per-image');
    const zero = data.features[4].subarray(0, MNIST_DIMENSION);
    expect(zero.subarray(0, MNIST_PIXELS).every((v) => v === 0)).toBe(true);
    expect(zero[MNIST_PIXELS]).toBe(MNIST_BIAS);
    const one = data.features[4].subarray(MNIST_DIMENSION, 2 * MNIST_DIMENSION);
    expect(one[5]).toBe(MNIST_BIAS);
    expect(Math.abs(norm(one) - 1)).toBeLessThan(1e-12);
  });

  it('per-image on the installed data: every action of a few rounds has norm 1 and bias 1/√2', () => {
    const env = createMnistEnvironment({ horizon: 10, normalize: 'per-image' }, new RandomStream('per-image-norm'));
    expect(env.normalize).toBe('per-image');
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
      expect(implicit.env.normalize).toBe('per-image');
      expect(explicit.env.normalize).toBe('per-image');
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
        rounds.push([...env.roundLabels, ...env.roundImages]);
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
    expect(() => loadMnistData(fixture, bad)).toThrow(RangeError);
    expect(() => loadMnistData(fixture, bad)).toThrow(/'global', 'per-image'/);
  });
});
