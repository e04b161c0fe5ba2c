import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { identicalText } from '../../src/report/identical.js';
import { zeroDifference } from '../../src/report/summarize.js';
import { buildReport } from '../../src/report/index.js';
import { SYNTHETIC_K4, tempDir, writeExperiment } from './fixture.js';

/** SYNTHETIC_K4 with OFUL-MLogB's final regret per trial replaced, playing EOFD-MLogB's actions or not. */
function withOful(finals: number[], options: { allPairs?: boolean; sameActions?: boolean; edit?: (dir: string) => void } = {}) {
  const [eofd, oful, random] = SYNTHETIC_K4.policies;
  const dir = writeExperiment(path.join(tempDir(), 'k4'), {
    ...SYNTHETIC_K4,
    policies: [{ ...eofd!, actionShift: 0 }, { ...oful!, finals, actionShift: options.sameActions === false ? 3 : 0 }, { ...random!, actionShift: 5 }],
  });
  options.edit?.(dir);
  return buildReport([dir], options).experiments[0]!;
}

describe('identical curves: bad arguments', () => {
  it('zeroDifference needs a pair and an exact 0 mean and spread', () => {
    const interval = { n: 3, mean: 0, std: 0, low: 0, high: 0, level: 0.95 };
    expect(zeroDifference(interval)).toBe(true);
    expect(zeroDifference({ ...interval, n: 0 })).toBe(false);
    expect(zeroDifference({ ...interval, std: 1e-300 })).toBe(false);
    expect(zeroDifference({ ...interval, mean: -1e-300 })).toBe(false);
  });
});

describe('identical curves', () => {
  it('groups the policies that played the same action in every round of every trial, in policy order', () => {
    const e = withOful(SYNTHETIC_K4.policies[0]!.finals);
    expect(e.identical).toEqual([['EOFD-MLogB', 'OFUL-MLogB']]);
    expect(identicalText(e, ['EOFD-MLogB', 'OFUL-MLogB'])).toBe('EOFD-MLogB = OFUL-MLogB in every round');
    expect(identicalText(e, ['EOFD-MLogB', 'OFUL-MLogB'], true)).toBe(
      'EOFD-MLogB = OFUL-MLogB in every round: the same action in all 50 rounds of each of the 3 trials (one curve of Fig. 1 hides the other)',
    );
    expect(withOful(SYNTHETIC_K4.policies[0]!.finals, { allPairs: true }).identical).toEqual([['EOFD-MLogB', 'OFUL-MLogB']]);
    // The comparison's verdict (report.json, the run summary, the table): identical, not inconclusive.
    const versus = e.comparisons.find((c) => c.policy === 'OFUL-MLogB' && c.reference === 'EOFD-MLogB')!;
    expect(versus.regretTest.verdict).toBe('identical');
    const other = withOful([5, 5.5, 6.000001], { sameActions: false }).comparisons.find((c) => c.policy === 'OFUL-MLogB')!;
    expect(other.regretTest.verdict).toBe('inconclusive');
  });

  it('the same regret with other actions is not identical, nor is one action changed in one round of one trial', () => {
    const e = withOful(SYNTHETIC_K4.policies[0]!.finals, { sameActions: false });
    const [a, b] = e.curves;
    expect(a!.mean).toEqual(b!.mean);
    expect(a!.std).toEqual(b!.std);
    expect(e.identical).toEqual([]);
    const oneRound = (dir: string): void => {
      const file = path.join(dir, 'OFUL-MLogB', 'trial-2.csv');
      const lines = fs.readFileSync(file, 'utf8').split('\n');
      const cells = lines[37]!.split(',');
      cells[3] = String((Number(cells[3]) + 1) % 7);
      lines[37] = cells.join(',');
      fs.writeFileSync(file, lines.join('\n'));
    };
    expect(withOful(SYNTHETIC_K4.policies[0]!.finals, { edit: oneRound }).identical).toEqual([]);
  });

  it('needs every trial finished: a run in progress marks nothing', () => {
    const missing = (dir: string): void => {
      fs.rmSync(path.join(dir, 'OFUL-MLogB', 'trial-1.csv'));
      fs.rmSync(path.join(dir, 'summary.csv'));
    };
    const e = withOful(SYNTHETIC_K4.policies[0]!.finals, { edit: missing });
    expect(e.identical).toEqual([]);
  });
});
