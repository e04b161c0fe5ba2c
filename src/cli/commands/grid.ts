/**
 * `eofd grid <config> [--over KEY=V1,V2,…]... [--l list] [--e list] [--trials N] [--set key=value]...
 * [--jobs N] [--out dir] [--resume] [--force] [--quiet]`: every policy tuned the same way on validation
 * seeds (default: Section 4's (l, e) grid); the work is in src/experiment/grid.ts. Exit codes as `eofd run`.
 */
import path from 'node:path';
import { Option, type Command } from 'commander';
import type { ExperimentConfig } from '../../config/schema.js';
import { runShape } from '../../experiment/eta.js';
import { costTwins, DEFAULT_GRID, gridAxes, gridUnits, resolveGridAxes, runGrid, withoutCostTwins, type GridResult } from '../../experiment/grid.js';
import { resolveExperiment } from '../../experiment/setup.js';
import { sweepPoints, valueText, type SweepAxis } from '../../experiment/sweep.js';
import type { BestEntry } from '../../results/sweep.js';
import { processIo, type CliIo } from '../io.js';
import { CHECKPOINT_HELP, checkpointArgument, collect, EXPERIMENT_HELP, type ExperimentCommandOptions, NAME_HELP, positiveInteger, SET_HELP, SHARD_HELP, shardArgument, shardCountArgument } from '../options.js';
import { perExperimentCommand } from '../per-experiment.js';
import type { LaterUnits } from '../progress.js';

export interface GridCommandOptions extends ExperimentCommandOptions {
  over?: string[];
  l?: string;
  e?: string;
}

/** One line per tuned label: its choice, the runner-up's paired interval, and an edge warning. */
export function describeBest(label: string, b: BestEntry): string {
  const chosen = Object.entries(b.values).map(([key, value]) => `${key.replace(/^params\./, '')} = ${valueText(value)}`).join(', ');
  const derived = [b.lambda === null ? null : `λ = ${b.lambda.toPrecision(4)}`, b.eta === null ? null : `η = ${b.eta.toPrecision(4)}`].filter(Boolean).join(', ');
  let line = `  ${label}: ${chosen}${derived === '' ? '' : ` (${derived})`}, mean final regret ${b.mean_final_regret.toPrecision(4)}`;
  const r = b.runner_up;
  if (r !== null) {
    const ci = r.difference.ci_low === null || r.difference.ci_high === null ? 'no interval' : `95% CI [${r.difference.ci_low.toPrecision(3)}, ${r.difference.ci_high.toPrecision(3)}]`;
    const next = Object.entries(r.values).map(([key, value]) => `${key.replace(/^params\./, '')} = ${valueText(value)}`).join(', ');
    line += `; vs runner-up (${next}) ${r.difference.mean.toPrecision(3)}, ${ci}, n = ${r.difference.trials}${r.separated ? '' : ': not separated (more validation trials would tell)'}`;
  }
  if (b.edge.length > 0) line += `\n    warning: ${b.edge.join(', ')} chosen at the edge of its list; the optimum may lie beyond it (widen the list)`;
  return line;
}

/** The units of the grids of `configs` by label (experiment/grid.ts gridUnits), each config's cost model its own; null when one cannot be resolved. */
function laterGrids(configs: readonly ExperimentConfig[], axes: readonly SweepAxis[]): LaterUnits[] | null {
  try {
    return configs.flatMap((config) => {
      const shape = runShape(resolveExperiment(withoutCostTwins(config), { split: 'validation' }));
      return [...gridUnits(config, axes)].map(([label, units]) => ({ shape, label, units }));
    });
  } catch {
    return null; // its run reports the problem
  }
}

export async function gridCommand(configFiles: readonly string[], options: GridCommandOptions, io: CliIo): Promise<number> {
  let axes: SweepAxis[] = gridAxes();
  return perExperimentCommand<GridResult>(configFiles, options, io, {
    name: 'grid',
    resumeWords: [
      ...(options.over ?? []).flatMap((o) => ['--over', o]),
      ...(options.l === undefined ? [] : ['--l', options.l]),
      ...(options.e === undefined ? [] : ['--e', options.e]),
    ],
    groups: (configs) => configs,
    prepare: () => {
      axes = resolveGridAxes(options);
    },
    run: (config, runOptions) => runGrid(config, { ...runOptions, axes }),
    later: (configs) => laterGrids(configs, axes),
    report: (config, result, reporter) => {
      if (result.best === null) {
        reporter.log(`eofd grid: ${config.name}: the grid is incomplete (${result.run.unitsFailed} units failed); no best.json written`);
        return;
      }
      if (options.quiet === true) return;
      const points = sweepPoints(axes).length;
      const lines = [`${config.name}: ${points} grid points × ${config.trials} validation trials → ${path.relative(process.cwd(), result.dir) || result.dir}`];
      for (const [label, b] of Object.entries(result.best.policies)) lines.push(describeBest(label, b));
      for (const [twin, label] of costTwins(config)) lines.push(`  ${twin}: not run; it decides as ${label} (they differ only in how a round is computed) and \`--params\` gives it ${label}'s values`);
      reporter.log(lines.join('\n'));
    },
  });
}

export function registerGrid(program: Command, io: CliIo = processIo()): void {
  program
    .command('grid')
    .summary('tune every policy the same way on validation seeds (default: the paper\'s (l, e) grid) → grid.csv, best.json')
    .description(
      'For every experiment in the config, run each point of the product of the --over values (default: ' +
        "Section 4's (l, e) grid, λ = (√K d)^l λ0 and η = (√K d)^e η0 over " + DEFAULT_GRID.join(', ') + ') on ' +
        'validation seeds (disjoint from the trials `eofd run` reports). Each policy (label) runs only over ' +
        'the keys it reads; one that reads none runs once, as the reference. Point folders go to ' +
        '<out>/<name>-grid/<key=value,…>/ (as `eofd run` writes them); then <out>/<name>-grid/ gets ' +
        'grid.csv, heatmap-<label>.svg (for the (l, e) grid) and best.json: per label the values with the ' +
        'lowest mean final regret (ties: smaller parameter error, then smaller values), the runner-up with ' +
        'the paired 95% interval between them, and the keys chosen at the edge of their list (a warning). ' +
        'Use it with `eofd run <config> --params <out>/<name>-grid/best.json`.',
    )
    .argument('<config...>', 'experiment config files (YAML or JSON), or names of shipped configs (eofd list)')
    .option('--over <KEY=V1,V2,…>', 'a params key (or any config key) and its values (repeatable: the product of all is run); default params.l and params.e over the paper\'s grid', collect)
    .option('--l <list>', `exponents l of λ, comma-separated (default ${DEFAULT_GRID.join(',')})`)
    .option('--e <list>', `exponents e of η, comma-separated (default ${DEFAULT_GRID.join(',')})`)
    .option('--out <dir>', 'parent folder of the <name>-grid folders', 'results')
    .option('--experiment <name>', EXPERIMENT_HELP, collect)
    .option('--name <name>', NAME_HELP)
    .option('--trials <n>', 'validation trials per grid point and policy (overrides `trials`)', positiveInteger('a trial count', 1_000_000))
    .option('--set <key=value>', SET_HELP, collect)
    .option('--jobs <n>', 'units run at once on worker threads; 1 runs in this process (default: CPU cores)', positiveInteger('a job count', 1024))
    .option('--checkpoint <every>', CHECKPOINT_HELP, checkpointArgument)
    .addOption(new Option('--resume', 'finish an existing grid: keep finished units, redo the others').conflicts('force'))
    .addOption(new Option('--force', 'delete existing grid point folders and start over'))
    .option('--shard <i/n>', 'run only shard i of n (0-based) of the grid\'s units into <out>/shard-<i>-of-<n>/; see Sharding below', shardArgument)
    .option('--shard-count <n>', 'the shard count when the index comes from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (default: EOFD_SHARD_COUNT)', shardCountArgument)
    .option('--quiet', 'print no progress and no summary (errors still go to stderr)')
    .addHelpText('after', SHARD_HELP)
    .action(async (configs: string[], options: GridCommandOptions) => {
      process.exitCode = await gridCommand(configs, options, io);
    });
}
