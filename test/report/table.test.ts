import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/index.js';
import { formatTable, renderTerminal, shouldColour } from '../../src/report/table.js';
import { formatBytes, formatMeanStd, formatPct, formatShort, formatSig } from '../../src/report/format.js';
import { writeFixtureResults } from './fixture.js';

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
  });

  it('plain text without colour, green/red verdicts with it', () => {
    const report = buildReport([writeFixtureResults()]);
    const plain = renderTerminal(report, { colour: false });
    expect(plain).not.toContain('\u001b[');
    expect(plain).toContain('EOFD-MLogB vs OFUL-MLogB: regret overhead +10.0%, per-round time reduction 66.7%');
    expect(plain).toMatch(/EOFD-MLogB\s+5\.500 ± 0\.500\s+0\.400 ± 0\.100\s+40\.0 kB/);
    expect(plain).toContain('λ = 12.5, η = 3.25, m = 40, δ = 0.02, β = order');
    const coloured = renderTerminal(report, { colour: true });
    expect(coloured).toContain('\u001b[32mholds');
    expect(coloured).toContain('\u001b[31mdoes not hold');
  });
});
