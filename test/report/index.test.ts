import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { REPORT_FILES, buildReport, writeReport } from '../../src/report/index.js';
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
    expect(Number(eofd.regret_overhead_pct)).toBeCloseTo(10, 12);
    expect(Number(eofd.time_reduction_pct)).toBeCloseTo(200 / 3, 12);
    expect(rows.find((r) => r.policy === 'Random')!.parameter_error_mean).toBe('');
    const claims = parse(fs.readFileSync(path.join(out, 'claims.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(claims.map((c) => c.verdict)).toEqual(['does not hold', 'holds', 'not measured']);
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
