/**
 * `eofd reproduce [config] [--out dir] [--trials N] [--set key=value]... [--over KEY=V1,…]... [--l list]
 * [--e list] [--jobs N] [--resume] [--force] [--shard i/n] [--quiet]`: Section 4 end to end (tune, run the
 * tuned and the paper's choice timed in lock-step, report both, print the claims); the stages are in src/experiment/reproduce.ts.
 * Exit codes as `eofd run`: 0 done; 1 a unit failed or the output cannot be written; 2 bad usage or
 * config; 130 interrupted (SIGINT), 143 terminated (SIGTERM).
 */
import os from 'node:os';
import { Option, type Command } from 'commander';
import type { ExperimentConfig } from '../../config/schema.js';
import { DEFAULT_GRID, gridAxes, resolveGridAxes } from '../../experiment/grid.js';
import { PAPER_CHOICE, REPRODUCE_FILE, reproduce, reproduceFolders, STAGE_NAMES, stageTable, type ReproduceResult, type StageName } from '../../experiment/reproduce.js';
import { renderTerminal, shouldColour, terminalWidth } from '../../report/index.js';
import type { SweepAxis } from '../../experiment/sweep.js';
import { hinter } from '../hint.js';
import { EXIT, processIo, type CliIo } from '../io.js';
import { CHECKPOINT_HELP, checkpointArgument, collect, type ExperimentCommandOptions, positiveInteger, SET_HELP, shardArgument, shardCountArgument, shardGlob, timingCheck } from '../options.js';
import { perExperimentCommand } from '../per-experiment.js';

export interface ReproduceCommandOptions extends Omit<ExperimentCommandOptions, 'name'> {
  over?: string[];
  l?: string;
  e?: string;
  stopAfter?: StageName;
}

/** The shipped config `eofd reproduce` runs without one: configs/paper.yaml. */
export const DEFAULT_REPRODUCE_CONFIG = 'paper';

const EXAMPLES = [
  ['eofd reproduce', "Section 4 as the paper states it (configs/paper.yaml) → results/paper/"],
  [
    'eofd reproduce quick --trials 5 --set horizon=1000 --over params.l=0.5,0.75 --over params.e=0.75 --out /tmp/quick',
    'a quick look that reaches verdicts (configs/quick.yaml, 5 trials, T = 1,000, two grid points): 100 s on 2 cores, quiet',
  ],
  ['eofd reproduce --resume', 'after a stop: every stage resumed (finished units kept), the reports rebuilt'],
  ['eofd reproduce configs/synthetic-k4.yaml --jobs 2 --out results/k4', 'one setting; the grid on two workers'],
  ['eofd reproduce --shard 0/4', "shard 0 of 4 of the first unfinished run stage (merge each stage's shards, then run again)"],
] as const;

function examplesText(): string {
  return `Examples:\n${EXAMPLES.map(([command, what]) => `  # ${what}\n  $ ${command}`).join('\n')}\n`;
}

/** What each report's claims are judged at, in the order they are printed. */
const CLAIM_RUNS: readonly { stage: StageName; title: string }[] = [
  { stage: 'report-paper-choice', title: `at the paper's (l, e) = (${PAPER_CHOICE.l}, ${PAPER_CHOICE.e})` },
  { stage: 'report-tuned', title: "at the grid's choice" },
];

/**
 * The claims tables of the reports `result` wrote, as `eofd report` prints them (fitted to the
 * terminal `stdout` writes to; complete on a pipe); '' when no experiment is in one of the paper's settings.
 */
export function claimsText(result: ReproduceResult, stdout: CliIo['stdout'], env: NodeJS.ProcessEnv): string {
  const parts: string[] = [];
  for (const { stage, title } of CLAIM_RUNS) {
    const written = result.reports.find((r) => r.stage === stage);
    if (written === undefined || written.report.claims.length === 0) continue;
    const report = { ...written.report, title: `${title} (${written.dir}/report.html)`, experiments: [] };
    parts.push(renderTerminal(report, { colour: shouldColour(stdout, env), width: terminalWidth(stdout) }));
  }
  return parts.length === 0 ? '' : `\n${parts.join('\n\n')}\n`;
}

/** The command line as reproduce.json records it. */
function commandWords(files: readonly string[], options: ReproduceCommandOptions): string[] {
  return [
    'eofd',
    'reproduce',
    ...files,
    '--out',
    options.out,
    ...(options.trials === undefined ? [] : ['--trials', String(options.trials)]),
    ...(options.set ?? []).flatMap((s) => ['--set', s]),
    ...(options.over ?? []).flatMap((o) => ['--over', o]),
    ...(options.l === undefined ? [] : ['--l', options.l]),
    ...(options.e === undefined ? [] : ['--e', options.e]),
    ...(options.jobs === undefined ? [] : ['--jobs', String(options.jobs)]),
    ...(options.resume === true ? ['--resume'] : []),
    ...(options.force === true ? ['--force'] : []),
    ...(options.stopAfter === undefined ? [] : ['--stop-after', options.stopAfter]),
  ];
}

export async function reproduceCommand(configFiles: readonly string[], options: ReproduceCommandOptions, io: CliIo): Promise<number> {
  const files = configFiles.length === 0 ? [DEFAULT_REPRODUCE_CONFIG] : configFiles;
  let axes: SweepAxis[] = gridAxes();
  let log: (line: string) => void = () => {};
  let reporterLog: (line: string) => void = () => {};
  return perExperimentCommand<ReproduceResult, ExperimentConfig[]>(files, options, io, {
    name: 'reproduce',
    resumeWords: [
      ...(options.over ?? []).flatMap((o) => ['--over', o]),
      ...(options.l === undefined ? [] : ['--l', options.l]),
      ...(options.e === undefined ? [] : ['--e', options.e]),
    ],
    prepare: () => {
      axes = resolveGridAxes(options);
    },
    configure: (configs, given) => {
      reporterLog = given;
      log = options.quiet === true ? () => {} : (line) => given(`eofd reproduce: ${line}`);
      return configs;
    },
    groups: (configs) => [configs],
    run: (configs, runOptions) =>
      reproduce(configs, {
        ...runOptions,
        out: options.out,
        axes,
        command: commandWords(files, options),
        log,
        beforeTimed: () => timingCheck({}, reporterLog),
        stopAfter: options.stopAfter,
      }),
    kept: () => `finished stages and units are kept (${REPRODUCE_FILE})`,
    end: ({ results, error, resume, shard }) => {
      const result = results[0] as ReproduceResult; // one group
      if (shard !== null && result.shard !== undefined) {
        const { stage, dir } = result.shard;
        const { unitsRun, unitsSkipped, unitsFailed } = result.run;
        if (options.quiet !== true && stage !== null && dir !== null) {
          const shards = shardGlob(dir, shard.count);
          io.stderr.write(
            `eofd reproduce: shard ${shard.index}/${shard.count} (from ${shard.source}) of stage ${stage}: ${unitsRun} units run, ${unitsSkipped} kept, ${unitsFailed} failed in ${result.shard.seconds.toFixed(1)} s\n` +
              `eofd reproduce: when every shard of ${stage} is done: ${hinter(io.env)('merge', shards, '--out', dir)}, then the same command runs the next stage's shards\n`,
          );
        }
        if (unitsFailed > 0) {
          error(`${unitsFailed} units failed (messages above); after fixing the cause, ${resume()} reruns only those`);
          return EXIT.failure;
        }
        return EXIT.ok;
      }
      if (options.quiet !== true) {
        const folders = reproduceFolders(result.dir);
        io.stderr.write(`\neofd reproduce: wall time per stage (${result.dir}/${REPRODUCE_FILE}):\n${stageTable(result.stages)}`);
        if (result.complete) io.stderr.write(`eofd reproduce: reports: ${folders.reportTuned}/report.html, ${folders.reportPaperChoice}/report.html\n`);
        io.stdout.write(claimsText(result, io.stdout, io.env));
      }
      if (result.stoppedAfter !== undefined) {
        if (options.quiet !== true) io.stderr.write(`eofd reproduce: stopped after stage ${result.stoppedAfter} (--stop-after); the later stages: ${resume()}\n`);
        return EXIT.ok;
      }
      if (!result.complete) {
        const stage = result.stages.find((s) => s.status === 'failed');
        error(`stage ${stage?.name ?? '?'} did not finish (${result.run.unitsFailed} units failed; messages above); after fixing the cause, ${resume()} redoes the rest`);
        return EXIT.failure;
      }
      return EXIT.ok;
    },
  });
}

export function registerReproduce(program: Command, io: CliIo = processIo()): void {
  const cores = os.availableParallelism();
  program
    .command('reproduce')
    .summary("Section 4 end to end: tune on validation seeds, run the tuned and the paper's (0.75, 0.75), report both")
    .description(
      'Reproduce Section 4 of the paper from one config (default: the shipped configs/paper.yaml, its three settings ' +
        'as the paper states them, with OFUL-MLogB run twice on the same trials: by its default solver and as OFUL-textbook, ' +
        "the paper's cost model, so each time claim is judged against both), in five stages, each resumable and timed: (1) tune: `eofd grid` of every experiment " +
        `(default the paper's 49-point (l, e) grid over ${DEFAULT_GRID.join(', ')}) on validation seeds → <out>/tune/<name>-grid/best.json (an experiment with tune_from: NAME runs no grid and takes NAME's; ` +
        'configs/paper.yaml tunes on the two synthetic settings, as Section 4 does, and MNIST takes synthetic-binary\'s choice); ' +
        "(2) tuned: the reported trials with each policy's chosen values (as `eofd run --params best.json`) → <out>/tuned/; " +
        '(3) report-tuned: `eofd report` of it → <out>/report-tuned/; ' +
        "(4) paper-choice: the same trials at the paper's (l, e) = (0.75, 0.75) → <out>/paper-choice/; (5) report-paper-choice → <out>/report-paper-choice/. " +
        "Both runs play in this process with each trial's policies in lock-step (as `eofd run --timing`) so the time claims can be judged; " +
        `the claims tables of both reports end the output (stdout). Each stage's wall time, summed over its attempts, is printed and recorded with its start, end, attempts and exit status in <out>/${REPRODUCE_FILE}; ` +
        'the ETA counts the stages still to run at the round rates measured so far. ' +
        'With --resume every stage is resumed (finished units kept; a folder whose config changed is refused) and the reports are rebuilt; ' +
        'a stage whose outputs are complete but whose per-round files are not here (a committed reproduction on a fresh clone) is kept as it stands.',
    )
    .argument('[config...]', `experiment config files (YAML or JSON), or names of shipped configs (default: ${DEFAULT_REPRODUCE_CONFIG})`)
    .option('--out <dir>', 'folder of the stages and reproduce.json', 'results/paper')
    .option('--trials <n>', 'trials per policy, in the grid (validation) and in the runs (overrides `trials`)', positiveInteger('a trial count', 1_000_000))
    .option('--set <key=value>', SET_HELP, collect)
    .option('--over <KEY=V1,V2,…>', "the tuning grid's keys and values, as `eofd grid` takes them (repeatable); default params.l and params.e over the paper's grid", collect)
    .option('--l <list>', `exponents l of λ in the tuning grid, comma-separated (default ${DEFAULT_GRID.join(',')})`)
    .option('--e <list>', `exponents e of η in the tuning grid, comma-separated (default ${DEFAULT_GRID.join(',')})`)
    .option('--jobs <n>', `units of the tuning grid run at once on worker threads (default: CPU cores, here ${cores}); the runs are timed in this process, each trial's policies in lock-step`, positiveInteger('a job count', 1024))
    .option('--checkpoint <every>', CHECKPOINT_HELP, checkpointArgument)
    .addOption(new Option('--resume', 'finish an existing reproduction: skip finished stages, resume the others').conflicts('force'))
    .addOption(new Option('--force', 'delete the existing stages and start over'))
    .addOption(
      new Option('--stop-after <stage>', 'stop once this stage is done, the later ones left pending (one piece of a long reproduction; go on with --resume)').choices(
        STAGE_NAMES.slice(0, -1),
      ),
    )
    .option('--shard <i/n>', 'run only shard i of n (0-based) of the first run stage not finished in <out>, into <out>/<stage>/shard-<i>-of-<n>/; see Sharding below', shardArgument)
    .option('--shard-count <n>', 'the shard count when the index comes from SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX (default: EOFD_SHARD_COUNT)', shardCountArgument)
    .option('--quiet', 'print no progress and no summary (errors still go to stderr)')
    .addHelpText('before', examplesText())
    .addHelpText(
      'after',
      '\nSharding (several machines): a shard runs its share of one stage at a time, the first of tune, tuned and\n' +
        'paper-choice not finished in <out>, into <out>/<stage>/shard-<i>-of-<n>/. When every shard of that stage is done,\n' +
        'eofd merge <out>/<stage>/shard-*-of-<n> --out <out>/<stage> combines them; the same command then runs the next\n' +
        'stage. After paper-choice, eofd reproduce --resume without a shard writes the reports and reproduce.json.\n' +
        'Shards of one stage run at once, each holding its shard folder\'s lock; a shard is refused while a reproduce\n' +
        'without a shard runs in <out>, and that reproduce is refused while a shard runs.\n' +
        'A shard deals the units as eofd grid and eofd run do (unit k of the fixed order when k mod n = i); without --shard,\n' +
        'i = SLURM_ARRAY_TASK_ID or JOB_COMPLETION_INDEX and n = --shard-count or EOFD_SHARD_COUNT.\n\n' +
        'Exit codes: 0 done; 1 a unit failed or the output folder cannot be written;\n' +
        '2 bad usage or config; 130 interrupted by Ctrl-C, 143 terminated by SIGTERM (resume with --resume).',
    )
    .action(async (configs: string[], options: ReproduceCommandOptions) => {
      process.exitCode = await reproduceCommand(configs, options, io);
    });
}
