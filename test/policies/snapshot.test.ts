/**
 * Policy snapshots (policies/snapshot.ts), for every registered policy at K = 1 and (where it plays)
 * K = 3: T rounds straight against T/2 rounds, a snapshot, a restore, T/2 rounds — the same actions,
 * the same estimate and the same snapshot bytes at the end. Table-driven over the registry. The
 * restore in a fresh process is test/e2e/snapshot-process.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfigs } from '../../src/config/load.js';
import { createTrialEnvironment, createUnitPolicy, policySpecFor, resolveExperiment } from '../../src/experiment/setup.js';
import { createPolicy, POLICIES } from '../../src/policies/registry.js';
import { restorePolicy, SnapshotError, snapshotInfo, snapshotPolicy } from '../../src/policies/snapshot.js';
import { policySpec } from '../../src/policies/spec.js';
import { withBackend, wasmAvailable } from '../../src/linalg/simd.js';
import { RandomStream, uniformOf } from '../../src/random/stream.js';
import { play, SNAPSHOT_HORIZON, snapshotExperiment } from '../helpers/snapshot.js';

const T = SNAPSHOT_HORIZON;

const cases = POLICIES.flatMap((descriptor) =>
  [1, 3].filter((K) => (K === 1 ? descriptor.supports.binary : descriptor.supports.multinomial)).map((K) => [descriptor.name, K] as const),
);

describe('policy snapshots', () => {
  it.each(cases)('%s at K = %i: T/2 rounds, a snapshot, a restore and T/2 rounds play and end as T rounds straight', (name, K) => {
    const experiment = snapshotExperiment(name, K);
    const straight = createPolicy(name, policySpecFor(experiment, name, 0));
    const straightActions = play(straight, createTrialEnvironment(experiment, 0), 1, T);

    const environment = createTrialEnvironment(experiment, 0);
    const first = createPolicy(name, policySpecFor(experiment, name, 0));
    const firstActions = play(first, environment, 1, T / 2);
    const bytes = snapshotPolicy(first);
    // The snapshot does not disturb the policy it was taken from.
    expect(snapshotPolicy(first)).toEqual(bytes);
    const restored = restorePolicy(bytes);
    expect(restored).not.toBe(first);
    expect(snapshotPolicy(restored)).toEqual(bytes);
    const secondActions = play(restored, environment, T / 2 + 1, T);

    expect([...firstActions, ...secondActions]).toEqual(straightActions);
    expect(restored.estimate()).toEqual(straight.estimate());
    expect(restored.stats()).toEqual(straight.stats());
    expect(Buffer.from(snapshotPolicy(restored)).equals(Buffer.from(snapshotPolicy(straight)))).toBe(true);
    expect(snapshotInfo(bytes)).toMatchObject({ format: 1, policy: name, spec: { d: 4, K } });
  });

  it('the restored sketch keeps growing where the saved one would (EOFD-MLogB, adaptive m)', () => {
    const experiment = snapshotExperiment('EOFD-MLogB', 3, 4 * T, 12);
    const environment = createTrialEnvironment(experiment, 0);
    const policy = createPolicy('EOFD-MLogB', policySpecFor(experiment, 'EOFD-MLogB', 0));
    play(policy, environment, 1, T / 2);
    const restored = restorePolicy(snapshotPolicy(policy));
    // The check above would pass trivially if the sketch never grew: it does, before and after.
    expect(restored.sketchSize!()).toBeGreaterThan(1);
    const before = restored.sketchSize!();
    play(restored, environment, T / 2 + 1, 4 * T);
    expect(restored.sketchSize!()).toBeGreaterThan(before);
  });

  it.skipIf(!wasmAvailable())('a snapshot taken with the wasm backend continues the same with the js backend (EOFD-MLogB, K = 3)', () => {
    const experiment = snapshotExperiment('EOFD-MLogB', 3, T, 12);
    const straight = withBackend('wasm', () => createPolicy('EOFD-MLogB', policySpecFor(experiment, 'EOFD-MLogB', 0)));
    const all = play(straight, createTrialEnvironment(experiment, 0), 1, T);
    const environment = createTrialEnvironment(experiment, 0);
    const first = withBackend('wasm', () => createPolicy('EOFD-MLogB', policySpecFor(experiment, 'EOFD-MLogB', 0)));
    play(first, environment, 1, T / 2);
    const restored = withBackend('js', () => restorePolicy(snapshotPolicy(first)));
    expect(play(restored, environment, T / 2 + 1, T)).toEqual(all.slice(T / 2));
    expect(restored.estimate()).toEqual(straight.estimate());
  });

  it('a damaged snapshot, another format and a policy not made by createPolicy are refused, naming the problem', () => {
    const experiment = snapshotExperiment('OFUL-MLogB', 3);
    const policy = createPolicy('OFUL-MLogB', policySpecFor(experiment, 'OFUL-MLogB', 0));
    play(policy, createTrialEnvironment(experiment, 0), 1, 4);
    const bytes = snapshotPolicy(policy);
    const flipped = bytes.slice();
    flipped[flipped.length - 40]! ^= 1;
    expect(() => restorePolicy(flipped)).toThrow(/damaged: its SHA-256/);
    expect(() => restorePolicy(new TextEncoder().encode('not a snapshot at all, just text'))).toThrow(/not a policy snapshot/);
    const reformatted = bytes.slice();
    reformatted[8] = 9;
    expect(() => restorePolicy(reformatted)).toThrow(SnapshotError);
    const spec = policySpecFor(experiment, 'OFUL-MLogB', 0);
    const descriptor = POLICIES.find((p) => p.name === 'OFUL-MLogB')!;
    expect(() => snapshotPolicy(descriptor.create(spec))).toThrow(/only a policy made by createPolicy/);
  });

  it('a policy that draws from a bare function cannot be snapshotted; from uniformOf(stream) it continues its draws', () => {
    const bare = createPolicy('Random', policySpec({ d: 2, K: 1, reward: [0, 1], uniform: () => 0.5 }));
    expect(() => snapshotPolicy(bare)).toThrow(/bare function.*uniformOf/);
    const stream = new RandomStream('draws');
    const random = createPolicy('Random', policySpec({ d: 2, K: 1, reward: [0, 1], uniform: uniformOf(stream) }));
    const actions = { count: 1000, d: 2, features: new Float64Array(2000).fill(0.1) };
    random.select(actions, 1);
    const restored = restorePolicy(snapshotPolicy(random));
    const next = Array.from({ length: 5 }, (_, t) => random.select(actions, t + 2));
    expect(Array.from({ length: 5 }, (_, t) => restored.select(actions, t + 2))).toEqual(next);
  });

  it("module policies: a seeded ε-greedy module, the LinUCB example and the kit's GLM-TSL (its RegularizedMle from the package's own copy of eofd, as under the bundled CLI) continue after a restore as they would have; a changed module is refused", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-snapshot-module-'));
    try {
      // A module policy with state of its own and its own seeded stream (spec.uniform).
      const greedy = path.join(dir, 'greedy.mjs');
      fs.writeFileSync(
        greedy,
        [
          'class Greedy {',
          '  constructor(spec, params) { this.d = spec.d; this.uniform = spec.uniform; this.epsilon = params.epsilon; this.sums = new Float64Array(spec.d); this.counts = [0]; }',
          '  select(actions) {',
          '    if (this.uniform() < this.epsilon) return Math.floor(this.uniform() * actions.count);',
          '    let best = 0, score = -Infinity;',
          '    for (let i = 0; i < actions.count; i++) { let s = 0; for (let j = 0; j < this.d; j++) s += this.sums[j] * actions.features[i * this.d + j]; if (s > score) [best, score] = [i, s]; }',
          '    return best;',
          '  }',
          '  update(x, outcome) { for (let j = 0; j < this.d; j++) this.sums[j] += outcome * x[j]; this.counts[0]++; }',
          '}',
          'export default { params: { epsilon: { default: 0.3, min: 0, max: 1 } }, needsRandomStream: true, create: (spec, params) => new Greedy(spec, params) };',
          '',
        ].join('\n'),
      );
      const linUcb = path.resolve('examples/module/lin-ucb.mjs');
      // The policy kit's worked example: its state holds an eofd class (RegularizedMle) and its stream.
      const glmTsl = path.resolve('examples/module/glm-tsl.mjs');
      const config = [
        'name: modules',
        'environment: {type: synthetic, d: 5, K: 2, reward: [0, 0.5, 1], actions: [3, 6]}',
        `horizon: ${T}`,
        'trials: 1',
        'seed: 3',
        `policies: [{module: ${JSON.stringify(greedy)}, label: greedy}, {module: ${JSON.stringify(linUcb)}, label: linucb, params: {alpha: 0.5}}, {module: ${JSON.stringify(glmTsl)}, label: glm-tsl}]`,
        '',
      ].join('\n');
      const configFile = path.join(dir, 'modules.yaml');
      const experiment = resolveExperiment(parseConfigs(config, configFile)[0]!, { configFile });
      const files: Record<string, string> = { greedy, linucb: linUcb, 'glm-tsl': glmTsl };
      for (const label of ['greedy', 'linucb', 'glm-tsl']) {
        const straight = createUnitPolicy(experiment, label, 0);
        const all = play(straight, createTrialEnvironment(experiment, 0), 1, T);
        const environment = createTrialEnvironment(experiment, 0);
        const first = createUnitPolicy(experiment, label, 0);
        play(first, environment, 1, T / 2);
        const bytes = snapshotPolicy(first);
        expect(snapshotInfo(bytes).module).toMatchObject({ file: files[label] });
        const restored = restorePolicy(bytes);
        expect(restored.name).toBe(label);
        expect(play(restored, environment, T / 2 + 1, T), label).toEqual(all.slice(T / 2));
        expect(Buffer.from(snapshotPolicy(restored)).equals(Buffer.from(snapshotPolicy(straight))), label).toBe(true);
      }
      const first = createUnitPolicy(experiment, 'greedy', 0);
      const bytes = snapshotPolicy(first);
      fs.appendFileSync(greedy, '// changed\n');
      expect(() => restorePolicy(bytes)).toThrow(/greedy\.mjs has changed since \(its SHA-256 differs\)/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
