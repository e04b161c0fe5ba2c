import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/index.js';
import { formatTable, renderTerminal, shouldColour } from '../../src/report/table.js';
import { decimalsFor, formatBytes, formatInterval, formatMeanStd, formatPct, formatShort, formatSig, formatWithInterval } from '../../src/report/format.js';
import path from 'node:path';
import { SYNTHETIC_K4, tempDir, writeExperiment, writeFixtureResults } from './fixture.js';

describe('terminal tables: colour only on a TTY without NO_COLOR', () => {
  it('decides colour from the stream and NO_COLOR', () => {
    expect(shouldColour({ isTTY: true }, {})).toBe(true);
    expect(shouldColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(shouldColour({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(shouldColour({ isTTY: false }, {})).toBe(false);
    expect(shouldColour({}, {})).toBe(false);
  });
});

describe('terminal tables', () => {
  it('aligns columns, numbers to the right', () => {
    expect(formatTable(['name', 'value'], [['a', '1'], ['longer', '123']], { align: ['left', 'right'] })).toBe(
      'name    value\n------  -----\na           1\nlonger    123\n',
    );
  });

  it('formats numbers with fixed rules', () => {
    expect(formatSig(123.456)).toBe('123.5');
    expect(formatSig(0.012345)).toBe('0.01235');
    expect(formatSig(-0.00001)).toBe('-1.000e-5');
    expect(formatMeanStd({ mean: 5.5, std: 0.5 })).toBe('5.500 ± 0.500');
    expect(formatMeanStd({ mean: 5.5, std: 0, n: 1 })).toBe('5.500 (n = 1)');
    expect(formatPct(10)).toBe('+10.0%');
    expect(formatPct(-4)).toBe('−4.0%');
    expect(formatBytes(1_280_000)).toBe('1.28 MB');
    expect(formatBytes(512)).toBe('512 B');
    expect(formatShort(78)).toBe('78');
    expect(formatShort(0)).toBe('0');
    expect(formatSig(0)).toBe('0');
    expect(formatSig(78)).toBe('78.00');
    expect(formatShort(12.5)).toBe('12.5');
    expect(formatShort(0.02)).toBe('0.02');
    expect(formatInterval(-32.484, 7.5)).toBe('[−32.5, 7.5]');
    expect(formatInterval(NaN, 1)).toBe('[–, 1.0]');
    expect(formatWithInterval({ mean: 66.6667, low: 45.9655, high: 87.3678 }, 1, '%')).toBe('66.7% [46.0, 87.4]');
    expect(formatWithInterval({ mean: NaN, low: 1, high: 2 }, 1)).toBe('–');
    expect([decimalsFor(0.5, 3), decimalsFor(-16.5, 3), decimalsFor(264.5, 3), decimalsFor(12345, 3), decimalsFor(0, 3)]).toEqual([3, 1, 0, 0, 2]);
  });

  it('the policy table has Δ_T and β_T; the paired table each policy against the reference, Holm beside', () => {
    const plain = renderTerminal(buildReport([writeFixtureResults()]), { colour: false });
    // synthetic-k4: Δ_T 1.2 ± 0.1, β_T 5 ± 1 (EOFD-MLogB); Random has neither
    expect(plain).toMatch(/EOFD-MLogB\s+5\.500 ± 0\.500\s+0\.400 ± 0\.100\s+40\.0 kB\s+2\s+1\s+0\.700 ± 0\.200\s+1\.200 ± 0\.100\s+5\.00 ± 1\.00\n/);
    expect(plain).toMatch(/Random\s+22\.00 ± 2\.00\s+0\.00100 ± 0\.00000\s+0 B\s+0\s+0\s+–\s+–\s+–\n/);
    expect(plain).toContain('policy      vs          n  regret difference [95% CI]');
    expect(plain).toContain('Paired by trial, each policy against EOFD-MLogB (the reference). Families for Holm: the 2 comparisons of final regret');
    // synthetic-k4 (summarize.test.ts): OFUL − EOFD = −0.5 each trial (p = 0, first of 2: level 97.5%), regret
    // ratio 9/10, 10/11, 11/12 → −9.1% [−11.2, −7.0]; time ratio 28^(1/3) = 3.04× [2.44, 3.78], the only
    // time comparison (95%): higher.
    expect(plain).toMatch(
      /OFUL-MLogB  EOFD-MLogB  3 +−0\.500 \[−0\.500, −0\.500\] +\[−0\.500, −0\.500\] \(97\.5%\) +<0\.0001 \(<0\.0001\) +lower +−9\.1% \[−11\.2, −7\.0\] +3\.04× \[2\.44, 3\.78\] +\[2\.44, 3\.78\] \(95%\) +0\.0021 \(0\.0021\) +higher\n/,
    );
    // Random − EOFD: 16.5 [12.8, 20.2], second of 2 (95%), p = 1 − √(363/365) = 0.0027; 22/5.5 = 4: +300%; no time.
    expect(plain).toMatch(/Random      EOFD-MLogB  3 +16\.5 \[12\.8, 20\.2\] +\[12\.8, 20\.2\] \(95%\) +0\.0027 \(0\.0027\) +higher +300\.0% \[300\.0, 300\.0\] +– +– +– +–\n/);
    expect(plain).not.toMatch(/^EOFD-MLogB\s+OFUL-MLogB/m);
    expect(plain).toContain('Multiplicity: within one experiment, the comparisons of one quantity');
  });

  it('plain text without colour, green/red verdicts with it', () => {
    const report = buildReport([writeFixtureResults()]);
    const plain = renderTerminal(report, { colour: false });
    expect(plain).not.toContain('\u001b[');
    expect(plain.startsWith('EOFD-MLogB vs OFUL-MLogB: reproduction report\n')).toBe(true);
    expect(plain).toContain(
      'EOFD-MLogB vs OFUL-MLogB (paired, n = 3, 95% CIs from per-trial log ratios): per-round time reduction 67.1% [59.0, 73.5], ' +
        'regret overhead 10.1% [7.6, 12.6]',
    );
    expect(plain).toMatch(/EOFD-MLogB\s+5\.500 ± 0\.500\s+0\.400 ± 0\.100\s+40\.0 kB/);
    expect(plain).toContain('λ = 12.5, η = 3.25, m = 40, δ = 0.02, β = order');
    expect(plain).toMatch(/MNIST \(mnist\)\s+≈80% less time, ≈10% more regret\s+3\s+10\.1% \[7\.6, 12\.6\]\s+51\.9% \[−14\.2, 79\.8\]\s+inconclusive\s+time reduction 95% CI \[−14\.2, 79\.8\] straddles the 70% threshold/);
    const coloured = renderTerminal(report, { colour: true });
    expect(coloured).toContain('\u001b[32mholds');
    expect(coloured).toContain('\u001b[33minconclusive');
    expect(coloured).not.toContain('\u001b[31m'); // nothing "does not hold" in the fixture
    expect(coloured).toMatch(/  not measured {2}/); // not judged / not measured stay plain
    // EOFD-MLogB 1.5 below OFUL-MLogB in every trial: about −30%, outside ±20% → red
    const [eofd, ...others] = SYNTHETIC_K4.policies;
    const lower = writeExperiment(path.join(tempDir(), 'lower'), { ...SYNTHETIC_K4, policies: [{ ...eofd!, finals: [3, 3.5, 4] }, ...others] });
    expect(renderTerminal(buildReport([lower]), { colour: true })).toContain('\u001b[31mdoes not hold');
  });
});
