/**
 * The experiment config schema (zod). Every object is strict (unknown keys are errors), and every
 * check carries a message of the form `expected …` naming the allowed values, so that `load.ts` can
 * turn an issue into `file:line:column: field: expected …, got …`.
 */
import { z } from 'zod';
import { BETA_MODES } from '../model/beta.js';
import { POLICY_NAMES } from '../policies/policy.js';

/** Limits a config may not exceed. */
export const CONFIG_LIMITS = {
  maxOutcomes: 64,
  maxDimension: 1_000_000,
  maxActions: 10_000,
  maxNameLength: 100,
} as const;

export const ENVIRONMENT_TYPES = ['synthetic', 'mnist', 'trace'] as const;
export type EnvironmentType = (typeof ENVIRONMENT_TYPES)[number];


/** `'a', 'b' or 'c'`: the allowed values of an enum, as error messages list them. */
export function listAllowed(values: readonly string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  if (quoted.length <= 1) return quoted.join('');
  return `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

function integer(min: number, max: number = Number.MAX_SAFE_INTEGER, message?: string): z.ZodNumber {
  const error =
    message ?? (max === Number.MAX_SAFE_INTEGER ? `expected an integer ≥ ${min}` : `expected an integer in [${min}, ${max}]`);
  return z.number({ error }).int({ error }).min(min, { error }).max(max, { error });
}

function positive(error = 'expected a positive number'): z.ZodNumber {
  return z.number({ error }).positive({ error });
}

/** A strict object whose unknown-key message lists the allowed keys. */
function strictObject<Shape extends z.ZodRawShape>(shape: Shape, what: string) {
  const allowed = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown key ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (allowed: ${allowed})`
        : `expected ${what}`,
  });
}

const NAME_PATTERN = /^[A-Za-z0-9._-]+$/;
const nameError = `expected a name of 1-${CONFIG_LIMITS.maxNameLength} characters from [A-Za-z0-9._-] (used as a folder name), not '.' or '..'`;
const nameSchema = z
  .string({ error: nameError })
  .min(1, { error: nameError })
  .max(CONFIG_LIMITS.maxNameLength, { error: nameError })
  .regex(NAME_PATTERN, { error: nameError })
  .refine((name) => name !== '.' && name !== '..', { error: nameError });

const rewardEntry = z
  .number({ error: 'expected a finite number ≥ 0' })
  .min(0, { error: 'expected a finite number ≥ 0' });

const actionsError = `expected [min, max]: two integers with 1 ≤ min ≤ max ≤ ${CONFIG_LIMITS.maxActions}`;

const syntheticSchema = strictObject(
  {
    type: z.literal('synthetic'),
    /** d */
    d: integer(1, CONFIG_LIMITS.maxDimension),
    /** K */
    K: integer(1, CONFIG_LIMITS.maxOutcomes),
    /** r_0..r_K as the paper writes it (r_0 = 0). */
    reward: z.array(rewardEntry, { error: 'expected a list of rewards r_0..r_K' }),
    /** [min, max] of |A_t|. */
    actions: z.tuple([integer(1, CONFIG_LIMITS.maxActions), integer(1, CONFIG_LIMITS.maxActions)], {
      error: actionsError,
    }),
    /** S* = ‖W*‖_F; defaults to params.S. */
    S_star: positive().optional(),
  },
  'a synthetic environment mapping',
).superRefine((env, ctx) => {
  if (Number.isInteger(env.K) && Array.isArray(env.reward)) {
    if (env.reward.length !== env.K + 1) {
      ctx.addIssue({
        code: 'custom',
        path: ['reward'],
        message: `expected K + 1 = ${env.K + 1} entries r_0..r_${env.K}, got ${env.reward.length}`,
      });
    } else if (env.reward[0] !== 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['reward', 0],
        message: `r_0 (the null outcome's reward) must be 0, got ${String(env.reward[0])}`,
      });
    }
  }
  if (Array.isArray(env.actions) && env.actions.length === 2 && env.actions[0] > env.actions[1]) {
    ctx.addIssue({ code: 'custom', path: ['actions'], message: `${actionsError}, got [${env.actions.join(', ')}]` });
  }
});

const mnistSchema = strictObject(
  {
    type: z.literal('mnist'),
    /** The rewarded label. */
    target: integer(0, 9).default(1),
  },
  'an mnist environment mapping',
);

const traceSchema = strictObject(
  {
    type: z.literal('trace'),
    /** Recorded instance (DESIGN §3); relative to the config file's folder. */
    file: z.string({ error: 'expected a file path' }).min(1, { error: 'expected a file path' }),
  },
  'a trace environment mapping',
);

const environmentSchema = z.discriminatedUnion('type', [syntheticSchema, mnistSchema, traceSchema], {
  error: (issue) =>
    issue.code === 'invalid_union' ? `expected ${listAllowed(ENVIRONMENT_TYPES)}` : 'expected an environment mapping',
});

const policiesError = `expected a non-empty list of policies from ${listAllowed(POLICY_NAMES)}`;
const policiesSchema = z
  .array(z.enum(POLICY_NAMES, { error: `expected ${listAllowed(POLICY_NAMES)}` }), { error: policiesError })
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
const betaError = `expected ${BETA_MODES.map((mode) => `'${mode}'`).join(', ')} or a positive number`;
const deltaError = "expected 'auto' (1/T) or a number in (0, 1)";

const paramsSchema = strictObject(
  {
    /** S: bound on ‖W*‖_F used by the policies. */
    S: positive().default(1),
    /** Exponent l of λ = (√K d)^l λ0. */
    l: z.number({ error: 'expected a finite number' }).default(0.75),
    /** Exponent e of η = (√K d)^e η0. */
    e: z.number({ error: 'expected a finite number' }).default(0.75),
    /** λ, overriding l. */
    lambda: positive().optional(),
    /** η, overriding e. */
    eta: positive().optional(),
    /** m: sketch size. */
    m: z.union([z.literal('auto', { error: mError }), integer(1, Number.MAX_SAFE_INTEGER, mError)], { error: mError }).default('auto'),
    /** β mode (DESIGN §2). */
    beta: z
      .union([z.enum(BETA_MODES, { error: betaError }), positive(betaError)], { error: betaError })
      .default('order'),
    beta_scale: positive().default(1),
    /** δ: confidence level. */
    delta: z
      .union(
        [z.literal('auto', { error: deltaError }), z.number({ error: deltaError }).gt(0, { error: deltaError }).lt(1, { error: deltaError })],
        { error: deltaError },
      )
      .default('auto'),
  },
  'a params mapping',
);

/** The config file's shape (before `load.ts` resolves defaults that depend on other fields). */
export const experimentConfigSchema = strictObject(
  {
    name: nameSchema,
    environment: environmentSchema,
    /** T */
    horizon: integer(1),
    trials: integer(1),
    /** Folded into every trial seed. */
    seed: integer(0).default(0),
    policies: policiesSchema,
    params: paramsSchema.prefault({}),
  },
  'a mapping with keys name, environment, horizon, trials, seed, policies, params',
);

export type ExperimentConfigDocument = z.output<typeof experimentConfigSchema>;
export type ExperimentParams = ExperimentConfigDocument['params'];

export interface SyntheticEnvironmentConfig {
  readonly type: 'synthetic';
  readonly d: number;
  readonly K: number;
  /** r_0..r_K (r_0 = 0). */
  readonly reward: number[];
  /** [min, max] of |A_t|. */
  readonly actions: [number, number];
  /** S* = ‖W*‖_F (resolved: params.S when absent). */
  readonly S_star: number;
}
export interface MnistEnvironmentConfig {
  readonly type: 'mnist';
  readonly target: number;
}
export interface TraceEnvironmentConfig {
  readonly type: 'trace';
  /** Absolute path. */
  readonly file: string;
}
export type EnvironmentConfig = SyntheticEnvironmentConfig | MnistEnvironmentConfig | TraceEnvironmentConfig;

/** A validated config with every default resolved. */
export interface ExperimentConfig extends Omit<ExperimentConfigDocument, 'environment'> {
  readonly environment: EnvironmentConfig;
  /** Absolute path of the config file it was loaded from. */
  readonly source: string;
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
