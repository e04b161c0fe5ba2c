/**
 * What a run shows while it works, on stderr, in one of three modes:
 * - live (a terminal of at least LIVE_MIN columns and rows): a few lines redrawn in place at the
 *   bottom: one overall line (units done/total, rounds/s, overall ETA) and one line per running unit
 *   with its own ETA (at most MAX_RUNNING_LINES); messages and plan lines print above them, wrapped to the width;
 * - lines (not a terminal, or a small one): one line per finished unit, `[done/total, ETA …]`, and
 *   while units run, at most every LINES_EVERY_SECONDS a line on the longest-running one (a log of a
 *   cluster job shows how far an hours-long unit is);
 * - quiet: nothing.
 * No line is wider than the terminal. Unit failures are printed in every mode: they are errors, not
 * progress. Counters are per run: a command that runs several experiments one after another (grid,
 * sweep) starts them again at each run's plan, which announces how many units follow.
 */
import fs from 'node:fs';
import os from 'node:os';
import { ownUnitSeconds, RateMeter, RoundRates, runShape, scaledFromNearest, unitSeconds, type MeasuredCost, type RunShape } from '../experiment/eta.js';
import type { RunEvents, RunPlan, UnitRef } from '../experiment/runner.js';
import type { ResolvedExperiment } from '../experiment/setup.js';
import { formatShort } from '../report/format.js';
import type { PolicyHyperparameters } from '../results/manifest.js';
import { PROGRESS_RECORD_EVERY_MS, PROGRESS_RECORD_FORMAT, removeProgressRecord, writeProgressRecord, type ProgressRecord } from '../results/progress-record.js';
import type { TrialSummary } from '../results/records.js';

export type ProgressMode = 'live' | 'lines' | 'quiet';

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  /** Terminal width and height (Node sets them on a TTY stream). */
  columns?: number;
  rows?: number;
}

export interface ProgressReporter {
  readonly events: RunEvents;
  /** Prints a line (above the live lines while they show). */
  log(line: string): void;
  /** Removes the live lines; later output goes straight to the stream. */
  stop(): void;
  /**
   * The work the command runs after this run, by units (a grid of each later experiment; [] none;
   * null not known), shown as `later <what>` in the ETA (Tally.laterSeconds).
   */
  laterWork(work: readonly LaterUnits[] | null, what: string): void;
}

/** Units of one label of an experiment that a command runs after the current run. */
export interface LaterUnits {
  shape: RunShape;
  label: string;
  units: number;
}

/** The smallest terminal the live view draws on; smaller ones get one line per unit. */
export const LIVE_MIN = { columns: 40, rows: 6 } as const;

/** Running units shown in the live view (the rest are counted on one line). */
export const MAX_RUNNING_LINES = 4;

/** Live on a large enough terminal (not TERM=dumb), lines otherwise, nothing when quiet. */
export function progressMode(stream: ProgressStream, quiet: boolean, env: NodeJS.ProcessEnv = {}): ProgressMode {
  if (quiet) return 'quiet';
  const fits = (stream.columns ?? 0) >= LIVE_MIN.columns && (stream.rows ?? 0) >= LIVE_MIN.rows;
  return stream.isTTY === true && fits && env.TERM !== 'dumb' ? 'live' : 'lines';
}

/** One line with the setting and every derived value, e.g. for stderr at the start of a run. */
export function describeResolved(experiment: ResolvedExperiment): string {
  const { config, environment: env, derived: v } = experiment;
  const beta = typeof v.beta === 'number' ? formatShort(v.beta) : v.beta;
  return (
    `${config.name}: ${env.type}, d = ${env.d}, K = ${env.K}, T = ${config.horizon}, ${config.trials} trial${config.trials === 1 ? '' : 's'}, ` +
    `policies ${config.policies.map((e) => e.label).join(', ')}; S = ${formatShort(v.S)}, D = ${formatShort(v.D)}, α = ${formatShort(v.alpha)}, ` +
    `λ0 = ${formatShort(v.lambda0)}, η0 = ${formatShort(v.eta0)}, l = ${v.l ?? '–'}, e = ${v.e ?? '–'}, λ = ${formatShort(v.lambda)}, ` +
    `η = ${formatShort(v.eta)}, m = ${v.m}, δ = ${formatShort(v.delta)}, β = ${beta} × ${formatShort(v.beta_scale)}` +
    (v.beta_rank === 'full' ? ' (rank Kd)' : '') +
    config.policies
      .filter((entry) => entry.label !== entry.policy || Object.keys(entry.params).length > 0)
      .map((entry) => `; ${entry.label} (${entry.policy}): ${describeOwn(v.policies[entry.label])}`)
      .join('')
  );
}

/** A variant's resolved values as `key = value` pairs. */
function describeOwn(own: PolicyHyperparameters | undefined): string {
  if (own === undefined) return '–';
  return Object.entries(own)
    .filter(([key]) => key !== 'policy')
    .map(([key, value]) => `${key} = ${typeof value === 'number' ? formatShort(value) : String(value)}`)
    .join(', ');
}

/** "42s", "3m05s", "2h07m". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * An ETA of `run` seconds (null: not known yet) and `later` seconds after it (a reproduction's later
 * stages, a grid's later experiments: `what`; undefined or 0: none; null: not known yet): `3m05s`,
 * `3m05s + later stages`, or the whole command's then each part's, `25m10s (this stage 3m05s, later
 * stages 22m05s)`.
 */
export function formatEta(run: number | null, later: number | null | undefined, what = 'stages'): string {
  if (run === null) return '–';
  if (later === undefined || later === 0) return formatDuration(run);
  const one = what.replace(/s$/, '');
  if (later === null) return `${formatDuration(run)} + later ${what}`;
  return `${formatDuration(run + later)} (this ${one} ${formatDuration(run)}, later ${what} ${formatDuration(later)})`;
}

/** Characters as a terminal counts them (the texts here hold no wide or combining characters). */
const width = (text: string): number => Array.from(text).length;

/** `text` cut to `columns` characters, ending in '…' when cut. */
export function fitLine(text: string, columns: number): string {
  const chars = Array.from(text);
  if (chars.length <= columns) return text;
  return columns <= 0 ? '' : chars.slice(0, columns - 1).join('') + '…';
}

/**
 * `text` broken into lines of at most `columns` characters, after `, ` or `; ` where possible (else
 * at a space, else anywhere); continuation lines start with two spaces.
 */
export function wrapLine(text: string, columns: number): string[] {
  const indent = '  ';
  const lines: string[] = [];
  let rest = text;
  let prefix = '';
  while (width(prefix + rest) > columns && columns > indent.length + 1) {
    const room = columns - width(prefix);
    const head = Array.from(rest).slice(0, room + 1).join('');
    let cut = Math.max(head.lastIndexOf(', '), head.lastIndexOf('; '));
    cut = cut > 0 && cut + 1 <= room ? cut + 1 : head.lastIndexOf(' ', room);
    if (cut <= 0) cut = room;
    lines.push(prefix + rest.slice(0, cut).trimEnd());
    rest = rest.slice(cut).trimStart();
    prefix = indent;
  }
  lines.push(fitLine(prefix + rest, Math.max(columns, 1)));
  return lines;
}

const unitKey = (unit: UnitRef): string => `${unit.experiment}\u0000${unit.policy}\u0000${unit.trial}`;
const unitLabel = (unit: UnitRef): string => `${unit.experiment}/${unit.policy} trial ${unit.trial}`;

function planLines(plan: RunPlan): string[] {
  const lines: string[] = [];
  let pending = 0;
  let finished = 0;
  for (const e of plan.experiments) {
    lines.push(describeResolved(e.resolved));
    if (e.resumed) lines.push(`${e.resolved.config.name}: resuming ${e.dir}: ${e.finished.length} of ${e.finished.length + e.pending.length} units already finished`);
    pending += e.pending.length;
    finished += e.finished.length;
  }
  const where = plan.lockStep ? "in this process, each trial's policies in lock-step" : plan.jobs === 1 ? 'in this process' : `on ${plan.jobs} worker threads`;
  lines.push(`running ${pending} unit${pending === 1 ? '' : 's'} (policy × trial) ${where}${finished > 0 ? `, ${finished} skipped as finished` : ''}`);
  return lines;
}

function unitLine(unit: UnitRef, summary: TrialSummary): string {
  return `${unitLabel(unit)}: final regret ${formatShort(summary.finalRegret)}, ${formatShort(summary.meanRoundMs, 3)} ms/round`;
}

/** A running unit's progress report: rounds done at performance.now() = `ms`. */
export interface RoundSample {
  ms: number;
  rounds: number;
}

interface RunningUnit {
  unit: UnitRef;
  rounds: number;
  /** performance.now() at its start (ms). */
  started: number;
  reports: ReportLog;
}

/** Progress reports kept per running unit (and the latest). */
const MAX_SAMPLES = 64;

/**
 * A running unit's progress reports, evenly thinned: report n is kept when n is a multiple of the
 * stride, which doubles (dropping every other kept one) when more than MAX_SAMPLES are kept; the
 * latest is always there.
 */
export class ReportLog {
  private kept: RoundSample[] = [];
  private stride = 1;
  private count = 0;
  private latest: RoundSample | null = null;

  add(sample: RoundSample): void {
    if (this.count % this.stride === 0) {
      this.kept.push(sample);
      if (this.kept.length > MAX_SAMPLES) {
        this.stride *= 2;
        this.kept = this.kept.filter((_, i) => i % 2 === 0);
      }
    }
    this.count++;
    this.latest = sample;
  }

  /** The kept reports, oldest first, ending with the latest. */
  samples(): RoundSample[] {
    const last = this.kept[this.kept.length - 1];
    return this.latest === null || last === this.latest ? [...this.kept] : [...this.kept, this.latest];
  }
}

/** The time (ms) at which `rounds` were done, interpolated between the samples around it. */
function timeAt(samples: readonly RoundSample[], rounds: number): number {
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1] as RoundSample;
    const b = samples[i] as RoundSample;
    if (b.rounds >= rounds) return b.rounds === a.rounds ? b.ms : a.ms + ((rounds - a.rounds) / (b.rounds - a.rounds)) * (b.ms - a.ms);
  }
  return (samples[samples.length - 1] as RoundSample).ms;
}

/**
 * Seconds a running unit still needs for `horizon` rounds, from its progress reports; null before it
 * has two that differ in rounds. The time per round is taken as linear in t, c(t) = c₂ + b·(t − t₂),
 * so that a policy whose cost grows with t (MNL-UCB) gets an ETA that grows with it: c₁ and c₂ are
 * the mean times per round over the first and the second half of the rounds reported (for a linear
 * c, an interval's mean is its value at the middle round, t₁ and t₂), b = (c₂ − c₁)/(t₂ − t₁), and
 * what is left is ∫_r^T c(t) dt = (T − r)·(c₂ + b·((T + r)/2 − t₂)). A falling cost (start-up, JIT
 * warm-up) is not extrapolated: b < 0 counts as 0, i.e. the recent rate c₂. The reports start with the
 * first one, after the unit's set-up (data loading) that a rate should not include.
 */
export function remainingSeconds(samples: readonly RoundSample[], horizon: number): number | null {
  const first = samples[0];
  const last = samples[samples.length - 1];
  if (first === undefined || last === undefined || last.rounds <= first.rounds) return null;
  const middle = (first.rounds + last.rounds) / 2;
  const tMiddle = timeAt(samples, middle);
  const c1 = (tMiddle - first.ms) / (middle - first.rounds);
  const c2 = (last.ms - tMiddle) / (last.rounds - middle);
  const t1 = (first.rounds + middle) / 2;
  const t2 = (middle + last.rounds) / 2;
  const slope = Math.max(0, (c2 - c1) / (t2 - t1));
  const left = Math.max(0, horizon - last.rounds);
  return (left * (c2 + slope * ((horizon + last.rounds) / 2 - t2))) / 1000;
}

/**
 * The units that run together: a trial's units in a lock-step run (one thread plays them round by
 * round), else each unit alone.
 */
const laneKey = (unit: UnitRef, lockStep: boolean): string => (lockStep ? `${unit.experiment}\u0000${unit.trial}` : unitKey(unit));

/** Lanes of one experiment and the same policies take alike long (same T, same policies, other seeds). */
const durationKey = (units: readonly UnitRef[]): string => [units[0]?.experiment ?? '', ...units.map((u) => u.policy).sort()].join('\u0000');

/** The median of `values` (not empty). */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A lane: its units, which of them are running, when it started and when its last unit ended. */
interface Lane {
  units: UnitRef[];
  /** Units not finished (or failed) yet. */
  open: number;
  started: number | null;
  /** Its units continued from a checkpoint, and the round each continued after. */
  resumed: Map<string, number>;
}

/** The rounds a lane plays, of its horizon: from its units' earliest checkpoint (all of them without one). */
function laneShare(lane: Lane): number {
  const horizon = lane.units[0]?.horizon ?? 0;
  const from = lane.units.every((u) => lane.resumed.has(unitKey(u))) ? Math.min(...lane.units.map((u) => lane.resumed.get(unitKey(u)) as number)) : 0;
  return horizon > 0 ? Math.max(0, horizon - from) / horizon : 1;
}

/**
 * The counts of one run (one plan): units and rounds done, what is running, and from these the
 * rate and the ETA of the whole run (remainingRunSeconds). The round rates it measures (eta.ts
 * RateMeter), the experiments' estimated costs and the lanes' times are kept across plans, so a
 * command that runs several (a grid of each experiment, a reproduction's stages) estimates each run
 * from the ones before.
 */
export class Tally {
  units = 0;
  unitsDone = 0;
  unitsFailed = 0;
  rounds = 0;
  /** Rounds of finished (or failed) units. */
  roundsDone = 0;
  /** Units run at once. */
  jobs = 1;
  lockStep = false;
  readonly running = new Map<string, RunningUnit>();
  /** Lanes by laneKey. */
  readonly lanes = new Map<string, Lane>();
  /** Seconds each finished lane took, by durationKey. */
  readonly durations = new Map<string, number[]>();
  /**
   * The experiments of this command by their folder (a plan's `dir`), not their name: names repeat
   * across a command's runs (each grid's point names, a reproduction's stages) for other settings.
   * The current plan's names → folders.
   */
  private readonly folders = new Map<string, string>();
  /** c(e, label) measured so far in this command (eta.ts), e the experiment's folder. */
  readonly rates = new RoundRates();
  private readonly meter = new RateMeter(this.rates, (u) => this.folderOf(u.experiment));
  /** The experiments planned so far, by folder (their labels' estimated operations; RunShape.experiment is the folder). */
  readonly shapes = new Map<string, RunShape>();
  /** Finished lanes' seconds and operations. */
  private readonly laneCosts: MeasuredCost[] = [];
  started: number | null = null;
  /** Rounds the units continued from checkpoints had played before (this run). */
  resumedRounds = 0;
  /** Seconds of the work after this run (RunEvents.onLaterWork), kept across plans; null: unknown; undefined: none announced. */
  later: number | null | undefined = undefined;
  /** The work after this run by its units (ProgressReporter.laterWork), estimated at the rates measured; replaces `later` when set. */
  laterUnits: readonly LaterUnits[] | null | undefined = undefined;
  /** What the later work is, as the ETA names it (`later stages`). */
  laterWhat = 'stages';

  plan(plan: RunPlan): void {
    const pending = plan.experiments.flatMap((e) => e.pending);
    this.units = pending.length;
    this.rounds = pending.reduce((n, u) => n + u.horizon, 0);
    this.unitsDone = this.unitsFailed = this.roundsDone = 0;
    this.jobs = plan.jobs;
    this.lockStep = plan.lockStep;
    this.meter.plan(plan.lockStep);
    this.folders.clear();
    for (const e of plan.experiments) {
      for (const unit of [...e.pending, ...e.finished]) this.folders.set(unit.experiment, e.dir);
      try {
        this.shapes.set(e.dir, { ...runShape(e.resolved), experiment: e.dir });
      } catch {
        // No cost model for it (an experiment the plan does not resolve): its lanes wait for a measure.
      }
    }
    this.running.clear();
    this.lanes.clear();
    for (const unit of pending) {
      const key = laneKey(unit, this.lockStep);
      const lane: Lane = this.lanes.get(key) ?? { units: [], open: 0, started: null, resumed: new Map() };
      lane.units.push(unit);
      lane.open++;
      this.lanes.set(key, lane);
    }
    this.durations.clear();
    this.started = null;
    this.resumedRounds = 0;
  }

  private lane(unit: UnitRef): Lane {
    const key = laneKey(unit, this.lockStep);
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      // A unit the plan did not announce (a test's events): a lane of its own.
      lane = { units: [unit], open: 1, started: null, resumed: new Map() };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  start(unit: UnitRef, now: number): void {
    this.started ??= now;
    const lane = this.lane(unit);
    lane.started ??= now;
    this.meter.start(unit, now);
    this.running.set(unitKey(unit), { unit, rounds: 0, started: now, reports: new ReportLog() });
  }

  /** `unit` continued from its checkpoint after `rounds` rounds: its time from now on covers the rest. */
  resumed(unit: UnitRef, rounds: number, now: number): void {
    if (!this.running.has(unitKey(unit))) this.start(unit, now);
    this.meter.resumed(unit, rounds);
    this.lane(unit).resumed.set(unitKey(unit), rounds);
    this.resumedRounds += rounds;
    (this.running.get(unitKey(unit)) as RunningUnit).rounds = rounds;
  }

  progress(unit: UnitRef, rounds: number, now: number): void {
    const running = this.running.get(unitKey(unit));
    if (running === undefined) this.start(unit, now);
    const r = this.running.get(unitKey(unit)) as RunningUnit;
    r.rounds = rounds;
    r.reports.add({ ms: now, rounds });
  }

  /** A unit ended at `now`; `meanRoundMs`, its own time a round (TrialSummary), splits a lock-step trial's time (eta.ts). */
  finish(unit: UnitRef, failed: boolean, now: number, meanRoundMs = NaN): void {
    this.running.delete(unitKey(unit));
    this.roundsDone += unit.horizon;
    if (failed) {
      this.unitsFailed++;
      this.meter.failed(unit, now);
    } else {
      this.unitsDone++;
      this.meter.done(unit, meanRoundMs, now);
    }
    const lane = this.lane(unit);
    lane.open--;
    if (lane.open === 0 && !failed && lane.started !== null && laneShare(lane) > 0) {
      const key = durationKey(lane.units);
      // As long as the whole lane would take (it may have played only the rounds after a checkpoint).
      const seconds = (now - lane.started) / 1000 / laneShare(lane);
      this.durations.set(key, [...(this.durations.get(key) ?? []), seconds]);
      this.laneCosts.push({ seconds, flops: this.laneFlops(lane) });
    }
  }

  /** A running unit's seconds left (remainingSeconds); in lock-step, its whole trial's. */
  unitSeconds(r: RunningUnit): number | null {
    return remainingSeconds(r.reports.samples(), r.unit.horizon);
  }

  /** The folder of the current plan's experiment `name` (the name itself for one it did not announce). */
  private folderOf(name: string): string {
    return this.folders.get(name) ?? name;
  }

  /** A lane's estimated operations (eta.ts RunShape), NaN when an experiment has no cost model. */
  private laneFlops(lane: Lane): number {
    return lane.units.reduce((sum, u) => sum + (this.shapes.get(this.folderOf(u.experiment))?.labels.find((l) => l.label === u.policy)?.totalFlops ?? NaN), 0);
  }

  /**
   * Seconds a whole lane takes, before its own rounds tell: the median of the lanes of its experiment
   * and policies (finished, or running: elapsed plus estimate; the median, as a first lane's JIT warm-up
   * or a lane slowed by other work says little of the rest); else the sum of its units' times at
   * the round rates measured in its experiment (eta.ts ownUnitSeconds); else scaled by operations from
   * the lane measured nearest to it in operations (`costs`: finished lanes and running ones' projections,
   * eta.ts scaledFromNearest); null when none of these is known.
   */
  private laneSeconds(lane: Lane, durations: ReadonlyMap<string, number[]>, costs: readonly MeasuredCost[]): number | null {
    const group = durations.get(durationKey(lane.units));
    if (group !== undefined) return median(group);
    const units = lane.units.map((u) => {
      const shape = this.shapes.get(this.folderOf(u.experiment));
      return shape === undefined ? null : ownUnitSeconds(shape, u.policy, this.rates, this.shapes);
    });
    if (units.every((s) => s !== null)) return (units as number[]).reduce((a, b) => a + b, 0);
    return scaledFromNearest(costs, this.laneFlops(lane));
  }

  /**
   * Seconds the run still needs. Each running lane (a unit, or a lock-step trial, whose units all
   * report the trial's rounds and so each estimate its time) takes its units' longest estimate from
   * their own reports; a lane not started (or too new to have a rate) its laneSeconds (less its elapsed
   * time). The lanes are then laid on the threads as the pool deals them: the running ones where they
   * run, the others in the plan's order each to the thread free first; the run ends with the last
   * thread (not the work over the threads: the last units cannot be shared out). null while some lane
   * has no estimate (before the first rate).
   */
  remainingRunSeconds(now: number): number | null {
    const durations = new Map([...this.durations].map(([key, list]) => [key, [...list]]));
    const costs = [...this.laneCosts];
    const lefts: number[] = [];
    const unknown: Lane[] = [];
    for (const lane of this.lanes.values()) {
      if (lane.open === 0) continue;
      if (lane.started === null) {
        unknown.push(lane);
        continue;
      }
      const running = lane.units.map((u) => this.running.get(unitKey(u))).filter((r): r is RunningUnit => r !== undefined);
      const own = running.map((r) => this.unitSeconds(r));
      if (running.length === 0 || own.some((left) => left === null)) {
        unknown.push(lane);
        continue;
      }
      const left = Math.max(...(own as number[]));
      lefts.push(left);
      const seconds = ((now - lane.started) / 1000 + left) / Math.max(laneShare(lane), 1e-9);
      const key = durationKey(lane.units);
      durations.set(key, [...(durations.get(key) ?? []), seconds]);
      costs.push({ seconds, flops: this.laneFlops(lane) });
    }
    // Seconds from now at which each thread is free; a running lane holds one (more lanes than threads: the least busy).
    const threads: number[] = new Array<number>(Math.max(1, this.jobs)).fill(0);
    const toFreest = (seconds: number): void => {
      const i = threads.indexOf(Math.min(...threads));
      threads[i] = (threads[i] as number) + seconds;
    };
    for (const lane of unknown.filter((l) => l.started !== null)) {
      const seconds = this.laneSeconds(lane, durations, costs);
      if (seconds === null) return null;
      lefts.push(Math.max(0, seconds * laneShare(lane) - (now - (lane.started as number)) / 1000));
    }
    for (const left of lefts) toFreest(left);
    for (const lane of unknown.filter((l) => l.started === null)) {
      const seconds = this.laneSeconds(lane, durations, costs);
      if (seconds === null) return null;
      toFreest(seconds);
    }
    return Math.max(...threads);
  }

  roundsNow(): number {
    let rounds = this.roundsDone;
    for (const r of this.running.values()) rounds += r.rounds;
    return rounds;
  }

  /** Rounds per second since the first unit started (those played before a checkpoint not counted), or null before any round. */
  rate(now: number): number | null {
    const seconds = this.started === null ? 0 : (now - this.started) / 1000;
    const rounds = this.roundsNow() - this.resumedRounds;
    return seconds > 0 && rounds > 0 ? rounds / seconds : null;
  }

  /**
   * Seconds of the work after this run: as announced (`later`), or from `laterUnits`: each label's
   * units at eta.ts unitSeconds (measured, else scaled from the nearest measured relative), spread
   * over the threads; null while unknown, undefined when there is none.
   */
  laterSeconds(): number | null | undefined {
    if (this.laterUnits === undefined || this.laterUnits === null) return this.laterUnits === null ? null : this.later;
    const shapes = new Map(this.shapes);
    for (const work of this.laterUnits) shapes.set(work.shape.experiment, work.shape);
    let seconds = 0;
    for (const work of this.laterUnits) {
      const unit = unitSeconds(work.shape, work.label, this.rates, shapes);
      if (unit === null) return null;
      seconds += work.units * unit;
    }
    return seconds / Math.max(1, this.jobs);
  }

  /** The run's ETA, with the later work (formatEta). */
  eta(now: number): string {
    return formatEta(this.remainingRunSeconds(now), this.laterSeconds(), this.laterWhat);
  }

  elapsed(now: number): string {
    return this.started === null ? '0s' : formatDuration((now - this.started) / 1000);
  }
}

/** A unit failure, as every mode prints it. */
const failureLine = (message: string): string => `eofd run: ${message}`;

/** Lines mode: seconds between the lines on running units (the default of createProgress's `linesEvery`). */
export const LINES_EVERY_SECONDS = 60;

/** `linesEvery`: seconds between lines mode's lines on running units. */
export function createProgress(mode: ProgressMode, stream: ProgressStream, linesEvery: number = LINES_EVERY_SECONDS): ProgressReporter {
  const tally = new Tally();
  return recording(tally, mode === 'live' ? liveReporter(stream, tally) : linesReporter(mode, stream, linesEvery, tally));
}

/** ProgressReporter.laterWork for `tally`. */
const laterWorkOf =
  (tally: Tally) =>
  (work: readonly LaterUnits[] | null, what: string): void => {
    tally.laterUnits = work;
    tally.laterWhat = what;
  };

/** The lines and quiet modes: the tally counts in both (the progress records need it), lines prints. */
function linesReporter(mode: 'lines' | 'quiet', stream: ProgressStream, linesEvery: number, tally: Tally): ProgressReporter {
  // A small terminal still gets lines that fit it; a pipe or file gets them whole.
  const fit = (line: string): string[] => (stream.isTTY === true && stream.columns !== undefined ? wrapLine(line, stream.columns - 1) : [line]);
  const write = (line: string): void => void stream.write(fit(line).join('\n') + '\n');
  const print = mode === 'lines';
  let lastLine = performance.now();
  const events: RunEvents = {
    onPlan: (plan) => {
      if (print) planLines(plan).forEach(write);
      tally.plan(plan);
    },
    onUnitStart: (unit) => tally.start(unit, performance.now()),
    onUnitResumed: (unit, rounds) => tally.resumed(unit, rounds, performance.now()),
    onProgress: (unit, rounds) => {
      const now = performance.now();
      tally.progress(unit, rounds, now);
      if (!print || now - lastLine < linesEvery * 1000) return;
      lastLine = now;
      const oldest = [...tally.running.values()].sort((a, b) => a.started - b.started);
      const r = oldest[0] as RunningUnit;
      const left = tally.unitSeconds(r);
      const more = oldest.length > 1 ? `; ${oldest.length - 1} more running` : '';
      write(
        `[${tally.unitsDone + tally.unitsFailed}/${tally.units}, ETA ${tally.eta(now)}] ${unitLabel(r.unit)}: ` +
          `${r.rounds}/${r.unit.horizon} rounds, ETA ${left === null ? '–' : formatDuration(left)}${more}`,
      );
    },
    onUnitDone: (unit, summary) => {
      tally.finish(unit, false, performance.now(), summary.meanRoundMs);
      if (!print) return;
      const eta = tally.unitsDone + tally.unitsFailed < tally.units ? `, ETA ${tally.eta(performance.now())}` : '';
      write(`[${tally.unitsDone + tally.unitsFailed}/${tally.units}${eta}] ${unitLine(unit, summary)}`);
    },
    onUnitFailed: (unit, message) => {
      tally.finish(unit, true, performance.now());
      write(failureLine(message));
    },
    onLaterWork: (seconds) => {
      tally.later = seconds;
    },
  };
  return { events, log: write, stop: () => undefined, laterWork: laterWorkOf(tally) };
}

/**
 * `reporter` with each planned experiment's progress record (results/progress-record.ts) written from
 * `tally` as its units start, play and end, at most every PROGRESS_RECORD_EVERY_MS (a grid of many
 * short units writes no more often); removed at stop (the command's runs are over). Only into an experiment folder that exists (the runner makes it before its
 * units start); a record that cannot be written is skipped: it only informs `eofd status`.
 */
function recording(tally: Tally, reporter: ProgressReporter): ProgressReporter {
  const inner = reporter.events;
  /** Experiment name → its folder, for the runs planned so far. */
  const dirs = new Map<string, string>();
  /** Every folder a record was written for (a reproduction's stages run experiments of the same names). */
  const written = new Set<string>();
  const dirty = new Set<string>();
  let last = -Infinity;
  const host = os.hostname();
  const write = (experiment: string, now: number): void => {
    const dir = dirs.get(experiment);
    if (dir === undefined || !fs.existsSync(dir)) return;
    const run = tally.remainingRunSeconds(now);
    const record: ProgressRecord = {
      format: PROGRESS_RECORD_FORMAT,
      pid: process.pid,
      host,
      written_ms: Date.now(),
      running: [...tally.running.values()].filter((r) => r.unit.experiment === experiment).map((r) => ({ policy: r.unit.policy, trial: r.unit.trial, rounds: r.rounds })),
      eta: run === null ? null : { run, later: tally.laterSeconds() ?? 0 },
    };
    try {
      written.add(dir);
      writeProgressRecord(dir, record);
    } catch {
      // Read-only or full: status reads the CSVs alone.
    }
  };
  const touch = (experiment: string): void => {
    dirty.add(experiment);
    const now = performance.now();
    if (now - last < PROGRESS_RECORD_EVERY_MS) return;
    last = now;
    for (const name of dirty) write(name, now);
    dirty.clear();
  };
  const events: RunEvents = {
    ...inner,
    onPlan: (plan) => {
      inner.onPlan?.(plan);
      for (const e of plan.experiments) for (const unit of [...e.pending, ...e.finished]) dirs.set(unit.experiment, e.dir);
    },
    onUnitStart: (unit) => {
      inner.onUnitStart?.(unit);
      touch(unit.experiment);
    },
    onProgress: (unit, rounds) => {
      inner.onProgress?.(unit, rounds);
      touch(unit.experiment);
    },
    onUnitDone: (unit, summary) => {
      inner.onUnitDone?.(unit, summary);
      touch(unit.experiment);
    },
    onUnitFailed: (unit, message, stack) => {
      inner.onUnitFailed?.(unit, message, stack);
      touch(unit.experiment);
    },
  };
  return {
    events,
    log: reporter.log,
    laterWork: reporter.laterWork,
    stop: () => {
      reporter.stop();
      for (const dir of written) removeProgressRecord(dir);
    },
  };
}

/** A text bar of `cells` cells, `fraction` of them full. */
function bar(fraction: number, cells: number): string {
  const full = Math.max(0, Math.min(cells, Math.round(fraction * cells)));
  return '█'.repeat(full) + '░'.repeat(cells - full);
}

/** The parts that fit in `columns`: `required` always, then each optional part in order while it fits. */
function fitParts(required: readonly string[], optional: readonly string[], columns: number, separator = ' · '): string {
  const parts = [...required];
  for (const part of optional) {
    if (width([...parts, part].join(separator)) <= columns) parts.push(part);
  }
  return fitLine(parts.join(separator), columns);
}

/** The live view's lines for a terminal `columns` wide and `rows` high. */
function liveLines(tally: Tally, now: number, columns: number, rows: number): string[] {
  const fraction = tally.rounds > 0 ? tally.roundsNow() / tally.rounds : 0;
  const rate = tally.rate(now);
  const units = `${tally.unitsDone + tally.unitsFailed}/${tally.units} units${tally.unitsFailed > 0 ? ` (${tally.unitsFailed} failed)` : ''}`;
  const pct = `${Math.floor(fraction * 100)}%`;
  const barCells = columns >= 70 ? 20 : columns >= 50 ? 10 : 0;
  const overall = fitParts(
    [`${pct} ${units}`, `ETA ${tally.eta(now)}`],
    [rate === null ? 'rounds/s –' : `${formatShort(rate, 3)} rounds/s`, `${tally.elapsed(now)} elapsed`],
    columns - (barCells > 0 ? barCells + 1 : 0),
  );
  const lines = [barCells > 0 ? `${bar(fraction, barCells)} ${overall}` : overall];
  const running = [...tally.running.values()].sort((a, b) => a.started - b.started);
  const room = Math.max(0, Math.min(MAX_RUNNING_LINES, rows - 3));
  const shown = running.length > room ? Math.max(0, room - 1) : running.length;
  for (const r of running.slice(0, shown)) {
    const left = tally.unitSeconds(r);
    const eta = left === null ? '–' : formatDuration(left);
    const count = `${r.rounds}/${r.unit.horizon}`.padStart(2 * String(r.unit.horizon).length + 1);
    const right = ` ${bar(r.rounds / r.unit.horizon, 10)} ${count} ETA ${eta.padEnd(6)}`;
    const rightFits = width(right) + 12 <= columns;
    lines.push(rightFits ? fitLine(`  ${unitLabel(r.unit)}`, columns - width(right)).padEnd(columns - width(right)) + right : fitLine(`  ${unitLabel(r.unit)}`, columns));
  }
  if (running.length > shown) lines.push(fitLine(`  … ${running.length - shown} more running`, columns));
  return lines;
}

/** Moves the cursor up `n` lines to the start of the first, and erases from there to the end of the screen. */
const eraseUp = (n: number): string => (n > 0 ? `\x1b[${n}A` : '') + '\r\x1b[J';

function liveReporter(stream: ProgressStream, tally: Tally): ProgressReporter {
  /** Lines drawn by the last frame (the cursor is on the line below them). */
  let height = 0;
  let active = false;
  let lastFrame = 0;
  let timer: NodeJS.Timeout | undefined;
  const columns = (): number => Math.max(1, (stream.columns ?? 80) - 1);
  const frame = (): string => {
    const lines = liveLines(tally, performance.now(), columns(), stream.rows ?? LIVE_MIN.rows);
    const text = eraseUp(height) + lines.join('\n') + '\n';
    height = lines.length;
    return text;
  };
  const draw = (force: boolean): void => {
    const now = performance.now();
    // In-process runs block the timer: events redraw too, at most 10 times a second.
    if (!active || (!force && now - lastFrame < 100)) return;
    lastFrame = now;
    stream.write(frame());
  };
  const log = (line: string): void => {
    const text = wrapLine(line, columns()).join('\n') + '\n';
    if (!active) {
      stream.write(text);
      return;
    }
    stream.write(eraseUp(height) + text);
    height = 0;
    draw(true);
  };
  const events: RunEvents = {
    onPlan: (plan) => {
      planLines(plan).forEach(log);
      tally.plan(plan);
      active = true;
      timer ??= setInterval(() => draw(true), 500).unref();
      draw(true);
    },
    onUnitStart: (unit) => {
      tally.start(unit, performance.now());
      draw(false);
    },
    onUnitResumed: (unit, rounds) => {
      tally.resumed(unit, rounds, performance.now());
      draw(false);
    },
    onProgress: (unit, rounds) => {
      tally.progress(unit, rounds, performance.now());
      draw(false);
    },
    onUnitDone: (unit, summary) => {
      tally.finish(unit, false, performance.now(), summary.meanRoundMs);
      draw(false);
    },
    onUnitFailed: (unit, message) => {
      tally.finish(unit, true, performance.now());
      log(failureLine(message));
    },
    onLaterWork: (seconds) => {
      tally.later = seconds;
    },
  };
  return {
    events,
    log,
    laterWork: laterWorkOf(tally),
    stop: () => {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      if (!active) return;
      active = false;
      stream.write(eraseUp(height));
      height = 0;
    },
  };
}
