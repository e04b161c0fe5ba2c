import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { CLAIMS_CSV_COLUMNS, REPORT_FILES, buildReport, writeReport } from '../../src/report/index.js';
import { ResultsError } from '../../src/results/read.js';
import { tempDir, writeFixtureResults } from './fixture.js';

describe('writeReport: unwritable folder', () => {
  it('fails with exit code 1 when the folder cannot be created', () => {
    const root = tempDir();
    const blocker = path.join(root, 'file');
    fs.writeFileSync(blocker, 'x');
    const report = buildReport([writeFixtureResults()]);
    try {
      writeReport(report, path.join(blocker, 'report'));
      throw new Error('expected a ResultsError');
    } catch (err) {
      expect(err).toBeInstanceOf(ResultsError);
      expect((err as ResultsError).exitCode).toBe(1);
    }
  });
});

describe('the report never mixes with results', () => {
  it('an experiment named like the report folder is refused, not left out (exit 2)', () => {
    const root = writeFixtureResults();
    const names = fs.readdirSync(root);
    const experiment = path.join(root, names[0]!);
    expect(() => buildReport([root], { out: experiment })).toThrow(/an experiment folder \(it holds manifest\.json\) is also the report's output folder/);
  });

  it('writeReport refuses an experiment folder as its output (exit 2), writing nothing', () => {
    const root = writeFixtureResults();
    const experiment = path.join(root, fs.readdirSync(root)[0]!);
    const before = fs.readdirSync(experiment).sort();
    const report = buildReport([experiment]);
    let error: unknown;
    try {
      writeReport(report, experiment);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ResultsError);
    expect((error as ResultsError).exitCode).toBe(2);
    expect(fs.readdirSync(experiment).sort()).toEqual(before);
  });
});

describe('buildReport / writeReport', () => {
  it('writes every file, atomically, and report.json round-trips', () => {
    const root = writeFixtureResults();
    const out = path.join(root, 'report');
    const report = buildReport([root], { out });
    const files = writeReport(report, out);
    expect(files).toEqual(REPORT_FILES.map((f) => path.join(out, f)));
    expect(fs.readdirSync(out).sort()).toEqual([...REPORT_FILES].sort());
    expect(JSON.parse(fs.readFileSync(path.join(out, 'report.json'), 'utf8'))).toEqual(report);
    // The report folder inside the results folder is not mistaken for an experiment next time.
    expect(buildReport([root], { out }).experiments.map((e) => e.name)).toEqual(['mnist', 'synthetic-k4']);
  });

  it('report.csv and claims.csv hold the numbers at full precision', () => {
    const root = writeFixtureResults();
    const out = path.join(root, 'report');
    writeReport(buildReport([root]), out);
    const rows = parse(fs.readFileSync(path.join(out, 'report.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(6);
    const eofd = rows.find((r) => r.experiment === 'synthetic-k4' && r.policy === 'EOFD-MLogB')!;
    expect(Number(eofd.final_regret_mean)).toBe(5.5);
    expect(Number(eofd.final_regret_std)).toBe(0.5);
    // Geometric means of the per-trial ratios (summarize.test.ts): (4/3)^(1/3) and 28^(−1/3).
    expect(Number(eofd.regret_overhead_pct)).toBeCloseTo(100 * (Math.cbrt(4 / 3) - 1), 12);
    expect(Number(eofd.time_reduction_pct)).toBeCloseTo(100 * (1 - 1 / Math.cbrt(28)), 12);
    expect(rows.find((r) => r.policy === 'Random')!.parameter_error_mean).toBe('');
    // Δ_T 1.1, 1.2, 1.3 and β_T 4, 5, 6 (fixture.ts); Random has neither
    expect(Number(eofd.delta_T_mean)).toBeCloseTo(1.2, 12);
    expect(Number(eofd.delta_T_std)).toBeCloseTo(0.1, 12);
    expect([eofd.beta_T_mean, eofd.beta_T_std]).toEqual(['5', '1']);
    const random = rows.find((r) => r.experiment === 'synthetic-k4' && r.policy === 'Random')!;
    expect([random.delta_T_mean, random.beta_T_mean]).toEqual(['', '']);
  });

  it('claims.csv: the documented columns, EOFD-MLogB vs OFUL-MLogB paired, one row per claim and experiment', () => {
    const root = writeFixtureResults();
    const out = path.join(root, 'report');
    writeReport(buildReport([root]), out);
    const text = fs.readFileSync(path.join(out, 'claims.csv'), 'utf8');
    expect(text.split('\n')[0]).toBe(
      'claim,paper,trials,' +
        'time_reduction_pct,time_reduction_ci_low,time_reduction_ci_high,time_direction,time_paper_position,' +
        'regret_overhead_pct,regret_overhead_ci_low,regret_overhead_ci_high,regret_direction,regret_paper_position,' +
        'random_control,random_regret_overhead_pct,random_regret_overhead_ci_low,random_regret_overhead_ci_high,verdict,reason',
    );
    expect(CLAIMS_CSV_COLUMNS).toHaveLength(19);
    const claims = parse(text, { columns: true }) as Record<string, string>[];
    expect(claims.map((c) => [c.claim, c.trials, c.time_direction, c.time_paper_position, c.regret_direction, c.regret_paper_position, c.random_control, c.verdict])).toEqual([
      ['MNIST (mnist)', '3', 'inconclusive', 'above', 'more', 'inside', 'fails', 'does not hold'],
      ['synthetic, K ≥ 2 (synthetic-k4)', '3', 'faster', 'below', 'more', 'below', 'fails', 'holds'],
      ['synthetic, K = 1', '', '', '', '', '', '', 'not measured'],
    ]);
    // MNIST: ratios 1/3, 1/2, 2/3 → 100·(1 − 9^(−1/3)) = 51.925% less time, [−14.186, 79.759] on the log
    // scale (claims.test.ts); regret 10/9, 11/10, 12/11 → 10.064% [7.580, 12.605]
    const mnist = claims[0]!;
    expect(Number(mnist.time_reduction_pct)).toBeCloseTo(100 * (1 - 1 / Math.cbrt(9)), 12);
    expect(Number(mnist.time_reduction_ci_low)).toBeCloseTo(-14.186352, 5);
    expect(Number(mnist.time_reduction_ci_high)).toBeCloseTo(79.759365, 5);
    expect(Number(mnist.regret_overhead_ci_low)).toBeCloseTo(7.580428, 5);
    expect(mnist.reason).toBe("time: not shown faster or slower: the paper's 80% lies above the time reduction 95% CI [−14.2, 79.8]");
    // Random 40, 45, 50 in OFUL-MLogB's 9, 10, 11: ratios 40/9, 4.5, 50/11, geometric mean 4.496 → +349.6%.
    expect(Number(mnist.random_regret_overhead_pct)).toBeCloseTo(100 * (Math.cbrt((40 / 9) * 4.5 * (50 / 11)) - 1), 9);
    expect(Number(mnist.random_regret_overhead_ci_low)).toBeGreaterThan(300);
    expect(claims[2]!.regret_overhead_pct).toBe('');
  });

  it('band: buildReport records it, writeReport may override it, and every file agrees', () => {
    const root = writeFixtureResults();
    expect(buildReport([root]).band).toBe('std');
    const report = buildReport([root], { band: 'ci95' });
    expect(report.band).toBe('ci95');
    const a = path.join(tempDir(), 'a');
    writeReport(report, a);
    expect(fs.readFileSync(path.join(a, 'fig1-regret.svg'), 'utf8')).toContain('95% Student-t interval of the mean (band)');
    const b = path.join(tempDir(), 'b');
    writeReport(report, b, { band: 'std' });
    expect(fs.readFileSync(path.join(b, 'fig1-regret.svg'), 'utf8')).toContain('± 1 sample std (band)');
    expect(JSON.parse(fs.readFileSync(path.join(b, 'report.json'), 'utf8')).band).toBe('std');
    expect(fs.readFileSync(path.join(b, 'report.html'), 'utf8')).toContain('band = ± 1 sample std.');
  });

  it('is deterministic: the same results give byte-identical files', () => {
    const root = writeFixtureResults();
    const a = path.join(tempDir(), 'a');
    const b = path.join(tempDir(), 'b');
    writeReport(buildReport([root]), a);
    writeReport(buildReport([root]), b);
    for (const f of REPORT_FILES) expect(fs.readFileSync(path.join(a, f), 'utf8')).toBe(fs.readFileSync(path.join(b, f), 'utf8'));
  });
});
