import type { z } from 'zod';
import type { RandomStream } from '../random/stream.js';
import type { InputFileIdentity } from './input-files.js';

/** One round's candidate actions: `count` rows of `d` features, row-major in `features`. */
export interface ActionSet {
  readonly count: number;
  readonly d: number;
  /** Row i (0-based) is action i: features[i·d .. (i+1)·d). Length ≥ count·d. */
  readonly features: Float64Array;
}

/** What the environment returns after an action is played. */
export interface Feedback {
  /** Observed outcome y ∈ {0..K}; 0 is the null outcome (r_0 = 0). */
  readonly outcome: number;
  /** Realised reward r_y. */
  readonly reward: number;
  /** Pseudo-regret of the round, eq. (2): bestReward − rᵀσ(W*x_t) (MNIST: 1 − reward). */
  readonly regret: number;
  /**
   * The round's best expected reward, max_{x∈A_t} rᵀσ(W*x), which regret is measured against (MNIST: 1).
   * Optional for an environment from a module (the trial CSV's best_reward is then empty).
   */
  readonly bestReward?: number;
}

/**
 * A bandit environment. It owns the truth (W*, the outcome stream); policies only see actions and
 * outcomes. Rounds are taken in order: `actions(t)` then `play(i)`, for t = 1, 2, …
 */
export interface Environment {
  /** Feature dimension d. */
  readonly d: number;
  /** Number of non-null outcomes K. */
  readonly K: number;
  /** Rewards r_1..r_K of the non-null outcomes (r_0 = 0 is implicit). */
  readonly reward: Float64Array;
  /** D: an upper bound on every action's Euclidean norm (Assumption 1). */
  readonly maxActionNorm: number;
  /** Number of rounds this environment can produce (Infinity when unbounded). */
  readonly horizon: number;
  /** The candidate actions of round t (1-based). Valid until the next call. */
  actions(t: number): ActionSet;
  /** Plays action `index` of the current round and samples the outcome (DESIGN §1 outcome rule). */
  play(index: number): Feedback;
  /** ‖W − W*‖_F for a parameter in row-wise vectorisation, when W* is known. */
  parameterError?(weights: Float64Array): number;
  /** What the manifest records about this instance besides d, K and r (plain JSON data). */
  readonly facts?: Readonly<Record<string, unknown>>;
}

/** Limits an environment config may not exceed. */
export const ENVIRONMENT_LIMITS = {
  maxOutcomes: 64,
  maxDimension: 1_000_000,
  maxActions: 10_000,
  /** Largest data file, in MiB (after decompression), that a `classification` config may read by default. */
  maxFileMiB: 1024,
  /** Most stored (non-zero) feature values of a data file: 50 M values take 600 MB (8-byte value, 4-byte index). */
  maxStoredValues: 50_000_000,
  /**
   * Longest line of a data file, in characters (32 Mi): a dense CSV row of 999,999 features of up to
   * 32 characters each fits; a file without line ends does not (the line is held whole to be split).
   */
  maxLineChars: 32 * 2 ** 20,
  /** Longest label (it is copied into the manifest and every message that names the class). */
  maxLabelChars: 1024,
} as const;

/** What a trial gives every environment besides its config. */
export interface EnvironmentContext {
  /** T: rounds the trial will take. */
  readonly horizon: number;
  /** The trial's environment stream (seeded from the trial's identity, experiment/seeds.ts). */
  readonly stream: RandomStream;
  /** Folder with the MNIST digit files (default: the installed `mnist` package). */
  readonly mnistDataRoot?: string;
  /**
   * What the descriptor's `load` returned for this config (its `data`): the input, read once; create
   * plays it and never reads the file again. Absent: createEnvironment loads it (registry.ts).
   */
  readonly loaded?: unknown;
}

/**
 * An environment's input files, read once (EnvironmentDescriptor.load): the identity of each file,
 * of the very bytes that were parsed, and the parsed input as plain structured-cloneable data whose
 * large arrays live on SharedArrayBuffers, so that every worker thread plays this one copy.
 */
export interface LoadedInput {
  readonly inputs: readonly InputFileIdentity[];
  readonly data: unknown;
}

/** What resolving a parsed environment config may use besides the config itself. */
export interface ResolveContext {
  /** params.S of the experiment. */
  readonly S: number;
  /**
   * The absolute path of an input file named in the config at `field` (relative paths resolve
   * against the config's folder, or the working directory for a `--set` value); throws a
   * ConfigError naming the field when it is not a file.
   */
  inputFile(field: readonly (string | number)[], value: string): string;
  /**
   * The absolute path of a JavaScript module named in the config at `field`, resolved as `inputFile`
   * does, except that the config keeps the path as given (the manifest records it so).
   */
  moduleFile(field: readonly (string | number)[], value: string): string;
  /** A ConfigError naming the config file and `field`, for a problem resolving finds. */
  fail(field: readonly (string | number)[], detail: string): Error;
}

/**
 * One environment type as configs name it: the zod schema of its config mapping (strict, with
 * `type`), how a parsed config is resolved (defaults that depend on other fields, paths), and how a
 * trial's environment is built from the resolved config. The registry (registry.ts) lists them.
 */
export interface EnvironmentDescriptor<Schema extends z.ZodType = z.ZodType, Resolved extends { type: string } = { type: string }> {
  readonly type: Resolved['type'];
  /** One line for `eofd list` and the docs. */
  readonly summary: string;
  readonly schema: Schema;
  resolve(parsed: z.output<Schema>, context: ResolveContext): Resolved;
  create(config: Resolved, context: EnvironmentContext): Environment;
  /**
   * The absolute paths of the files the environment reads (a trace, a data set): the manifest
   * records each one's size and SHA-256, and `--resume` refuses when one changed.
   */
  inputFiles?(config: Resolved): string[];
  /**
   * Reads, parses and hashes the input files once (in the main thread, when the experiment is
   * resolved); `create` then gets the result as `context.loaded`. The manifest records the identities
   * it returns, so the bytes played are the bytes hashed. Without it, the manifest hashes
   * `inputFiles` and `create` reads them itself.
   */
  load?(config: Resolved): LoadedInput;
  /**
   * Estimated bytes of one copy (every unit plays its own), from the config alone: checked against the
   * machine before the first copy is built (experiment/setup.ts) and counted per unit (sizing.ts).
   * Absent: the largest action set, |A_t| × d doubles.
   */
  copyBytes?(config: Resolved): number;
  /** What the manifest records of the resolved config besides d, K and r (default: every field but `type`). */
  recorded?(config: Resolved): { readonly type: string; readonly [field: string]: unknown };
}

/** Types a descriptor (the identity: it only lets TypeScript infer the config types). */
export function defineEnvironment<Schema extends z.ZodType, Resolved extends { type: string }>(
  descriptor: EnvironmentDescriptor<Schema, Resolved>,
): EnvironmentDescriptor<Schema, Resolved> {
  return descriptor;
}
