import fs from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerReport, runReport } from '../../src/cli/commands/report.js';
import type { CliIo } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import { editLine, tempDir, writeFixtureResults } from './fixture.js';

function io(options: { isTTY?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const captured = { stdout: '', stderr: '' };
  const streams: CliIo = {
    stdout: { write: (t: string) => (captured.stdout += t), isTTY: options.isTTY ?? false },
    stderr: { write: (t: string) => (captured.stderr += t) },
    env: options.env ?? {},
  };
  return { captured, streams };
}

describe('eofd report: errors', () => {
  it('--band takes std or ci95 only: --band nope is a usage error, exit 2, one line naming the choices', async () => {
    const root = writeFixtureResults();
    const { captured, streams } = io();
    expect(await main(['node', 'eofd', 'report', root, '--band', 'nope'], streams)).toBe(2);
    expect(captured.stdout).toBe('');
    expect(captured.stderr).toContain("argument 'nope' is invalid. Allowed choices are std, ci95.");
    expect(captured.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(fs.existsSync(path.join(root, 'report'))).toBe(false);
  });

  it('bad input: one line on stderr naming file and line, exit code 2, no stack trace', () => {
    const root = writeFixtureResults();
    const file = path.join(root, 'mnist', 'OFUL-MLogB', 'trial-1.csv');
    editLine(file, 7, '1,OFUL-MLogB,6,2,0,0');
    const { captured, streams } = io();
    expect(runReport([root], {}, streams)).toBe(2);
    expect(captured.stdout).toBe('');
    expect(captured.stderr).toBe(`eofd report: ${file}:7: expected 10 fields as in the header, got 6 (truncated file?)\n`);
  });

  it('a missing folder is exit code 2; an unwritable --out is exit code 1', () => {
    let { captured, streams } = io();
    expect(runReport([path.join(tempDir(), 'missing')], {}, streams)).toBe(2);
    expect(captured.stderr.split('\n')).toHaveLength(2);
    const blocker = path.join(tempDir(), 'file');
    fs.writeFileSync(blocker, '');
    ({ captured, streams } = io());
    expect(runReport([writeFixtureResults()], { out: path.join(blocker, 'r') }, streams)).toBe(1);
    expect(captured.stderr).toMatch(/^eofd report: cannot write the report to .* \(E[A-Z]+\)\n$/);
  });
});

describe('eofd report', () => {
  it('prints plain tables (not a TTY) and writes to <first dir>/report by default', () => {
    const root = writeFixtureResults();
    const { captured, streams } = io({ isTTY: false });
    expect(runReport([root], {}, streams)).toBe(0);
    expect(captured.stderr).toBe('');
    expect(captured.stdout).not.toContain('\u001b[');
    expect(captured.stdout).toContain("The paper's claims (Section 4)");
    expect(fs.existsSync(path.join(root, 'report', 'report.html'))).toBe(true);
  });

  it('colours verdicts on a TTY unless NO_COLOR is set', () => {
    const root = writeFixtureResults();
    let { captured, streams } = io({ isTTY: true });
    runReport([root], {}, streams);
    expect(captured.stdout).toContain('\u001b[32mholds');
    ({ captured, streams } = io({ isTTY: true, env: { NO_COLOR: '1' } }));
    runReport([root], {}, streams);
    expect(captured.stdout).not.toContain('\u001b[');
  });

  it('--json prints one JSON document and nothing else on stdout; --out is honoured', () => {
    const root = writeFixtureResults();
    const out = path.join(tempDir(), 'elsewhere');
    const { captured, streams } = io({ isTTY: true });
    expect(runReport([path.join(root, 'synthetic-k4'), path.join(root, 'mnist')], { json: true, out }, streams)).toBe(0);
    const report = JSON.parse(captured.stdout);
    expect(report.experiments.map((e: { name: string }) => e.name)).toEqual(['synthetic-k4', 'mnist']);
    expect(report.claims).toHaveLength(3);
    expect(fs.readdirSync(out)).toContain('fig1-regret.svg');
  });

  it('registers `report <results-dir...>` with --out and --json, and help shows an example', () => {
    const program = new Command('eofd');
    registerReport(program);
    const command = program.commands.find((c) => c.name() === 'report')!;
    expect(command.options.map((o) => o.long)).toEqual(['--out', '--json', '--band', '--check']);
    let help = '';
    command.configureOutput({ writeOut: (s) => (help += s) });
    command.outputHelp();
    expect(help).toContain('Usage: eofd report [options] <results-dir...>');
    expect(help).toContain('Example: eofd report results/mnist');
    expect(help).toContain('$ eofd report results/mnist results/synthetic-k4 results/synthetic-binary');
    const flat = help.replace(/\s+/g, ' '); // commander wraps long descriptions
    expect(flat).toContain("--band <band> Fig. 1's band: std = ±1 sample std");
    expect(flat).toContain('(choices: "std", "ci95", default: "std")');
    expect(help).toContain('$ eofd report results --band ci95');
  });

  it('--band ci95 draws the 95% interval band and records it; std is the default', async () => {
    const root = writeFixtureResults();
    let { captured, streams } = io();
    expect(await main(['node', 'eofd', 'report', root, '--band', 'ci95', '--json'], streams)).toBe(0);
    expect(captured.stderr).toBe('');
    expect(JSON.parse(captured.stdout).band).toBe('ci95');
    expect(fs.readFileSync(path.join(root, 'report', 'fig1-regret.svg'), 'utf8')).toContain('95% Student-t interval of the mean (band)');
    ({ captured, streams } = io());
    expect(await main(['node', 'eofd', 'report', root, '--json'], streams)).toBe(0);
    expect(JSON.parse(captured.stdout).band).toBe('std');
  });

  it('parses argv through commander and sets the exit code', async () => {
    const root = writeFixtureResults();
    const program = new Command('eofd').exitOverride();
    registerReport(program);
    const write = process.stdout.write;
    const previous = process.exitCode;
    let stdout = '';
    process.stdout.write = ((s: string) => ((stdout += s), true)) as typeof process.stdout.write;
    try {
      await program.parseAsync(['node', 'eofd', 'report', root, '--json']);
    } finally {
      process.stdout.write = write;
    }
    expect(process.exitCode).toBe(0);
    process.exitCode = previous;
    expect(JSON.parse(stdout).format).toBe('eofd-report/2');
  });
});
