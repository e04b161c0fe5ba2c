/**
 * The package's random numbers. Math.random is never used: every stream is seeded, and its sequence
 * is a function of the seed alone on every machine (integer arithmetic underneath).
 *
 * - `RandomStream`: seedrandom's ARC4 generator seeded by a string; the experiments' streams (one per
 *   trial and purpose, seeds from experiment/seeds.ts).
 * - `Mulberry32Stream`: a 32-bit generator held in one integer, allocation-free (ARC4 through
 *   seedrandom boxes a number per draw); the bench's workload and test data.
 * Both share the derived draws below (normals, integers, shuffles, unit vectors).
 */
import seedrandom from 'seedrandom';

/** An indexable sequence that `shuffle` can permute in place (arrays and typed arrays). */
export interface MutableArrayLike<T> {
  readonly length: number;
  [index: number]: T;
}

/** Draws built on a uniform source; subclasses supply `uniform()`. */
export abstract class UniformStream {
  /** Box–Muller makes normals in pairs; the second waits here. */
  private spareNormal = 0;
  private hasSpareNormal = false;

  /** Uniform on [0, 1) with 53 random bits. */
  abstract uniform(): number;

  /** Standard normal by Box–Muller; every second call returns the cached partner. */
  normal(): number {
    if (this.hasSpareNormal) {
      this.hasSpareNormal = false;
      return this.spareNormal;
    }
    // 1 − u ∈ (0, 1], so the logarithm is finite.
    const r = Math.sqrt(-2 * Math.log(1 - this.uniform()));
    const angle = 2 * Math.PI * this.uniform();
    this.spareNormal = r * Math.sin(angle);
    this.hasSpareNormal = true;
    return r * Math.cos(angle);
  }

  /** Uniform integer in [lo, hi], both inclusive; consumes one uniform. */
  integer(lo: number, hi: number): number {
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi) || lo > hi) {
      throw new RangeError(`RandomStream.integer: need integers lo ≤ hi, got [${lo}, ${hi}]`);
    }
    return lo + Math.floor(this.uniform() * (hi - lo + 1));
  }

  /** Fisher–Yates shuffle in place (i = n−1 … 1 swaps with integer(0, i): n − 1 uniforms). */
  shuffle<A extends MutableArrayLike<unknown>>(array: A): A {
    for (let i = array.length - 1; i > 0; i--) {
      const j = this.integer(0, i);
      const held = array[i];
      array[i] = array[j];
      array[j] = held;
    }
    return array;
  }

  /**
   * A uniformly random unit vector in out[offset..offset+n): n normals, normalised (a zero vector,
   * probability 0, is redrawn).
   */
  unitVector(out: Float64Array, offset: number, n: number): void {
    let squaredNorm = 0;
    while (squaredNorm === 0) {
      for (let j = 0; j < n; j++) {
        const value = this.normal();
        out[offset + j] = value;
        squaredNorm += value * value;
      }
    }
    const inverseNorm = 1 / Math.sqrt(squaredNorm);
    for (let j = 0; j < n; j++) out[offset + j] *= inverseNorm;
  }
}

/** seedrandom's ARC4 generator seeded by a non-empty string. */
export class RandomStream extends UniformStream {
  readonly seed: string;
  private generator: seedrandom.StatefulPRNG<seedrandom.State.Arc4>;

  constructor(seed: string) {
    super();
    if (typeof seed !== 'string' || seed === '') {
      throw new TypeError(`RandomStream: seed must be a non-empty string, got ${JSON.stringify(seed)}`);
    }
    this.seed = seed;
    this.generator = seedrandom(seed, { state: true });
  }

  uniform(): number {
    return this.generator.double();
  }

  /** The generator's position (ARC4's i, j and permutation S): `restoreState` continues from it. */
  state(): seedrandom.State.Arc4 {
    return this.generator.state();
  }

  /** Continues from a position `state()` returned (of this stream or another). */
  restoreState(state: seedrandom.State.Arc4): void {
    if (!(Number.isInteger(state.i) && Number.isInteger(state.j) && Array.isArray(state.S) && state.S.length === 256)) {
      throw new RangeError('RandomStream.restoreState: not an ARC4 state (i, j and a 256-entry S)');
    }
    this.generator = seedrandom('', { state });
  }
}

/** Marks a uniform function made by `uniformOf` with the stream it draws from. */
const STREAM = Symbol('eofd.uniform-stream');

/**
 * A policy's `spec.uniform` drawing from `stream`. A policy snapshot (policies/snapshot.ts) saves and
 * restores the stream's position through it; a bare function's position cannot be saved.
 */
export function uniformOf(stream: UniformStream): () => number {
  const uniform = (): number => stream.uniform();
  Object.defineProperty(uniform, STREAM, { value: stream });
  return uniform;
}

/** The stream behind a function `uniformOf` made, else undefined. */
export function streamBehind(uniform: () => number): UniformStream | undefined {
  return (uniform as { [STREAM]?: UniformStream })[STREAM];
}

/** Derived draws (normals, …) over a given uniform function, e.g. a policy's `spec.uniform`. */
export class FunctionUniformStream extends UniformStream {
  private readonly source: () => number;

  constructor(source: () => number) {
    super();
    this.source = source;
  }

  uniform(): number {
    return this.source();
  }
}

/** mulberry32: a 32-bit generator in one integer; two draws per 53-bit uniform. */
export class Mulberry32Stream extends UniformStream {
  private state: number;

  constructor(seed: number) {
    super();
    this.state = seed >>> 0;
  }

  /** A uniform 32-bit unsigned integer. */
  next32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  uniform(): number {
    const high = this.next32() >>> 5; // 27 bits
    const low = this.next32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }
}

/** A function of uniforms on [0, 1) with 32 random bits each (mulberry32): test data. */
export function mulberry32(seed: number): () => number {
  const stream = new Mulberry32Stream(seed);
  return () => stream.next32() / 4294967296;
}
