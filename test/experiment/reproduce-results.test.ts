/**
 * The README's Results section is what `npm run docs` generates from the committed reproduction in
 * results/paper/: change either without the other and this fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceGeneratedSection, sectionMarkers } from '../../src/base/generated-section.js';
import { rejudgeReproduction, reproductionSection, RESULTS_SECTION, VERDICT_DEFINITIONS } from '../../src/experiment/reproduce-results.js';
import type { ReproduceRecord, StageRecord } from '../../src/experiment/reproduce.js';
import { controlWord, VERDICTS, type ClaimRow } from '../../src/report/claims.js';
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

  it("states every judged claim's halves, Random control and verdict as report.json has them, for both solvers and both runs", () => {
    const section = reproductionSection(RESULTS, 'results/paper');
    const rows = section.split('\n').filter((line) => line.startsWith('| ') && / \| (the paper's|the grid's)/.test(line));
    expect(rows).toHaveLength(6);
    for (const [run, at] of [['report-paper-choice', "the paper's"], ['report-tuned', "the grid's"]] as const) {
      const claims = (JSON.parse(fs.readFileSync(path.join(RESULTS, run, 'report.json'), 'utf8')) as { claims: ClaimRow[] }).claims.filter((c) => c.experiment !== null);
      expect(claims).toHaveLength(6); // three settings × two solvers
      for (const c of claims) {
        const row = rows.find((r) => r.startsWith(`| ${c.setting} (${c.experiment})`) && r.includes(`| ${at}`)) as string;
        const cells = row.split(' | ');
        const offset = c.solver === 'textbook' ? 6 : 8;
        const what = `${run} ${c.setting} ${c.solver}`;
        expect(cells[offset], what).toBe(`${formatWithInterval(c.timeReductionPct!, 1, '%')}: ${c.timeDirection}; paper's ${c.id === 'synthetic-multinomial' ? 35 : 80}% ${c.timePaperPosition}`);
        expect(cells[offset + 1]!.replace(/\*|\s*\|$/g, ''), what).toBe(c.verdict);
        // The regret half and the control: the same against both solvers (the same decisions).
        expect(cells[4], what).toBe(`${formatWithInterval(c.regretOverheadPct!, 1, '%')}: ${c.regretDirection}; paper's ${c.id === 'mnist' ? 10 : 0}% ${c.regretPaperPosition}`);
        expect(cells[5], what).toBe(`${controlWord(c.randomControl!.outcome)}: ${formatWithInterval(c.randomControl!.regretOverheadPct!, 1, '%')}`);
      }
    }
  });

  it('defines every verdict word and column right after the claims table', () => {
    const section = reproductionSection(RESULTS, 'results/paper');
    const table = section.indexOf('| claim | at |');
    const definitions = section.indexOf(VERDICT_DEFINITIONS[0]!);
    expect(table).toBeGreaterThan(0);
    expect(definitions).toBeGreaterThan(table);
    expect(section.indexOf('**Per policy at')).toBeGreaterThan(definitions);
    for (const verdict of VERDICTS) expect(section, verdict).toContain(`- **${verdict}**: `);
    for (const word of ['faster', 'slower', 'more', 'less', 'identical', 'inside', 'below', 'above', 'passes', 'fail']) expect(section).toContain(`**${word}**`);
  });

  it('reliability: a stage done by shards shows no time of its own, and the total is a lower bound (reproduce.json keeps the real wall times)', () => {
    const dir = tempDir('eofd-results-');
    try {
      fs.cpSync(RESULTS, dir, { recursive: true });
      const file = path.join(dir, 'reproduce.json');
      const record = JSON.parse(fs.readFileSync(file, 'utf8')) as ReproduceRecord;
      const tuned = record.stages.find((s) => s.name === 'tuned') as StageRecord;
      Object.assign(tuned, { seconds: null, attempts: [], started: null, ended: null, skipped: true, found_done: 'shards' });
      fs.writeFileSync(file, JSON.stringify(record));
      const rows = reproductionSection(dir, 'results/paper').split('\n');
      expect(rows.find((row) => row.startsWith('| tuned '))).toMatch(/\| – \(done by shards; their time not recorded\) \|$/);
      expect(rows.find((row) => row.startsWith('| total '))).toMatch(/\| at least [\d.]+ (s|min|h) \|$/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a report.json of an older format, and says what makes it again', () => {
    const dir = tempDir('eofd-results-');
    try {
      fs.cpSync(RESULTS, dir, { recursive: true });
      const file = path.join(dir, 'report-tuned', 'report.json');
      fs.writeFileSync(file, JSON.stringify({ ...JSON.parse(fs.readFileSync(file, 'utf8')), format: 'eofd-report/5' }));
      expect(() => reproductionSection(dir, 'results/paper')).toThrow(/report-tuned\/report\.json: format "eofd-report\/5", expected eofd-report\/6; make the reports again \(node scripts\/rejudge-reports\.mjs/);
      // ... which rejudgeReproduction does, from the committed files alone, giving the committed reports.
      rejudgeReproduction(dir);
      for (const run of ['report-tuned', 'report-paper-choice']) {
        for (const name of ['report.json', 'claims.csv', 'report.csv']) {
          expect(fs.readFileSync(path.join(dir, run, name), 'utf8'), `${run}/${name}`).toBe(fs.readFileSync(path.join(RESULTS, run, name), 'utf8'));
        }
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
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
