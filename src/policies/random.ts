import type { ActionSet } from '../environments/environment.js';
import { assertFiniteActions, assertOutcome } from './kit/checks.js';
import type { Policy, PolicyDescriptor, PolicyStats } from './policy.js';
import { type PolicySpec, validatePolicySpec } from './spec.js';

/** The uniform-random reference: every action of a round with equal probability, from its own stream. */
export class RandomPolicy implements Policy {
  readonly name = 'Random' as const;
  private readonly uniform: () => number;
  private readonly K: number;
  private readonly empty = new Float64Array(0);

  constructor(spec: PolicySpec) {
    validatePolicySpec(spec);
    if (spec.uniform === undefined) throw new RangeError('Random: a seeded uniform stream (spec.uniform) is required');
    this.uniform = spec.uniform;
    this.K = spec.K;
  }

  select(actions: ActionSet): number {
    assertFiniteActions(actions);
    return Math.min(actions.count - 1, Math.floor(this.uniform() * actions.count));
  }

  update(_x: Float64Array, outcome: number): void {
    assertOutcome(outcome, this.K);
  }

  stats(): PolicyStats {
    return { stateBytes: 0, sketchError: 0, projections: 0, beta: NaN, delta: NaN };
  }

  estimate(): Float64Array {
    return this.empty;
  }
}

export const randomPolicy: PolicyDescriptor = {
  name: 'Random',
  summary: 'every action of a round with equal probability (the uniform reference)',
  reference: '—',
  supports: { binary: true, multinomial: true },
  reads: [],
  needsRandomStream: true,
  costRank: 0,
  cost: { round: 'O(1)', memory: 'O(1)', flops: () => 1, bytes: () => 0, probeProjection: false },
  create: (spec) => new RandomPolicy(spec),
};
