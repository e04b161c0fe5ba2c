/**
 * `<out>/<name>/manifest.json`: what ran (the resolved config), with which derived values and seeds,
 * from which code (package version, git commit) on which machine. experiment/manifest.ts builds it;
 * resume, merge and the report read it through `manifestSchema` (read.ts).
 */
import type { PackageInfo } from '../base/package-root.js';
import { z } from 'zod';
import { CONFIG_LIMITS, isFolderName } from '../base/limits.js';
import type { BetaMode, BetaRank } from '../model/beta.js';

/** Every derived value, under the names the manifest uses (the paper's symbol in each comment). */
export interface DerivedValues {
  /** λ */
  lambda: number;
  /** η */
  eta: number;
  /** m: sketch size (at most Kd), or 'adaptive' (params.m: adaptive). */
  m: number | 'adaptive';
  /** δ */
  delta: number;
  /** β mode: 'theory', 'order' or a constant. */
  beta: BetaMode;
  beta_scale: number;
  /** β's rank for sketched policies: 'sketch' (m, Δ) or 'full' (Kd, Δ = 1). */
  beta_rank: BetaRank;
  /** α = 2(1 + S·D) + ln(K+1) */
  alpha: number;
  /** λ0 = √K·α·S */
  lambda0: number;
  /** η0 = S/2 + ln(K+1)/4 */
  eta0: number;
  /** l (null when λ was given directly). */
  l: number | null;
  /** e (null when η was given directly). */
  e: number | null;
  /** D: the largest action norm. */
  D: number;
  /** S: bound on ‖W‖_F. */
  S: number;
  /**
   * Per label, what that policy actually used (setup.ts resolvePolicyParams): its policy and the keys it
   * reads, after its authors' defaults, the experiment's params and the entry's own.
   */
  policies: Record<string, PolicyHyperparameters>;
}

/** One policy entry's resolved hyperparameters: the keys its policy reads (λ with l, η with e). */
export interface PolicyHyperparameters {
  policy: string;
  S?: number;
  l?: number | null;
  e?: number | null;
  lambda?: number;
  eta?: number;
  /** m as the policy's sketch holds it (capped at the dimension it sketches), or 'adaptive'. */
  m?: number | 'adaptive';
  /** ε of an adaptive m (Δ_t ≤ 1 + ε); recorded only with m: 'adaptive'. */
  delta_max?: number;
  beta?: BetaMode;
  beta_scale?: number;
  beta_rank?: BetaRank;
  /** 'fd' or 'rfd' (policies/spec.ts SKETCH_VARIANTS). */
  sketch?: string;
  delta?: number;
  /**
   * The keys its policy declares as its own (PolicyDescriptor.options: OFUL-MLogB's oful_solver),
   * recorded only when the config gives them (read them through policyOption, which applies the
   * declared default); an external entry (policies/external): its params instead, a module's as
   * declared and defaulted, a process's scalar ones.
   */
  [key: string]: unknown;
}

/** The environment as the manifest states it: the config's fields plus d, K and r_0..r_K. */
export interface ResolvedEnvironment {
  type: string;
  d: number;
  K: number;
  /** r_0..r_K (r_0 = 0). */
  reward: number[];
  /** Each file the environment reads, with its size and SHA-256 (environments/input-files.ts). */
  inputs?: { file: string; bytes: number; sha256: string }[];
  [field: string]: unknown;
}

/** The manifest's `config`: the resolved config (every default filled in). */
export interface ManifestConfig {
  name: string;
  environment: ResolvedEnvironment;
  horizon: number;
  trials: number;
  seed: number;
  /** The labels, in config order. */
  policies: string[];
  /** Entries that are not a bare policy name: label → its policy and own params. */
  variants?: Record<string, ManifestVariant>;
  params: Record<string, unknown>;
  /** The name the seeds come from, when not `name` (grid variants). */
  seed_name?: string;
}

/** An entry that is not a bare policy name (an external one's `policy` is its label). */
export interface ManifestVariant {
  policy: string;
  params: Record<string, unknown>;
  /** A process policy: its command, and the file it runs (the command's first element naming a file) with its SHA-256. */
  command?: string[];
  script?: { file: string; sha256: string };
  /** A module policy: the module's path as the config gives it, and its SHA-256. */
  module?: { file: string; sha256: string };
}

/** The manifest's record of a shard (`--shard i/n`); `eofd merge` drops it. */
export interface ManifestShard {
  /** 0-based. */
  index: number;
  count: number;
  /** Number of the experiment's first unit in the fixed order (its unit j is number first_unit + j). */
  first_unit: number;
  scheme: string;
}

/** One run that wrote units into an experiment folder (a resumed folder has several). */
export interface TimingRun {
  /** When the run started (ISO 8601). */
  started: string;
  /** Units the run timed at once (1: one unit at a time, the only timing claims are judged on). */
  jobs: number;
  /** How the policies of a trial were timed against one another (experiment/runner.ts LOCK_STEP); absent before it was recorded. */
  pairing?: string;
  /** os.loadavg() (1, 5, 15 minutes) when the run started and when it ended (null: it did not end). */
  load_start: number[];
  load_end: number[] | null;
}

export type { PackageInfo };

export interface Manifest {
  name: string;
  /** The config file it was read from (absolute; not part of the comparison on --resume). */
  config_file: string;
  config: ManifestConfig;
  derived: DerivedValues;
  seeds: {
    /** seed = SHA-256 of JSON ["eofd-seed-v1", name, trial, purpose, split, config seed]. */
    scheme: string;
    split: string;
    seed: number;
    /** Per trial index, the seed of each stream: `environment`, and `policy:<name>` for policies that draw. */
    trials: Record<string, Record<string, string>>;
  };
  package: PackageInfo;
  git: string | null;
  node: string;
  host: { cpu: string; cores: number; platform: string };
  /** When the run started (ISO 8601). */
  started: string;
  /** Only in a shard's folder. */
  shard?: ManifestShard;
  /** How the units were timed: one entry per run that wrote units here. */
  timing?: { runs: TimingRun[] };
}

const positiveInteger = z.number({ error: 'expected a positive integer' }).int({ error: 'expected a positive integer' }).min(1, { error: 'expected a positive integer' });
const text = (what = 'a non-empty string') => z.string({ error: `expected ${what}` }).min(1, { error: `expected ${what}` });
const object = (what: string) => z.record(z.string(), z.unknown(), { error: `expected ${what}` });
const count = (what: string, min: number) => z.number({ error: `expected ${what}` }).int({ error: `expected ${what}` }).min(min, { error: `expected ${what}` });
const limited = (what: string, max: number) => count(`${what} from 1 to ${max}`, 1).max(max, { error: `expected ${what} from 1 to ${max}` });
const label = z.string({ error: 'expected a policy label' }).refine(isFolderName, {
  error: `expected a policy label of 1-${CONFIG_LIMITS.maxNameLength} characters from [A-Za-z0-9._-], not '.' or '..' (it names a folder)`,
});
const numbers = z.array(z.number({ error: 'expected a number' }), { error: 'expected a list of numbers' });

/**
 * What a reader may rely on in a manifest. Loose where older or hand-made manifests differ (extra
 * fields pass; provenance may be absent or odd); strict where a reader computes with the value.
 * It validates only (no defaults, no transforms), so what passes is the file's JSON as written.
 */
export const manifestSchema = z.looseObject(
  {
    name: text(),
    config: z.looseObject(
      {
        environment: z.looseObject(
          {
            type: text(),
            K: positiveInteger,
            d: positiveInteger,
            inputs: z
              .array(
                z.looseObject(
                  { file: text(), bytes: count('a size in bytes', 0), sha256: text('a SHA-256 in hex') },
                  { error: 'expected {file, bytes, sha256}' },
                ),
                { error: 'expected a list of input files' },
              )
              .optional(),
          },
          { error: 'expected an object' },
        ),
        // A reader loops over T rounds and over trials × policies units: the limits a config is held to.
        horizon: limited('a horizon', CONFIG_LIMITS.maxHorizon),
        trials: limited('a trial count', CONFIG_LIMITS.maxTrials),
        policies: z
          .array(label, { error: 'expected a non-empty list of policy names' })
          .min(1, { error: 'expected a non-empty list of policy names' })
          .refine((list) => new Set(list).size === list.length, { error: 'expected distinct names' }),
      },
      { error: 'expected an object' },
    ),
    derived: object('an object').optional(),
    seeds: z.looseObject({ split: z.string().optional() }, { error: 'expected an object' }).optional(),
    // Provenance is shown, never computed with: any value passes, readers check types where they show it.
    package: z.unknown().optional(),
    git: z.unknown().optional(),
    node: z.unknown().optional(),
    host: z.unknown().optional(),
    started: z.unknown().optional(),
    timing: z
      .looseObject(
        {
          runs: z.array(
            z.looseObject({
              jobs: count('a job count', 1),
              load_start: numbers.optional(),
              load_end: numbers.nullable().optional(),
            }),
            { error: 'expected a list of runs' },
          ),
        },
        { error: 'expected an object' },
      )
      .optional(),
    shard: z
      .looseObject({ index: count('an integer ≥ 0', 0), count: positiveInteger, first_unit: count('an integer ≥ 0', 0) }, { error: 'expected an object' })
      .refine((shard) => shard.index < shard.count, { error: 'expected index < count (shards are numbered from 0)' })
      .optional(),
  },
  { error: 'expected an object' },
);

/** A manifest as a reader sees it: the checked fields typed, the rest as written (unknown). */
export type ManifestRead = z.output<typeof manifestSchema>;
