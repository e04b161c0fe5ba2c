/**
 * The bench's synthetic problem, allocation-free so that a garbage collection during the timed rounds
 * can only come from the policy: W* with i.i.d. normal entries scaled to ‖W*‖_F = S* (DESIGN §3),
 * each round `count` actions uniform on the unit sphere, outcomes by the shared rule of DESIGN §1,
 * all through the environments' simulation core (LogisticInstance). The stream is mulberry32
 * (random/stream.ts): seedrandom's ARC4 boxes a number per draw, a few MB per round at d = 785.
 */
import type { ActionSet } from '../environments/environment.js';
import { LogisticInstance, randomTrueWeights } from '../environments/simulation.js';
import { Mulberry32Stream } from '../random/stream.js';

export class BenchWorkload {
  readonly d: number;
  readonly K: number;
  /** The current round's actions (row-major count×d). */
  readonly actions: ActionSet;
  private readonly stream: Mulberry32Stream;
  private readonly instance: LogisticInstance;

  /** `reward`: r_1..r_K. */
  constructor(d: number, reward: Float64Array, count: number, normStar: number, seed: number) {
    this.d = d;
    this.K = reward.length;
    this.stream = new Mulberry32Stream(seed);
    this.instance = new LogisticInstance(reward, randomTrueWeights(this.stream, this.K, d, normStar), d, count);
    this.actions = { count, d, features: new Float64Array(count * d) };
  }

  /** W*, row-wise (K×d). */
  get trueWeights(): Float64Array {
    return this.instance.trueWeights;
  }

  /** Draws the next round's actions into `actions.features`. */
  nextActions(): ActionSet {
    const { count, d, features } = this.actions;
    for (let i = 0; i < count; i++) this.stream.unitVector(features, i * d, d);
    this.instance.evaluate(this.actions);
    return this.actions;
  }

  /** Samples y for action `index` of the current round by the shared outcome rule. */
  outcome(index: number): number {
    return this.instance.outcome(index, this.stream.uniform());
  }
}
