import { describe, expect, it } from 'vitest';
import { buildReport } from '../../src/report/index.js';
import { displayWidth, fitColumns, formatTable, renderTerminal, shouldColour, terminalWidth, wrapText, wrapWords } from '../../src/report/table.js';
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
    expect(plain).toMatch(
      /MNIST \(mnist\)\s+≈80% less time, ≈10% more regret\s+3\s+51\.9% \[−14\.2, 79\.8\]\s+inconclusive; paper's 80% above\s+10\.1% \[7\.6, 12\.6\]\s+more; paper's 10% inside\s+fails: 349\.6% \[\d+\.\d, \d+\.\d\]\s+does not hold\s+time: not shown faster or slower/,
    );
    const coloured = renderTerminal(report, { colour: true });
    expect(coloured).toContain('\u001b[32mholds');
    expect(coloured).toContain('\u001b[31mdoes not hold');
    expect(coloured).toMatch(/  not measured {2}/); // not judged / not measured stay plain
    // Random 15% above OFUL-MLogB in every trial, and still above both learners: it passes the regret rule too → yellow
    const [eofd, oful, random] = SYNTHETIC_K4.policies;
    const close = writeExperiment(path.join(tempDir(), 'close'), { ...SYNTHETIC_K4, policies: [eofd!, oful!, { ...random!, finals: [5.2, 5.75, 6.3] }] });
    const closeReport = buildReport([close]);
    expect(closeReport.claims.find((c) => c.experiment === 'synthetic-k4')?.verdict).toBe('cannot judge at this size');
    expect(renderTerminal(closeReport, { colour: true })).toContain('\u001b[33mcannot judge at this size');
  });
});

/** Lines of `text` as a terminal shows them: ANSI colour codes stripped. */
function shownLines(text: string): string[] {
  return text.replace(/\u001b\[[0-9;]*m/g, '').split('\n');
}

/** A deterministic stream of integers in [0, n). */
function integers(seed: number): (n: number) => number {
  let x = seed;
  return (n) => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return Math.floor((x / 2147483648) * n);
  };
}

/** A random table: words, intervals, mean ± std, wide and combining characters, an over-long word. */
function randomTable(next: (n: number) => number): { headers: string[]; rows: string[][] } {
  const pieces = ['EOFD-MLogB', '12.5 ± 0.3', '[−1.25, 3.50]', 'not judged', 'W̃ ~ N(W_t, β_t H_t⁻¹)', '漢字', '1.28 MB', 'x', '–', 'a-very-long-path/that/cannot/break/anywhere'];
  const columns = 1 + next(8);
  const cell = () => Array.from({ length: 1 + next(4) }, () => pieces[next(pieces.length)]).join(' ');
  return {
    headers: Array.from({ length: columns }, (_, c) => `column ${c} ${'h'.repeat(next(12))}`),
    rows: Array.from({ length: 1 + next(5) }, () => Array.from({ length: columns }, cell)),
  };
}

describe('terminal width: bad arguments', () => {
  it('wrapText refuses a width below 1; terminalWidth is undefined off a terminal or without a size', () => {
    expect(() => wrapText('a b', 0)).toThrow(RangeError);
    expect(() => wrapText('a b', 2.5)).toThrow(/integer ≥ 1, got 2.5/);
    expect(terminalWidth({ isTTY: false, columns: 80 })).toBeUndefined();
    expect(terminalWidth({ isTTY: true })).toBeUndefined();
    expect(terminalWidth({ isTTY: true, columns: 0 })).toBeUndefined();
    expect(terminalWidth({ isTTY: true, columns: 100 })).toBe(100);
  });
});

describe('terminal width', () => {
  it('counts the columns a terminal draws: combining marks 0, East Asian wide characters 2', () => {
    expect(displayWidth('abc')).toBe(3);
    expect(displayWidth('W̃')).toBe(1); // W + U+0303
    expect(displayWidth('漢字')).toBe(4);
    expect(displayWidth('‖W_T − W*‖_F')).toBe(12);
    expect(displayWidth('')).toBe(0);
  });

  it('wraps at spaces, keeps intervals, mean ± std and byte sizes whole, and cuts only a word wider than the line', () => {
    expect(wrapWords('2.7 [−68.7, 74.0] and 27.50 ± 2.12 of 1.28 MB')).toEqual(['2.7', '[−68.7, 74.0]', 'and', '27.50 ± 2.12', 'of', '1.28 MB']);
    expect(wrapText('regret difference [95% CI]', 10)).toEqual(['regret', 'difference', '[95% CI]']);
    expect(wrapText('abcdefghij k', 4)).toEqual(['abcd', 'efgh', 'ij k']);
    expect(wrapText('漢字漢字', 3)).toEqual(['漢', '字', '漢', '字']); // a wide character is never split
    expect(wrapText('one\ntwo three', 20)).toEqual(['one', 'two three']);
    expect(wrapText('short', 80)).toEqual(['short']);
  });

  it('fitColumns keeps natural widths that fit, wraps before dropping, drops in the order given', () => {
    expect(fitColumns([10, 10], [5, 5], 22)).toEqual({ kept: [0, 1], widths: [10, 10] });
    // 22 does not fit 10 + 2 + 12 → wrap the wider one; nothing dropped while the minima fit
    expect(fitColumns([10, 12], [5, 5], 22)).toEqual({ kept: [0, 1], widths: [10, 10] });
    // minima 8 + 8 + 8 + gaps 4 = 28 > 20: drop column 2 first, then 1 is not needed
    const fitted = fitColumns([8, 20, 30], [8, 8, 8], 20, [2, 1]);
    expect(fitted.kept).toEqual([0, 1]);
    expect(fitted.widths.reduce((a, b) => a + b, 0) + 2).toBeLessThanOrEqual(20);
    // without a drop list the minima shrink (words are cut) rather than lose a column
    expect(fitColumns([8, 20, 30], [8, 8, 8], 20).kept).toEqual([0, 1, 2]);
  });

  it('a fitted table has no line wider than the terminal; a table left complete keeps every cell whole on its row', () => {
    const next = integers(7);
    let dropsSeen = 0;
    let wrapsSeen = 0;
    for (let k = 0; k < 200; k++) {
      const { headers, rows } = randomTable(next);
      const width = 12 + next(110);
      const drop = headers.map((_, c) => c).filter((c) => c > 0 && next(2) === 0);
      const fitted = formatTable(headers, rows, { fit: { width, drop, seeAll: 'see them with --wide' }, paint: (t) => `\u001b[33m${t}\u001b[0m` });
      for (const line of shownLines(fitted)) expect(displayWidth(line), `width ${width}: ${line}`).toBeLessThanOrEqual(width);
      // nothing left out: every character of every cell is on the screen (wrapping moves, never loses)
      const letters = (text: string) => [...text.replace(/[\s-]/g, '')].sort().join('');
      if (fitted.replace(/\s+/g, ' ').includes('not shown, to fit')) dropsSeen++;
      else {
        expect(letters(shownLines(fitted).join(''))).toBe(letters([...headers, ...rows.flat()].join('')));
        if (shownLines(fitted).length > rows.length + 3) wrapsSeen++;
      }
      const complete = formatTable(headers, rows);
      const lines = complete.split('\n');
      expect(lines).toHaveLength(rows.length + 3); // header, rule, one line per row, final newline
      rows.forEach((r, i) => r.forEach((cell) => expect(lines[i + 2]).toContain(cell)));
    }
    expect(dropsSeen).toBeGreaterThan(10);
    expect(wrapsSeen).toBeGreaterThan(10);
  });

  it('names the columns it leaves out, and where to see them, in a note that fits too', () => {
    const headers = ['policy', 'final regret', 'projections', 'Δ_T'];
    const rows = [['EOFD-MLogB', '27.50 ± 2.12', '0', '1.000 ± 0.000']];
    const fitted = formatTable(headers, rows, { fit: { width: 30, drop: [2, 3], seeAll: 'see them with --wide or --json' } });
    expect(fitted).toBe(
      'policy      final regret\n' +
        '----------  ------------\n' +
        'EOFD-MLogB  27.50 ± 2.12\n' +
        'not shown, to fit 30 columns:\n' +
        'projections, Δ_T (see them\n' +
        'with --wide or --json)\n',
    );
    // wide enough: the complete table, no note
    expect(formatTable(headers, rows, { fit: { width: 200, drop: [2, 3], seeAll: 'x' } })).toBe(formatTable(headers, rows));
  });

  it('the report fits 80 columns when asked, says what it left out, and is complete otherwise', () => {
    const report = buildReport([writeFixtureResults()]);
    const complete = renderTerminal(report, { colour: false });
    expect(Math.max(...shownLines(complete).map(displayWidth))).toBeGreaterThan(80);
    for (const width of [80, 60]) {
      const fitted = renderTerminal(report, { colour: true, width });
      for (const line of shownLines(fitted)) expect(displayWidth(line), line).toBeLessThanOrEqual(width);
      expect(fitted).toMatch(/not shown, to fit \d+ columns: .*Holm-adjusted CI/);
      expect(fitted).toContain('see them with');
      expect(fitted).toContain('\u001b[32mholds');
    }
    expect(renderTerminal(report, { colour: false, width: undefined })).toBe(complete);
  });
});

describe('terminal report: identical policies', () => {
  it('says "identical", not "inconclusive", for a zero difference, and names the policies whose curves coincide', () => {
    const [eofd, oful, random] = SYNTHETIC_K4.policies;
    const dir = writeExperiment(path.join(tempDir(), 'same'), { ...SYNTHETIC_K4, policies: [{ ...eofd!, actionShift: 0 }, { ...oful!, finals: eofd!.finals, actionShift: 0 }, random!] });
    const text = renderTerminal(buildReport([dir]), { colour: false });
    expect(text).toMatch(/^OFUL-MLogB  EOFD-MLogB  3 +0\.00 \[0\.00, 0\.00\] +\[0\.00, 0\.00\] \(95%\) +1 \(1\) +identical /m);
    expect(text).toContain('EOFD-MLogB = OFUL-MLogB in every round: the same action in all 50 rounds of each of the 3 trials');
    expect(text).toContain('identical: the same final regret in every trial');
    // different regret: no such line, and the verdicts stay
    expect(renderTerminal(buildReport([writeFixtureResults()]), { colour: false })).not.toContain(' = OFUL-MLogB');
  });
});
