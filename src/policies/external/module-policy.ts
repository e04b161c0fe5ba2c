/**
 * A module policy as the runner plays it: the object its descriptor's `create` returned, checked (it
 * must select and update) and completed (a module need not count anything: stats and estimate default
 * to none). Snapshots refuse it (snapshot.ts): its state is the module's own.
 */
import type { ActionSet } from '../../environments/environment.js';
import type { Policy, PolicyStats } from '../policy.js';

const NO_STATS: PolicyStats = { stateBytes: 0, sketchError: 0, projections: 0, beta: NaN, delta: NaN };

export class ModulePolicy implements Policy {
  readonly name: string;

  constructor(
    readonly inner: Partial<Policy>,
    label: string,
    readonly module: string,
  ) {
    if (typeof inner !== 'object' || inner === null || typeof inner.select !== 'function' || typeof inner.update !== 'function') {
      throw new Error(`${module}: create(spec, params) returned ${inner === null ? 'null' : typeof inner}, not a policy with select(actions, t) and update(x, outcome)`);
    }
    this.name = label;
    if (typeof inner.sketchSize === 'function') this.sketchSize = () => (inner.sketchSize as () => number).call(inner);
  }

  sketchSize?: () => number;

  select(actions: ActionSet, t: number): number {
    const action = (this.inner.select as Policy['select']).call(this.inner, actions, t);
    if (!(Number.isInteger(action) && action >= 0 && action < actions.count)) {
      throw new Error(`select returned the invalid action ${JSON.stringify(action) ?? 'undefined'} (expected an integer index in 0..${actions.count - 1})`);
    }
    return action;
  }

  update(x: Float64Array, outcome: number): void {
    (this.inner.update as Policy['update']).call(this.inner, x, outcome);
  }

  stats(): PolicyStats {
    return typeof this.inner.stats === 'function' ? { ...NO_STATS, ...this.inner.stats() } : NO_STATS;
  }

  estimate(): Float64Array {
    return typeof this.inner.estimate === 'function' ? this.inner.estimate() : new Float64Array(0);
  }

  close(): void {
    this.inner.close?.();
  }
}
