/**
 * The only source of randomness in the package: seedrandom's ARC4 generator seeded by a string.
 * Deterministic across machines (ARC4 is integer arithmetic); Math.random is never used.
 */
import seedrandom from 'seedrandom';

/** An indexable sequence that `shuffle` can permute in place (arrays and typed arrays). */
export interface MutableArrayLike<T> {
  readonly length: number;
  [index: number]: T;
}

export class RandomStream {
  readonly seed: string;
  private readonly generator: seedrandom.PRNG;
  /** Box–Muller makes normals in pairs; the second waits here. */
  private spareNormal = 0;
  private hasSpareNormal = false;

  constructor(seed: string) {
    if (typeof seed !== 'string' || seed === '') {
      throw new TypeError(`RandomStream: seed must be a non-empty string, got ${JSON.stringify(seed)}`);
    }
    this.seed = seed;
    this.generator = seedrandom(seed);
  }

  /** Uniform on [0, 1) with 53 random bits. */
  uniform(): number {
    return this.generator.double();
  }

  /** Standard normal by Box–Muller; every second call returns the cached partner. */
  normal(): number {
    if (this.hasSpareNormal) {
      this.hasSpareNormal = false;
      return this.spareNormal;
    }
    // 1 − u ∈ (0, 1], so the logarithm is finite.
    const radius = Math.sqrt(-2 * Math.log(1 - this.uniform()));
    const angle = 2 * Math.PI * this.uniform();
    this.spareNormal = radius * Math.sin(angle);
    this.hasSpareNormal = true;
    return radius * Math.cos(angle);
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
}
