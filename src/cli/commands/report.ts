/**
 * `eofd report <results-dir...> [--out dir] [--json] [--wide] [--band std|ci95] [--time-axis auto|linear|log] [--log-y]
 * [--png] [--reference label | --all-pairs] [--check baseline-dir]`: argv
 * and exit codes only; the work is in src/report/. Exit codes: 0 done; 2 bad usage (an unknown
 * `--band` included) or bad input data; 1 anything else; 3 `--check` found a regression against the
 * baseline.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import { checkAgainstBaseline, formatRegressions } from '../../report/check.js';
import { BANDS, TIME_AXES, WIDE_TIMES, buildReport, fitText, renderTerminal, shouldColour, terminalWidth, writeReport, type Band, type TimeAxis } from '../../report/index.js';
import { checkPngPanels, PNG_MAX_PANELS } from '../../report/png.js';
import { ResultsError } from '../../results/read.js';
import { failureExitCode, processIo, type CliIo } from '../io.js';

/** The folders `npm start` (`eofd run configs/quick.yaml`, default --out results) writes. */
const EXAMPLE = 'eofd report results/quick-mnist results/quick-synthetic-k4 results/quick-synthetic-binary';

/** Where the report goes without --out: `<first results dir>/report`. */
export function defaultReportFolder(first: string): string {
  return path.join(first, 'report');
}

export interface ReportCommandOptions {
  /** Where the report files go (default: `<first results dir>/report`). */
  out?: string;
  /** Print the report as one JSON document on stdout instead of the tables. */
  json?: boolean;
  /** Print complete tables and lines on a terminal too (default: a terminal's output fits its width). */
  wide?: boolean;
  /** Fig. 1's regret axis on a log scale. */
  logY?: boolean;
  /** Fig. 1's band: ±1 sample std (default, as in the paper) or the 95% interval of the mean. */
  band?: Band;
  /** Fig. 2's time axis: auto (default: log in a panel whose learners' times span more than 30×, else linear), linear or log. */
  timeAxis?: TimeAxis;
  /** Also write fig1-regret.png and fig2-time.png. */
  png?: boolean;
  /** Compare each policy with this label (default: each experiment's first learner, the first policy that is not Random). */
  reference?: string;
  /** Compare every pair of policies instead of each with the reference. */
  allPairs?: boolean;
  /**
   * `--check <baseline-dir>`: compare the results with `<baseline-dir>/baseline.json` (mean regret
   * curves at 20 checkpoints, trace decisions exactly; src/report/check.ts) instead of writing a report.
   * Exit 0 when nothing regressed, 3 with a diff table on stdout when something did.
   */
  check?: string;
}

/** Runs the command; returns the exit code. Errors are one line on stderr, never a stack trace. */
export function runReport(dirs: string[], options: ReportCommandOptions, io: CliIo): number {
  try {
    const first = dirs[0];
    if (first === undefined) throw new ResultsError('give at least one results folder');
    if (options.check !== undefined) {
      const result = checkAgainstBaseline(options.check, dirs);
      if (result.exitCode === 0) {
        io.stdout.write(
          `check passed: ${result.settings} settings, ${result.policies} policy curves match ${options.check}\n`,
        );
      } else {
        io.stdout.write(formatRegressions(result.regressions));
        io.stderr.write(
          `eofd report: ${result.regressions.length} regression${result.regressions.length === 1 ? '' : 's'} against ` +
            `${options.check} (if the change is intended, run scripts/update-baselines and say why in the commit)\n`,
        );
      }
      return result.exitCode;
    }
    const out = options.out ?? defaultReportFolder(first);
    const report = buildReport(dirs, {
      out,
      band: options.band,
      timeAxis: options.timeAxis,
      reference: options.reference,
      allPairs: options.allPairs,
    });
    if (options.png === true) checkPngPanels(report.experiments.length);
    const files = writeReport(report, out, { png: options.png, logY: options.logY });
    if (options.json === true) {
      io.stdout.write(JSON.stringify(report, null, 2) + '\n');
    } else {
      const width = options.wide === true ? undefined : terminalWidth(io.stdout);
      io.stdout.write(renderTerminal(report, { colour: shouldColour(io.stdout, io.env), width }));
    }
    // Where the files went, on stderr as the other commands say it (stdout holds the report or its JSON):
    // one line, wrapped only on a terminal narrower than it.
    const wrote = `eofd report: wrote ${files.length} files to ${out} (open ${path.join(out, 'report.html')})`;
    io.stderr.write(`${fitText(wrote, options.wide === true ? undefined : terminalWidth(io.stderr))}\n`);
    return 0;
  } catch (err) {
    return failureExitCode(err, io, 'report');
  }
}

export function registerReport(program: Command, io: CliIo = processIo()): void {
  program
    .command('report')
    .summary("summarise results: tables, the paper's claims, Fig. 1 and Fig. 2, report.html")
    .description(
      'Read and validate what `eofd run` wrote, print per-policy tables, paired comparisons of each policy with ' +
        'one reference (95% intervals of the per-trial differences, log ratios for ratios, Holm-adjusted intervals ' +
        'beside them), flag learners not shown below Random, and, for the paper\'s settings, its three claims judged ' +
        'on those intervals, direction and the paper\'s number apart, with Random in EOFD-MLogB\'s place as the regret rule\'s ' +
        'control (holds, does not hold, cannot judge at this size, inconclusive, not judged, not measured), and write report.csv, claims.csv, fig1-regret.svg, ' +
        'fig2-time.svg, report.html and report.json (with --png also fig1-regret.png and fig2-time.png) into --out, ' +
        'default <first results dir>/report (one line on stderr says where). A run ' +
        'still in progress is reported on its finished trials, marked "in progress", and its claims are not judged. ' +
        'On a terminal the text fits its width (cells wrap; columns left out are named; --wide prints them all).' +
        `\nExample: ${EXAMPLE}`,
    )
    .argument('<results-dir...>', 'experiment folders written by `eofd run`, or folders holding several')
    .option('--out <dir>', 'folder for the report files (default: <first results dir>/report)')
    .option('--json', 'print the numbers as one JSON document on stdout instead of the tables')
    .option('--wide', 'on a terminal too, print complete tables and lines (by default they fit its width; piped output is always complete)')
    .addOption(
      new Option('--band <band>', "Fig. 1's band: std = ±1 sample std (the paper's), ci95 = 95% Student-t interval of the mean")
        .choices(BANDS)
        .default('std'),
    )
    .addOption(
      new Option(
        '--time-axis <axis>',
        `Fig. 2's time axis: auto = log in a panel whose learners' mean times span more than ${WIDE_TIMES}× (else the fast one's bar is a sliver), linear in the others; ` +
          'linear (bar lengths compare as the times do) or log (small times stay visible) for every panel',
      )
        .choices(TIME_AXES)
        .default('auto'),
    )
    .option('--log-y', "Fig. 1's regret axis on a log scale (values below its lowest decade are drawn on it, labelled ≤)")
    .option('--png', `also write the figures as PNG (fig1-regret.png, fig2-time.png; rendered with resvg, no browser; at most ${PNG_MAX_PANELS} experiments)`)
    .option(
      '--reference <label>',
      'compare each policy with this one (a policy label; default: each experiment\'s first learner, i.e. the first ' +
        'policy in its list that is not Random); Holm-adjusted over the comparisons of each quantity',
    )
    .addOption(new Option('--all-pairs', 'compare every pair of policies instead of each with the reference (Holm over all pairs)').conflicts('reference'))
    .option(
      '--check <baseline-dir>',
      'compare with <baseline-dir>/baseline.json (regret curves, trace decisions) instead of writing a report; exit 3 on a ' +
        'regression; every results folder must be complete',
    )
    .addHelpText(
      'after',
      `\nExamples:\n  $ ${EXAMPLE}\n` +
        '  $ eofd report results/mnist results/synthetic-k4 results/synthetic-binary   # the paper\'s runs: eofd run configs/<name>.yaml\n' +
        '  $ eofd report results --out results/report --json > report.json          # every experiment folder in results/\n' +
        '  $ eofd report results --band ci95 --time-axis log --log-y --png\n' +
        '  $ eofd report results/synthetic-k4 --reference OFUL-MLogB              # each policy against OFUL-MLogB\n' +
        '  $ eofd run test/baselines/configs.yaml --out /tmp/b && eofd report --check test/baselines /tmp/b\n\n' +
        'Exit codes: 0 done, 2 bad usage or bad input data (the message names file and line), 1 other errors,\n' +
        '3 --check found a regression (the diff table is on stdout).',
    )
    .action((dirs: string[], options: ReportCommandOptions) => {
      process.exitCode = runReport(dirs, options, io);
    });
}
