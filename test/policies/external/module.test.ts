/**
 * Module policies (src/config/policy-entries.ts, src/policies/external/module-policy.ts): a config entry {module, label,
 * params} plays the module's policy beside built-ins; its params are checked against what it declares
 * (config errors naming the field), defaulted, recorded with its SHA-256 in the manifest; `sweep --over`
 * a key it declares runs it per value; a policy it makes that answers an invalid index fails its unit
 * only; snapshots refuse it. In-process runs (--jobs 1).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/load.js';
import { resolveExperiment, createUnitPolicy } from '../../../src/experiment/setup.js';
import { SnapshotError, snapshotPolicy } from '../../../src/policies/snapshot.js';
import { REPO, runCli, tempDir, trialCsvs, withoutTimings, writeFile } from '../../experiment/fixtures.js';

const LIN_UCB = path.join(REPO, 'examples', 'module', 'lin-ucb.mjs');

function config(policies: string[], horizon = 20): string {
  return [
    'name: mod',
    'environment: {type: synthetic, d: 4, K: 2, reward: [0, 0.5, 1], actions: [3, 6]}',
    `horizon: ${horizon}`,
    'trials: 2',
    'policies:',
    ...policies.map((p) => `  - ${p}`),
    '',
  ].join('\n');
}

describe('module policies', () => {
  it('play beside built-ins, deterministic, with the manifest recording the module and its params', async () => {
    const dir = tempDir('eofd-module-');
    fs.copyFileSync(LIN_UCB, path.join(dir, 'lin-ucb.mjs'));
    // A relative path: against the config's folder.
    const file = writeFile(dir, 'mod.yaml', config(['EOFD-MLogB', '{module: lin-ucb.mjs, label: LinUCB-js, params: {alpha: 0.5}}']));
    const run = await runCli(['run', file, '--out', path.join(dir, 'a'), '--jobs', '1']);
    expect(run.code, run.stderr).toBe(0);
    expect((await runCli(['run', file, '--out', path.join(dir, 'b'), '--jobs', '1'])).code).toBe(0);
    const a = trialCsvs(path.join(dir, 'a', 'mod'));
    const b = trialCsvs(path.join(dir, 'b', 'mod'));
    expect([...a.keys()].sort()).toEqual(['EOFD-MLogB/trial-0.csv', 'EOFD-MLogB/trial-1.csv', 'LinUCB-js/trial-0.csv', 'LinUCB-js/trial-1.csv']);
    for (const [name, csv] of a) expect(withoutTimings(b.get(name) as string), name).toBe(withoutTimings(csv));
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'a', 'mod', 'manifest.json'), 'utf8'));
    expect(manifest.config.variants['LinUCB-js']).toEqual({
      policy: 'LinUCB-js',
      params: { alpha: 0.5, ridge: 1 },
      module: { file: 'lin-ucb.mjs', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    // Its params as it ran them, beside the built-ins' resolved ones: the run's header, the report and export show them.
    expect(manifest.derived.policies['LinUCB-js']).toEqual({ alpha: 0.5, ridge: 1, policy: 'LinUCB-js' });
    expect(run.stderr).toMatch(/; LinUCB-js \(LinUCB-js\): alpha = 0\.5, ridge = 1/);
    const exported = await runCli(['export', path.join(dir, 'a', 'mod'), '--out', path.join(dir, 'rounds.csv')]);
    expect(exported.code, exported.stderr).toBe(0);
    const [header, row] = fs.readFileSync(path.join(dir, 'rounds.csv'), 'utf8').split('\n').filter((line) => line.includes('LinUCB-js') || line.startsWith('run,'));
    const columns = (header as string).split(',');
    expect((row as string).split(',')[columns.indexOf('param_alpha')]).toBe('0.5');
  });

  it('refuse params the module does not declare or that lie outside its declaration, naming the field', async () => {
    const dir = tempDir('eofd-module-params-');
    const cases: [string, RegExp][] = [
      ['{beta: 1}', /policies\.0\.params\.beta: L: the module does not declare beta; it declares alpha, ridge/],
      ['{alpha: -1}', /policies\.0\.params\.alpha: L: expected a number ≥ 0, got -1/],
      ['{alpha: fast}', /policies\.0\.params\.alpha: L: expected a finite number, got "fast"/],
    ];
    for (const [params, message] of cases) {
      const file = writeFile(dir, 'bad.yaml', config([`{module: ${LIN_UCB}, label: L, params: ${params}}`]));
      expect(() => loadConfig(file), params).toThrow(message);
    }
    writeFile(dir, 'shared.mjs', 'export default { params: { lambda: { default: 1 } }, create() {} };\n');
    expect(() => loadConfig(writeFile(dir, 'bad.yaml', config(['{module: shared.mjs, label: L}'])))).toThrow(/policies\.0\.module: .*shared\.mjs: its default export declares params\.lambda, a key of the experiment's shared params/);
    writeFile(dir, 'no-create.mjs', 'export default { params: {} };\n');
    expect(() => loadConfig(writeFile(dir, 'bad.yaml', config(['{module: no-create.mjs, label: L}'])))).toThrow(/policies\.0\.module: .*no-create\.mjs: its default export has no create\(spec, params\) function/);
    expect(() => loadConfig(writeFile(dir, 'bad.yaml', config(['{module: missing.mjs, label: L}'])))).toThrow(/policies\.0\.module: no such file: .*missing\.mjs/);
  });

  it("the policy kit's worked example (glm-tsl.mjs, importing the package by its name) runs from its config beside built-ins", async () => {
    const dir = tempDir('eofd-module-kit-');
    const config = path.join(REPO, 'examples', 'module', 'glm-tsl.yaml');
    const run = await runCli(['run', config, '--set', 'horizon=30', '--set', 'trials=2', '--out', dir, '--jobs', '1']);
    expect(run.code, run.stderr).toBe(0);
    const csvs = trialCsvs(path.join(dir, 'glm-tsl'));
    expect([...csvs.keys()].filter((key) => key.startsWith('GLM-TSL/')).sort()).toEqual(['GLM-TSL/trial-0.csv', 'GLM-TSL/trial-1.csv']);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'glm-tsl', 'manifest.json'), 'utf8'));
    expect(manifest.derived.policies['GLM-TSL']).toMatchObject({ a: 0.5 });
  });

  it('sweep --over a key the module declares runs the module per value and the others once', async () => {
    const dir = tempDir('eofd-module-sweep-');
    const file = writeFile(dir, 'mod.yaml', config(['EOFD-MLogB', `{module: ${LIN_UCB}, label: LinUCB-js}`]));
    const run = await runCli(['sweep', file, '--over', 'params.alpha=0,2', '--out', path.join(dir, 'out'), '--jobs', '1']);
    expect(run.code, run.stderr).toBe(0);
    const at = (point: string) => trialCsvs(path.join(dir, 'out', 'mod-sweep', point));
    expect([...at('alpha=0').keys()].sort()).toEqual(['EOFD-MLogB/trial-0.csv', 'EOFD-MLogB/trial-1.csv', 'LinUCB-js/trial-0.csv', 'LinUCB-js/trial-1.csv']);
    expect([...at('alpha=2').keys()].sort()).toEqual(['LinUCB-js/trial-0.csv', 'LinUCB-js/trial-1.csv']);
    // alpha = 0 is greedy, alpha = 2 explores: other decisions.
    expect(withoutTimings(at('alpha=2').get('LinUCB-js/trial-0.csv') as string)).not.toBe(withoutTimings(at('alpha=0').get('LinUCB-js/trial-0.csv') as string));
  });

  it('an invalid action fails that unit only, naming the label, trial and round; a snapshot refuses a module policy whose state it cannot hold', async () => {
    const dir = tempDir('eofd-module-bad-');
    writeFile(dir, 'bad.mjs', "export default { create: () => ({ select: (actions, t) => (t === 3 ? actions.count : 0), update() {} }) };\n");
    const file = writeFile(dir, 'bad.yaml', config(['EOFD-MLogB', '{module: bad.mjs, label: Bad}']));
    const run = await runCli(['run', file, '--out', path.join(dir, 'out'), '--jobs', '1']);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/mod: Bad, trial 0, round 3: select returned the invalid action \d \(expected an integer index in 0\.\.\d\)/);
    expect([...trialCsvs(path.join(dir, 'out', 'mod')).keys()].sort()).toEqual(['EOFD-MLogB/trial-0.csv', 'EOFD-MLogB/trial-1.csv']);
    // A module whose state a snapshot cannot hold (a Map) is refused, naming the field.
    writeFile(dir, 'mapped.mjs', 'export default { create: () => ({ seen: new Map(), select: () => 0, update() {} }) };\n');
    const mapped = resolveExperiment(loadConfig(writeFile(dir, 'mapped.yaml', config(['{module: mapped.mjs, label: Mapped}']))));
    expect(() => snapshotPolicy(createUnitPolicy(mapped, 'Mapped', 0))).toThrow(SnapshotError);
    expect(() => snapshotPolicy(createUnitPolicy(mapped, 'Mapped', 0))).toThrow(/^Mapped\.seen: a Map cannot be snapshotted$/);
  });
});
