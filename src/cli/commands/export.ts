/**
 * `eofd export <folders...> --out FILE [--format csv|parquet|arrow] [--force] [--quiet]`: every round of
 * every finished unit as one long table (src/results/export.ts). Exit codes: 0 written; 1 the file
 * cannot be written; 2 bad usage or bad input data, or --out exists (without --force).
 */
import { Option, type Command } from 'commander';
import { EXPORT_FORMATS, exportResults, formatOfFile, type ExportFormat } from '../../results/export.js';
import { ResultsError } from '../../results/read.js';
import { EXIT, failureExitCode, processIo, type CliIo } from '../io.js';

export interface ExportCommandOptions {
  out: string;
  format?: ExportFormat;
  force?: boolean;
  quiet?: boolean;
}

export async function exportCommand(dirs: string[], options: ExportCommandOptions, io: CliIo): Promise<number> {
  try {
    const format = options.format ?? formatOfFile(options.out);
    if (format === null) throw new ResultsError(`--out ${options.out}: give --format ${EXPORT_FORMATS.join('|')} (or end the file name in .csv, .parquet or .arrow)`);
    const result = await exportResults(dirs, { out: options.out, format, force: options.force });
    if (options.quiet !== true) {
      const skipped = result.unfinished === 0 ? '' : `; ${result.unfinished} unfinished units left out`;
      io.stderr.write(
        `eofd export: ${result.rows} rounds of ${result.units} units from ${result.experiments} experiment folders → ${result.out} ` +
          `(${format}, ${result.columns.length} columns${skipped})\n`,
      );
    }
    return EXIT.ok;
  } catch (caught) {
    return failureExitCode(caught, io, 'export');
  }
}

export function registerExport(program: Command, io: CliIo = processIo()): void {
  program
    .command('export')
    .summary('every round of every finished unit as one long table (CSV, Parquet, Arrow) for notebooks')
    .description(
      'Write one tidy table with a row per experiment, policy label, trial and round: experiment, [point], label, ' +
        'policy (the algorithm), trial, t, action, outcome, reward, regret, cum_regret, select_ms, update_ms, m, the ' +
        'setting (environment, K, d, horizon), a sweep or grid point\'s swept values (point_<key>) and the label\'s ' +
        'resolved hyperparameters from the manifest (param_<key>). Each folder is an experiment folder, a folder holding ' +
        'several (a run\'s --out), or a sweep or grid folder (its points). Only finished units are exported; each is ' +
        'validated as `eofd report` validates it. The file is written under a temporary name and renamed when complete.',
    )
    .argument('<folders...>', 'experiment, --out, sweep or grid folders')
    .requiredOption('--out <file>', 'the file to write (refused if it exists, unless --force)')
    .addOption(new Option('--format <format>', 'csv, parquet or arrow (Arrow IPC file, i.e. Feather v2); default: from --out\'s extension').choices(EXPORT_FORMATS))
    .option('--force', 'replace an existing --out file')
    .option('--quiet', 'print nothing on success')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ eofd export results --out rounds.parquet\n' +
        '  $ eofd export results/quick-mnist results/tiny-sweep --format csv --out rounds.csv\n\n' +
        'Then, in Python: pd.read_parquet("rounds.parquet") or pl.read_parquet("rounds.parquet");\n' +
        'in DuckDB: SELECT * FROM \'rounds.parquet\'.\n\n' +
        'Exit codes: 0 written; 1 the file cannot be written; 2 bad usage or bad input data, or --out exists.',
    )
    .action(async (dirs: string[], options: ExportCommandOptions) => {
      process.exitCode = await exportCommand(dirs, options, io);
    });
}
