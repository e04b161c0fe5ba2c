/**
 * Section 4 end to end (`eofd reproduce`): five stages, each an existing piece run on the experiments
 * of one config, each resumable, each timed.
 *
 * 1. tune: the grid (grid.ts `runGrid`, default the paper's 49 (l, e) points) of every experiment on
 *    validation seeds → `<out>/tune/<name>-grid/best.json`, except an experiment with `tune_from`, which
 *    takes the named experiment's grid (`tuneSources`);
 * 2. tuned: the reported trials with each label's chosen values (`applyBestFiles`, as `run --params`),
 *    timed in this process, each trial's policies in lock-step → `<out>/tuned/<name>/`;
 * 3. report-tuned: `buildReport`/`writeReport` of it → `<out>/report-tuned/`;
 * 4. paper-choice: the same trials at the paper's own (l, e) = (0.75, 0.75) → `<out>/paper-choice/<name>/`;
 * 5. report-paper-choice → `<out>/report-paper-choice/`.
 * Each run is followed by its report, so a piece that stops after a report (`--stop-after report-tuned`)
 * leaves nothing that needs the per-round files it does not commit.
 *
 * `<out>/reproduce.json` (written atomically at each stage's start and end, from the first work on) records the command and, per
 * stage, its outputs, start and end, exit status, each attempt (a run of it cut short and resumed is
 * two), its wall time summed over them and, for a run stage, its units (what `eofd status` counts). A stage is finished when its outputs
 * are complete (a grid: `isGridFinished`; a run: every summary.csv; a report: its report.json); with
 * `resume` a finished stage is skipped unless an earlier stage ran again, and the others are resumed.
 *
 * With a shard (`--shard i/n`, a Slurm array task, a Kubernetes index) it runs shard i of the first run
 * stage (1–3) not finished in `<out>`, into `<out>/<stage>/shard-<i>-of-<n>/`, and stops: once every
 * shard is done, `eofd merge <out>/<stage>/shard-*-of-<n> --out <out>/<stage>` makes the stage what one
 * machine would have written, and the same command runs the next stage's shards. The reports (4, 5)
 * are not sharded: `eofd reproduce --resume` without a shard writes them (and reproduce.json). Shards
 * write no reproduce.json (n of them would race on it); each prints its stage's wall time, and that pass
 * records a stage it finds finished by shards as such (`found_done`), its time unknown.
 *
 * One writer per reproduction: an invocation without a shard holds the lock of `<out>` (lock.ts, as a
 * sweep locks its folder) throughout, and refuses to start while a shard of it runs; a shard holds
 * its shard folder's lock and refuses to start while `<out>`'s is held. The stage folders are eofd's:
 * the reports judge this reproduction's experiments by name, --force clears what eofd wrote there
 * (and nothing else), and a stage folder that is an experiment's folder is refused. reproduce.json is
 * first written when a stage starts work (a unit, a report) or --force clears the stages, so a refusal
 * leaves it as it was.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError, RunError } from '../base/errors.js';
import type { ExperimentConfig } from '../config/schema.js';
import { buildReport, PNG_FILES, REPORT_FILES, SKETCH_SIZE_FIGURE, writeReport } from '../report/index.js';
import type { Report } from '../report/report.js';
import { BEST_FILE, gridDir, lockFile, MANIFEST_FILE, REPRODUCE_FILE, shardFolder, SUMMARY_FILE } from '../results/layout.js';
import { removeProgressRecord } from '../results/progress-record.js';
import { writeJsonAtomic } from '../results/write.js';
import { checkResumable, isResultsFolder, isSweepFolder, lockFolder, makeFolder, unitCsvsHere } from './folders.js';
import { applyBestFiles, gridAxes, gridUnits, isGridFinished, isGridKept, runGrid, withPolicyParams, type TunedValues } from './grid.js';
import { LockedError, lockHolder, type Lock } from './lock.js';
import type { Shard } from './plan.js';
import { measuringRates, RoundRates, runShape, timedRunSeconds, type RunShape } from './eta.js';
import { runExperiments, type RunEvents, type RunOptions, type RunResult } from './runner.js';
import { resolveExperiment } from './setup.js';
import { axisReaders, type SweepAxis } from './sweep.js';

export { REPRODUCE_FILE };
export const REPRODUCE_FORMAT = 'eofd-reproduce/1';

/** The (l, e) the paper reports its results at (Section 4). */
export const PAPER_CHOICE = { l: 0.75, e: 0.75 } as const;

export const STAGE_NAMES = ['tune', 'tuned', 'report-tuned', 'paper-choice', 'report-paper-choice'] as const;
export type StageName = (typeof STAGE_NAMES)[number];
/** The stages that run the reported trials, timed (lock-step): the same units at two (l, e). */
const TIMED_STAGES = ['tuned', 'paper-choice'] as const satisfies readonly StageName[];

/** The folders of a reproduction under `out`. */
export function reproduceFolders(out: string): { tune: string; tuned: string; paperChoice: string; reportTuned: string; reportPaperChoice: string } {
  return {
    tune: path.join(out, 'tune'),
    tuned: path.join(out, 'tuned'),
    paperChoice: path.join(out, 'paper-choice'),
    reportTuned: path.join(out, 'report-tuned'),
    reportPaperChoice: path.join(out, 'report-paper-choice'),
  };
}

export type StageStatus = 'pending' | 'running' | 'done' | 'failed' | 'interrupted';

export interface StageRecord {
  name: StageName;
  /** What the stage does, in the words of the command that does it alone. */
  what: string;
  /** The folders (or files) it writes. */
  outputs: string[];
  status: StageStatus;
  /** ISO times of its last run (null: not run yet). */
  started: string | null;
  ended: string | null;
  /** Wall time in seconds of the attempts that made its outputs (attemptSeconds; null: not run yet). */
  seconds: number | null;
  /** Every run of the stage, oldest first (the last one's `ended` null while it runs). */
  attempts: StageAttempt[];
  /** The units (policy × trial) a run stage plays in all (a grid: every point's), for `eofd status`; absent for a report. */
  units?: number;
  /** 0 done, 1 failed, 130 interrupted (143 terminated by SIGTERM); null while pending or running. */
  exit_code: number | null;
  /** Whether the last invocation found it finished and skipped it. */
  skipped: boolean;
  /**
   * Set when an invocation found the stage finished without this record having seen it end: 'shards'
   * (merged from its shard folders), 'earlier' otherwise. Its time is its recorded attempts' (null: none).
   */
  found_done?: 'shards' | 'earlier';
}

/** One run of a stage: from its start to where it ended (done, failed, interrupted). */
export interface StageAttempt {
  started: string;
  ended: string | null;
  seconds: number | null;
  status: StageStatus;
}

/**
 * The wall time of the attempts that made a stage's outputs, summed (null: none ended): those after the
 * last attempt that finished it before the last one (a stage run again once done, e.g. to time it anew,
 * costs its new attempts alone; an interrupted one and its resumption add up).
 */
export function attemptSeconds(attempts: readonly StageAttempt[]): number | null {
  const finished = attempts.slice(0, -1).map((a) => a.status).lastIndexOf('done');
  const ended = attempts.slice(finished + 1).filter((a) => a.seconds !== null);
  return ended.length === 0 ? null : ended.reduce((sum, a) => sum + (a.seconds as number), 0);
}

export interface ReproduceRecord {
  format: typeof REPRODUCE_FORMAT;
  /** The last invocation's command line (words). */
  command: string[];
  started: string;
  ended: string | null;
  exit_code: number | null;
  /** Per experiment, the experiment whose grid chose its tuned values (itself, or its `tune_from`). */
  tuned_on?: Record<string, string>;
  stages: StageRecord[];
}

export interface ReproduceOptions extends Omit<RunOptions, 'split' | 'out' | 'shard'> {
  /** Parent of the stage folders and of reproduce.json. */
  out: string;
  /** The tuning grid's axes (default: the paper's (l, e) grid). */
  axes?: readonly SweepAxis[];
  /** The command line recorded in reproduce.json. */
  command?: readonly string[];
  /** Stage lines (start, end, skipped). */
  log?: (line: string) => void;
  /** Called once before the first timed (run) stage that runs (the CLI warns there when the machine is loaded). */
  beforeTimed?: () => void;
  /** Run only this shard of the first unfinished run stage (see the module comment). */
  shard?: Shard;
  /** Stop once this stage is done, the later ones left pending (a piece of a long reproduction). */
  stopAfter?: StageName;
}

/** What a shard ran: its stage (null: every run stage was finished), the folder and the wall time. */
export interface ShardStage {
  stage: StageName | null;
  /** The stage's folder under `out` (the merge's --out); the shard wrote `<dir>/shard-<i>-of-<n>/`. */
  dir: string | null;
  seconds: number;
}

export interface ReproduceResult {
  dir: string;
  /** Every unit the stages that ran ran (interrupted: a stage was stopped). */
  run: RunResult;
  stages: StageRecord[];
  /** Every stage finished (a shard: its share of its stage). */
  complete: boolean;
  /** Set when it stopped as asked (`stopAfter`) with that stage done and the later ones pending. */
  stoppedAfter?: StageName;
  /** Set when a shard ran. */
  shard?: ShardStage;
  /** The reports this invocation wrote (its claims are what `eofd reproduce` prints at its end), in stage order. */
  reports: { stage: StageName; dir: string; report: Report }[];
}

/** `config` with the paper's (l, e) = (0.75, 0.75) as the own params of every label that reads l or e. */
export function withPaperChoice(config: ExperimentConfig): ExperimentConfig {
  const readers = axisReaders(config, gridAxes([PAPER_CHOICE.l], [PAPER_CHOICE.e]));
  const chosen: TunedValues = {};
  for (const [label, keys] of Object.entries(readers)) {
    const values: Record<string, unknown> = {};
    if (keys.includes('params.l')) values.l = PAPER_CHOICE.l;
    if (keys.includes('params.e')) values.e = PAPER_CHOICE.e;
    if (Object.keys(values).length > 0) chosen[label] = values;
  }
  return withPolicyParams(config, chosen, `the paper's (l, e) = (${PAPER_CHOICE.l}, ${PAPER_CHOICE.e})`);
}

/**
 * Per experiment, the experiment whose grid tunes it: itself, or the one its `tune_from` names (by its
 * name before any --name). A name that is not another experiment of the reproduction, or one that is
 * itself tuned from a third, is a ConfigError naming the file and field.
 */
export function tuneSources(configs: readonly ExperimentConfig[]): ExperimentConfig[] {
  const nameOf = (config: ExperimentConfig): string => config.seedName ?? config.name;
  return configs.map((config) => {
    const from = config.tune_from;
    if (from === undefined) return config;
    const fail = (detail: string): never => {
      throw new ConfigError({ file: path.relative(process.cwd(), config.source) || config.source, field: `${config.name}: tune_from`, detail });
    };
    const source = configs.find((other) => nameOf(other) === from);
    if (source === undefined) return fail(`"${from}" is not an experiment of this reproduction (${configs.map(nameOf).join(', ')})`);
    if (source === config) return fail('an experiment cannot be tuned from itself; remove tune_from to run its own grid');
    if (source.tune_from !== undefined) return fail(`"${from}" is itself tuned from "${source.tune_from}"; name the experiment whose grid runs`);
    return source;
  });
}

/** The exit code a stop by `signal` gives: 143 for SIGTERM (cli/session.ts aborts with the signal's name), else 130. */
function stopCode(signal: AbortSignal | undefined): number {
  return signal?.reason === 'SIGTERM' ? 143 : 130;
}

function emptyRun(): RunResult {
  return { experiments: [], interrupted: false, unitsRun: 0, unitsSkipped: 0, unitsFailed: 0, jobs: 1 };
}

function addRun(total: RunResult, run: RunResult): RunResult {
  return {
    experiments: [...total.experiments, ...run.experiments],
    interrupted: total.interrupted || run.interrupted,
    unitsRun: total.unitsRun + run.unitsRun,
    unitsSkipped: total.unitsSkipped + run.unitsSkipped,
    unitsFailed: total.unitsFailed + run.unitsFailed,
    jobs: Math.max(total.jobs, run.jobs),
  };
}

/** A reproduction's record (`<out>/reproduce.json`), or null when there is none or it is not one. */
export function readRecord(file: string): ReproduceRecord | null {
  try {
    const record = JSON.parse(fs.readFileSync(file, 'utf8')) as ReproduceRecord;
    if (record.format !== REPRODUCE_FORMAT || !Array.isArray(record.stages)) return null;
    // A record written before attempts were kept: its last run is its one known attempt.
    for (const stage of record.stages) {
      if (!Array.isArray(stage.attempts)) {
        stage.attempts = stage.started === null ? [] : [{ started: stage.started, ended: stage.ended, seconds: stage.seconds, status: stage.status }];
      }
      // `seconds` follows from the attempts (a record written when every attempt was summed is read by today's rule).
      if (stage.status !== 'running' && stage.attempts.length > 0) stage.seconds = attemptSeconds(stage.attempts);
    }
    return record;
  } catch {
    return null;
  }
}

/** What one stage runs and when its outputs are complete. */
interface Stage {
  name: StageName;
  what: string;
  outputs: string[];
  /** The run stages' folder (a shard of the stage writes `<dir>/shard-<i>-of-<n>/`); null for a report. */
  dir: string | null;
  finished(): boolean;
  /**
   * Whether `--resume` keeps the stage's outputs as they stand without running it: they are complete
   * and record this reproduction's configs, but the per-round files behind them are not here (a
   * reproduction committed without them, resumed on a fresh clone), so the runner would play them again
   * and a report could not be rebuilt. Throws as the runners do when a folder records another config.
   */
  kept(): boolean;
  /** Runs the stage, or its shard (resuming its runner folders when `resume`); its run result, or null for a report. */
  run(resume: boolean, shard?: Shard): Promise<RunResult | null>;
}

/** Runs the stages of a reproduction; see the module comment. Throws RunError when it cannot start. */
export async function reproduce(configs: readonly ExperimentConfig[], options: ReproduceOptions): Promise<ReproduceResult> {
  const { out, axes: given, command = [], log = () => {}, beforeTimed, stopAfter, ...runOptions } = options;
  if (out.trim() === '') throw new RunError('--out: expected a folder, got an empty string', 2);
  if (options.resume === true && options.force === true) throw new RunError('--resume and --force exclude each other; give one', 2);
  const axes = given ?? gridAxes();
  const folders = reproduceFolders(out);
  const recordFile = path.join(out, REPRODUCE_FILE);
  for (const config of configs) axisReaders(config, axes); // a key no policy reads: refused before any work
  const sources = tuneSources(configs);
  const gridded = configs.filter((config, i) => sources[i] === config);
  const bestFiles = sources.map((source) => path.join(gridDir(folders.tune, source.name), BEST_FILE));
  const summaries = (dir: string): boolean => configs.every((config) => fs.existsSync(path.join(dir, config.name, SUMMARY_FILE)));
  const resolveOptions = { configFile: options.configFile, mnistDataRoot: options.mnistDataRoot };
  const gridKept = (config: ExperimentConfig): boolean => isGridKept(folders.tune, config, axes, resolveOptions);
  /** A run stage's experiments all finished (summary.csv), each folder recording the config it would run now. */
  const runKept = (dir: string, stageConfigs: readonly ExperimentConfig[]): boolean =>
    stageConfigs.every((config) => {
      const folder = path.join(dir, config.name);
      if (!fs.existsSync(path.join(folder, SUMMARY_FILE))) return false;
      checkResumable(folder, resolveExperiment(config, { ...resolveOptions, split: 'report' }), undefined);
      return true;
    });
  /** Whether every unit's per-round CSV of a run stage is here (a report is rebuilt only from them). */
  const unitsHere = (dir: string, stageConfigs: readonly ExperimentConfig[]): boolean =>
    stageConfigs.every((config) => unitCsvsHere(path.join(dir, config.name), config.policies.map((e) => e.label), config.trials));
  // The stage asks for its configs more than once (is it kept? then to run it): each note is said once.
  const noted = new Set<string>();
  const noteOnce = (line: string): void => {
    if (noted.has(line)) return;
    noted.add(line);
    log(line);
  };
  const tunedConfigs = (): ExperimentConfig[] => configs.flatMap((config, i) => applyBestFiles([config], [bestFiles[i] as string], noteOnce));
  const paperConfigs = (): ExperimentConfig[] => configs.map(withPaperChoice);
  const timed = { ...runOptions, jobs: 1 }; // in this process, each trial's policies in lock-step (trial.ts)

  /** `{ units }` of a run stage (StageRecord.units): a grid's points × the labels each runs × trials; a run stage's labels × trials. */
  const stageUnits = (name: StageName): { units?: number } => {
    const trials = (config: ExperimentConfig): number => config.policies.length * config.trials;
    if (name === 'tuned' || name === 'paper-choice') return { units: configs.reduce((n, config) => n + trials(config), 0) };
    if (name !== 'tune') return {};
    return { units: gridded.reduce((n, config) => n + [...gridUnits(config, axes).values()].reduce((a, b) => a + b, 0), 0) };
  };

  // The round rates each stage measures, for an ETA of the stages after the running one (eta.ts).
  let current = -1;
  let shapes: RunShape[] | null | undefined;
  const estimateOf = (): RunShape[] | null => {
    if (shapes === undefined) {
      try {
        shapes = configs.map((config) => runShape(resolveExperiment(config, { configFile: options.configFile, mnistDataRoot: options.mnistDataRoot })));
      } catch {
        shapes = null; // the stages report the problem
      }
    }
    return shapes;
  };
  /** Seconds of the timed stages after the running one this command runs (to --stop-after): 0 when none, null while a rate is unknown. */
  const laterSeconds = (): number | null => {
    const last = stopAfter === undefined ? STAGE_NAMES.length : STAGE_NAMES.indexOf(stopAfter);
    const later = TIMED_STAGES.filter((name) => STAGE_NAMES.indexOf(name) > current && STAGE_NAMES.indexOf(name) <= last);
    if (later.length === 0) return 0;
    const experiments = estimateOf();
    const one = experiments === null ? null : timedRunSeconds(experiments, rates);
    return one === null ? null : one * later.length;
  };
  const rates = new RoundRates(() => runOptions.events?.onLaterWork?.(laterSeconds()));

  // reproduce.json is written from the first work on (see the module comment): `save` writes nothing before `begin`.
  let recorded: ReproduceRecord | null = null;
  let begun = false;
  const save = (): void => {
    if (recorded !== null && begun) writeJsonAtomic(recordFile, recorded);
  };
  const begin = (): void => {
    if (begun) return;
    begun = true;
    save();
  };
  const beginning = (events: RunEvents): RunEvents => ({
    ...events,
    onUnitStart: (unit) => {
      begin();
      events.onUnitStart?.(unit);
    },
  });

  let warned = false;
  const into = (dir: string, shard?: Shard): string => (shard === undefined ? dir : shardFolder(dir, shard));
  const runStage = (dir: string, configsOf: () => ExperimentConfig[]) => async (resume: boolean, shard?: Shard) => {
    if (!warned) beforeTimed?.();
    warned = true;
    const events = beginning(measuringRates(rates, runOptions.events));
    return runExperiments(configsOf(), { ...timed, events, out: into(dir, shard), shard, resume, force: options.force, split: 'report' });
  };
  const reports: ReproduceResult['reports'] = [];
  const reportStage = (stage: StageName, runDir: string, reportDir: string) => async (): Promise<null> => {
    // Exactly this reproduction's experiments, never whatever else the folder holds.
    const report = buildReport(configs.map((config) => path.join(runDir, config.name)), { out: reportDir });
    begin();
    writeReport(report, reportDir);
    reports.push({ stage, dir: reportDir, report });
    return null;
  };
  const stages: Stage[] = [
    {
      name: 'tune',
      what:
        `eofd grid over ${axes.map((a) => `${a.key}=${a.values.join(',')}`).join(' × ')} on validation seeds` +
        configs
          .map((config, i) => (sources[i] === config ? '' : `; ${config.name} takes ${(sources[i] as ExperimentConfig).name}'s choice`))
          .join(''),
      outputs: gridded.map((config) => gridDir(folders.tune, config.name)),
      dir: folders.tune,
      finished: () => gridded.every((config) => isGridFinished(folders.tune, config, axes)),
      kept: () => gridded.every(gridKept),
      run: async (resume, shard) => {
        let total = emptyRun();
        for (const config of gridded) {
          if (resume && shard === undefined && gridKept(config)) {
            log(`tune: the grid of ${config.name} is finished (best.json, every point's summary.csv and manifest.json), kept`);
            continue;
          }
          const events = beginning(measuringRates(rates, runOptions.events, () => config.name));
          const result = await runGrid(config, { ...runOptions, events, out: into(folders.tune, shard), shard, axes, resume, force: options.force });
          total = addRun(total, result.run);
          if (result.run.interrupted || (shard === undefined && result.best === null)) break;
        }
        return total;
      },
    },
    {
      name: 'tuned',
      what: 'eofd run --params <tune>/<name>-grid/best.json --timing',
      outputs: [folders.tuned],
      dir: folders.tuned,
      finished: () => summaries(folders.tuned),
      kept: () => !unitsHere(folders.tuned, configs) && runKept(folders.tuned, tunedConfigs()),
      // One best.json per experiment (its own grid's or its tune_from's), so a borrowed one is noted.
      run: runStage(folders.tuned, tunedConfigs),
    },
    {
      name: 'report-tuned',
      what: 'eofd report <tuned>',
      outputs: [folders.reportTuned],
      dir: null,
      finished: () => fs.existsSync(path.join(folders.reportTuned, 'report.json')),
      // Rebuilt from the runs' per-round files when they are here; else kept as it stands.
      kept: () => fs.existsSync(path.join(folders.reportTuned, 'report.json')) && !unitsHere(folders.tuned, configs),
      run: reportStage('report-tuned', folders.tuned, folders.reportTuned),
    },
    {
      name: 'paper-choice',
      what: `eofd run at the paper's (l, e) = (${PAPER_CHOICE.l}, ${PAPER_CHOICE.e}) --timing`,
      outputs: [folders.paperChoice],
      dir: folders.paperChoice,
      finished: () => summaries(folders.paperChoice),
      kept: () => !unitsHere(folders.paperChoice, configs) && runKept(folders.paperChoice, paperConfigs()),
      run: runStage(folders.paperChoice, paperConfigs),
    },
    {
      name: 'report-paper-choice',
      what: 'eofd report <paper-choice>',
      outputs: [folders.reportPaperChoice],
      dir: null,
      finished: () => fs.existsSync(path.join(folders.reportPaperChoice, 'report.json')),
      kept: () => fs.existsSync(path.join(folders.reportPaperChoice, 'report.json')) && !unitsHere(folders.paperChoice, configs),
      run: reportStage('report-paper-choice', folders.paperChoice, folders.reportPaperChoice),
    },
  ];

  checkStageFolders(out);
  if (options.shard !== undefined) return runShard(stages, options.shard, out, options.resume === true, log);

  const lock = lockReproduction(out);
  try {
    checkNoShardRuns(out);
    if (fs.existsSync(recordFile) && options.resume !== true && options.force !== true) {
      throw new RunError(`${out} already holds a reproduction (${REPRODUCE_FILE}); add --resume to finish it, or --force to start over`, 2);
    }
    return await runStages();
  } finally {
    lock.release();
  }

  // Under the reproduction's lock.
  async function runStages(): Promise<ReproduceResult> {
    const previous = readRecord(recordFile);
    makeFolder(out, 'the reproduction folder');
    if (options.force === true) {
      clearStageFolders(out);
      begun = true;
    }
    const record: ReproduceRecord = {
      format: REPRODUCE_FORMAT,
      command: [...command],
      started: new Date().toISOString(),
      ended: null,
      exit_code: null,
      tuned_on: Object.fromEntries(configs.map((config, i) => [config.name, (sources[i] as ExperimentConfig).name])),
      stages: stages.map((stage) => {
        const earlier = options.force === true ? undefined : previous?.stages.find((s) => s.name === stage.name);
        const units = stageUnits(stage.name);
        return earlier === undefined
          ? { name: stage.name, what: stage.what, outputs: stage.outputs, status: 'pending', started: null, ended: null, seconds: null, attempts: [], exit_code: null, skipped: false, ...units }
          : { ...earlier, what: stage.what, outputs: stage.outputs, skipped: false, ...units };
      }),
    };
    // An attempt the last invocation left running (killed, or stopped at once by a second signal) ended
    // by the time of its record's last write: its time is unknown, and counted as none.
    for (const entry of record.stages) {
      for (const attempt of entry.attempts) if (attempt.ended === null) attempt.status = 'interrupted';
      if (entry.status === 'running') entry.status = 'interrupted';
    }
    recorded = record;
    save();

    // Every stage runs, with --resume resuming: the runners keep finished units and refuse a folder whose
    // config (or best.json's values) differs from what this stage would run now, so nothing stale is
    // taken as done; a run stage with no unit left to play is marked skipped and keeps its recorded times.
    // The reports are always rebuilt from the runs (deterministic, and cheap beside them).
    let total = emptyRun();
    let stopped = false;
    for (const [i, stage] of stages.entries()) {
      const entry = record.stages[i] as StageRecord;
      const prefix = `[${i + 1}/${stages.length}] ${stage.name}`;
      current = i;
      const later = laterSeconds();
      runOptions.events?.onLaterWork?.(later);
      const earlier = { ...entry, attempts: [...entry.attempts] };
      const started = Date.now();
      const attempt: StageAttempt = { started: new Date(started).toISOString(), ended: null, seconds: null, status: 'running' };
      Object.assign(entry, { status: 'running', started: attempt.started, ended: null, exit_code: null, skipped: false, found_done: undefined, attempts: [...entry.attempts, attempt] });
      save();
      log(`${prefix}: ${stage.what} → ${stage.outputs.join(', ')}`);
      if ((TIMED_STAGES as readonly StageName[]).includes(stage.name)) {
        const experiments = estimateOf();
        const own = experiments === null ? null : timedRunSeconds(experiments, rates);
        const minutes = (seconds: number): string => `${(seconds / 60).toFixed(1)} min`;
        if (own !== null) log(`${prefix}: about ${minutes(own)} at the round rates measured so far${later === null || later === 0 ? '' : `, then ${minutes(later)} for the stage after it`}`);
      }
      let kept = false;
      try {
        kept = options.resume === true && earlier.status === 'done' && stage.kept();
      } catch (error) {
        // A folder that records another config: refused as the runner refuses it, the record as before.
        Object.assign(entry, earlier);
        save();
        throw error;
      }
      if (kept) {
        Object.assign(entry, { ...earlier, skipped: true });
        begin(); // nothing refused: this invocation is recorded
        save();
        log(`${prefix}: finished earlier${earlier.seconds === null ? '' : ` (${earlier.seconds.toFixed(1)} s)`}, its outputs kept as they stand`);
        if (stage.name === stopAfter) break;
        continue;
      }
      let run: RunResult | null = null;
      let thrown: unknown = null;
      try {
        run = await stage.run(options.resume === true);
      } catch (error) {
        thrown = error;
      }
      if (run !== null) total = addRun(total, run);
      const complete = thrown === null && !(run?.interrupted ?? false) && stage.finished();
      // A run stage with no unit left to play keeps its recorded attempts and never takes this pass's
      // time: skipped when this record saw it done, else found done (by shards, or by a run whose end
      // it never saw).
      if (complete && run !== null && run.unitsRun === 0 && run.unitsFailed === 0) {
        if (earlier.status === 'done') {
          Object.assign(entry, { ...earlier, skipped: true });
          log(`${prefix}: every unit finished earlier${earlier.seconds === null ? '' : ` (${earlier.seconds.toFixed(1)} s)`}, nothing to run`);
        } else {
          const found = stage.dir !== null && shardFolders(stage.dir).length > 0 ? 'shards' : 'earlier';
          Object.assign(entry, { ...earlier, status: 'done', exit_code: 0, seconds: attemptSeconds(earlier.attempts), skipped: true, found_done: found });
          log(`${prefix}: every unit finished ${found === 'shards' ? 'by its shards (their time is not recorded here)' : 'by a run this record did not see end'}, nothing to run`);
        }
        save();
        if (stage.name === stopAfter) break;
        continue;
      }
      const status: StageStatus = run?.interrupted === true ? 'interrupted' : complete ? 'done' : 'failed';
      const ended = Date.now();
      Object.assign(attempt, { ended: new Date(ended).toISOString(), seconds: (ended - started) / 1000, status });
      const exitCode = status === 'done' ? 0 : status === 'interrupted' ? stopCode(options.signal) : 1;
      Object.assign(entry, { status, ended: attempt.ended, seconds: attemptSeconds(entry.attempts), exit_code: exitCode });
      // The stages after one that did not finish build on it: none of them is done any more (their
      // attempts stay: time spent).
      if (status !== 'done') {
        for (const later of record.stages.slice(i + 1)) Object.assign(later, { status: 'pending', started: null, ended: null, exit_code: null, skipped: false, found_done: undefined });
      }
      record.exit_code = status === 'done' ? null : (entry.exit_code as number);
      record.ended = status === 'done' ? null : entry.ended;
      save();
      if (thrown !== null) throw thrown;
      const counted = entry.seconds !== attempt.seconds ? ` (${(entry.seconds as number).toFixed(1)} s with the attempts before it)` : '';
      log(`${prefix}: ${status} in ${(attempt.seconds as number).toFixed(1)} s${counted}`);
      if (status !== 'done') {
        stopped = true;
        break;
      }
      if (stage.name === stopAfter) break;
    }
    const paused = !stopped && stopAfter !== undefined && record.stages.some((s) => s.status !== 'done');
    if (!stopped) {
      record.ended = new Date().toISOString();
      record.exit_code = 0;
      save();
    }
    return { dir: out, run: total, stages: record.stages, complete: !stopped && !paused, reports, ...(paused ? { stoppedAfter: stopAfter } : {}) };
  }
}

/** The lock of `dir`: `<parent>/.<dir>.lock`, as a sweep's folder is locked (results/layout.ts `lockFile`). */
function folderLock(dir: string): string {
  const resolved = path.resolve(dir);
  return lockFile(path.dirname(resolved), path.basename(resolved));
}

/** Takes the reproduction's lock (a live holder: a RunError naming `out` and the holder). */
function lockReproduction(out: string): Lock {
  const parent = path.dirname(path.resolve(out));
  makeFolder(parent, 'to the output folder');
  return lockFolder(folderLock(out), out, parent);
}

const SHARD_FOLDER = /^shard-\d+-of-\d+$/;

/** The shard folders of a run stage's folder `dir`, and those whose lock exists (a shard starting). */
function shardFolders(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const shards = names.map((name) => (name.startsWith('.') && name.endsWith('.lock') ? name.slice(1, -'.lock'.length) : name)).filter((name) => SHARD_FOLDER.test(name));
  return [...new Set(shards)].sort().map((name) => path.join(dir, name));
}

/** Under the reproduction's lock: no shard of it runs (each shard's lock is taken and released). */
function checkNoShardRuns(out: string): void {
  const folders = reproduceFolders(out);
  for (const dir of [folders.tune, folders.tuned, folders.paperChoice]) {
    for (const shard of shardFolders(dir)) lockFolder(folderLock(shard), shard, dir).release();
  }
}

/**
 * Refuses a stage folder (or `out`) that is an experiment's folder (it holds manifest.json) or a grid's
 * own folder: a report would judge it, and --force would delete a run that is not this reproduction's.
 */
function checkStageFolders(out: string): void {
  const folders = reproduceFolders(out);
  for (const dir of [out, ...Object.values(folders)]) {
    if (isResultsFolder(dir)) {
      throw new RunError(`${dir}: holds ${MANIFEST_FILE}: it is an experiment's folder, not ${dir === out ? 'a reproduction' : "a reproduction's stage folder"}; move it away or give reproduce another --out`, 2);
    }
  }
  if (isSweepFolder(folders.tune)) {
    throw new RunError(`${folders.tune}: holds a grid's or sweep's own files, not a reproduction's grids; move it away or give reproduce another --out`, 2);
  }
}

/**
 * --force: deletes what eofd wrote in the stage folders, and nothing else: the experiment and grid
 * folders of the run stages (each under its lock) and their shard folders, and the report files.
 */
function clearStageFolders(out: string): void {
  const folders = reproduceFolders(out);
  const clear = (dir: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const sub = path.join(dir, entry.name);
      if (!entry.isDirectory()) continue;
      if (SHARD_FOLDER.test(entry.name)) {
        clear(sub);
        if (fs.readdirSync(sub).length === 0) fs.rmdirSync(sub);
      } else if (isResultsFolder(sub) || isSweepFolder(sub)) {
        const held = lockFolder(lockFile(dir, entry.name), sub, dir);
        try {
          fs.rmSync(sub, { recursive: true, force: true });
          removeProgressRecord(sub); // a killed run's
        } finally {
          held.release();
        }
      }
    }
  };
  for (const dir of [folders.tune, folders.tuned, folders.paperChoice]) clear(dir);
  for (const dir of [folders.reportTuned, folders.reportPaperChoice]) {
    for (const name of [...REPORT_FILES, ...PNG_FILES, SKETCH_SIZE_FIGURE]) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/**
 * A shard's share of the first run stage not finished in `out` (see the module comment), under its
 * shard folder's lock, refused while the reproduction's lock is held.
 */
async function runShard(stages: readonly Stage[], shard: Shard, out: string, resume: boolean, log: (line: string) => void): Promise<ReproduceResult> {
  const stage = stages.find((s) => s.dir !== null && !s.finished());
  if (stage?.dir == null) {
    log(`every run stage is finished in ${out}; the reports are not sharded: run eofd reproduce --resume without a shard`);
    return { dir: out, run: emptyRun(), stages: [], complete: true, shard: { stage: null, dir: null, seconds: 0 }, reports: [] };
  }
  const dir = shardFolder(stage.dir, shard);
  makeFolder(stage.dir, 'the stage folder');
  const lock = lockFolder(folderLock(dir), dir, stage.dir);
  try {
    const holder = lockHolder(folderLock(out));
    if (holder !== null) throw new RunError(`${out}: ${new LockedError(folderLock(out), holder).message}`);
    const started = Date.now();
    log(`shard ${shard.index}/${shard.count} of stage ${stage.name}: ${stage.what} → ${dir}`);
    const run = (await stage.run(resume, shard)) as RunResult;
    const seconds = (Date.now() - started) / 1000;
    log(`shard ${shard.index}/${shard.count} of stage ${stage.name}: ${run.interrupted ? 'interrupted' : run.unitsFailed > 0 ? 'failed' : 'done'} in ${seconds.toFixed(1)} s`);
    return { dir: out, run, stages: [], complete: !run.interrupted && run.unitsFailed === 0, shard: { stage: stage.name, dir: stage.dir, seconds }, reports: [] };
  } finally {
    lock.release();
  }
}

/** The stage table `eofd reproduce` prints at the end: name, status, wall time (of the attempts that made its outputs: attemptSeconds). */
export function stageTable(stages: readonly StageRecord[]): string {
  const width = Math.max(...stages.map((s) => s.name.length));
  const lines = stages.map((s) => {
    const time = s.seconds === null ? '—' : `${s.seconds.toFixed(1)} s`;
    const attempts = s.attempts.length > 1 ? `  (${s.attempts.length} attempts)` : '';
    const found = s.found_done === 'shards' ? '  (done by shards, their time not recorded)' : s.found_done === 'earlier' ? '  (found finished)' : '';
    return `  ${s.name.padEnd(width)}  ${s.status.padEnd(11)} ${time.padStart(10)}${attempts}${s.skipped && found === '' ? '  (finished earlier, skipped)' : found}`;
  });
  const seconds = stages.reduce((sum, s) => sum + (s.seconds ?? 0), 0);
  return `${lines.join('\n')}\n  ${'total'.padEnd(width)}  ${''.padEnd(11)} ${`${seconds.toFixed(1)} s`.padStart(10)}\n`;
}
