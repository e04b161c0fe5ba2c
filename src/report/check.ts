/**
 * The CI regression check (`eofd report --check <baseline-dir> <results-dir>...`): compares what a run
 * wrote with a committed baseline, `<baseline-dir>/baseline.json`, which `scripts/update-baselines`
 * extracts from a run of `<baseline-dir>/configs.yaml`.
 *
 * Per experiment (setting) and policy, the baseline holds the mean over trials of the cumulative
 * regret at 20 evenly spaced checkpoints t_j = round(j·T/20), j = 1..20 (so t_20 = T); for a trace
 * experiment it also holds every trial's decisions (the `action` column), which must match exactly.
 * Timing columns are never compared. A setting, policy or trial of the baseline that the results lack
 * is a regression as well; experiments in the results that the baseline does not know are ignored.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { describeFsError, errnoCode } from '../base/errors.js';
import { ResultsError, readResults, type ExperimentData } from '../results/read.js';

export { readResults } from '../results/read.js';

/** Version of the baseline.json layout. */
export const BASELINE_FORMAT = 'eofd-baseline/1';
export const BASELINE_FILE = 'baseline.json';
/** Checkpoints per curve. */
export const CHECKPOINTS = 20;

/**
 * Tolerance of the curve comparison: |got − expected| ≤ RELATIVE_TOLERANCE · max(|expected|, |got|)
 * + ABSOLUTE_TOLERANCE.
 *
 * Why so tight: a run is deterministic. Every trial is seeded from (experiment name, trial, seed),
 * independent of --jobs; the policies use plain IEEE-754 double arithmetic in a fixed order (V8 does
 * not fuse or reassociate floating-point operations, and its Math.exp/log are its own fdlibm port, not
 * the platform's libm), and the CSVs store regrets with round-trip precision (String(x)). So on the same
 * Node major the curves are reproduced bit for bit, and any difference means the code changed.
 * Relative 1e-9 still leaves room for harmless rounding-level drift (a re-ordered sum in the linear
 * algebra changes the last bits, ≈1e-16 relative per operation, ≈1e-13 after hundreds of rounds) as long as
 * no decision changes, while a single changed decision moves the cumulative regret by the gap between two
 * actions' expected rewards, which is many orders of magnitude larger. The absolute 1e-12 only keeps the
 * test meaningful at checkpoints where the regret is exactly or nearly 0.
 */
export const RELATIVE_TOLERANCE = 1e-9;
export const ABSOLUTE_TOLERANCE = 1e-12;

export interface BaselinePolicy {
  policy: string;
  /** Mean cumulative regret at each checkpoint (same order as `checkpoints`). */
  meanCumRegret: number[];
  /** Trace experiments only: actions[trial][t − 1]. */
  actions?: number[][];
}

export interface BaselineSetting {
  /** The experiment name (output folder). */
  name: string;
  environment: string;
  K: number;
  d: number;
  horizon: number;
  trials: number;
  checkpoints: number[];
  policies: BaselinePolicy[];
}

export interface Baseline {
  format: typeof BASELINE_FORMAT;
  tolerance: { relative: number; absolute: number };
  settings: BaselineSetting[];
}

/** One row of the diff table. */
export interface Regression {
  setting: string;
  policy: string;
  /** Checkpoint t, or a description of what was compared (e.g. `trial 1, t = 17`). */
  at: string;
  expected: string;
  got: string;
}

/** t_j = round(j·T/20), j = 1..20, deduplicated (T < 20 gives fewer), always ending at T. */
export function checkpoints(horizon: number, count = CHECKPOINTS): number[] {
  const out: number[] = [];
  for (let j = 1; j <= count; j++) {
    const t = Math.max(1, Math.round((j * horizon) / count));
    if (out[out.length - 1] !== t) out.push(t);
  }
  return out;
}

/** The `action` column of `<experiment>/<policy>/trial-<i>.csv`, round by round. */
export function readActions(experimentDir: string, policy: string, trial: number): number[] {
  const file = path.join(experimentDir, policy, `trial-${trial}.csv`);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new ResultsError(`${file}: not found`);
  }
  const rows = parse(text, { columns: true, skip_empty_lines: true }) as Record<string, string>[];
  return rows.map((row, i) => {
    const action = Number(row.action);
    if (!Number.isInteger(action)) throw new ResultsError(`${file}:${i + 2}: action: expected an integer, got ${JSON.stringify(row.action)}`);
    return action;
  });
}

function meanCurve(experiment: ExperimentData, policy: string, at: readonly number[]): number[] {
  const series = experiment.trials.filter((s) => s.policy === policy);
  return at.map((t) => {
    let sum = 0;
    for (const s of series) sum += s.cumRegret[t - 1] as number;
    return sum / series.length;
  });
}

/** The baseline of validated results (what scripts/update-baselines writes). */
export function extractBaseline(experiments: readonly ExperimentData[]): Baseline {
  return {
    format: BASELINE_FORMAT,
    tolerance: { relative: RELATIVE_TOLERANCE, absolute: ABSOLUTE_TOLERANCE },
    settings: experiments.map((e) => {
      const at = checkpoints(e.setting.horizon);
      return {
        name: e.name,
        environment: e.setting.environment,
        K: e.setting.K,
        d: e.setting.d,
        horizon: e.setting.horizon,
        trials: e.setting.trials,
        checkpoints: at,
        policies: e.setting.policies.map((policy) => ({
          policy,
          meanCumRegret: meanCurve(e, policy, at),
          ...(e.setting.environment === 'trace'
            ? { actions: Array.from({ length: e.setting.trials }, (_, trial) => readActions(e.dir, policy, trial)) }
            : {}),
        })),
      };
    }),
  };
}

/** Writes `<dir>/baseline.json` (curves one per line, decisions as compact arrays). */
export function writeBaseline(dir: string, baseline: Baseline): string {
  const file = path.join(dir, BASELINE_FILE);
  fs.mkdirSync(dir, { recursive: true });
  const text = JSON.stringify(baseline, null, 2).replace(/\[\s*([-\d.e+,\s]*?)\s*\]/g, (_m, inner: string) => `[${inner.replace(/\s+/g, '')}]`);
  fs.writeFileSync(file, text + '\n');
  return file;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads and checks the shape of `<dir>/baseline.json`; a defect is a ResultsError (exit 2). */
export function readBaseline(dir: string): Baseline {
  const file = path.join(dir, BASELINE_FILE);
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ResultsError(`${file}: ${errnoCode(err) === 'ENOENT' ? 'not found (run scripts/update-baselines)' : `cannot read: ${describeFsError(err)}`}`);
  }
  const bad = (field: string, what: string): never => {
    throw new ResultsError(`${file}: ${field}: expected ${what}`);
  };
  if (!isObject(json) || json.format !== BASELINE_FORMAT) bad('format', JSON.stringify(BASELINE_FORMAT));
  const settings = (json as Record<string, unknown>).settings;
  // A baseline that compares nothing would pass every run.
  if (!Array.isArray(settings) || settings.length === 0) bad('settings', 'a non-empty list');
  (settings as unknown[]).forEach((s, i) => {
    const field = `settings[${i}]`;
    if (!isObject(s) || typeof s.name !== 'string' || !Number.isInteger(s.horizon) || !Number.isInteger(s.trials)) {
      bad(field, 'an object with name, horizon and trials');
    }
    const setting = s as Record<string, unknown>;
    if (!Array.isArray(setting.checkpoints) || !setting.checkpoints.every((t) => Number.isInteger(t) && t >= 1 && t <= (setting.horizon as number))) {
      bad(`${field}.checkpoints`, 'a list of rounds within the horizon');
    }
    if (!Array.isArray(setting.policies) || setting.policies.length === 0) bad(`${field}.policies`, 'a non-empty list');
    if (!Array.isArray(setting.checkpoints) || setting.checkpoints.length === 0) bad(`${field}.checkpoints`, 'a non-empty list');
    (setting.policies as unknown[]).forEach((p, j) => {
      const pf = `${field}.policies[${j}]`;
      if (!isObject(p) || typeof p.policy !== 'string') bad(pf, 'an object with a policy name');
      const policy = p as Record<string, unknown>;
      const curve = policy.meanCumRegret;
      if (!Array.isArray(curve) || curve.length !== (setting.checkpoints as unknown[]).length || !curve.every((v) => typeof v === 'number' && Number.isFinite(v))) {
        bad(`${pf}.meanCumRegret`, 'one finite number per checkpoint');
      }
      if (policy.actions !== undefined) {
        const actions = policy.actions;
        if (!Array.isArray(actions) || !actions.every((a) => Array.isArray(a) && a.every((x) => Number.isInteger(x)))) {
          bad(`${pf}.actions`, 'a list of integer lists (one per trial)');
        }
      }
    });
  });
  return json as Baseline;
}

/** Within the curve tolerance? */
export function withinTolerance(expected: number, got: number): boolean {
  return Math.abs(got - expected) <= RELATIVE_TOLERANCE * Math.max(Math.abs(expected), Math.abs(got)) + ABSOLUTE_TOLERANCE;
}

/** Every regression of `experiments` against `baseline` (empty: the check passes). */
export function compareWithBaseline(baseline: Baseline, experiments: readonly ExperimentData[]): Regression[] {
  const regressions: Regression[] = [];
  const byName = new Map(experiments.map((e) => [e.name, e]));
  for (const setting of baseline.settings) {
    const push = (policy: string, at: string, expected: string, got: string): void =>
      void regressions.push({ setting: setting.name, policy, at, expected, got });
    const experiment = byName.get(setting.name);
    if (experiment === undefined) {
      push('-', '-', 'setting present', 'missing');
      continue;
    }
    const shape: [string, number | string, number | string][] = [
      ['environment', setting.environment, experiment.setting.environment],
      ['K', setting.K, experiment.setting.K],
      ['d', setting.d, experiment.setting.d],
      ['horizon', setting.horizon, experiment.setting.horizon],
      ['trials', setting.trials, experiment.setting.trials],
    ];
    const mismatched = shape.filter(([, e, g]) => e !== g);
    if (mismatched.length > 0) {
      for (const [field, e, g] of mismatched) push('-', field, String(e), String(g));
      continue;
    }
    for (const expected of setting.policies) {
      if (!experiment.setting.policies.includes(expected.policy)) {
        push(expected.policy, '-', 'policy present', 'missing');
        continue;
      }
      const got = meanCurve(experiment, expected.policy, setting.checkpoints);
      setting.checkpoints.forEach((t, j) => {
        const e = expected.meanCumRegret[j] as number;
        const g = got[j] as number;
        if (!withinTolerance(e, g)) push(expected.policy, `t = ${t}`, String(e), String(g));
      });
      if (expected.actions !== undefined) {
        expected.actions.forEach((want, trial) => {
          const have = readActions(experiment.dir, expected.policy, trial);
          const differing: number[] = [];
          for (let i = 0; i < Math.max(want.length, have.length); i++) if (want[i] !== have[i]) differing.push(i);
          if (differing.length === 0) return;
          const i = differing[0] as number;
          const more = differing.length > 1 ? ` (+${differing.length - 1} more rounds differ)` : '';
          push(expected.policy, `trial ${trial}, t = ${i + 1}: action`, String(want[i] ?? 'none'), `${have[i] ?? 'none'}${more}`);
        });
      }
    }
  }
  return regressions;
}

/** The diff table: setting | policy | checkpoint t | expected | got, aligned. */
export function formatRegressions(regressions: readonly Regression[]): string {
  const header = ['setting', 'policy', 'checkpoint t', 'expected', 'got'];
  const rows = regressions.map((r) => [r.setting, r.policy, r.at, r.expected, r.got]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i] as number)).join('  ').trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n') + '\n';
}

export interface CheckResult {
  regressions: Regression[];
  settings: number;
  policies: number;
  /** Exit code: 0 no regression, 3 regressions. */
  exitCode: 0 | 3;
}

/** Reads the baseline and the results and compares them (ResultsError on unreadable input). */
export function checkAgainstBaseline(baselineDir: string, resultDirs: readonly string[]): CheckResult {
  const baseline = readBaseline(baselineDir);
  const experiments = readResults(resultDirs);
  const regressions = compareWithBaseline(baseline, experiments);
  return {
    regressions,
    settings: baseline.settings.length,
    policies: baseline.settings.reduce((n, s) => n + s.policies.length, 0),
    exitCode: regressions.length === 0 ? 0 : 3,
  };
}
