/**
 * Writes small results folders in the layout `eofd run` produces (DESIGN §4), with numbers chosen so
 * every summary can be checked by hand. In trial i of a policy the regret is the same every round,
 * final/T, so cum_regret_t = final·t/T and the select/update times are constant. The manifest records
 * one run timed with `jobs` units at once (default 1; null: no timing block, as before timing was kept).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UNIT_SUMMARY_FORMAT } from '../../src/results/unit.js';

export interface FixturePolicy {
  name: string;
  /** Final regret per trial. */
  finals: number[];
  /** Per-round select time (ms) per trial. */
  selectMs: number[];
  /** Per-round update time (ms) per trial. */
  updateMs: number[];
  stateBytes: number;
  sketchError: number[];
  projections: number[];
  /** ‖W_T − W*‖_F per trial; null writes empty cells. */
  parameterError: number[] | null;
  /** Δ_T and β_T per trial; absent writes empty cells (Random). */
  deltaT?: number[];
  betaT?: number[];
  /** Round t plays action (t + actionShift) mod 7 (default: the policy's index, so that no two decide alike). */
  actionShift?: number;
}

export interface FixtureExperiment {
  name: string;
  environment: { type: string; d: number; K: number };
  horizon: number;
  policies: FixturePolicy[];
  /** Units timed at once, for the manifest's `timing` (default 1); null leaves `timing` out. */
  jobs?: number | null;
  /** The manifest's config.variants (label → {policy, params?}); absent by default. */
  variants?: Record<string, { policy: string; params?: Record<string, unknown> }>;
}

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-report-'));
}

/** The manifest's `timing`: one run with `jobs` units at once and a light load; {} when jobs is null. */
function timingBlock(jobs: number | null): { timing?: unknown } {
  if (jobs === null) return {};
  const load = [0.1, 0.1, 0.1];
  return { timing: { runs: [{ started: '2025-01-01T00:00:00.000Z', jobs, load_start: load, load_end: load }] } };
}

export const TRIAL_HEADER = 'trial,policy,t,action,outcome,reward,regret,cum_regret,select_ms,update_ms';

export function writeExperiment(dir: string, e: FixtureExperiment): string {
  const trials = e.policies[0]?.finals.length ?? 0;
  fs.mkdirSync(dir, { recursive: true });
  const manifest = {
    name: e.name,
    config: {
      environment: { ...e.environment },
      horizon: e.horizon,
      trials,
      policies: e.policies.map((p) => p.name),
      ...(e.variants === undefined ? {} : { variants: e.variants }),
    },
    derived: { lambda: 12.5, eta: 3.25, m: Math.floor((e.environment.K * e.environment.d) / 10), delta: 1 / e.horizon, beta: 'order' },
    seeds: { base: 1 },
    package: { name: 'eofd', version: '0.1.0' },
    git: 'abc1234',
    node: 'v20.19.0',
    host: { cpu: 'Test CPU', cores: 4 },
    ...timingBlock(e.jobs === undefined ? 1 : e.jobs),
  };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  const summary = [
    'policy,trial,final_regret,mean_select_ms,mean_update_ms,median_select_ms,median_update_ms,mean_round_ms,state_bytes,sketch_error,projections,parameter_error,delta_T,beta_T',
  ];
  for (const [index, p] of e.policies.entries()) {
    const shift = p.actionShift ?? index;
    fs.mkdirSync(path.join(dir, p.name), { recursive: true });
    for (let i = 0; i < trials; i++) {
      const final = p.finals[i] as number;
      const select = p.selectMs[i] as number;
      const update = p.updateMs[i] as number;
      const lines = [TRIAL_HEADER];
      for (let t = 1; t <= e.horizon; t++) {
        const cum = t === e.horizon ? final : (final * t) / e.horizon;
        lines.push(`${i},${p.name},${t},${(t + shift) % 7},${t % 2},${t % 2},${final / e.horizon},${cum},${select},${update}`);
      }
      fs.writeFileSync(path.join(dir, p.name, `trial-${i}.csv`), lines.join('\n') + '\n');
      summary.push(
        [
          p.name, i, final, select, update, select, update, select + update,
          p.stateBytes, p.sketchError[i], p.projections[i], p.parameterError === null ? '' : p.parameterError[i],
          p.deltaT?.[i] ?? '', p.betaT?.[i] ?? '',
        ].join(','),
      );
    }
  }
  fs.writeFileSync(path.join(dir, 'summary.csv'), summary.join('\n') + '\n');
  return dir;
}

/** Synthetic multinomial (d = 100, K = 4), T = 50, 3 trials. EOFD: 10% more regret, 66.7% less time. */
export const SYNTHETIC_K4: FixtureExperiment = {
  name: 'synthetic-k4',
  environment: { type: 'synthetic', d: 100, K: 4 },
  horizon: 50,
  policies: [
    {
      name: 'EOFD-MLogB',
      finals: [5, 5.5, 6], // mean 5.5, std 0.5
      selectMs: [0.2, 0.25, 0.3],
      updateMs: [0.1, 0.15, 0.2], // rounds 0.3, 0.4, 0.5: mean 0.4, std 0.1
      stateBytes: 40_000,
      sketchError: [1, 2, 3],
      projections: [0, 1, 2],
      parameterError: [0.5, 0.7, 0.9],
      deltaT: [1.1, 1.2, 1.3], // mean 1.2, std 0.1
      betaT: [4, 5, 6], // mean 5, std 1
    },
    {
      name: 'OFUL-MLogB',
      finals: [4.5, 5, 5.5], // mean 5, std 0.5
      selectMs: [0.6, 0.7, 0.8],
      updateMs: [0.4, 0.5, 0.6], // rounds 1.0, 1.2, 1.4: mean 1.2, std 0.2
      stateBytes: 1_280_000,
      sketchError: [0, 0, 0],
      projections: [1, 1, 4],
      parameterError: [0.4, 0.6, 0.8],
      deltaT: [1, 1, 1],
      betaT: [3, 3, 3],
    },
    {
      name: 'Random',
      finals: [20, 22, 24], // mean 22, std 2
      selectMs: [0.001, 0.001, 0.001],
      updateMs: [0, 0, 0],
      stateBytes: 0,
      sketchError: [0, 0, 0],
      projections: [0, 0, 0],
      parameterError: null,
    },
  ],
};

/** MNIST (d = 785, K = 1), T = 50, 3 trials. EOFD: 10% more regret but only 50% less time. */
export const MNIST: FixtureExperiment = {
  name: 'mnist',
  environment: { type: 'mnist', d: 785, K: 1 },
  horizon: 50,
  policies: [
    {
      name: 'EOFD-MLogB',
      finals: [10, 11, 12], // mean 11, std 1
      selectMs: [1, 1, 1],
      updateMs: [1, 2, 3], // rounds 2, 3, 4: mean 3, std 1
      stateBytes: 100_000,
      sketchError: [5, 5, 5],
      projections: [0, 0, 0],
      parameterError: null,
    },
    {
      name: 'OFUL-MLogB',
      finals: [9, 10, 11], // mean 10, std 1
      selectMs: [3, 3, 3],
      updateMs: [3, 3, 3], // rounds 6, 6, 6: mean 6, std 0
      stateBytes: 5_000_000,
      sketchError: [0, 0, 0],
      projections: [0, 0, 0],
      parameterError: null,
    },
    {
      name: 'Random',
      finals: [40, 45, 50],
      selectMs: [0.002, 0.002, 0.002],
      updateMs: [0, 0, 0],
      stateBytes: 0,
      sketchError: [0, 0, 0],
      projections: [0, 0, 0],
      parameterError: null,
    },
  ],
};

/** A parent folder holding both fixture experiments (`<root>/synthetic-k4`, `<root>/mnist`). */
export function writeFixtureResults(root: string = tempDir()): string {
  writeExperiment(path.join(root, 'synthetic-k4'), SYNTHETIC_K4);
  writeExperiment(path.join(root, 'mnist'), MNIST);
  return root;
}

/** Replaces line `line` (1-based) of a file by `replacement`, or removes it when null. */
export function editLine(file: string, line: number, replacement: string | null): void {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  if (replacement === null) lines.splice(line - 1, 1);
  else lines[line - 1] = replacement;
  fs.writeFileSync(file, lines.join('\n'));
}

/**
 * Turns a complete fixture experiment into a run in progress, as a crash or a running `eofd run`
 * leaves it: no summary.csv; the units in `finished` ("policy/trial") keep their CSV and get their
 * trial-<i>.summary.json (the resume marker, with the CSV's byte length); every other unit's CSV
 * becomes trial-<i>.csv.partial.
 */
export function makeInProgress(dir: string, finished: readonly string[]): void {
  const lines = fs.readFileSync(path.join(dir, 'summary.csv'), 'utf8').trim().split('\n');
  const header = (lines[0] as string).split(',');
  fs.rmSync(path.join(dir, 'summary.csv'));
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as { config: { horizon: number } };
  for (const line of lines.slice(1)) {
    const cells = line.split(',');
    const get = (column: string): string => cells[header.indexOf(column)] as string;
    const num = (column: string): number | null => (get(column) === '' ? null : Number(get(column)));
    const policy = get('policy');
    const trial = Number(get('trial'));
    const csv = path.join(dir, policy, `trial-${trial}.csv`);
    if (!finished.includes(`${policy}/${trial}`)) {
      fs.renameSync(csv, `${csv}.partial`);
      continue;
    }
    const summary = {
      finalRegret: num('final_regret'), meanSelectMs: num('mean_select_ms'), meanUpdateMs: num('mean_update_ms'),
      medianSelectMs: num('median_select_ms'), medianUpdateMs: num('median_update_ms'), meanRoundMs: num('mean_round_ms'),
      stateBytes: num('state_bytes'), sketchError: num('sketch_error'), projections: num('projections'),
      parameterError: num('parameter_error'), deltaT: num('delta_T'), betaT: num('beta_T'),
    };
    const unit = {
      format: UNIT_SUMMARY_FORMAT,
      policy,
      trial,
      horizon: manifest.config.horizon,
      bytes: fs.statSync(csv).size,
      sha256: createHash('sha256').update(fs.readFileSync(csv)).digest('hex'),
      summary,
    };
    fs.writeFileSync(path.join(dir, policy, `trial-${trial}.summary.json`), JSON.stringify(unit));
  }
}

/**
 * Panels with long subtitles (issue #38): the paper's settings at T = 10000, one of them in progress,
 * one whose three labels (long ones) decided alike in every round, under a long experiment name.
 */
export function writeLongSubtitleResults(root: string = tempDir()): string {
  const [eofd, oful, random] = SYNTHETIC_K4.policies as [FixturePolicy, FixturePolicy, FixturePolicy];
  writeExperiment(path.join(root, 'mnist'), { ...MNIST, horizon: 10_000 });
  const alike = ['EOFD-MLogB', 'OFUL-MLogB-textbook-solver', 'OFUL-MLogB-incremental'];
  writeExperiment(path.join(root, 'synthetic-k4-tuned-on-validation-trials'), {
    ...SYNTHETIC_K4,
    name: 'synthetic-k4-tuned-on-validation-trials',
    horizon: 10_000,
    policies: [...alike.map((name) => ({ ...eofd, name, actionShift: 0 })), random],
    variants: { [alike[1] as string]: { policy: 'OFUL-MLogB', params: { oful_solver: 'textbook' } }, [alike[2] as string]: { policy: 'OFUL-MLogB' } },
  });
  const binary = path.join(root, 'synthetic-binary');
  writeExperiment(binary, { ...SYNTHETIC_K4, name: 'synthetic-binary', horizon: 10_000, environment: { type: 'synthetic', d: 400, K: 1 }, policies: [eofd, oful, random] });
  makeInProgress(binary, ['EOFD-MLogB/0', 'OFUL-MLogB/0', 'Random/0']);
  return root;
}
