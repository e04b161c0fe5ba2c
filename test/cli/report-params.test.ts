/**
 * `eofd run --params best.json` then `eofd report` (issue #38): each label ran its own l and λ, so the
 * report's header never shows the experiment's l and λ as if every label ran them; it names each
 * label's own, as the manifest's derived.policies records them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatShort } from '../../src/report/format.js';
import { perLabelKeys } from '../../src/report/table.js';
import { buildReport } from '../../src/report/index.js';
import { gridConfigText, runCli, tempDir, writeFile } from '../experiment/fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-report-params-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A best.json as `eofd grid` writes it, with only what --params reads. */
function bestFile(name: string, policies: Record<string, Record<string, number>>): string {
  const entries = Object.entries(policies).map(([label, values]) => [label, { policy: label, values }]);
  return writeFile(root, name, JSON.stringify({ format: 'eofd-best/1', experiment: 'tuned', policies: Object.fromEntries(entries) }));
}

interface LabelValues {
  lambda: number;
  l: number;
}

describe('eofd report after eofd run --params: the header shows what each label ran', () => {
  let out: string;
  let derived: { lambda: number; l: number; policies: Record<string, LabelValues> };
  let terminal: string;
  let html: string;
  beforeAll(async () => {
    const config = writeFile(root, 'tuned.yaml', gridConfigText('tuned', '[EOFD-MLogB, OFUL-MLogB, Random]', '{S: 2, m: 3, beta: order, l: 0.75}'));
    const best = bestFile('best.json', { 'EOFD-MLogB': { 'params.l': -0.5 }, 'OFUL-MLogB': { 'params.l': 0.5 } });
    out = path.join(root, 'results');
    const run = await runCli(['run', config, '--params', best, '--out', out, '--jobs', '1', '--quiet']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    derived = JSON.parse(fs.readFileSync(path.join(out, 'tuned', 'manifest.json'), 'utf8')).derived;
    const report = await runCli(['report', path.join(out, 'tuned')]);
    expect(report.code).toBe(0);
    terminal = report.stdout;
    html = fs.readFileSync(path.join(out, 'tuned', 'report', 'report.html'), 'utf8');
  });

  it('the run gave each label its own l and λ (the premise: none ran the experiment\'s)', () => {
    expect(derived.l).toBe(0.75);
    expect(derived.policies['EOFD-MLogB']?.l).toBe(-0.5);
    expect(derived.policies['OFUL-MLogB']?.l).toBe(0.5);
    const lambdas = new Set([derived.lambda, derived.policies['EOFD-MLogB']?.lambda, derived.policies['OFUL-MLogB']?.lambda]);
    expect(lambdas.size).toBe(3);
  });

  it('terminal and report.html: no experiment l or λ in the setting line; a per-label line with each label\'s own', () => {
    const setting = terminal.split('\n').find((line) => line.startsWith('synthetic, d = 5'));
    expect(setting).toBeDefined();
    expect(setting).not.toMatch(/(^|[ ;,])(λ|l) = /);
    expect(setting).not.toContain(formatShort(derived.lambda));
    expect(setting).toContain('η = '); // shared by every label: still in the header
    const own = `per label: EOFD-MLogB l = -0.5, λ = ${formatShort(derived.policies['EOFD-MLogB']!.lambda)}; OFUL-MLogB l = 0.5, λ = ${formatShort(derived.policies['OFUL-MLogB']!.lambda)}`;
    expect(terminal).toContain(own);
    expect(html).toContain(`<p class="setting">${own}</p>`);
    const htmlSetting = /<p class="setting">(synthetic, d = 5[^<]*)<\/p>/.exec(html)?.[1];
    expect(htmlSetting).toBeDefined();
    expect(htmlSetting).not.toMatch(/(^|[ ;,])(λ|l) = /);
  });

  it('a run where every label ran the experiment\'s values keeps the single header line', async () => {
    const config = writeFile(root, 'plain.yaml', gridConfigText('plain', '[EOFD-MLogB, OFUL-MLogB, Random]', '{S: 2, m: 3, beta: order, l: 0.75}'));
    expect((await runCli(['run', config, '--out', out, '--jobs', '1', '--quiet'])).code).toBe(0);
    const report = buildReport([path.join(out, 'plain')]);
    const e = report.experiments[0]!;
    expect(perLabelKeys(e)).toEqual([]);
    const text = (await runCli(['report', path.join(out, 'plain')])).stdout;
    expect(text).not.toContain('per label:');
    expect(text).toMatch(/synthetic, d = 5, K = 2, T = 20, 2 trials; λ = [0-9.]+, η = [0-9.]+, .*l = 0\.75/);
  });
});
