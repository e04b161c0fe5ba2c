/**
 * The README's Results section is what `npm run docs` generates from the committed reproduction in
 * results/paper/: change either without the other and this fails.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { replaceGeneratedSection, sectionMarkers } from '../../src/base/generated-section.js';
import { reproductionSection, RESULTS_SECTION } from '../../src/experiment/reproduce-results.js';
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
