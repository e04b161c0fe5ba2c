import { describe, expect, it } from 'vitest';
import { PAPER_CLAIMS, evaluateClaims, matchesClaim, type ClaimRow } from '../../src/report/claims.js';
import { readResults } from '../../src/results/read.js';
import { summarizeExperiment, type ExperimentSummary } from '../../src/report/summarize.js';
import { writeFixtureResults } from './fixture.js';

/** A summary with just what the claims look at. */
function experiment(
  name: string,
  environment: string,
  K: number,
  d: number,
  comparison: { time: number | null; regret: number | null } | null,
  policies = ['EOFD-MLogB', 'OFUL-MLogB', 'Random'],
): ExperimentSummary {
  return {
    name,
    dir: name,
    setting: { environment, K, d, horizon: 100, trials: 3, policies },
    derived: {},
    provenance: { package: null, git: null, node: null, cpu: null, cores: null },
    policies: [],
    comparison: comparison === null ? null : { timeReductionPct: comparison.time, regretOverheadPct: comparison.regret },
    curves: [],
  };
}

function only(rows: ClaimRow[], id: ClaimRow['id']): ClaimRow {
  const matching = rows.filter((r) => r.id === id);
  expect(matching).toHaveLength(1);
  return matching[0]!;
}

describe('claims: missing settings and policies', () => {
  it('every claim is "not measured" when no experiment matches', () => {
    const rows = evaluateClaims([experiment('t', 'trace', 4, 10, { time: 90, regret: 0 })]);
    expect(rows.map((r) => [r.id, r.verdict, r.experiment])).toEqual([
      ['mnist', 'not measured', null],
      ['synthetic-multinomial', 'not measured', null],
      ['synthetic-binary', 'not measured', null],
    ]);
    expect(rows[0]!.note).toBe('no experiment with environment mnist among the results');
    expect(rows[1]!.note).toBe('no experiment with environment synthetic, K ≥ 2 among the results');
    expect(rows[2]!.note).toBe('no experiment with environment synthetic, K = 1 among the results');
  });

  it('"not measured" when OFUL-MLogB did not run, or a percentage is undefined', () => {
    let row = only(evaluateClaims([experiment('m', 'mnist', 1, 785, null, ['EOFD-MLogB', 'Random'])]), 'mnist');
    expect(row.verdict).toBe('not measured');
    expect(row.note).toBe('OFUL-MLogB did not run in this experiment');
    row = only(evaluateClaims([experiment('m', 'mnist', 1, 785, { time: null, regret: 5 })]), 'mnist');
    expect(row.verdict).toBe('not measured');
    expect(row.note).toContain('per-round time is 0');
  });
});

describe('claims', () => {
  it('are three, with the documented thresholds', () => {
    expect(PAPER_CLAIMS.map((c) => [c.id, c.minTimeReductionPct, c.strictTimeReduction, c.maxRegretOverheadPct])).toEqual([
      ['mnist', 70, false, 20],
      ['synthetic-multinomial', 35, true, 20],
      ['synthetic-binary', 80, true, 20],
    ]);
  });

  it('recognise the setting from the manifest, not the folder name', () => {
    const [mnist, multi, binary] = PAPER_CLAIMS as unknown as [typeof PAPER_CLAIMS[0], typeof PAPER_CLAIMS[0], typeof PAPER_CLAIMS[0]];
    const e = experiment('mnist', 'synthetic', 1, 400, { time: 90, regret: 1 });
    expect([matchesClaim(mnist, e.setting), matchesClaim(multi, e.setting), matchesClaim(binary, e.setting)]).toEqual([false, false, true]);
    const rows = evaluateClaims([e]);
    expect(only(rows, 'mnist').verdict).toBe('not measured');
    expect(only(rows, 'synthetic-binary').experiment).toBe('mnist');
  });

  it('MNIST: holds at ≥ 70% less time and ≤ 20% more regret, not below or above', () => {
    const verdict = (time: number, regret: number) => only(evaluateClaims([experiment('m', 'mnist', 1, 785, { time, regret })]), 'mnist').verdict;
    expect(verdict(80, 10)).toBe('holds');
    expect(verdict(70, 20)).toBe('holds');
    expect(verdict(75, -5)).toBe('holds');
    expect(verdict(69.9, 10)).toBe('does not hold');
    expect(verdict(80, 20.1)).toBe('does not hold');
  });

  it('synthetic multinomial: more than 35% (strictly), K ≥ 2', () => {
    const verdict = (time: number, K = 4) =>
      only(evaluateClaims([experiment('s', 'synthetic', K, 100, { time, regret: 0 })]), 'synthetic-multinomial').verdict;
    expect(verdict(35)).toBe('does not hold');
    expect(verdict(35.1)).toBe('holds');
    expect(verdict(50, 2)).toBe('holds');
  });

  it('synthetic binary: more than 80% (strictly), K = 1', () => {
    const row = (time: number, regret: number) =>
      only(evaluateClaims([experiment('b', 'synthetic', 1, 400, { time, regret })]), 'synthetic-binary');
    expect(row(80, 0).verdict).toBe('does not hold');
    expect(row(80, 0).note).toBe('time reduction 80.0% is not above the 80% threshold');
    expect(row(85, 25).note).toBe('regret overhead 25.0% is above the 20% threshold');
    const ok = row(85, -3);
    expect(ok.verdict).toBe('holds');
    expect(ok.measured).toBe('85.0% less time, 3.0% less regret');
    expect(ok.note).toBe('both thresholds met (time reduction > 80%, regret overhead ≤ 20%)');
  });

  it('one row per matching experiment, and the paper\'s d is mentioned when it differs', () => {
    const rows = evaluateClaims([
      experiment('s1', 'synthetic', 4, 100, { time: 40, regret: 5 }),
      experiment('s2', 'synthetic', 4, 20, { time: 30, regret: 5 }),
    ]).filter((r) => r.id === 'synthetic-multinomial');
    expect(rows.map((r) => [r.experiment, r.verdict])).toEqual([
      ['s1', 'holds'],
      ['s2', 'does not hold'],
    ]);
    expect(rows[0]!.note).not.toContain('paper used');
    expect(rows[1]!.note).toContain('(measured at d = 20; the paper used d = 100)');
  });

  it('on the fixture: synthetic multinomial holds, MNIST does not, binary not measured', () => {
    const experiments = readResults([writeFixtureResults()]).map(summarizeExperiment);
    const rows = evaluateClaims(experiments);
    expect(rows.map((r) => [r.id, r.experiment, r.verdict])).toEqual([
      ['mnist', 'mnist', 'does not hold'],
      ['synthetic-multinomial', 'synthetic-k4', 'holds'],
      ['synthetic-binary', null, 'not measured'],
    ]);
    expect(rows[0]!.measured).toBe('50.0% less time, 10.0% more regret');
    expect(rows[0]!.note).toBe('time reduction 50.0% is below the 70% threshold');
    expect(rows[1]!.measured).toBe('66.7% less time, 10.0% more regret');
    expect(rows[0]!.paper).toBe('≈80% less time, ≈10% more regret');
  });
});
