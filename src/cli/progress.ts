/**
 * What a run shows while it works, on stderr: cli-progress bars on a terminal (one per experiment and
 * policy, rounds/s and ETA), one line per finished unit otherwise, nothing with --quiet. Unit failures
 * are printed in every mode: they are errors, not progress.
 */
import { MultiBar, type SingleBar } from 'cli-progress';
import type { RunEvents, RunPlan, UnitRef } from '../experiment/runner.js';
import type { ResolvedExperiment } from '../experiment/setup.js';
import { formatShort } from '../report/format.js';
import type { TrialSummary } from '../results/records.js';

export type ProgressMode = 'bars' | 'lines' | 'quiet';

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressReporter {
  readonly events: RunEvents;
  /** Prints a line (above the bars while they show). */
  log(line: string): void;
  /** Removes the bars; later output goes straight to the stream. */
  stop(): void;
}

/** Bars on a TTY, lines otherwise, nothing when quiet. */
export function progressMode(stream: ProgressStream, quiet: boolean): ProgressMode {
  if (quiet) return 'quiet';
  return stream.isTTY === true ? 'bars' : 'lines';
}

/** One line with the setting and every derived value, e.g. for stderr at the start of a run. */
export function describeResolved(experiment: ResolvedExperiment): string {
  const { config, environment: env, derived: v } = experiment;
  const beta = typeof v.beta === 'number' ? formatShort(v.beta) : v.beta;
  return (
    `${config.name}: ${env.type}, d = ${env.d}, K = ${env.K}, T = ${config.horizon}, ${config.trials} trial${config.trials === 1 ? '' : 's'}, ` +
    `policies ${config.policies.join(', ')}; S = ${formatShort(v.S)}, D = ${formatShort(v.D)}, α = ${formatShort(v.alpha)}, ` +
    `λ0 = ${formatShort(v.lambda0)}, η0 = ${formatShort(v.eta0)}, l = ${v.l ?? '–'}, e = ${v.e ?? '–'}, λ = ${formatShort(v.lambda)}, ` +
    `η = ${formatShort(v.eta)}, m = ${v.m}, δ = ${formatShort(v.delta)}, β = ${beta} × ${formatShort(v.beta_scale)}` +
    (v.beta_rank === 'full' ? ' (rank Kd)' : '') +
    Object.entries(v.policies ?? {})
      .map(([policy, p]) => `; ${policy}: l = ${p.l}, e = ${p.e}, λ = ${formatShort(p.lambda)}, η = ${formatShort(p.eta)}`)
      .join('')
  );
}

const unitKey = (unit: UnitRef): string => `${unit.experiment}\u0000${unit.policy}\u0000${unit.trial}`;
const barKey = (unit: UnitRef): string => `${unit.experiment}\u0000${unit.policy}`;

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
  const where = plan.jobs === 1 ? 'in this process' : `on ${plan.jobs} worker threads`;
  lines.push(`running ${pending} unit${pending === 1 ? '' : 's'} (policy × trial) ${where}${finished > 0 ? `, ${finished} skipped as finished` : ''}`);
  return lines;
}

function unitLine(unit: UnitRef, summary: TrialSummary): string {
  return (
    `${unit.experiment}/${unit.policy} trial ${unit.trial}: final regret ${formatShort(summary.finalRegret)}, ` +
    `${formatShort(summary.meanRoundMs, 3)} ms/round`
  );
}

export function createProgress(mode: ProgressMode, stream: ProgressStream): ProgressReporter {
  if (mode === 'bars') return barsReporter(stream);
  const write = (line: string): void => void stream.write(line + '\n');
  let total = 0;
  let done = 0;
  const events: RunEvents = {
    onUnitFailed: (_unit, message) => write(`eofd run: ${message}`),
  };
  if (mode === 'lines') {
    events.onPlan = (plan) => {
      planLines(plan).forEach(write);
      total = plan.experiments.reduce((n, e) => n + e.pending.length, 0);
    };
    events.onUnitDone = (unit, summary) => {
      done++;
      write(`[${done}/${total}] ${unitLine(unit, summary)}`);
    };
  }
  return { events, log: write, stop: () => undefined };
}

/** "42s", "3m05s", "2h07m". */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

interface BarState {
  bar: SingleBar;
  /** Rounds of finished units (earlier runs' included). */
  base: number;
  /** Rounds done by running units. */
  running: Map<string, number>;
  /** Value when this run started the bar's first unit, and when (performance.now(), ms). */
  startValue: number;
  startTime: number | null;
}

function barsReporter(stream: ProgressStream): ProgressReporter {
  const bars = new MultiBar({
    stream: stream as NodeJS.WritableStream,
    format: ' {label} |{bar}| {percentage}% | {value}/{total} rounds | {speed} rounds/s | ETA {remaining}',
    barsize: 24,
    hideCursor: true,
    clearOnComplete: false,
    stopOnComplete: false,
    gracefulExit: false,
    autopadding: true,
    fps: 10,
  });
  const states = new Map<string, BarState>();
  let active = false;
  let lastRender = 0;
  const write = (line: string): void => {
    if (active) bars.log(line + '\n');
    else stream.write(line + '\n');
  };
  const refresh = (key: string): void => {
    const state = states.get(key);
    if (state === undefined) return;
    let value = state.base;
    for (const rounds of state.running.values()) value += rounds;
    const now = performance.now();
    const seconds = state.startTime === null ? 0 : (now - state.startTime) / 1000;
    const rate = seconds > 0 ? (value - state.startValue) / seconds : 0;
    const total = state.bar.getTotal();
    const eta = value >= total ? '0s' : rate > 0 ? formatDuration((total - value) / rate) : '–';
    state.bar.update(value, { speed: rate > 0 ? formatShort(rate, 3) : '–', remaining: eta });
    // In-process runs block the timer that redraws the bars: redraw from here, at most 10 times a second.
    if (now - lastRender >= 100) {
      lastRender = now;
      bars.update();
    }
  };
  const events: RunEvents = {
    onPlan: (plan) => {
      planLines(plan).forEach((line) => stream.write(line + '\n'));
      const labels = plan.experiments.flatMap((e) => e.resolved.config.policies.map((p) => `${e.resolved.config.name} ${p}`));
      const width = Math.max(0, ...labels.map((l) => l.length));
      for (const e of plan.experiments) {
        const { config } = e.resolved;
        for (const policy of config.policies) {
          const finished = e.finished.filter((u) => u.policy === policy).length * config.horizon;
          const bar = bars.create(config.trials * config.horizon, finished, { label: `${config.name} ${policy}`.padEnd(width), speed: '–', remaining: '–' });
          states.set(`${config.name}\u0000${policy}`, { bar, base: finished, running: new Map(), startValue: finished, startTime: null });
        }
      }
      active = true;
    },
    onUnitStart: (unit) => {
      const state = states.get(barKey(unit));
      if (state !== undefined) state.startTime ??= performance.now();
    },
    onProgress: (unit, rounds) => {
      states.get(barKey(unit))?.running.set(unitKey(unit), rounds);
      refresh(barKey(unit));
    },
    onUnitDone: (unit) => {
      const state = states.get(barKey(unit));
      if (state === undefined) return;
      state.running.delete(unitKey(unit));
      state.base += unit.horizon;
      refresh(barKey(unit));
    },
    onUnitFailed: (unit, message) => {
      states.get(barKey(unit))?.running.delete(unitKey(unit));
      write(`eofd run: ${message}`);
    },
  };
  return {
    events,
    log: write,
    stop: () => {
      if (!active) return;
      active = false;
      bars.update();
      bars.stop();
    },
  };
}
