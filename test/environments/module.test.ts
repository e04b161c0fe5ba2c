/**
 * Module environments (src/environments/module.ts): `environment: {module, params}` is validated at
 * config resolution (config errors naming the file and field), plays the module's environment
 * deterministically from the trial's stream (the worked example's first rounds recomputed here by
 * hand), is recorded in the manifest with its path as given and SHA-256 (so --resume refuses another
 * version), and `sweep --over environment.params.<key>` reaches it. In-process (--jobs 1).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { loadConfig } from '../../src/config/load.js';
import { ModuleEnvironment } from '../../src/environments/module.js';
import { manifestConfig } from '../../src/experiment/manifest.js';
import { createTrialEnvironment, resolveExperiment, unitSeeds } from '../../src/experiment/setup.js';
import { parseAxis, sweepPoints, sweepVariant } from '../../src/experiment/sweep.js';
import { RandomStream } from '../../src/random/stream.js';
import { REPO, runCli, sha256, tempDir, writeFile } from '../experiment/fixtures.js';

const EXAMPLE = path.join(REPO, 'examples', 'module', 'drifting-logit.yaml');
const EXAMPLE_MODULE = path.join(REPO, 'examples', 'module', 'drifting-logit.mjs');

/** A module environment without imports: d = 2, K = 1, two fixed actions, outcome 1 when u < params.p for action 0. */
const COIN = `export default {
  params: { p: { default: 0.5, min: 0, max: 1 } },
  create: (params, { stream }) => {
    const set = { count: 2, d: 2, features: Float64Array.of(1, 0, 0, 1) };
    let u = 0;
    return {
      d: 2, K: 1, reward: [1], maxActionNorm: 1,
      actions: () => { u = stream.uniform(); return set; },
      play: (i) => { const outcome = i === 0 && u < params.p ? 1 : 0; return { outcome, reward: outcome, regret: i === 0 ? 0 : params.p }; },
    };
  },
};
`;

function config(environment: string, policies = ['Random'], horizon = 10): string {
  return ['name: envmod', `environment: ${environment}`, `horizon: ${horizon}`, 'trials: 2', 'policies:', ...policies.map((p) => `  - ${p}`), ''].join('\n');
}

describe('module environments: validation', () => {
  it('refuse a missing file, a module without create, bad declarations and params it does not declare or that lie outside them, naming file and field', () => {
    const dir = tempDir('eofd-envmod-');
    writeFile(dir, 'coin.mjs', COIN);
    writeFile(dir, 'no-create.mjs', 'export default { params: {} };\n');
    writeFile(dir, 'named.mjs', 'export const create = 1;\n');
    writeFile(dir, 'undeclared.mjs', 'export default { params: { p: { min: 0 } }, create() {} };\n');
    writeFile(dir, 'broken.mjs', 'export default {;\n');
    const cases: [string, RegExp][] = [
      ['{module: missing.mjs}', /bad\.yaml:2:\d+: environment\.module: no such file: .*missing\.mjs/],
      ['{module: no-create.mjs}', /environment\.module: .*no-create\.mjs: its default export has no create\(params, context\) function \(docs\/policies\.md "Environments from a module"\)/],
      ['{module: named.mjs}', /environment\.module: .*named\.mjs: its default export has no create\(params, context\) function/],
      ['{module: undeclared.mjs}', /environment\.module: .*undeclared\.mjs: its default export declares params\.p without a default number, string or boolean/],
      ['{module: broken.mjs}', /environment\.module: cannot load .*broken\.mjs: /],
      ['{module: coin.mjs, params: {q: 1}}', /bad\.yaml:2:\d+: environment\.params\.q: the module does not declare q; it declares p/],
      ['{module: coin.mjs, params: {p: 2}}', /environment\.params\.p: expected a number ≤ 1, got 2/],
      ['{module: coin.mjs, params: {p: high}}', /environment\.params\.p: expected a finite number, got "high"/],
      ['{module: coin.mjs, seed: 1}', /environment\.seed: /],
    ];
    for (const [environment, message] of cases) {
      const file = writeFile(dir, 'bad.yaml', config(environment));
      expect(() => loadConfig(file), environment).toThrow(ConfigError);
      expect(() => loadConfig(file), environment).toThrow(message);
    }
    // `type: module` may be given; --set resolves a relative module against the working directory.
    expect(loadConfig(writeFile(dir, 'typed.yaml', config('{type: module, module: coin.mjs}'))).environment).toMatchObject({ type: 'module', params: { p: 0.5 } });
    expect(() => loadConfig(writeFile(dir, 'set.yaml', config('{module: coin.mjs}')), ['environment.module=coin.mjs'])).toThrow(/--set environment\.module=coin\.mjs: environment\.module: no such file: /);
  });

  it('refuse at resolution an environment create makes wrong (a config error, exit 2), and check every round of a run', async () => {
    const dir = tempDir('eofd-envmod-create-');
    const made = (fields: string) => `export default { create: () => ({ d: 2, K: 1, reward: [1], maxActionNorm: 1, actions() {}, play() {}, ${fields} }) };\n`;
    const cases: [string, RegExp][] = [
      ['K: 0', /environment: .*: create\(params, context\) returned K = 0, not an integer in \[1, 64\]/],
      ['reward: [1, 2]', /environment: .*: create\(params, context\) returned reward = \[1,2\], not K = 1 finite rewards r_1\.\.r_K ≥ 0/],
      ['maxActionNorm: 0', /returned maxActionNorm = 0, not a bound D > 0/],
      ['horizon: 5', /environment: .* environment has 5 rounds, fewer than the horizon 10/],
      ['play: 1', /returned an object without play\(\)/],
    ];
    for (const [i, [fields, message]] of cases.entries()) {
      // A module is loaded once per thread: each case is its own file.
      writeFile(dir, `bad-${i}.mjs`, made(fields));
      const file = writeFile(dir, `bad-${i}.yaml`, config(`{module: bad-${i}.mjs}`));
      expect(() => resolveExperiment(loadConfig(file)), fields).toThrow(ConfigError);
      expect(() => resolveExperiment(loadConfig(file)), fields).toThrow(message);
      const run = await runCli(['run', file, '--out', path.join(dir, 'out'), '--jobs', '1']);
      expect(run.code, fields).toBe(2);
    }
    writeFile(dir, 'throws.mjs', "export default { create: () => { throw new TypeError('no luck'); } };\n");
    expect(() => resolveExperiment(loadConfig(writeFile(dir, 'throws.yaml', config('{module: throws.mjs}'))))).toThrow(/environment: throws\.mjs: create\(params, context\) threw: no luck/);
    // Every round: an action set of another d, a feedback outcome outside 0..K.
    const base = { d: 2, K: 1, reward: [1], maxActionNorm: 1 };
    const wrongSet = new ModuleEnvironment({ ...base, actions: () => ({ count: 1, d: 3, features: new Float64Array(3) }), play: () => ({ outcome: 0, reward: 0, regret: 0 }) }, 'm.mjs');
    expect(() => wrongSet.actions(1)).toThrow(/^m\.mjs: actions\(1\) returned no \{count, d, features\} with 1 ≤ count ≤ 10000, d = 2/);
    const wrongOutcome = new ModuleEnvironment({ ...base, actions: () => ({ count: 1, d: 2, features: new Float64Array(2) }), play: () => ({ outcome: 2, reward: 1, regret: 0 }) }, 'm.mjs');
    expect(wrongOutcome.actions(1).count).toBe(1);
    expect(() => wrongOutcome.play(0)).toThrow(/^m\.mjs: play\(0\) returned \{"outcome":2,"reward":1,"regret":0\}, not \{outcome, reward, regret\} with an outcome in 0\.\.1/);
    // bestReward may be left out (the trial CSV's best_reward is then empty), but one given must be finite.
    const wrongBest = new ModuleEnvironment({ ...base, actions: () => ({ count: 1, d: 2, features: new Float64Array(2) }), play: () => ({ outcome: 0, reward: 0, regret: 0, bestReward: Number.NaN }) }, 'm.mjs');
    wrongBest.actions(1);
    expect(() => wrongBest.play(0)).toThrow(/^m\.mjs: play\(0\) returned .* and a finite reward and regret \(and bestReward, if given\)$/);
    expect(wrongOutcome.horizon).toBe(Number.POSITIVE_INFINITY);
  });
});

/** σ_0..σ_K of logits z (eq. (1): σ_k = e^{z_k} / (1 + Σ_j e^{z_j}), σ_0 = 1 / (1 + Σ_j e^{z_j})). */
function softmaxWithNull(z: number[]): number[] {
  const e = z.map(Math.exp);
  const total = 1 + e.reduce((a, b) => a + b, 0);
  return [1 / total, ...e.map((v) => v / total)];
}

describe('module environments: the worked example (drifting-logit.mjs)', () => {
  it('plays the rounds its comment describes, recomputed here from the trial stream, the same for the same config and seed', () => {
    const experiment = resolveExperiment(loadConfig(EXAMPLE, ['environment.params.drift=0.3', 'environment.params.actions=4', 'environment.params.d=3']));
    const { d, K } = { d: 3, K: 2 };
    // Independently: A, B normal (row-wise), B ⟂ A by Gram–Schmidt, both of norm S* = 2; W*_t = cos(ωt)A + sin(ωt)B.
    const stream = new RandomStream(unitSeeds(experiment.config, 0, 'report').environment);
    const a = Array.from({ length: K * d }, () => stream.normal());
    const b = Array.from({ length: K * d }, () => stream.normal());
    const dot = (x: number[], y: number[]) => x.reduce((s, v, i) => s + v * (y[i] as number), 0);
    const along = dot(b, a) / dot(a, a);
    const bOrth = b.map((v, i) => v - along * (a[i] as number));
    const A = a.map((v) => (v * 2) / Math.sqrt(dot(a, a)));
    const B = bOrth.map((v) => (v * 2) / Math.sqrt(dot(bOrth, bOrth)));
    const environment = createTrialEnvironment(experiment, 0);
    const again = createTrialEnvironment(experiment, 0);
    expect([environment.d, environment.K, [...environment.reward], environment.maxActionNorm]).toEqual([3, 2, [0.5, 1], 1]);
    for (let t = 1; t <= 6; t++) {
      const actions = Array.from({ length: 4 }, () => {
        const x = Array.from({ length: d }, () => stream.normal());
        const inverse = 1 / Math.sqrt(dot(x, x));
        return x.map((v) => v * inverse);
      });
      const u = stream.uniform();
      const W = A.map((v, i) => Math.cos(0.3 * t) * v + Math.sin(0.3 * t) * (B[i] as number));
      const sigma = actions.map((x) => softmaxWithNull([0, 1].map((k) => dot(W.slice(k * d, (k + 1) * d), x))));
      const expected = sigma.map((p) => 0.5 * (p[1] as number) + 1 * (p[2] as number));
      const set = environment.actions(t);
      expect(set.count).toBe(4);
      expect([...set.features.subarray(0, 4 * d)]).toEqual(actions.flat());
      const index = t % 4;
      const p = sigma[index] as number[];
      // DESIGN §1: the first k with u < σ_0 + … + σ_k.
      const outcome = u < (p[0] as number) ? 0 : u < (p[0] as number) + (p[1] as number) ? 1 : 2;
      const feedback = environment.play(index);
      expect(feedback.outcome, `round ${t}`).toBe(outcome);
      expect(feedback.reward).toBe([0, 0.5, 1][outcome]);
      expect(feedback.regret).toBeCloseTo(Math.max(...expected) - (expected[index] as number), 12);
      expect(feedback.bestReward).toBeCloseTo(Math.max(...expected), 12);
      expect(environment.parameterError?.(new Float64Array(K * d))).toBeCloseTo(2, 12);
      again.actions(t);
      expect(again.play(index)).toEqual(feedback);
    }
    // Another trial, another instance.
    expect([...createTrialEnvironment(experiment, 1).actions(1).features]).not.toEqual([...createTrialEnvironment(experiment, 0).actions(1).features]);
  });

  it('records the module as given, its SHA-256 and the params with defaults filled in (no absolute path)', () => {
    const experiment = resolveExperiment(loadConfig(EXAMPLE));
    expect(manifestConfig(experiment).environment).toEqual({
      type: 'module',
      module: { file: 'drifting-logit.mjs', sha256: sha256(EXAMPLE_MODULE) },
      params: { d: 5, K: 2, actions: 10, norm: 2, drift: 0.002 },
      d: 5,
      K: 2,
      reward: [0, 0.5, 1],
    });
  });

  it('sweep --over environment.params.<key> makes a variant per value, resolved as the file is; a value outside the declaration is refused', () => {
    const config = loadConfig(EXAMPLE);
    const axes = [parseAxis('environment.params.drift=0,0.01')];
    const [first, second] = sweepPoints(axes);
    const variant = sweepVariant(config, axes, second as never, { split: 'report' });
    expect(variant.environment).toMatchObject({ module: { file: 'drifting-logit.mjs' }, params: { drift: 0.01, d: 5 } });
    expect(sweepVariant(config, axes, first as never, { split: 'report' }).environment).toMatchObject({ params: { drift: 0 } });
    const bad = [parseAxis('environment.params.drift=9')];
    expect(() => sweepVariant(config, bad, sweepPoints(bad)[0] as never, { split: 'report' })).toThrow(/--over environment\.params\.drift=9: environment\.params\.drift: expected a number ≤ 3\.2, got 9/);
  });

  it('--resume and merge refuse results of another version of the module', async () => {
    const dir = tempDir('eofd-envmod-resume-');
    writeFile(dir, 'coin.mjs', COIN);
    const file = writeFile(dir, 'coin.yaml', config('{module: coin.mjs, params: {p: 0.25}}'));
    const out = path.join(dir, 'out');
    expect((await runCli(['run', file, '--out', out, '--jobs', '1'])).code).toBe(0);
    // The coin reports no bestReward: every round's best_reward is empty, and actions its 2.
    const rows = fs.readFileSync(path.join(out, 'envmod', 'Random', 'trial-0.csv'), 'utf8').trimEnd().split('\n');
    const header = rows[0]!.split(',');
    expect(new Set(rows.slice(1).map((row) => ['actions', 'best_reward'].map((c) => row.split(',')[header.indexOf(c)]).join('|')))).toEqual(new Set(['2|']));
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'envmod', 'manifest.json'), 'utf8'));
    expect(manifest.config.environment.module).toEqual({ file: 'coin.mjs', sha256: sha256(path.join(dir, 'coin.mjs')) });
    // A module is loaded once per thread: the changed version is another file, under the same name as given.
    fs.mkdirSync(path.join(dir, 'v2'));
    writeFile(path.join(dir, 'v2'), 'coin.mjs', `${COIN}// v2\n`);
    const moved = writeFile(path.join(dir, 'v2'), 'coin.yaml', config('{module: coin.mjs, params: {p: 0.25}}'));
    const resumed = await runCli(['run', moved, '--out', out, '--jobs', '1', '--resume']);
    expect(resumed.code).toBe(2);
    expect(resumed.stderr).toMatch(/cannot resume .*envmod: its config differs from this one at environment\.module\.sha256: /);
    // merge: shard 0 of one version, shard 1 of the other.
    const shards = path.join(dir, 'shards');
    expect((await runCli(['run', file, '--out', shards, '--jobs', '1', '--shard', '0/2', '--quiet'])).code).toBe(0);
    expect((await runCli(['run', moved, '--out', shards, '--jobs', '1', '--shard', '1/2', '--quiet'])).code).toBe(0);
    const merged = await runCli(['merge', path.join(shards, 'shard-0-of-2'), path.join(shards, 'shard-1-of-2'), '--out', path.join(dir, 'merged'), '--quiet']);
    expect(merged.code).toBe(2);
    expect(merged.stderr).toMatch(/environment\.module\.sha256: /);
  });
});

describe('module environments: one version per thread', () => {
  it('refuse a module changed since this thread loaded it (a thread cannot load it twice)', () => {
    const dir = tempDir('eofd-envmod-changed-');
    writeFile(dir, 'coin.mjs', COIN);
    const file = writeFile(dir, 'coin.yaml', config('{module: coin.mjs}'));
    expect(resolveExperiment(loadConfig(file)).environment.d).toBe(2);
    writeFile(dir, 'coin.mjs', `${COIN}// changed\n`);
    expect(() => loadConfig(file)).toThrow(/coin\.yaml:2:\d+: environment\.module: .*coin\.mjs changed since this process loaded it \(its SHA-256 differs\): run again/);
  });
});
