/**
 * `eofd export <folders...> --out FILE [--units] [--format csv|parquet|arrow] [--force] [--quiet]`: every
 * round (with --units, every unit) of every finished unit as one long table (src/results/export.ts).
 * Exit codes: 0 written; 1 the file cannot be written; 2 bad usage or bad input data, or --out exists
 * (without --force).
 */
import { Option, type Command } from 'commander';
import { EXPORT_FORMATS, exportResults, formatOfFile, type ExportFormat } from '../../results/export.js';
import { ResultsError } from '../../results/read.js';
import { EXIT, failureExitCode, processIo, type CliIo } from '../io.js';

export interface ExportCommandOptions {
  out: string;
  format?: ExportFormat;
  units?: boolean;
  force?: boolean;
  quiet?: boolean;
}

export async function exportCommand(dirs: string[], options: ExportCommandOptions, io: CliIo): Promise<number> {
  try {
    const format = options.format ?? formatOfFile(options.out);
    if (format === null) throw new ResultsError(`--out ${options.out}: give --format ${EXPORT_FORMATS.join('|')} (or end the file name in .csv, .parquet or .arrow)`);
    const units = options.units === true;
    const result = await exportResults(dirs, { out: options.out, format, units, force: options.force });
    if (options.quiet !== true) {
      const repeated = result.repeated === 0 ? '' : `; ${result.repeated} units repeated at the sweep or grid points they stand for`;
      const skipped = result.unfinished === 0 ? '' : `; ${result.unfinished} unfinished units left out`;
      const what = units ? `${result.units} units` : `${result.rows} rounds of ${result.units} units`;
      io.stderr.write(
        `eofd export: ${what} from ${result.experiments} experiment folders → ${result.out} ` + `(${format}, ${result.columns.length} columns${repeated}${skipped})\n`,
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
    .summary('every round (or unit) of every finished unit as one long table (CSV, Parquet, Arrow) for notebooks')
    .description(
      'Write one tidy table with a row per run, stage, experiment, point, policy label, trial and round: run (the ' +
        'folder a command wrote into, a reproduction\'s own), stage (a reproduction\'s: tune, tuned, paper-choice; else ' +
        'empty), experiment, point and shared (a sweep or grid point\'s), split (validation: a grid\'s trials; report: a run\'s), label, policy (the ' +
        'algorithm), trial, seed, env_seed, policy_seed, t, action, actions (|A_t|, the number of actions offered), ' +
        'outcome, reward, regret, best_reward (the largest expected reward among the actions offered, which regret is ' +
        'measured against), cum_regret, select_ms, update_ms, m (actions and best_reward empty for runs made before ' +
        'they were recorded), the setting (environment, K, d, horizon), a sweep or grid point\'s swept values (point_<key>) and ' +
        'the label\'s resolved hyperparameters from the manifest (param_<key>). A label that does not read every swept ' +
        'key (a grid\'s reference, e.g. Random) runs at one point and stands for itself at the others: its rows appear ' +
        'at every point, with shared = true where it did not run. With --units, a row per unit instead of per round, ' +
        'with its summary (final_regret, mean_round_ms, …, as in summary.csv). Each folder is an experiment folder, a ' +
        'folder holding several (a run\'s --out), a sweep or grid folder (its points), or a reproduction\'s folder (its ' +
        'tune, tuned and paper-choice stages). Only finished units are exported; each is validated as `eofd report` ' +
        'validates it. The file is written under a temporary name and renamed when complete; its folder is made.',
    )
    .argument('<folders...>', 'experiment, --out, sweep, grid or reproduction folders')
    .requiredOption('--out <file>', 'the file to write (refused if it exists, unless --force)')
    .addOption(new Option('--format <format>', 'csv, parquet or arrow (Arrow IPC file, i.e. Feather v2); default: from --out\'s extension').choices(EXPORT_FORMATS))
    .option('--units', 'one row per unit (its end statistics) instead of one per round')
    .option('--force', 'replace an existing --out file')
    .option('--quiet', 'print nothing on success')
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  $ eofd export results --out rounds.parquet\n' +
        '  $ eofd export results/quick-mnist results/tiny-sweep --format csv --out rounds.csv\n' +
        '  $ eofd export results/paper --units --out units.parquet      (a reproduction: every stage)\n\n' +
        'Then, in Python: pd.read_parquet("rounds.parquet") or pl.read_parquet("rounds.parquet") (in pandas, group with\n' +
        'dropna=False: stage and point are empty outside reproductions, grids and sweeps);\n' +
        'in DuckDB, averaging over trials within each run, stage, experiment and point only:\n' +
        '  SELECT run, stage, experiment, point, label, t, avg(cum_regret) FROM \'rounds.parquet\' GROUP BY ALL ORDER BY ALL\n\n' +
        'Exit codes: 0 written; 1 the file cannot be written; 2 bad usage or bad input data, or --out exists.',
    )
    .action(async (dirs: string[], options: ExportCommandOptions) => {
      process.exitCode = await exportCommand(dirs, options, io);
    });
}
