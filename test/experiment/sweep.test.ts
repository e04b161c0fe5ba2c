import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RunError } from '../../src/base/errors.js';
import { ConfigError } from '../../src/base/errors.js';
import { loadConfigs } from '../../src/config/load.js';
import type { ExperimentConfig } from '../../src/config/schema.js';
import { gridAxes, runGrid } from '../../src/experiment/grid.js';
import { axisLabels, parseAxis, runSweep, sweepPoints, sweepVariant } from '../../src/experiment/sweep.js';
import { readExperiment } from '../../src/results/read.js';
import { pairedDifference } from '../../src/stats/paired.js';
import { gridFingerprint } from './grid-fingerprint.js';
import { gridConfigText, tempDir, writeFile } from './fixtures.js';

let root: string;
let config: ExperimentConfig;
beforeAll(() => {
  root = tempDir('eofd-sweep-');
  config = loadConfigs(writeFile(root, 'g.yaml', gridConfigText('g')))[0] as ExperimentConfig;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('sweep axes: bad arguments', () => {
  it('refuses a missing key, an empty value, a repeated value, the name and no axis (exit code 2)', () => {
    for (const bad of ['=1,2', 'params.m', 'params.m=1,,2', 'params.m=1,1', 'name=a,b', 'params..m=1']) {
      expect(() => parseAxis(bad), bad).toThrow(RunError);
    }
    expect(() => sweepPoints([])).toThrow(/at least one --over/);
  });
  it('refuses a key that is not a config key, and __proto__, constructor and prototype anywhere (issue #23)', () => {
    for (const bad of ['__proto__.x=1,2', 'foo=1,2', 'paramz.m=1', 'constructor=1']) {
      const error = (() => {
        try {
          parseAxis(bad);
        } catch (e) {
          return e as RunError;
        }
        throw new Error(`expected ${bad} to be refused`);
      })();
      expect(error, bad).toBeInstanceOf(RunError);
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(new RegExp(`^--over ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ${bad.split(/[.=]/)[0]} is not a config key \\(it has name, environment, horizon, trials, seed, policies, params, tune_from\\)$`));
    }
    for (const bad of ['params.__proto__=1,2', 'environment.constructor=1', 'policies.0.prototype=a']) {
      expect(() => parseAxis(bad), bad).toThrow(/^--over .*: __proto__, constructor and prototype are not config keys$/);
    }
    expect(() => sweepPoints([parseAxis('params.m=1'), parseAxis('params.m=2')])).toThrow(/given twice/);
  });
  it('a value the config refuses names the --over and the field', () => {
    const axes = [parseAxis('params.m=0')];
    const error = (() => {
      try {
        sweepVariant(config, axes, sweepPoints(axes)[0]!, { split: 'report' });
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a ConfigError');
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toMatch(/^--over params\.m=0: params\.m: expected 'auto' .* got 0$/);
  });
});

describe('sweep axes', () => {
  it('reads values as YAML, keeping brackets together', () => {
    expect(parseAxis('params.m=8, 20,auto').values).toEqual([8, 20, 'auto']);
    expect(parseAxis('environment.actions=[3, 5],[10, 30]').values).toEqual([[3, 5], [10, 30]]);
    expect(parseAxis('environment.normalize=global,per-image').values).toEqual(['global', 'per-image']);
  });
  it('names points label=value, the first axis slowest; labels are the last key segment unless two clash', () => {
    const axes = [parseAxis('params.l=-0.5,0'), parseAxis('params.S=1,5')];
    expect(sweepPoints(axes).map((p) => p.name)).toEqual(['l=-0.5,S=1', 'l=-0.5,S=5', 'l=0,S=1', 'l=0,S=5']);
    expect(axisLabels([parseAxis('params.S=1'), parseAxis('environment.S=2')])).toEqual(['params.S', 'environment.S']);
  });
  it('a variant is the config validated again: S* follows a swept S, seeds keep the base name', () => {
    const axes = [parseAxis('params.S=4')];
    const variant = sweepVariant(config, axes, sweepPoints(axes)[0]!, { split: 'report' });
    expect(variant.params.S).toBe(4);
    expect(variant.environment).toMatchObject({ type: 'synthetic', S_star: 4 });
    expect([variant.name, variant.seedName]).toEqual(['S=4', 'g']);
  });
});

describe('input files given on the command line (issue #23)', () => {
  it('--over environment.file resolves against the working directory, as --set does: both read the same file', () => {
    const iris = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'data', 'iris.csv'));
    const data = writeFile(root, 'iris-cwd.csv', iris.toString('utf8'));
    const given = path.relative(process.cwd(), data);
    // The config sits as deep below root as the working directory is below /, so that `given`, read from
    // the config's folder, also names a file: a decoy the sweep must not read.
    const depth = process.cwd().split(path.sep).filter(Boolean).length;
    const configDir = path.join(root, 'input-files', ...Array.from({ length: depth }, () => 'c'));
    fs.mkdirSync(configDir, { recursive: true });
    const decoy = path.resolve(configDir, given);
    expect(decoy).not.toBe(data);
    fs.mkdirSync(path.dirname(decoy), { recursive: true });
    fs.writeFileSync(decoy, iris.toString('utf8').split('\n').filter((line) => !line.includes('setosa')).join('\n'));
    const text = ['name: irisx', `environment: {type: classification, file: ${JSON.stringify(data)}, target: virginica}`, 'horizon: 10', 'trials: 1', 'seed: 0', 'policies: [Random]', 'params: {S: 2}', ''].join('\n');
    const file = writeFile(configDir, 'irisx.yaml', text);
    const set = loadConfigs(file, [`environment.file=${given}`])[0]!;
    // A point's folder is named by its values, so the CLI takes only a file name without a folder here;
    // the rule is the same for any path.
    const axes = [parseAxis(`environment.file=${given}`)];
    const over = sweepVariant(loadConfigs(file)[0]!, axes, { name: 'file=iris-cwd.csv', values: [given] }, { split: 'report' });
    expect((set.environment as { file: string }).file).toBe(data);
    expect((over.environment as { file: string }).file).toBe(data);
  });
});

describe('eofd sweep', () => {
  it('over params.m: at m = Kd EOFD-MLogB makes OFUL-MLogB\'s decisions (zero paired difference); sweep.csv and a figure', async () => {
    const result = await runSweep(config, { out: root, axes: [parseAxis('params.m=2,10')], jobs: 1 });
    expect(fs.readdirSync(result.dir).sort()).toEqual(['m=10', 'm=2', 'sweep-params.m.svg', 'sweep.csv']);
    const exact = result.rows.find((r) => r.values[0] === 10 && r.policy === 'EOFD-MLogB')!;
    const oful = result.rows.find((r) => r.values[0] === 10 && r.policy === 'OFUL-MLogB')!;
    expect(exact.meanFinalRegret).toBe(oful.meanFinalRegret);
    expect([exact.regretDiff, exact.regretDiffLow, exact.regretDiffHigh]).toEqual([0, 0, 0]);
    expect(exact.meanDeltaT).toBe(1);
    // The m = 2 row's interval is the paired interval of the trials, recomputed here from the files.
    const small = readExperiment(path.join(result.dir, 'm=2'));
    const regrets = (policy: string): number[] => small.summary.filter((r) => r.policy === policy).map((r) => r.finalRegret);
    const expected = pairedDifference(regrets('EOFD-MLogB'), regrets('OFUL-MLogB'));
    const row = result.rows.find((r) => r.values[0] === 2 && r.policy === 'EOFD-MLogB')!;
    expect([row.regretDiff, row.regretDiffLow, row.regretDiffHigh]).toEqual([expected.mean, expected.low, expected.high]);
    expect(row.meanDeltaT).toBeGreaterThan(1);
    const csv = fs.readFileSync(path.join(result.dir, 'sweep.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe(
      'params.m,policy,trials,mean_final_regret,std_final_regret,reference,regret_diff,regret_diff_ci_low,regret_diff_ci_high,regret_diff_pct,mean_round_ms,delta_T,beta_T,projections,mean_parameter_error',
    );
    expect(csv).toHaveLength(1 + 2 * 3);
    const svg = fs.readFileSync(path.join(result.dir, 'sweep-params.m.svg'), 'utf8');
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain('params.m');
    // Every point played the same instances: Random's choices do not depend on m.
    expect(result.rows.filter((r) => r.policy === 'Random').map((r) => r.meanFinalRegret)).toEqual([
      result.rows.find((r) => r.policy === 'Random')!.meanFinalRegret,
      result.rows.find((r) => r.policy === 'Random')!.meanFinalRegret,
    ]);
  });

  it('sweep.csv has one column per name: a swept trials is over:trials beside the trials count (issue #23)', async () => {
    const result = await runSweep(config, { out: path.join(root, 'trials-swept'), axes: [parseAxis('trials=1,2')], jobs: 1 });
    const csv = fs.readFileSync(path.join(result.dir, 'sweep.csv'), 'utf8').trim().split('\n');
    const header = csv[0]!.split(',');
    expect(new Set(header).size).toBe(header.length);
    expect(header.slice(0, 3)).toEqual(['over:trials', 'policy', 'trials']);
    expect(csv.slice(1).map((line) => line.split(',').slice(0, 3).join(','))).toEqual([
      '1,EOFD-MLogB,1', '1,OFUL-MLogB,1', '1,Random,1', '2,EOFD-MLogB,2', '2,OFUL-MLogB,2', '2,Random,2',
    ]);
  });

  it('refuses a reference that is not one of the policies', async () => {
    await expect(runSweep(config, { out: root, axes: [parseAxis('params.m=2')], reference: 'Nope', jobs: 1 })).rejects.toThrow(/--reference Nope/);
  });
});

describe('eofd grid on the sweep machinery', () => {
  it('writes byte for byte (timings aside) the fingerprinted grid (every trial as before the per-label grid; trial CSVs with actions and best_reward since those were added, their other columns as before)', async () => {
    const out = path.join(root, 'fingerprint');
    const result = await runGrid(loadConfigs(writeFile(root, 'fp.yaml', gridConfigText('g')))[0]!, { out, l: [0, 0.5], e: [0.25, 1], jobs: 1 });
    const expected = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'data', 'grid-fingerprint.json'), 'utf8')) as Record<string, string>;
    expect(gridFingerprint(result.dir)).toEqual(expected);
    expect(gridAxes([0, 0.5], [0.25, 1]).map((a) => a.key)).toEqual(['params.l', 'params.e']);
  });
});
