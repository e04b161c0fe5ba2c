import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claimLabel, evaluateClaims, type ClaimRow } from '../../src/report/claims.js';
import { buildReport, claimsCsv, CLAIMS_CSV_COLUMNS } from '../../src/report/index.js';
import { summarizeExperiment, type ExperimentSummary } from '../../src/report/summarize.js';
import { renderTimeFigure, timeNote } from '../../src/report/svg.js';
import { CLAIMS_RULE, CLAIMS_VERSUS_RULE, claimsRule, renderTerminal } from '../../src/report/table.js';
import { readResults } from '../../src/results/read.js';
import { runCli } from '../experiment/fixtures.js';
import { tempDir, writeExperiment, type FixturePolicy } from './fixture.js';

/**
 * The claims against every OFUL-MLogB label of an experiment: the incremental default and the paper's
 * textbook solver (params.oful_solver: textbook) as a second label, each row judged on its own paired
 * log ratios.
 */

/** t_{0.975, 2} / √3: a 95% half-width over three trials per sample std (claims.test.ts). */
const HALF_PER_STD = 0.95 / Math.sqrt(2 * 0.975 * 0.025) / Math.sqrt(3);

/** [mean, low, high] of ln(a/b) over the trials, by hand. */
function logInterval(a: number[], b: number[]): [number, number, number] {
  const logs = a.map((x, i) => Math.log(x / b[i]!));
  const mean = logs.reduce((s, x) => s + x, 0) / logs.length;
  const std = Math.sqrt(logs.reduce((s, x) => s + (x - mean) ** 2, 0) / (logs.length - 1));
  return [mean, mean - HALF_PER_STD * std, mean + HALF_PER_STD * std];
}
const overhead = (a: number[], b: number[]) => logInterval(a, b).map((x) => 100 * Math.expm1(x));
function reduction(a: number[], b: number[]): number[] {
  const [mean, low, high] = logInterval(a, b);
  return [mean, high, low].map((x) => -100 * Math.expm1(x));
}

function policy(name: string, finals: number[], roundMs: number[]): FixturePolicy {
  const zeros = finals.map(() => 0);
  return { name, finals, selectMs: roundMs, updateMs: zeros, stateBytes: 0, sketchError: zeros, projections: zeros, parameterError: null };
}

const EOFD_RUN = { finals: [105, 104, 106], ms: [0.1, 0.11, 0.09] };
const OFUL_RUN = { finals: [100, 100, 100], ms: [1, 1, 1] };
/** The textbook round is slower (2.0, 2.4, 2.2 ms) and its regret differs a little (it is its own run here). */
const TEXTBOOK_RUN = { finals: [101, 99, 100], ms: [2.0, 2.4, 2.2] };
const TEXTBOOK_VARIANT = { 'OFUL-textbook': { policy: 'OFUL-MLogB', params: { oful_solver: 'textbook' } } };

/** A synthetic binary experiment (K = 1, d = 400) with EOFD-MLogB, the given OFUL-MLogB labels and Random. */
function experimentDir(options: { textbook?: typeof TEXTBOOK_RUN | null; plain?: boolean; randomFinals?: number[] } = {}): string {
  const textbook = options.textbook === undefined ? TEXTBOOK_RUN : options.textbook;
  const policies = [policy('EOFD-MLogB', EOFD_RUN.finals, EOFD_RUN.ms)];
  if (options.plain !== false) policies.push(policy('OFUL-MLogB', OFUL_RUN.finals, OFUL_RUN.ms));
  if (textbook !== null) policies.push(policy('OFUL-textbook', textbook.finals, textbook.ms));
  policies.push(policy('Random', options.randomFinals ?? [300, 300, 300], [0.001, 0.001, 0.001]));
  return writeExperiment(path.join(tempDir(), 'binary'), {
    name: 'binary',
    environment: { type: 'synthetic', d: 400, K: 1 },
    horizon: 10,
    policies,
    ...(textbook === null ? {} : { variants: TEXTBOOK_VARIANT }),
  });
}

const summary = (dir: string): ExperimentSummary => summarizeExperiment(readResults([dir])[0]!);
const binaryRows = (e: ExperimentSummary): ClaimRow[] => evaluateClaims([e]).filter((r) => r.id === 'synthetic-binary');

describe('claims against every OFUL-MLogB label (incremental and textbook solver)', () => {
  it('two rows per claim, in policy order, each naming its label and solver, the paper beside them', () => {
    const e = summary(experimentDir());
    expect(e.ofulComparisons.map((o) => [o.label, o.solver])).toEqual([
      ['OFUL-MLogB', 'incremental'],
      ['OFUL-textbook', 'textbook'],
    ]);
    const rows = evaluateClaims([e]);
    expect(rows.map((r) => [r.id, r.experiment, r.reference, r.solver])).toEqual([
      ['mnist', null, null, null],
      ['synthetic-multinomial', null, null, null],
      ['synthetic-binary', 'binary', 'OFUL-MLogB', 'incremental'],
      ['synthetic-binary', 'binary', 'OFUL-textbook', 'textbook'],
    ]);
    const binary = rows.slice(2);
    expect(binary.map(claimLabel)).toEqual([
      'synthetic, K = 1 (binary vs OFUL-MLogB, incremental solver)',
      'synthetic, K = 1 (binary vs OFUL-textbook, textbook solver)',
    ]);
    expect(binary.map((r) => r.paper)).toEqual(['>80% less time, comparable regret', '>80% less time, comparable regret']);
  });

  it('the textbook row is judged on its own paired log ratios (numbers by hand from the per-trial values)', () => {
    const [incremental, textbook] = binaryRows(summary(experimentDir()));
    // Incremental: as in claims.test.ts, 90.03% [87.21, 92.23] less time, 5.00% [2.54, 7.51] more regret.
    const [t0, t0Low, t0High] = reduction(EOFD_RUN.ms, OFUL_RUN.ms);
    expect(incremental!.timeReductionPct!.estimate).toBeCloseTo(t0!, 9);
    expect(incremental!.timeReductionPct!.low).toBeCloseTo(t0Low!, 9);
    expect(incremental!.timeReductionPct!.high).toBeCloseTo(t0High!, 9);
    expect(incremental!.verdict).toBe('holds');
    // Textbook: ratios 0.1/2.0, 0.11/2.4, 0.09/2.2 (time) and 105/101, 104/99, 106/100 (regret).
    const [t1, t1Low, t1High] = reduction(EOFD_RUN.ms, TEXTBOOK_RUN.ms);
    const [r1, r1Low, r1High] = overhead(EOFD_RUN.finals, TEXTBOOK_RUN.finals);
    expect(textbook!.trials).toBe(3);
    expect(textbook!.timeReductionPct!.estimate).toBeCloseTo(t1!, 9);
    expect(textbook!.timeReductionPct!.low).toBeCloseTo(t1Low!, 9);
    expect(textbook!.timeReductionPct!.high).toBeCloseTo(t1High!, 9);
    expect(textbook!.regretOverheadPct!.estimate).toBeCloseTo(r1!, 9);
    expect(textbook!.regretOverheadPct!.low).toBeCloseTo(r1Low!, 9);
    expect(textbook!.regretOverheadPct!.high).toBeCloseTo(r1High!, 9);
    // 95.46% [94.17, 96.46] less time (above 80%), 5.00% [2.49, 7.57] more regret (within ±20%).
    expect(t1).toBeCloseTo(95.457199, 6);
    expect(r1Low).toBeCloseTo(2.494519, 6);
    expect(textbook!.verdict).toBe('holds');
    expect(textbook!.measured).toBe('95.5% less time, 5.0% more regret');
    // The control against the textbook label on the same trials: Random 300 vs 101, 99, 100.
    const [, c1Low, c1High] = overhead([300, 300, 300], TEXTBOOK_RUN.finals);
    expect(textbook!.randomControl!.regretOverheadPct!.low).toBeCloseTo(c1Low!, 9);
    expect(textbook!.randomControl!.regretOverheadPct!.high).toBeCloseTo(c1High!, 9);
    expect(textbook!.reason).toBe(
      "time: faster: the paper's 80% lies below the time reduction 95% CI [94.2, 96.5]; regret: regret overhead 95% CI [2.5, 7.6] lies within ±20%; " +
        `Random in EOFD-MLogB's place fails the same rule (regret overhead 95% CI [${c1Low!.toFixed(1)}, ${c1High!.toFixed(1)}] lies above +20%)`,
    );
  });

  it('each row is judged by the same rules: a textbook label not shown below Random leaves only its row not judged', () => {
    const rows = binaryRows(summary(experimentDir({ textbook: { finals: [400, 410, 390], ms: [2, 2.4, 2.2] } })));
    expect(rows.map((r) => r.verdict)).toEqual(['holds', 'not judged']);
    expect(rows[1]!.reason).toMatch(/^OFUL-textbook's regret is not shown below Random's/);
    // The numbers are still given.
    expect(rows[1]!.timeReductionPct).not.toBeNull();
  });

  it('a textbook label alone is judged, and named', () => {
    const rows = binaryRows(summary(experimentDir({ plain: false })));
    expect(rows.map((r) => [r.reference, r.solver, r.verdict, claimLabel(r)])).toEqual([
      ['OFUL-textbook', 'textbook', 'holds', 'synthetic, K = 1 (binary vs OFUL-textbook, textbook solver)'],
    ]);
  });

  it('with only OFUL-MLogB (incremental) nothing changes: one row, no label named, the same rule, Fig. 2 note and claims.csv header', () => {
    const dir = experimentDir({ textbook: null });
    const e = summary(dir);
    const rows = binaryRows(e);
    expect(rows.map((r) => [r.reference, r.solver, r.versus, r.verdict, claimLabel(r)])).toEqual([
      ['OFUL-MLogB', 'incremental', null, 'holds', 'synthetic, K = 1 (binary)'],
    ]);
    expect(claimsRule(rows)).toBe(CLAIMS_RULE);
    expect(timeNote(e, rows)).toBe('EOFD-MLogB: 90.0% less time than OFUL-MLogB');
    const report = buildReport([dir]);
    expect(claimsCsv(report).split('\n')[0]).toBe(CLAIMS_CSV_COLUMNS.join(','));
    expect(renderTerminal(report, { colour: false })).not.toContain(CLAIMS_VERSUS_RULE);
  });

  it('the report: terminal, claims.csv and Fig. 2 state both comparisons', () => {
    const dir = experimentDir();
    const report = buildReport([dir]);
    const terminal = renderTerminal(report, { colour: false });
    expect(terminal).toContain(CLAIMS_VERSUS_RULE);
    expect(terminal).toContain('binary vs OFUL-textbook, textbook solver');
    const csv = claimsCsv(report).split('\n');
    expect(csv[0]).toBe(CLAIMS_CSV_COLUMNS.join(','));
    expect(csv.filter((line) => line.includes('synthetic, K = 1 (binary vs OFUL-'))).toHaveLength(2);
    expect(timeNote(report.experiments[0]!, report.claims)).toBe(
      'EOFD-MLogB: 90.0% less time than OFUL-MLogB (incremental),\n95.5% less time than OFUL-textbook (textbook)',
    );
    // Fig. 2 draws it above the panel, each reduction from its own line on, wrapped to the panel's width.
    const svg = renderTimeFigure(report.experiments, { claims: report.claims });
    const header = [...svg.matchAll(/data-header="\d+">([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(header.join(' ')).toContain('EOFD-MLogB: 90.0% less time than OFUL-MLogB (incremental), 95.5% less time than OFUL-textbook (textbook)');
    expect(header.find((line) => line!.startsWith('95.5% less time'))).toBeDefined();
  });
});

describe('the solver of each OFUL-MLogB label, read from a real run', () => {
  it("takes textbook from the manifest's derived.policies and incremental where nothing says textbook", async () => {
    const root = tempDir();
    const config = [
      'name: solvers',
      'environment: {type: synthetic, d: 4, K: 1, reward: [0, 1], actions: [3, 5]}',
      'horizon: 12',
      'trials: 2',
      'seed: 0',
      'policies: [EOFD-MLogB, OFUL-MLogB, {policy: OFUL-MLogB, label: OFUL-textbook, params: {oful_solver: textbook}}, Random]',
      'params: {S: 2, m: 2, beta: order}',
      '',
    ].join('\n');
    const file = path.join(root, 'solvers.yaml');
    fs.writeFileSync(file, config);
    const run = await runCli(['run', file, '--out', root, '--jobs', '1', '--quiet']);
    expect(run.code, run.stderr).toBe(0);
    const manifest = JSON.parse(fs.readFileSync(path.join(root, 'solvers', 'manifest.json'), 'utf8'));
    expect(manifest.derived.policies['OFUL-textbook'].oful_solver).toBe('textbook');
    expect(manifest.derived.policies['OFUL-MLogB'].oful_solver).toBeUndefined();
    const e = summary(path.join(root, 'solvers'));
    expect(e.ofulComparisons.map((c) => [c.label, c.solver])).toEqual([
      ['OFUL-MLogB', 'incremental'],
      ['OFUL-textbook', 'textbook'],
    ]);
    // Same decisions, so the same regret in every trial (the textbook solver changes the cost only).
    const finals = (label: string) => readResults([path.join(root, 'solvers')])[0]!.summary.filter((r) => r.policy === label).map((r) => r.finalRegret);
    expect(finals('OFUL-MLogB')).toHaveLength(2);
    expect(finals('OFUL-MLogB').every((x) => Number.isFinite(x))).toBe(true);
    expect(finals('OFUL-textbook')).toEqual(finals('OFUL-MLogB'));
  });
});
