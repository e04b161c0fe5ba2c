/**
 * The bench's synthetic problem, allocation-free so that a garbage collection during the timed rounds
 * can only come from the policy: W* with i.i.d. normal entries scaled to ‖W*‖_F = S* (DESIGN §3),
 * each round `count` actions uniform on the unit sphere (normalised Gaussians), outcomes by the
 * shared rule of DESIGN §1 (`softmaxWithNull`, `sampleOutcome`).
 *
 * The experiments' RandomStream (seedrandom's ARC4) boxes a number per draw, a few MB per round at
 * d = 785; here the stream is a 32-bit generator (mulberry32, two draws per 53-bit uniform) held in
 * integers, and normals come from Box–Muller pairs. Deterministic for a given seed.
 */
import { linearScores, sampleOutcome, softmaxWithNull } from '../model/logistic.js';
import type { ActionSet } from '../environments/environment.js';

export class BenchWorkload {
  readonly d: number;
  readonly K: number;
  /** W*, row-wise (K×d). */
  readonly trueWeights: Float64Array;
  /** The current round's actions (row-major count×d). */
  readonly actions: ActionSet;
  private readonly scores: Float64Array;
  private readonly sigma: Float64Array;
  private state: number;
  private spareNormal = 0;
  private hasSpareNormal = false;

  constructor(d: number, K: number, count: number, normStar: number, seed: number) {
    this.d = d;
    this.K = K;
    this.state = seed >>> 0;
    this.trueWeights = new Float64Array(K * d);
    this.fillUnit(this.trueWeights, 0, K * d);
    for (let i = 0; i < K * d; i++) this.trueWeights[i] *= normStar;
    this.actions = { count, d, features: new Float64Array(count * d) };
    this.scores = new Float64Array(K);
    this.sigma = new Float64Array(K);
  }

  /** Draws the next round's actions into `actions.features`. */
  nextActions(): ActionSet {
    const { count, d, features } = this.actions;
    for (let i = 0; i < count; i++) this.fillUnit(features, i * d, d);
    return this.actions;
  }

  /** Samples y for action `index` of the current round by the shared outcome rule. */
  outcome(index: number): number {
    const { K, d, scores, sigma } = this;
    linearScores(K, d, this.trueWeights, this.actions.features, index * d, scores);
    const nullProbability = softmaxWithNull(K, scores, sigma);
    return sampleOutcome(K, this.uniform(), nullProbability, sigma);
  }

  /** A uniformly random unit vector in out[offset..+n). */
  private fillUnit(out: Float64Array, offset: number, n: number): void {
    let squaredNorm = 0;
    while (squaredNorm === 0) {
      for (let j = 0; j < n; j++) {
        const v = this.normal();
        out[offset + j] = v;
        squaredNorm += v * v;
      }
    }
    const inverse = 1 / Math.sqrt(squaredNorm);
    for (let j = 0; j < n; j++) out[offset + j] *= inverse;
  }

  /** mulberry32 step: a uniform 32-bit integer. */
  private next32(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform on [0, 1) with 53 random bits. */
  uniform(): number {
    const high = this.next32() >>> 5; // 27 bits
    const low = this.next32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** Standard normal by Box–Muller; every second call returns the cached partner. */
  private normal(): number {
    if (this.hasSpareNormal) {
      this.hasSpareNormal = false;
      return this.spareNormal;
    }
    const radius = Math.sqrt(-2 * Math.log(1 - this.uniform()));
    const angle = 2 * Math.PI * this.uniform();
    this.spareNormal = radius * Math.sin(angle);
    this.hasSpareNormal = true;
    return radius * Math.cos(angle);
  }
}
