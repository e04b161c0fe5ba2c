/**
 * The experiment config schema (zod). Every object is strict (unknown keys are errors), and every
 * check carries a message of the form `expected …` naming the allowed values, so that `load.ts` can
 * turn an issue into `file:line:column: field: expected …, got …`. Environment mappings come from the
 * environment registry, policy names from the policy registry, defaults from model/hyperparameters.
 */
import { z } from 'zod';
import { integer, listAllowed, positive, strictObject } from '../base/fields.js';
import { ENVIRONMENT_TYPES, ENVIRONMENTS, type EnvironmentConfig, type ParsedEnvironmentConfig } from '../environments/registry.js';
import { BETA_MODES, BETA_RANKS } from '../model/beta.js';
import { HYPERPARAMETER_DEFAULTS } from '../model/hyperparameters.js';
import { POLICY_NAMES } from '../policies/registry.js';
import { SKETCH_VARIANTS } from '../policies/spec.js';

export { listAllowed };
export type { EnvironmentConfig };

/** Limits a config may not exceed. */
export const CONFIG_LIMITS = {
  maxNameLength: 100,
  /** T: rounds per trial. */
  maxHorizon: 100_000_000,
  /** Trials per experiment. */
  maxTrials: 10_000,
} as const;

const NAME_PATTERN = /^[A-Za-z0-9._-]+$/;

/** Whether `name` is a legal experiment name (and so a safe folder name: no separators, not '.' or '..'). */
export function isExperimentName(name: unknown): name is string {
  return typeof name === 'string' && name.length >= 1 && name.length <= CONFIG_LIMITS.maxNameLength && NAME_PATTERN.test(name) && name !== '.' && name !== '..';
}
const nameError = `expected a name of 1-${CONFIG_LIMITS.maxNameLength} characters from [A-Za-z0-9._-] (used as a folder name), not '.' or '..'`;
const nameSchema = z
  .string({ error: nameError })
  .min(1, { error: nameError })
  .max(CONFIG_LIMITS.maxNameLength, { error: nameError })
  .regex(NAME_PATTERN, { error: nameError })
  .refine((name) => name !== '.' && name !== '..', { error: nameError });

const environmentSchema = z.discriminatedUnion(
  'type',
  ENVIRONMENTS.map((e) => e.schema) as unknown as [z.ZodObject, ...z.ZodObject[]],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? `expected ${listAllowed(ENVIRONMENT_TYPES)}` : 'expected an environment mapping',
  },
);

const policyNames = POLICY_NAMES as unknown as [string, ...string[]];
const policiesError = `expected a non-empty list of policies from ${listAllowed(POLICY_NAMES)}`;
const policiesSchema = z
  .array(z.enum(policyNames, { error: `expected ${listAllowed(POLICY_NAMES)}` }), { error: policiesError })
  .min(1, { error: policiesError })
  .superRefine((policies, ctx) => {
    policies.forEach((policy, index) => {
      const first = policies.indexOf(policy);
      if (first !== index) {
        ctx.addIssue({ code: 'custom', path: [index], message: `"${policy}" is listed twice (also at index ${first})` });
      }
    });
  });

const mError = "expected 'auto' (⌊Kd/10⌋) or an integer ≥ 1";
const betaError = `expected ${BETA_MODES.map((mode) => `'${mode}'`).join(', ')} or a number ≥ 0 (0: greedy)`;
const sketchError = `expected ${listAllowed(SKETCH_VARIANTS)}`;
const deltaError = "expected 'auto' (1/T) or a number in (0, 1)";

const paramsSchema = strictObject(
  {
    /** S: bound on ‖W*‖_F used by the policies. */
    S: positive().default(HYPERPARAMETER_DEFAULTS.S).describe('S: the bound on ‖W*‖_F the policies assume (α, λ0, η0 and β use it)'),
    /** Exponent l of λ = (√K d)^l λ0. */
    l: z.number({ error: 'expected a finite number' }).default(HYPERPARAMETER_DEFAULTS.l).describe('l: exponent of λ = (√K d)^l λ0 (Section 4)'),
    /** Exponent e of η = (√K d)^e η0. */
    e: z.number({ error: 'expected a finite number' }).default(HYPERPARAMETER_DEFAULTS.e).describe('e: exponent of η = (√K d)^e η0 (Section 4)'),
    /** λ, overriding l. */
    lambda: positive().optional().describe('λ itself, overriding l'),
    /** η, overriding e. */
    eta: positive().optional().describe('η itself, overriding e'),
    /** m: sketch size. */
    m: z
      .union([z.literal('auto', { error: mError }), integer(1, Number.MAX_SAFE_INTEGER, mError)], { error: mError })
      .default('auto')
      .describe('m: sketch size of the sketched policies (EOFD-MLogB, EOFD-TS, SOFUL); auto = ⌊Kd/10⌋'),
    /** β mode (DESIGN §2); a constant β may be 0: greedy play. */
    beta: z
      .union([z.enum(BETA_MODES, { error: betaError }), z.number({ error: betaError }).nonnegative({ error: betaError })], { error: betaError })
      .default(HYPERPARAMETER_DEFAULTS.beta)
      .describe("β: confidence radius; 'order' = eq. (27) with its constants 1, 'theory' = eq. (36), or a fixed number ≥ 0 (0: greedy)"),
    beta_scale: positive().default(HYPERPARAMETER_DEFAULTS.betaScale).describe('factor β is multiplied by'),
    /** Rank and Δ a sketched policy puts into β: 'sketch' (m, 1 + ρ/λ) or 'full' (Kd, 1: OFUL-MLogB's radius). */
    beta_rank: z
      .enum(BETA_RANKS, { error: `expected ${listAllowed(BETA_RANKS)}` })
      .default(HYPERPARAMETER_DEFAULTS.betaRank)
      .describe("rank and Δ a sketched policy puts into β: 'sketch' (m, 1 + ρ/λ) or 'full' (Kd, 1: OFUL-MLogB's radius)"),
    /**
     * The sketched policies' frequent directions: 'fd' (Alg. 1) or 'rfd' (robust FD, λ_t = λ + ρ/2).
     * Absent means 'fd' (left out rather than defaulted, so that existing manifests stay as they were).
     */
    sketch: z
      .enum(SKETCH_VARIANTS, { error: sketchError })
      .optional()
      .describe("the sketched policies' frequent directions: 'fd' (Alg. 1, the default) or 'rfd' (robust FD, λ_t = λ + ρ/2)"),
    /** δ: confidence level. */
    delta: z
      .union(
        [z.literal('auto', { error: deltaError }), z.number({ error: deltaError }).gt(0, { error: deltaError }).lt(1, { error: deltaError })],
        { error: deltaError },
      )
      .default('auto')
      .describe('δ: confidence level; auto = 1/T'),
  },
  'a params mapping',
);

/** The config file's shape (before `load.ts` resolves defaults that depend on other fields). */
export const experimentConfigSchema = strictObject(
  {
    name: nameSchema.describe('the experiment: its output folder <out>/<name> and part of every trial seed'),
    environment: environmentSchema.describe('the problem played: a mapping whose `type` picks an environment (eofd list)'),
    /** T */
    horizon: integer(1, CONFIG_LIMITS.maxHorizon).describe('T: rounds per trial'),
    trials: integer(1, CONFIG_LIMITS.maxTrials).describe('trials per policy (independent instances, the same for every policy)'),
    /** Folded into every trial seed. */
    seed: integer(0).default(0).describe('folded into every trial seed: another seed, other instances'),
    policies: policiesSchema.describe('the policies to run, each on every trial (eofd list)'),
    params: paramsSchema.prefault({}).describe('hyperparameters shared by the policies (each reads those it uses: eofd list)'),
  },
  'a mapping with keys name, environment, horizon, trials, seed, policies, params',
);

export type ExperimentConfigDocument = Omit<z.output<typeof experimentConfigSchema>, 'environment'> & {
  environment: ParsedEnvironmentConfig;
};
export type ExperimentParams = ExperimentConfigDocument['params'];

/** A validated config with every default resolved. */
export interface ExperimentConfig extends Omit<ExperimentConfigDocument, 'environment'> {
  readonly environment: EnvironmentConfig;
  /** Absolute path of the config file it was loaded from. */
  readonly source: string;
  /** The config as validated (after --set overrides, input paths made absolute): what `reconfigure` varies. */
  readonly document: unknown;
  /**
   * Name the trial seeds are derived from, when not `name` (the grid's variants `l=…,e=…` share the
   * seeds of their base experiment, so every grid point sees the same instances).
   */
  readonly seedName?: string;
  /** Per-policy (l, e) overriding params.l/params.e for that policy (`eofd run --params best.json`). */
  readonly policyParams?: Readonly<Record<string, PolicyExponents>>;
}

/** The (l, e) exponents of λ = (√K d)^l λ0 and η = (√K d)^e η0 for one policy. */
export interface PolicyExponents {
  readonly l: number;
  readonly e: number;
}
