/**
 * The README's Results section is what `npm run docs` generates from the committed reproduction in
 * results/paper/: change either without the other and this fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceGeneratedSection, sectionMarkers } from '../../src/base/generated-section.js';
import { reproductionSection, RESULTS_SECTION } from '../../src/experiment/reproduce-results.js';
import type { ClaimRow } from '../../src/report/claims.js';
import { formatWithInterval } from '../../src/report/format.js';
import { REPO, tempDir } from './fixtures.js';

const README = path.join(REPO, 'README.md');
const RESULTS = path.join(REPO, 'results', 'paper');

describe('the README Results section', () => {
  it('is what the docs generator makes of results/paper/ (run `npm run docs` after a new reproduction)', () => {
    const readme = fs.readFileSync(README, 'utf8');
    const { start } = sectionMarkers(RESULTS_SECTION);
    expect(readme).toContain(start);
    expect(replaceGeneratedSection(readme, reproductionSection(RESULTS, 'results/paper'), RESULTS_SECTION)).toBe(readme);
  });

  it("states every judged claim's time reduction and verdict as report.json has them, for both solvers and both runs", () => {
    const section = reproductionSection(RESULTS, 'results/paper');
    const rows = section.split('\n').filter((line) => line.startsWith('| ') && / \| (the paper's|the grid's)/.test(line));
    expect(rows).toHaveLength(6);
    for (const [run, at] of [['report-paper-choice', "the paper's"], ['report-tuned', "the grid's"]] as const) {
      const claims = (JSON.parse(fs.readFileSync(path.join(RESULTS, run, 'report.json'), 'utf8')) as { claims: ClaimRow[] }).claims.filter((c) => c.experiment !== null);
      expect(claims).toHaveLength(6); // three settings × two solvers
      for (const c of claims) {
        const row = rows.find((r) => r.startsWith(`| ${c.setting} (${c.experiment})`) && r.includes(`| ${at}`)) as string;
        const cells = row.split(' | ');
        const offset = c.solver === 'textbook' ? 4 : 7;
        expect(cells[offset], `${run} ${c.setting} ${c.solver}`).toBe(formatWithInterval(c.timeReductionPct!, 1, '%'));
        expect(cells[offset + 2]!.replace(/\*|\s*\|$/g, '')).toBe(c.verdict);
      }
    }
  });

  it('links only files that results/paper/ holds', () => {
    const section = reproductionSection(RESULTS, 'results/paper');
    const links = [...section.matchAll(/\]\((results\/paper\/[^)]+)\)/g)].map((m) => m[1] as string);
    expect(links.length).toBeGreaterThan(5);
    for (const link of links) expect(fs.existsSync(path.join(REPO, link)), link).toBe(true);
  });

  it('names the file that is missing when the reproduction is not finished', () => {
    const dir = tempDir('eofd-results-');
    try {
      fs.cpSync(RESULTS, dir, { recursive: true });
      fs.rmSync(path.join(dir, 'report-tuned', 'report.json'));
      expect(() => reproductionSection(dir, 'results/paper')).toThrow(/report-tuned\/report\.json: cannot be read/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
