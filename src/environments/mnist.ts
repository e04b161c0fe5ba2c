/**
 * MNIST as a binary contextual bandit, the protocol of Cesa-Bianchi et al. (2013) used in Section 4:
 * each round offers one image of every digit 0–9 in a random order; playing the target digit
 * (default 1) pays 1, anything else 0. K = 1, r = [1], regret = 1 − reward.
 *
 * Data: the `mnist` package's 10,000 digits, read straight from its `src/digits/<digit>.json` files
 * (`{"data": [...]}`, 784 pixels per image, images of one digit back to back). Its own sampling
 * helpers use Math.random and are never called.
 *
 * Features (d = 785; the paper says only "normalized features"), option `normalize`: 'per-image'
 * (the default, chosen by measurement: README) divides each image's pixels by its own norm (an
 * all-zero image stays zero), 'global' divides them by the largest pixel-vector norm over the data set. Then a bias 1 is
 * appended and the whole vector divided by √2. The pixel part has norm ≤ 1 (exactly 1 per-image for a
 * non-blank image) and the bias 1, so ‖x‖ ≤ √2/√2 = 1 (D = 1) and the bias coordinate is 1/√2.
 *
 * Random numbers per round, from the environment's stream, in this order: 10 uniforms choosing the
 * image of digit 0, 1, …, 9 (`integer(0, count − 1)`), then 9 uniforms shuffling the digits' order
 * (Fisher–Yates of [0..9]): 19 uniforms, every round.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { integer, listAllowed, strictObject } from '../base/fields.js';
import { defineEnvironment, type ActionSet, type Environment, type Feedback } from './environment.js';
import type { RandomStream } from '../random/stream.js';

export const MNIST_PIXELS = 784;
/** d: 784 pixels and a bias. */
export const MNIST_DIMENSION = MNIST_PIXELS + 1;
export const MNIST_DIGITS = 10;
/** The bias coordinate's value after the final 1/√2 scaling. */
export const MNIST_BIAS = 1 / Math.SQRT2;

/** How the pixel part of a feature vector is scaled (see the module comment). */
export const MNIST_NORMALIZATIONS = ['global', 'per-image'] as const;
/** The default: every image at unit norm (README, "What the experiments show"). */
export const DEFAULT_MNIST_NORMALIZATION = 'per-image';
export type MnistNormalization = (typeof MNIST_NORMALIZATIONS)[number];

function checkNormalization(normalize: unknown): MnistNormalization {
  if (!(MNIST_NORMALIZATIONS as readonly unknown[]).includes(normalize)) {
    throw new RangeError(
      `mnist: normalize must be one of ${MNIST_NORMALIZATIONS.map((n) => `'${n}'`).join(', ')}, got ${JSON.stringify(normalize) ?? String(normalize)}`,
    );
  }
  return normalize as MnistNormalization;
}

export interface MnistData {
  /** Folder holding 0.json … 9.json. */
  readonly root: string;
  /** How the pixels were scaled. */
  readonly normalize: MnistNormalization;
  /** Per digit, its images' feature vectors (785 each) back to back. */
  readonly features: readonly Float64Array[];
  /** Per digit, the number of images. */
  readonly counts: readonly number[];
  /** The largest pixel-vector norm over the whole data set (the pixel scale of 'global'). */
  readonly maxPixelNorm: number;
}

/** The installed `mnist` package's digits folder. */
export function defaultMnistRoot(): string {
  const packageJson = createRequire(import.meta.url).resolve('mnist/package.json');
  return path.join(path.dirname(packageJson), 'src', 'digits');
}

const cache = new Map<string, MnistData>();

/**
 * Loads (once per process, folder and normalisation) the ten digit files and builds the feature
 * vectors.
 */
export function loadMnistData(root: string = defaultMnistRoot(), normalize: MnistNormalization = DEFAULT_MNIST_NORMALIZATION): MnistData {
  checkNormalization(normalize);
  const folder = path.resolve(root);
  const key = JSON.stringify([folder, normalize]);
  const cached = cache.get(key);
  if (cached) return cached;

  const pixelsPerDigit: number[][] = [];
  /** Per digit, each image's pixel-vector norm. */
  const normsPerDigit: Float64Array[] = [];
  let maxSquaredNorm = 0;
  for (let digit = 0; digit < MNIST_DIGITS; digit++) {
    const file = path.join(folder, `${digit}.json`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new Error(`mnist: cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const data = (parsed as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length === 0 || data.length % MNIST_PIXELS !== 0) {
      throw new Error(`mnist: ${file} must hold {"data": [...]} with a positive multiple of ${MNIST_PIXELS} pixels`);
    }
    const norms = new Float64Array(data.length / MNIST_PIXELS);
    for (let start = 0; start < data.length; start += MNIST_PIXELS) {
      let squaredNorm = 0;
      for (let j = start; j < start + MNIST_PIXELS; j++) {
        const pixel = data[j];
        if (typeof pixel !== 'number' || !Number.isFinite(pixel)) {
          throw new Error(`mnist: ${file} has a non-numeric pixel at index ${j}`);
        }
        squaredNorm += pixel * pixel;
      }
      if (squaredNorm > maxSquaredNorm) maxSquaredNorm = squaredNorm;
      norms[start / MNIST_PIXELS] = Math.sqrt(squaredNorm);
    }
    pixelsPerDigit.push(data as number[]);
    normsPerDigit.push(norms);
  }

  const maxPixelNorm = Math.sqrt(maxSquaredNorm);
  // An all-black data set has nothing to scale.
  const pixelScale = maxPixelNorm > 0 ? MNIST_BIAS / maxPixelNorm : 0;
  const features: Float64Array[] = [];
  const counts: number[] = [];
  for (let digit = 0; digit < MNIST_DIGITS; digit++) {
    const pixels = pixelsPerDigit[digit];
    const norms = normsPerDigit[digit];
    const count = pixels.length / MNIST_PIXELS;
    const rows = new Float64Array(count * MNIST_DIMENSION);
    for (let image = 0; image < count; image++) {
      const source = image * MNIST_PIXELS;
      const target = image * MNIST_DIMENSION;
      // An all-zero image stays zero.
      const scale = normalize === 'global' ? pixelScale : norms[image] > 0 ? MNIST_BIAS / norms[image] : 0;
      for (let j = 0; j < MNIST_PIXELS; j++) rows[target + j] = pixels[source + j] * scale;
      rows[target + MNIST_PIXELS] = MNIST_BIAS;
    }
    features.push(rows);
    counts.push(count);
  }
  const loaded: MnistData = { root: folder, normalize, features, counts, maxPixelNorm };
  cache.set(key, loaded);
  return loaded;
}

export interface MnistSpec {
  /** The rewarded label, 0–9 (default 1). */
  readonly target?: number;
  /** T (Infinity for unbounded). */
  readonly horizon: number;
  /** How the pixels are scaled (default 'per-image'). */
  readonly normalize?: MnistNormalization;
}

export interface MnistEnvironment extends Environment {
  /** Label of each action of the current round (action i shows digit `roundLabels[i]`). */
  readonly roundLabels: Int32Array;
  /** Index, within its digit's images, of each action of the current round. */
  readonly roundImages: Int32Array;
  readonly target: number;
  readonly normalize: MnistNormalization;
}

/** `dataRoot` (a folder with 0.json … 9.json) defaults to the installed `mnist` package. */
export function createMnistEnvironment(spec: MnistSpec, stream: RandomStream, dataRoot?: string): MnistEnvironment {
  const target = spec.target ?? 1;
  if (!Number.isInteger(target) || target < 0 || target > 9) {
    throw new RangeError(`mnist: target must be an integer in [0, 9], got ${target}`);
  }
  if (spec.horizon !== Number.POSITIVE_INFINITY && (!Number.isSafeInteger(spec.horizon) || spec.horizon < 1)) {
    throw new RangeError(`mnist: horizon must be an integer ≥ 1, got ${spec.horizon}`);
  }
  const normalize = checkNormalization(spec.normalize ?? DEFAULT_MNIST_NORMALIZATION);
  return new MnistEnvironmentImpl(loadMnistData(dataRoot, normalize), target, spec.horizon, stream);
}

class MnistEnvironmentImpl implements MnistEnvironment {
  readonly d = MNIST_DIMENSION;
  readonly K = 1;
  readonly reward = Float64Array.of(1);
  readonly maxActionNorm = 1;
  readonly roundLabels = new Int32Array(MNIST_DIGITS);
  readonly roundImages = new Int32Array(MNIST_DIGITS);
  readonly normalize: MnistNormalization;

  private readonly actionSet = {
    count: MNIST_DIGITS,
    d: MNIST_DIMENSION,
    features: new Float64Array(MNIST_DIGITS * MNIST_DIMENSION),
  };
  private readonly chosenImage = new Int32Array(MNIST_DIGITS);
  private round = 0;
  private played = true;

  constructor(
    private readonly data: MnistData,
    readonly target: number,
    readonly horizon: number,
    private readonly stream: RandomStream,
  ) {
    this.normalize = data.normalize;
  }

  actions(t: number): ActionSet {
    if (t !== this.round + 1) {
      throw new RangeError(`mnist: rounds must be taken in order; expected round ${this.round + 1}, got ${t}`);
    }
    if (t > this.horizon) throw new RangeError(`mnist: round ${t} is past the horizon ${this.horizon}`);
    const { data, stream, roundLabels, roundImages, chosenImage } = this;
    for (let digit = 0; digit < MNIST_DIGITS; digit++) chosenImage[digit] = stream.integer(0, data.counts[digit] - 1);
    for (let i = 0; i < MNIST_DIGITS; i++) roundLabels[i] = i;
    stream.shuffle(roundLabels);

    const features = this.actionSet.features;
    for (let i = 0; i < MNIST_DIGITS; i++) {
      const digit = roundLabels[i];
      const image = chosenImage[digit];
      roundImages[i] = image;
      const source = data.features[digit];
      const from = image * MNIST_DIMENSION;
      const to = i * MNIST_DIMENSION;
      for (let j = 0; j < MNIST_DIMENSION; j++) features[to + j] = source[from + j];
    }
    this.round = t;
    this.played = false;
    return this.actionSet;
  }

  play(index: number): Feedback {
    if (this.played) throw new Error(`mnist: play() must follow actions(t) once per round (round ${this.round})`);
    if (!Number.isInteger(index) || index < 0 || index >= MNIST_DIGITS) {
      throw new RangeError(`mnist: action index must be an integer in [0, ${MNIST_DIGITS - 1}], got ${index}`);
    }
    this.played = true;
    const reward = this.roundLabels[index] === this.target ? 1 : 0;
    return { outcome: reward, reward, regret: 1 - reward };
  }
}

const mnistSchema = strictObject(
  {
    type: z.literal('mnist'),
    /** The rewarded label. */
    target: integer(0, 9).default(1).describe('the rewarded digit'),
    /** How pixels are scaled before the bias is appended. */
    normalize: z
      .enum(MNIST_NORMALIZATIONS, { error: `expected ${listAllowed(MNIST_NORMALIZATIONS)}` })
      .default(DEFAULT_MNIST_NORMALIZATION)
      .describe("pixel scaling before the bias is appended: 'per-image' (each image by its own norm) or 'global' (by the largest norm in the data set)"),
  },
  'an mnist environment mapping',
);

/** MNIST as a config names it: the binary protocol of Section 4 over the `mnist` package's digits. */
export const mnistEnvironment = defineEnvironment({
  type: 'mnist',
  summary: 'one image of each digit per round, reward 1 for the target digit (Cesa-Bianchi et al. 2013), d = 785',
  schema: mnistSchema,
  resolve: (parsed) => ({ type: 'mnist' as const, target: parsed.target, normalize: parsed.normalize }),
  create: (config, { horizon, stream, mnistDataRoot }) =>
    createMnistEnvironment({ target: config.target, horizon, normalize: config.normalize }, stream, mnistDataRoot),
});
