/**
 * `eofd report <results-dir...> [--out dir] [--json]`: argv and exit codes only; the work is in
 * src/report/. Exit codes: 0 done; 2 bad usage or bad input data; 1 anything else.
 */
import path from 'node:path';
import type { Command } from 'commander';
import { ReportError, buildReport, renderTerminal, shouldColour, writeReport } from '../../report/index.js';

const EXAMPLE = 'eofd report results/mnist results/synthetic-multinomial results/synthetic-binary';

export interface ReportCommandOptions {
  /** Where the report files go (default: `<first results dir>/report`). */
  out?: string;
  /** Print the report as one JSON document on stdout instead of the tables. */
  json?: boolean;
  // Extension point: `--check <baseline-dir>` (compare with a baseline report, fail on regressions)
  // belongs to the CI-regression issue. Add the option in registerReport and a `check?: string` here,
  // and run the comparison in runReport after buildReport; it is deliberately absent until then.
}

export interface ReportCommandIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
}

/** Runs the command; returns the exit code. Errors are one line on stderr, never a stack trace. */
export function runReport(dirs: string[], options: ReportCommandOptions, io: ReportCommandIo): number {
  try {
    const first = dirs[0];
    if (first === undefined) throw new ReportError('give at least one results folder');
    const out = options.out ?? path.join(first, 'report');
    const report = buildReport(dirs, { out });
    const files = writeReport(report, out);
    if (options.json === true) {
      io.stdout.write(JSON.stringify(report, null, 2) + '\n');
    } else {
      io.stdout.write(renderTerminal(report, { colour: shouldColour(io.stdout, io.env) }));
      io.stdout.write(`\nwrote ${files.length} files to ${out} (open ${path.join(out, 'report.html')})\n`);
    }
    return 0;
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    io.stderr.write(`eofd report: ${message.split('\n')[0]}\n`);
    return err instanceof ReportError ? err.exitCode : 1;
  }
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .summary("summarise results: tables, the paper's claims, Fig. 1 and Fig. 2, report.html")
    .description(
      'Read and validate what `eofd run` wrote, print per-policy tables and the paper\'s three claims ' +
        'beside what was measured, and write report.csv, claims.csv, fig1-regret.svg, fig2-time.svg, ' +
        `report.html and report.json.\nExample: ${EXAMPLE}`,
    )
    .argument('<results-dir...>', 'experiment folders written by `eofd run`, or folders holding several')
    .option('--out <dir>', 'folder for the report files (default: <first results dir>/report)')
    .option('--json', 'print the numbers as one JSON document on stdout instead of the tables')
    .addHelpText(
      'after',
      `\nExamples:\n  $ ${EXAMPLE}\n  $ eofd report results --out results/report --json > report.json\n\n` +
        'Exit codes: 0 done, 2 bad usage or bad input data (the message names file and line), 1 other errors.',
    )
    .action((dirs: string[], options: ReportCommandOptions) => {
      process.exitCode = runReport(dirs, options, { stdout: process.stdout, stderr: process.stderr, env: process.env });
    });
}
