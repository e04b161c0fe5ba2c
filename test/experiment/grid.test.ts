import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigs } from '../../src/config/load.js';
import type { ExperimentConfig } from '../../src/config/schema.js';
import {
  DEFAULT_GRID,
  gridPoints,
  parseExponentList,
  pointName,
  gridAxes,
  rankRows,
  costTwins,
  runGrid,
  withPolicyParams,
  bestFile,
  type GridRow,
} from '../../src/experiment/grid.js';
import { sweepVariant } from '../../src/experiment/sweep.js';
import { RunError } from '../../src/base/errors.js';
import { policySpecFor, resolveExperiment, unitSeeds } from '../../src/experiment/setup.js';
import { gridHeatmapSvg } from '../../src/report/heatmap.js';
import { descendants, parseXml } from '../report/xml.js';
import { gridConfigText, tempDir, trialCsvs, withoutTimings, writeFile } from './fixtures.js';


let root: string;
let config: ExperimentConfig;
beforeAll(() => {
  root = tempDir('eofd-grid-');
  config = loadConfigs(writeFile(root, 'g.yaml', gridConfigText('g')))[0] as ExperimentConfig;
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** Tests may point the pool at a fresh build (EOFD_TEST_WORKER); `npm test` builds dist first. */
const workerScript = process.env.EOFD_TEST_WORKER;

function row(over: Partial<GridRow> & { l?: number; e?: number }): GridRow {
  const { l = 0, e = 0, ...rest } = over;
  return { values: [l, e], lambda: 1, eta: 1, policy: 'EOFD-MLogB', policyName: 'EOFD-MLogB', trials: 2, meanFinalRegret: 1, stdFinalRegret: 0, meanParameterError: null, meanRoundMs: 0.1, finalRegrets: [1, 1], ...rest };
}

/** The (l, e) grid point's variant, as the grid runs it. */
function variantConfig(base: ExperimentConfig, point: { l: number; e: number }): ExperimentConfig {
  return sweepVariant(base, gridAxes([point.l], [point.e]), { name: pointName(point), values: [point.l, point.e] }, { split: 'validation' });
}

/** Per label, its best row. */
function selectBest(rows: readonly GridRow[]): Map<string, { l: unknown; e: unknown; lambda: number | null; eta: number | null }> {
  return new Map([...rankRows(rows)].map(([label, ranked]) => [label, { l: ranked[0]!.values[0], e: ranked[0]!.values[1], lambda: ranked[0]!.lambda, eta: ranked[0]!.eta }]));
}

describe('grid enumeration and λ, η', () => {
  it('the default grid has exactly 49 points with λ = (√K d)^l λ0 and η = (√K d)^e η0', () => {
    const points = gridPoints(DEFAULT_GRID, DEFAULT_GRID);
    expect(points).toHaveLength(49);
    expect(new Set(points.map(pointName)).size).toBe(49);
    const values = [-0.5, -0.25, 0, 0.25, 0.5, 0.75, 1];
    for (const l of values) for (const e of values) expect(points).toContainEqual({ l, e });
    // Independently: d = 5, K = 2, S = 2, D = max action norm of the instance.
    const base = resolveExperiment(config);
    const { d, K } = base.environment;
    const D = base.derived.D;
    const S = 2;
    const alpha = 2 * (1 + S * D) + Math.log(K + 1);
    const lambda0 = Math.sqrt(K) * alpha * S;
    const eta0 = S / 2 + Math.log(K + 1) / 4;
    const scale = Math.sqrt(2) * 5;
    expect(d).toBe(5);
    for (const point of points) {
      const variant = resolveExperiment(variantConfig(config, point), { split: 'validation' });
      expect(variant.derived.lambda).toBeCloseTo(scale ** point.l * lambda0, 10);
      expect(variant.derived.eta).toBeCloseTo(scale ** point.e * eta0, 10);
      expect(variant.config.policies.map((p) => p.label)).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
    }
  });

  it('parses exponent lists and refuses bad ones (exit code 2)', () => {
    expect(parseExponentList('-0.5, 0,1', '--l')).toEqual([-0.5, 0, 1]);
    for (const bad of ['', 'a', '0,,1', '1,1']) {
      expect(() => parseExponentList(bad, '--l')).toThrow(RunError);
    }
  });

  it('grid variants use validation seeds of the base name, disjoint from the report seeds', () => {
    const variant = variantConfig(config, { l: 0, e: 0.5 });
    for (let trial = 0; trial < 2; trial++) {
      const validation = unitSeeds(variant, trial, 'validation').environment;
      expect(validation).toBe(unitSeeds(config, trial, 'validation').environment);
      expect(validation).not.toBe(unitSeeds(config, trial, 'report').environment);
    }
  });
});

describe('selection rule', () => {
  it('lowest mean final regret, then smaller parameter error, then smaller l, then smaller e', () => {
    const rows = [
      row({ l: 0, e: 0, meanFinalRegret: 3 }),
      row({ l: 0.5, e: 0, meanFinalRegret: 2, meanParameterError: 0.9 }),
      row({ l: 0.25, e: 1, meanFinalRegret: 2, meanParameterError: 0.4 }),
      row({ l: 1, e: 1, meanFinalRegret: 2, meanParameterError: 0.4 }),
      row({ l: 0.25, e: 0.5, meanFinalRegret: 2, meanParameterError: 0.4 }),
      row({ policy: 'OFUL-MLogB', l: 1, e: 0, meanFinalRegret: 5 }),
      row({ policy: 'OFUL-MLogB', l: -0.5, e: 0, meanFinalRegret: 5 }),
    ];
    const best = selectBest(rows);
    expect(best.get('EOFD-MLogB')).toMatchObject({ l: 0.25, e: 0.5 });
    expect(best.get('OFUL-MLogB')).toMatchObject({ l: -0.5, e: 0 });
    // A known parameter error beats an unknown one at equal regret.
    expect(selectBest([row({ l: -1 }), row({ l: 1, meanParameterError: 5 })]).get('EOFD-MLogB')).toMatchObject({ l: 1 });
  });
});

describe('heatmap', () => {
  it('is well-formed SVG with one cell per grid point, labelled axes and a colour legend', () => {
    const ls = [-0.5, 0, 1];
    const es = [0, 0.75];
    const rows = gridPoints(ls, es).map((p, i) => ({ ...row({ ...p, meanFinalRegret: 10 + i }), ...p }));
    const svg = gridHeatmapSvg({ experiment: 'g<&>', policy: 'EOFD-MLogB', ls, es, rows });
    const tree = parseXml(svg);
    expect(tree.name).toBe('svg');
    const all = descendants(tree);
    const cells = all.filter((el) => el.name === 'rect' && el.attributes.has('data-l'));
    expect(cells).toHaveLength(6);
    expect(all.filter((el) => el.attributes.has('data-best'))).toHaveLength(1);
    expect(all.some((el) => el.attributes.has('data-legend'))).toBe(true);
    expect(svg).toContain('l (exponent of λ)');
    expect(svg).toContain('e (exponent of η)');
    expect(svg).toContain('>15<'); // a printed cell value
  });
});

describe('runGrid', () => {
  it('writes grid.csv, one heatmap per tuned policy and best.json (Random once, as the reference); resumable; --jobs-independent', async () => {
    const out = path.join(root, 'run1');
    const result = await runGrid(config, { out, l: [0, 0.5], e: [0.25, 1], jobs: 1 });
    expect(result.run.unitsFailed).toBe(0);
    const dir = path.join(out, 'g-grid');
    expect(result.dir).toBe(dir);
    const csv = fs.readFileSync(path.join(dir, 'grid.csv'), 'utf8').trim().split('\n');
    expect(csv[0]).toBe('l,e,lambda,eta,policy,trials,mean_final_regret,std_final_regret,mean_parameter_error,mean_round_ms');
    expect(csv).toHaveLength(1 + 4 * 2 + 1);
    expect(csv.filter((line) => line.split(',')[4] === 'Random')).toEqual([expect.stringMatching(/^,,,,Random,2,/)]);
    for (const line of csv.slice(1)) if (!line.includes('Random')) expect(line.split(',')[8]).not.toBe(''); // W* known on synthetic data
    expect(fs.existsSync(path.join(dir, 'heatmap-EOFD-MLogB.svg'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'heatmap-OFUL-MLogB.svg'))).toBe(true);
    expect(fs.existsSync(path.join(dir, 'heatmap-Random.svg'))).toBe(false);
    const best = JSON.parse(fs.readFileSync(path.join(dir, 'best.json'), 'utf8'));
    expect(Object.keys(best.policies).sort()).toEqual(['EOFD-MLogB', 'OFUL-MLogB']);
    const expected = selectBest(result.rows);
    for (const [policy, r] of [...expected].filter(([label]) => label !== 'Random')) {
      expect(best.policies[policy]).toMatchObject({ policy, values: { 'params.l': r.l, 'params.e': r.e }, lambda: r.lambda, eta: r.eta });
    }
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'l=0,e=0.25', 'manifest.json'), 'utf8'));
    expect(manifest.seeds.split).toBe('validation');
    expect(manifest.config.policies).toEqual(['EOFD-MLogB', 'OFUL-MLogB', 'Random']);
    const other = JSON.parse(fs.readFileSync(path.join(dir, 'l=0.5,e=1', 'manifest.json'), 'utf8'));
    expect(other.config.policies).toEqual(['EOFD-MLogB', 'OFUL-MLogB']);

    // --resume runs nothing more; without it the folder is refused.
    const again = await runGrid(config, { out, l: [0, 0.5], e: [0.25, 1], jobs: 1, resume: true });
    expect(again.run.unitsRun).toBe(0);
    expect(again.run.unitsSkipped).toBe(18);
    await expect(runGrid(config, { out, l: [0, 0.5], e: [0.25, 1], jobs: 1 })).rejects.toThrow(/--resume/);

    // Same bytes (timings aside) with a pool of workers.
    const out2 = path.join(root, 'run2');
    await runGrid(config, { out: out2, l: [0, 0.5], e: [0.25, 1], jobs: 2, workerScript });
    const a = trialCsvs(dir);
    const b = trialCsvs(path.join(out2, 'g-grid'));
    expect([...b.keys()]).toEqual([...a.keys()]);
    for (const [file, text] of a) expect(withoutTimings(b.get(file) as string)).toBe(withoutTimings(text));
  });

  it('tunes a cost twin (a label differing only in oful_solver) once; applying best.json gives the twin its values', async () => {
    const policies = '[EOFD-MLogB, OFUL-MLogB, {policy: OFUL-MLogB, label: OFUL-textbook, params: {oful_solver: textbook}}, {policy: OFUL-MLogB, label: OFUL-wide, params: {beta_scale: 2}}]';
    const twinned = loadConfigs(writeFile(root, 't.yaml', gridConfigText('t', policies)))[0] as ExperimentConfig;
    // OFUL-wide differs in a key that changes decisions: not a twin.
    expect([...costTwins(twinned)]).toEqual([['OFUL-textbook', 'OFUL-MLogB']]);
    const result = await runGrid(twinned, { out: path.join(root, 'twins'), l: [0, 0.5], e: [0.25], jobs: 1 });
    expect(result.run.unitsFailed).toBe(0);
    expect(new Set(result.rows.map((r) => r.policy))).toEqual(new Set(['EOFD-MLogB', 'OFUL-MLogB', 'OFUL-wide']));
    expect(result.best?.policies['OFUL-textbook']).toBeUndefined();
    const chosen = { 'OFUL-MLogB': { l: 0.5, e: 0.25 } };
    const applied = withPolicyParams(twinned, chosen);
    const entry = (label: string) => applied.policies.find((e) => e.label === label)?.params;
    expect(entry('OFUL-textbook')).toEqual({ oful_solver: 'textbook', l: 0.5, e: 0.25 });
    expect(entry('OFUL-wide')).toEqual({ beta_scale: 2 }); // not a twin, not in best.json: keeps its own
  });

  it('refuses a config whose only policy is Random', async () => {
    const only = loadConfigs(writeFile(root, 'r.yaml', gridConfigText('r', '[Random]', '{}')))[0] as ExperimentConfig;
    await expect(runGrid(only, { out: path.join(root, 'r'), l: [0], e: [0] })).rejects.toThrow(/no policy of r reads l/);
  });
});

describe('per-policy hyperparameters', () => {
  it('applies chosen values to a policy whose name is no valid label (OFULog+), keeping its label', () => {
    const plus = loadConfigs(writeFile(root, 'plus.yaml', gridConfigText('plus', '[OFULog+, Random]', '{S: 2}').replace('K: 2, reward: [0, 0.5, 1]', 'K: 1, reward: [0, 1]')))[0] as ExperimentConfig;
    const tuned = withPolicyParams(plus, { 'OFULog+': { beta_scale: 0.1 } });
    expect(tuned.policies[0]).toEqual({ label: 'OFULog+', policy: 'OFULog+', params: { beta_scale: 0.1 } });
  });

  it('policySpecFor uses each policy its own λ and η', () => {
    const tuned = resolveExperiment(withPolicyParams(config, { 'EOFD-MLogB': { l: 0, e: 1 }, 'OFUL-MLogB': { l: 1, e: -0.5 } }));
    const base = resolveExperiment(config);
    const scale = Math.sqrt(2) * 5;
    const eofd = policySpecFor(tuned, 'EOFD-MLogB', 0);
    const oful = policySpecFor(tuned, 'OFUL-MLogB', 0);
    expect(eofd.regularization).toBeCloseTo(base.derived.lambda0, 10);
    expect(eofd.stepSize).toBeCloseTo(scale * base.derived.eta0, 10);
    expect(oful.regularization).toBeCloseTo(scale * base.derived.lambda0, 10);
    expect(oful.stepSize).toBeCloseTo(scale ** -0.5 * base.derived.eta0, 10);
    expect(tuned.derived.policies?.['OFUL-MLogB']).toMatchObject({ l: 1, e: -0.5 });
    expect(tuned.derived.policies?.Random).toEqual({ policy: 'Random' });
  });
});

describe('best.json keys', () => {
  it('reliability: every tuned label is kept in best.json, a prototype key included (labels key an object without a prototype)', () => {
    const readers = Object.fromEntries(['__proto__', 'constructor'].map((label) => [label, ['params.l', 'params.e']]));
    const labelled = (label: string, l: number) => row({ policy: label, l, meanFinalRegret: l + 1 });
    const rows = ['__proto__', 'constructor'].flatMap((label) => [labelled(label, 0), labelled(label, 1)]);
    const written = JSON.parse(JSON.stringify(bestFile({ name: 'g', trials: 2 }, gridAxes([0, 1], [0]), readers, rows))) as { policies: Record<string, { values: unknown }> };
    expect(Object.keys(written.policies)).toEqual(['__proto__', 'constructor']);
    expect(Object.getOwnPropertyDescriptor(written.policies, '__proto__')?.value.values).toEqual({ 'params.l': 0, 'params.e': 0 });
  });
});
