/**
 * Policy variants: entries {policy, label, params} in one experiment, each resolved once with the keys
 * its policy reads, and the grid tuning every label over only those keys.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { loadConfigs } from '../../src/config/load.js';
import type { ExperimentConfig } from '../../src/config/schema.js';
import { runGrid, withPolicyParams } from '../../src/experiment/grid.js';
import { runExperiments } from '../../src/experiment/runner.js';
import { policySpecFor, resolveExperiment } from '../../src/experiment/setup.js';
import { parseAxis } from '../../src/experiment/sweep.js';
import { tempDir, trialCsvs, withoutTimings, writeFile } from './fixtures.js';

const ENVIRONMENT = 'environment: {type: synthetic, d: 4, K: 2, reward: [0, 0.5, 1], actions: [3, 5]}';

function configText(name: string, policies: string, params = '{S: 2}'): string {
  return [`name: ${name}`, ENVIRONMENT, 'horizon: 25', 'trials: 2', `policies: ${policies}`, `params: ${params}`, ''].join('\n');
}

let root: string;
beforeAll(() => {
  root = tempDir('eofd-variants-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function load(name: string, policies: string, params?: string): ExperimentConfig {
  return loadConfigs(writeFile(root, `${name}.yaml`, configText(name, policies, params)))[0] as ExperimentConfig;
}

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('policy entries', () => {
  it('a mapping entry gets its label, its policy and its own params over the experiment’s', () => {
    const config = load('entries', '[EOFD-MLogB, {policy: TS-MLogB, label: TS-small, params: {beta_scale: 0.01, l: 0}}, TS-MLogB]', '{S: 2, lambda: 3}');
    expect(config.policies.map((p) => [p.label, p.policy])).toEqual([
      ['EOFD-MLogB', 'EOFD-MLogB'],
      ['TS-small', 'TS-MLogB'],
      ['TS-MLogB', 'TS-MLogB'],
    ]);
    const resolved = resolveExperiment(config);
    const own = resolved.derived.policies;
    expect(own['TS-MLogB']).toMatchObject({ policy: 'TS-MLogB', beta_scale: 1, lambda: 3, l: null });
    // The entry's l replaces the experiment's λ: λ = (√K d)^0 λ0 = λ0.
    expect(own['TS-small']).toMatchObject({ policy: 'TS-MLogB', beta_scale: 0.01, l: 0, lambda: resolved.derived.lambda0 });
    expect(own['EOFD-MLogB']?.lambda).toBe(3);
    // Only the keys a policy reads are recorded.
    expect(Object.keys(own['TS-MLogB']!).sort()).toEqual(['beta', 'beta_scale', 'delta', 'e', 'eta', 'l', 'lambda', 'policy', 'S'].sort());
  });

  it('refuses a label used twice, and a key the entry’s policy does not read (naming entry, key and what it reads)', () => {
    expect(configError(() => load('twice', '[TS-MLogB, {policy: EOFD-MLogB, label: TS-MLogB}]')).message).toMatch(/policies\.1\.label: the label "TS-MLogB" is used twice/);
    expect(configError(() => load('same', '[TS-MLogB, TS-MLogB]')).message).toMatch(/policies\.1: the label "TS-MLogB" is used twice/);
    const unread = configError(() => load('unread', '[EOFD-MLogB, {policy: TS-MLogB, label: TS-m, params: {m: 10}}]')).message;
    expect(unread).toMatch(/policies\.1\.params\.m: TS-m \(TS-MLogB\) does not read m; it reads S, l, e, lambda, eta, beta, beta_scale, delta/);
    expect(configError(() => load('random', '[{policy: Random, params: {l: 0}}]')).message).toMatch(/Random does not read l; it reads no params/);
    // A --set key that no policy of the experiment reads (the file's shared block may hold keys a policy ignores).
    expect(load('shared', '[OFUL-MLogB, Random]', '{S: 2, m: 5}').params.m).toBe(5);
    expect(configError(() => loadConfigs(writeFile(root, 'set-m.yaml', configText('set-m', '[OFUL-MLogB, Random]')), ['params.m=5'])).message).toMatch(
      /--set params\.m=5.*params\.m: no policy of this experiment reads m \(OFUL-MLogB, Random\)/,
    );
    expect(configError(() => loadConfigs(writeFile(root, 'set.yaml', configText('set', '[OFUL-MLogB]')), ['params.sketch=rfd'])).message).toMatch(
      /--set params\.sketch=rfd.*no policy of this experiment reads sketch/,
    );
  });

  it('m is capped once, at the dimension each policy sketches (SOFUL: d; EOFD-MLogB: Kd), and recorded as run', () => {
    const resolved = resolveExperiment(load('capped', '[EOFD-MLogB, SOFUL]', '{S: 2, m: 7}'));
    expect(resolved.derived.policies['EOFD-MLogB']?.m).toBe(7);
    expect(resolved.derived.policies.SOFUL?.m).toBe(4);
    expect(policySpecFor(resolved, 'SOFUL', 0).sketchSize).toBe(4);
  });

  it('each policy starts from its authors’ defaults, which the config’s own params override', () => {
    const own = resolveExperiment(load('authors', '[MNL-UCB, EOFD-MLogB]')).derived.policies;
    expect(own['MNL-UCB']).toMatchObject({ beta: 'theory', delta: 0.01 });
    expect(own['EOFD-MLogB']).toMatchObject({ beta: 'order', delta: 1 / 25 });
    const given = resolveExperiment(load('given', '[MNL-UCB, EOFD-MLogB]', '{S: 2, beta: order}')).derived.policies;
    expect(given['MNL-UCB']).toMatchObject({ beta: 'order', delta: 0.01 });
  });

  it('variants of one policy in one experiment decide exactly as that policy run alone with those params', async () => {
    const together = load('together', '[TS-MLogB, {policy: TS-MLogB, label: TS-wide, params: {beta_scale: 4}}, {policy: EOFD-MLogB, label: EOFD-m2, params: {m: 2}}, Random]');
    const alone = [
      load('alone-ts', '[TS-MLogB]'),
      load('alone-wide', '[TS-MLogB]', '{S: 2, beta_scale: 4}'),
      load('alone-m2', '[EOFD-MLogB]', '{S: 2, m: 2}'),
    ].map((c) => ({ ...c, seedName: 'together' }));
    const out = path.join(root, 'pairs');
    const result = await runExperiments([together, ...alone], { out, jobs: 1 });
    expect(result.unitsFailed).toBe(0);
    const runs = (name: string) => trialCsvs(path.join(out, name));
    const both = runs('together');
    const pairs: [string, string, string][] = [
      ['TS-MLogB', 'alone-ts', 'TS-MLogB'],
      ['TS-wide', 'alone-wide', 'TS-MLogB'],
      ['EOFD-m2', 'alone-m2', 'EOFD-MLogB'],
    ];
    for (const [label, name, policy] of pairs) {
      for (const trial of [0, 1]) {
        const mine = withoutTimings(both.get(`${label}/trial-${trial}.csv`) as string);
        const theirs = withoutTimings(runs(name).get(`${policy}/trial-${trial}.csv`) as string);
        // Rows name the label; everything else (actions, outcomes, regret) is the same, bit for bit.
        expect(mine).toBe(theirs.replaceAll(`,${policy},`, `,${label},`));
      }
    }
    // The wider radius changes decisions: the variants are not the same run twice.
    expect(both.get('TS-wide/trial-0.csv')).not.toBe(both.get('TS-MLogB/trial-0.csv')?.replaceAll(',TS-MLogB,', ',TS-wide,'));
  });
});

describe('grid --over per label', () => {
  it('runs each label only over the keys it reads (Random once), and best.json names only tuned labels', async () => {
    const config = load('tune', '[EOFD-MLogB, OFUL-MLogB, Random]');
    const axes = [parseAxis('params.m=2,3'), parseAxis('params.beta_scale=0.5,1,2')];
    const result = await runGrid(config, { out: path.join(root, 'tune'), axes, jobs: 1 });
    const ran = (point: string) => JSON.parse(fs.readFileSync(path.join(result.dir, point, 'manifest.json'), 'utf8')).config.policies;
    expect(ran('m=2,beta_scale=0.5')).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
    expect(ran('m=2,beta_scale=2')).toEqual(['EOFD-MLogB', 'OFUL-MLogB']);
    expect(ran('m=3,beta_scale=1')).toEqual(['EOFD-MLogB']);
    // OFUL-MLogB does not read m: 3 rows (m empty), EOFD-MLogB 6, Random 1.
    const count = (label: string) => result.rows.filter((r) => r.policy === label).length;
    expect([count('EOFD-MLogB'), count('OFUL-MLogB'), count('Random')]).toEqual([6, 3, 1]);
    expect(result.rows.filter((r) => r.policy === 'OFUL-MLogB').every((r) => r.values[0] === null)).toBe(true);
    const best = result.best!;
    expect(Object.keys(best.policies)).toEqual(['EOFD-MLogB', 'OFUL-MLogB']);
    expect(Object.keys(best.policies['OFUL-MLogB']!.values)).toEqual(['params.beta_scale']);
    // The runner-up's interval is paired over the validation trials.
    const oful = best.policies['OFUL-MLogB']!;
    expect(oful.runner_up?.difference.trials).toBe(2);
    expect(oful.runner_up!.difference.mean).toBeCloseTo(oful.mean_final_regret - oful.runner_up!.mean_final_regret, 12);
    // beta_scale chosen at 0.5 or 2 is on the edge of its list.
    const chosen = oful.values['params.beta_scale'];
    expect(oful.edge).toEqual(chosen === 1 ? [] : ['params.beta_scale']);

    // run --params applies per label, as that label's own params.
    const tuned = resolveExperiment(withPolicyParams(config, { 'OFUL-MLogB': { beta_scale: 2 }, 'EOFD-MLogB': { m: 3, beta_scale: 0.5 } }));
    expect(tuned.derived.policies['OFUL-MLogB']).toMatchObject({ beta_scale: 2 });
    expect(tuned.derived.policies['EOFD-MLogB']).toMatchObject({ m: 3, beta_scale: 0.5 });
  });

  it('refuses a key no policy of the experiment reads', async () => {
    const config = load('none', '[OFUL-MLogB, Random]');
    await expect(runGrid(config, { out: path.join(root, 'none'), axes: [parseAxis('params.m=2,3')] })).rejects.toThrow(/--over params\.m: no policy of none reads m/);
  });
});
