/**
 * params.m: adaptive from the config to the files: resolved per label as 'adaptive' with its budget
 * delta_max (default 0.1) in derived.policies, the PolicySpec it gives, the trial CSV's column m
 * (m_t per round), summary.csv's m_T and Δ_T, and the report's m_T column and Fig. 3.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { loadConfigs } from '../../src/config/load.js';
import type { ExperimentConfig } from '../../src/config/schema.js';
import { runExperiments } from '../../src/experiment/runner.js';
import { policySpecFor, resolveExperiment } from '../../src/experiment/setup.js';
import { buildReport, SKETCH_SIZE_FIGURE, SKETCH_SIZE_PNG, writeReport } from '../../src/report/index.js';
import { renderTerminal } from '../../src/report/table.js';
import { tempDir, writeFile } from './fixtures.js';

const ENVIRONMENT = 'environment: {type: synthetic, d: 6, K: 2, reward: [0, 0.5, 1], actions: [3, 5]}';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-adaptive-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function load(name: string, policies: string, params = '{S: 2, lambda: 0.5}', horizon = 60): ExperimentConfig {
  const text = [`name: ${name}`, ENVIRONMENT, `horizon: ${horizon}`, 'trials: 2', `policies: ${policies}`, `params: ${params}`, ''].join('\n');
  return loadConfigs(writeFile(root, `${name}.yaml`, text))[0] as ExperimentConfig;
}

describe('params.m: adaptive in configs', () => {
  it('refuses delta_max ≤ 0 and gives a policy that reads no m no delta_max', () => {
    expect(() => load('bad', '[EOFD-MLogB]', '{m: adaptive, delta_max: 0}')).toThrow(/params\.delta_max: expected a positive number/);
    expect(() => load('bad2', "[{policy: OFUL-MLogB, params: {delta_max: 0.1}}]")).toThrow(ConfigError);
    expect(() => load('bad3', '[EOFD-MLogB]', '{m: adapt}')).toThrow(/expected 'auto' \(⌊Kd\/10⌋\), 'adaptive' \(grown to keep Δ_t ≤ 1 \+ delta_max\) or an integer ≥ 1/);
  });

  it("records m 'adaptive' with its delta_max (default 0.1) per label, and a fixed m without one", () => {
    const config = load(
      'resolve',
      '[EOFD-MLogB, {policy: EOFD-MLogB, label: A, params: {m: adaptive}}, {policy: SOFUL, label: B, params: {m: adaptive, delta_max: 0.02}}, OFUL-MLogB]',
    );
    const resolved = resolveExperiment(config);
    const own = resolved.derived.policies;
    expect(own['EOFD-MLogB']!.m).toBe(1);
    expect('delta_max' in own['EOFD-MLogB']!).toBe(false);
    expect(own.A).toMatchObject({ m: 'adaptive', delta_max: 0.1 });
    expect(own.B).toMatchObject({ m: 'adaptive', delta_max: 0.02 });
    expect(policySpecFor(resolved, 'A', 0)).toMatchObject({ sketchSize: 1, adaptiveSketch: { deltaMax: 0.1 } });
    expect(policySpecFor(resolved, 'B', 0)).toMatchObject({ sketchSize: 1, adaptiveSketch: { deltaMax: 0.02 } });
    expect(policySpecFor(resolved, 'EOFD-MLogB', 0).adaptiveSketch).toBeUndefined();
    expect(policySpecFor(resolved, 'OFUL-MLogB', 0).adaptiveSketch).toBeUndefined();
    // The experiment-wide m: adaptive reaches every sketched label; OFUL-MLogB reads no m.
    const wide = resolveExperiment(load('wide', '[EOFD-TS, OFUL-MLogB]', '{S: 2, m: adaptive, delta_max: 0.3}'));
    expect(wide.derived.m).toBe('adaptive');
    expect(wide.derived.policies['EOFD-TS']).toMatchObject({ m: 'adaptive', delta_max: 0.3 });
    expect(policySpecFor(wide, 'OFUL-MLogB', 0).sketchSize).toBe(1);
  });
});

describe('params.m: adaptive in the files', () => {
  it('trial CSVs carry m_t (column m, last), summary.csv m_T and Δ_T ≤ 1 + ε, the report m_T and Fig. 3', async () => {
    const config = load('files', '[{policy: EOFD-MLogB, label: adaptive, params: {m: adaptive, delta_max: 0.05}}, {policy: EOFD-MLogB, label: fixed, params: {m: 3}}, Random]');
    const out = path.join(root, 'results');
    const result = await runExperiments([config], { out, jobs: 1 });
    expect(result.unitsFailed).toBe(0);
    const dir = path.join(out, 'files');
    const rows = parse(fs.readFileSync(path.join(dir, 'adaptive', 'trial-0.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!).at(-1)).toBe('m');
    const m = rows.map((r) => Number(r.m));
    expect(m[0]).toBe(1);
    m.forEach((v, i) => expect(v).toBeGreaterThanOrEqual(m[Math.max(0, i - 1)]!));
    expect(m.at(-1)).toBeGreaterThan(1);
    const fixed = parse(fs.readFileSync(path.join(dir, 'fixed', 'trial-0.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(new Set(fixed.map((r) => r.m))).toEqual(new Set(['3']));
    const random = parse(fs.readFileSync(path.join(dir, 'Random', 'trial-0.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(random[0]!.m).toBe('');

    const summary = parse(fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const adaptive = summary.filter((r) => r.policy === 'adaptive');
    for (const row of adaptive) {
      expect(Number(row.delta_T)).toBeLessThanOrEqual(1.05);
      expect(Number(row.m_T)).toBeGreaterThan(1);
    }
    expect(summary.find((r) => r.policy === 'adaptive' && r.trial === '0')!.m_T).toBe(String(m.at(-1)));
    expect(summary.find((r) => r.policy === 'Random')!.m_T).toBe('');

    const report = buildReport([dir]);
    const text = renderTerminal(report, { colour: false });
    expect(text).toMatch(/Δ_T\s+β_T\s+m_T\n/);
    const written = writeReport(report, path.join(root, 'report'));
    expect(written.map((f) => path.basename(f))).toContain(SKETCH_SIZE_FIGURE);
    const figure = fs.readFileSync(path.join(root, 'report', SKETCH_SIZE_FIGURE), 'utf8');
    expect(figure).toContain('data-policy="adaptive"');
    expect(figure).not.toContain('data-policy="fixed"');
    // --png draws Fig. 3 too: a PNG twice the figure's size.
    const png = writeReport(report, path.join(root, 'report-png'), { png: true }).map((f) => path.basename(f));
    expect(png).toEqual(expect.arrayContaining(['fig1-regret.png', 'fig2-time.png', SKETCH_SIZE_PNG]));
    const bytes = fs.readFileSync(path.join(root, 'report-png', SKETCH_SIZE_PNG));
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
    const viewBox = /viewBox="0 0 ([\d.]+) ([\d.]+)"/.exec(figure)!;
    expect(bytes.readUInt32BE(16)).toBe(Math.ceil(Number(viewBox[1]) * 2));
  });
});
