/**
 * Every registered policy × extreme but schema-legal parameter values × K ∈ {1, 2, 4}: refused when the
 * config is resolved (a ConfigError naming the file and the field), or three rounds played without an
 * error or a non-finite number. Table-driven over the registry, so a new policy is covered as it is added.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { parseConfigs } from '../../src/config/load.js';
import { createTrialEnvironment, policySpecFor, resolveExperiment } from '../../src/experiment/setup.js';
import { runTrialsInStep } from '../../src/experiment/trial.js';
import { createPolicy, POLICIES } from '../../src/policies/registry.js';

/** The params that take a positive number, and the extremes each one's schema admits. */
const EXTREMES: Record<string, readonly number[]> = {
  S: [1e-30, 1e-300, 1e300],
  lambda: [1e-30, 1e-300, 1e300],
  eta: [1e-30, 1e-300, 1e300],
  beta: [1e-30, 1e-300, 1e300],
  beta_scale: [1e-30, 1e-300, 1e300],
  delta: [1e-30, 1e-300],
  delta_max: [1e-30, 1e-300, 1e300],
};

function config(policy: string, K: number, key: string, value: number): string {
  const reward = [0, ...Array.from({ length: K }, (_, k) => (k + 1) / K)];
  const params = [`${key}: ${value}`, key === 'delta_max' ? 'm: adaptive' : null].filter(Boolean).join(', ');
  return [
    'name: limits',
    `environment: {type: synthetic, d: 3, K: ${K}, reward: [${reward.join(', ')}], actions: [3, 5]}`,
    'horizon: 3',
    'trials: 1',
    'seed: 0',
    `policies: [${policy}]`,
    `params: {${params}}`,
    '',
  ].join('\n');
}

const cases = POLICIES.flatMap((descriptor) =>
  [1, 2, 4]
    .filter((K) => (K === 1 ? descriptor.supports.binary : descriptor.supports.multinomial))
    .flatMap((K) =>
      Object.entries(EXTREMES)
        .filter(([key]) => (descriptor.reads as readonly string[]).includes(key))
        .flatMap(([key, values]) => values.map((value) => [descriptor.name, K, key, value] as const)),
    ),
);

describe('policy parameter ranges', () => {
  it.each(cases)(
    'reliability: %s at K = %i with params.%s = %d is refused at resolution (naming file and field) or plays 3 rounds finitely (ranges checked for every policy from its descriptor)',
    async (policy, K, key, value) => {
      const [parsed] = parseConfigs(config(policy, K, key, value), 'limits.yaml');
      let experiment;
      try {
        experiment = resolveExperiment(parsed!, { configFile: 'limits.yaml' });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        expect((error as ConfigError).message).toMatch(/^limits\.yaml.*params/);
        // The key the config gave, as a field or in the fix (a λ derived from S: "raise params.S").
        expect((error as ConfigError).message).toMatch(new RegExp(`params\\.${key}\\b|: ${key} must`));
        return;
      }
      const environment = createTrialEnvironment(experiment, 0);
      const records: number[] = [];
      let outcomes;
      try {
        const created = createPolicy(policy, policySpecFor(experiment, policy, 0));
        outcomes = await runTrialsInStep([{ environment, policy: created, onRound: (r) => records.push(r.regret, r.reward) }], 3, 0);
        for (const x of created.estimate()) expect(Number.isFinite(x)).toBe(true);
      } catch (error) {
        throw new Error(`accepted at resolution, then: ${(error as Error).message}`);
      }
      if (outcomes[0]!.error !== null) throw new Error(`accepted at resolution, then: ${outcomes[0]!.error.message}`);
      expect(records.every(Number.isFinite)).toBe(true);
    },
  );
});
