/** Experiments and a round loop for the policy snapshot tests (test/policies/snapshot*.test.ts). */
import { parseConfigs } from '../../src/config/load.js';
import type { Environment } from '../../src/environments/environment.js';
import { resolveExperiment, type ResolvedExperiment } from '../../src/experiment/setup.js';
import type { Policy } from '../../src/policies/policy.js';
import { readsParam } from '../../src/policies/registry.js';

/** T of the snapshot tests: T/2 rounds before the snapshot, T/2 after. */
export const SNAPSHOT_HORIZON = 24;
const T = SNAPSHOT_HORIZON;

/** A synthetic experiment of one policy; sketched policies get an adaptive m, so that the sketch grows after the restore. */
export function snapshotConfig(policy: string, K: number, horizon = T, d = 4): string {
  const reward = [0, ...Array.from({ length: K }, (_, k) => (k + 1) / K)];
  const params = readsParam(policy, 'm') && readsParam(policy, 'delta_max') ? '{m: adaptive, delta_max: 0.01}' : '{}';
  return [
    'name: snap',
    `environment: {type: synthetic, d: ${d}, K: ${K}, reward: [${reward.join(', ')}], actions: [3, 6]}`,
    `horizon: ${horizon}`,
    'trials: 1',
    'seed: 7',
    `policies: [${policy}]`,
    `params: ${params}`,
    '',
  ].join('\n');
}

export function snapshotExperiment(policy: string, K: number, horizon = T, d = 4): ResolvedExperiment {
  return resolveExperiment(parseConfigs(snapshotConfig(policy, K, horizon, d), 'snap.yaml')[0]!, { configFile: 'snap.yaml' });
}

/** Plays rounds first..last; returns the actions. */
export function play(policy: Policy, environment: Environment, first: number, last: number): number[] {
  const chosen: number[] = [];
  for (let t = first; t <= last; t++) {
    const actions = environment.actions(t);
    const i = policy.select(actions, t);
    const feedback = environment.play(i);
    policy.update(actions.features.subarray(i * actions.d, (i + 1) * actions.d), feedback.outcome);
    chosen.push(i);
  }
  return chosen;
}
