/**
 * `eofd report` and `eofd list` in a real pseudo-terminal of 80 columns (util-linux `script`): no line
 * is wider than the terminal. Lines are measured as the terminal draws them: colour codes stripped,
 * a combining mark takes no column, an East Asian wide character two.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/report/table.js';
import { BIN, REPO } from '../experiment/fixtures.js';
import { SYNTHETIC_K4, makeInProgress, tempDir, writeExperiment, writeFixtureResults } from '../report/fixture.js';

/** util-linux `script`, which runs a command in a pseudo-terminal, or null. */
function scriptTool(): string | null {
  const found = spawnSync('script', ['--version'], { encoding: 'utf8' });
  return found.status === 0 && /util-linux/.test(found.stdout + found.stderr) ? 'script' : null;
}

/** What `eofd <args>` prints on a terminal `columns` wide, as lines (colour codes and carriage returns removed). */
function onTerminal(args: string[], columns: number): string[] {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const command = `stty cols ${columns} rows 50; ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} ${quoted}`;
  const run = spawnSync('script', ['-qec', command, '/dev/null'], { cwd: REPO, encoding: 'utf8', env: { ...process.env, TERM: 'xterm' } });
  expect(run.status, run.stdout + run.stderr).toBe(0);
  return run.stdout.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '').split('\n');
}

describe.skipIf(scriptTool() === null)('report and list in an 80-column pseudo-terminal (util-linux script; skipped without it)', () => {
  it('eofd report: no line exceeds 80 columns, and the columns left out are named', () => {
    const root = writeFixtureResults();
    const [eofd, oful, random] = SYNTHETIC_K4.policies;
    writeExperiment(path.join(root, 'same'), { ...SYNTHETIC_K4, name: 'same', policies: [{ ...eofd!, actionShift: 0 }, { ...oful!, finals: eofd!.finals, actionShift: 0 }, random!] });
    const out = path.join(tempDir(), 'report');
    for (const extra of [[], ['--all-pairs']]) {
      const lines = onTerminal(['report', root, '--out', out, ...extra], 80);
      expect(lines.length).toBeGreaterThan(40);
      for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
      const text = lines.join('\n');
      expect(text).toContain('EOFD-MLogB = OFUL-MLogB in every round');
      expect(text.replace(/\s+/g, ' ')).toMatch(/not shown, to fit 80 columns: .*\(see them with --wide or --json\)/);
    }
    // --wide: the complete tables, as in a pipe
    const wide = onTerminal(['report', root, '--out', out, '--wide'], 80);
    expect(Math.max(...wide.map(displayWidth))).toBeGreaterThan(80);
  });

  it('eofd report on a run in progress fits too', () => {
    const root = writeFixtureResults();
    makeInProgress(path.join(root, 'synthetic-k4'), ['EOFD-MLogB/0', 'OFUL-MLogB/0']);
    const lines = onTerminal(['report', root, '--out', path.join(tempDir(), 'report')], 80);
    expect(lines.join('\n')).toContain('IN PROGRESS');
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
  });

  it('eofd list: no line exceeds 80 columns; --wide prints whole rows', () => {
    const lines = onTerminal(['list'], 80);
    expect(lines.join('\n')).toContain('EOFD-MLogB');
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(80);
    expect(Math.max(...onTerminal(['list', '--wide'], 80).map(displayWidth))).toBeGreaterThan(80);
  });
});
