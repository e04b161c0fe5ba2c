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
import { type DeclaredOption, optionProblem, type OptionDeclarations, type OptionValue } from '../base/options.js';
import type { ParamKey } from '../policies/policy.js';
import { DECLARED_OPTIONS, POLICY_NAMES } from '../policies/registry.js';
import { RESERVED_ENTRY_NAMES } from '../results/layout.js';
import { SKETCH_VARIANTS } from '../policies/spec.js';
import { CONFIG_LIMITS, NAME_PATTERN } from '../base/limits.js';
import { DEFAULT_MESSAGE_TIMEOUT_S, MAX_MESSAGE_TIMEOUT_S } from '../policies/external/protocol.js';

export { listAllowed };
export type { EnvironmentConfig };

/** Limits a config may not exceed (base/limits.ts: manifests are held to them too). */
export { CONFIG_LIMITS };

/**
 * Names that other commands' folders and files under `--out` take (results/layout.ts): a grid's or
 * sweep's folder, a shard's folder, a lock, the staging and set-aside folders of merge and report, the
 * temporary files of an atomic write and a unit's CSV while it is written. An experiment of such a
 * name would share or block them.
 */
const RESERVED_NAMES: readonly [pattern: RegExp, what: string][] = [
  [/-(grid|sweep)$/, "ends in '-grid' or '-sweep' (a grid's or sweep's folder)"],
  [/^shard-\d+-of-\d+$/, "is 'shard-<i>-of-<n>' (a shard's folder)"],
  [/\.lock$|\.lock\.stale-/, "ends in '.lock' (a lock file)"],
  [/\.(merging|replaced|building)-\d+$|\.tmp-\d+$|\.partial$/, "ends in '.merging-<pid>', '.replaced-<pid>', '.building-<pid>', '.tmp-<pid>' or '.partial' (a file or folder being written)"],
];

/**
 * Keys an object has before anything is put in it (`__proto__`, `constructor`, `toString`, …, and
 * `prototype`): a name that keys a plain object (best.json's policies, the manifest's variants) may not
 * be one.
 */
const PROTOTYPE_KEYS: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** Why `name` is reserved for another command's folder or file (see RESERVED_NAMES) or is a prototype key, or null. */
export function reservedNameReason(name: string): string | null {
  if (PROTOTYPE_KEYS.has(name)) return `${JSON.stringify(name)} is reserved: every JavaScript object has that key; pick another name`;
  const found = RESERVED_NAMES.find(([pattern]) => pattern.test(name));
  return found === undefined ? null : `${JSON.stringify(name)} is reserved: it ${found[1]}; pick another name`;
}

const labelError = `expected a label of 1-${CONFIG_LIMITS.maxNameLength} characters from [A-Za-z0-9._-] (it names the policy's folder), not '.' or '..', nor a name reserved for eofd's own files (ending in .lock, .tmp-<pid>, .partial, -grid, -sweep; ${RESERVED_ENTRY_NAMES.join(', ')}) or a JavaScript object key (__proto__, constructor, …)`;

/**
 * Why `label` cannot name a policy folder, or null: not an experiment name (isExperimentName), or a
 * name eofd writes beside policy folders (results/layout.ts RESERVED_ENTRY_NAMES, compared without
 * case, as a case-insensitive file system does).
 */
export function labelReason(label: string): string | null {
  if (!isExperimentName(label)) return reservedNameReason(label) ?? labelError;
  const lower = label.toLowerCase();
  const taken = RESERVED_ENTRY_NAMES.find((name) => name.toLowerCase() === lower);
  return taken === undefined ? null : `${JSON.stringify(label)} is reserved: eofd writes ${taken} beside the policy folders; pick another label`;
}

/**
 * Whether `name` is a legal experiment name: a safe folder name (no separators, not '.' or '..') that
 * no other command's folder or file under `--out` can take (reservedNameReason).
 */
export function isExperimentName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length >= 1 &&
    name.length <= CONFIG_LIMITS.maxNameLength &&
    NAME_PATTERN.test(name) &&
    name !== '.' &&
    name !== '..' &&
    reservedNameReason(name) === null
  );
}
const nameError = `expected a name of 1-${CONFIG_LIMITS.maxNameLength} characters from [A-Za-z0-9._-] (used as a folder name), not '.' or '..'`;
const nameSchema = z
  .string({ error: nameError })
  .min(1, { error: nameError })
  .max(CONFIG_LIMITS.maxNameLength, { error: nameError })
  .regex(NAME_PATTERN, { error: nameError })
  .refine((name) => name !== '.' && name !== '..', { error: nameError })
  .superRefine((name, ctx) => {
    const reason = reservedNameReason(name);
    if (reason !== null) ctx.addIssue({ code: 'custom', message: reason });
  });

const environmentSchema = z.discriminatedUnion(
  'type',
  ENVIRONMENTS.map((e) => e.schema) as unknown as [z.ZodObject, ...z.ZodObject[]],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? `expected ${listAllowed(ENVIRONMENT_TYPES)}` : 'expected an environment mapping',
  },
);

const mError = "expected 'auto' (⌊Kd/10⌋), 'adaptive' (grown to keep Δ_t ≤ 1 + delta_max) or an integer ≥ 1";
const betaError = `expected ${BETA_MODES.map((mode) => `'${mode}'`).join(', ')} or a number ≥ 0 (0: greedy)`;
const sketchError = `expected ${listAllowed(SKETCH_VARIANTS)}`;
const deltaError = "expected 'auto' (1/T) or a number in (0, 1)";

/** Each `params` key's value schema and meaning, without defaults (a policy entry's params take the same keys). */
const paramFields = {
  S: positive().describe('S: the bound on ‖W*‖_F the policies assume (α, λ0, η0 and β use it)'),
  l: z.number({ error: 'expected a finite number' }).describe('l: exponent of λ = (√K d)^l λ0 (Section 4)'),
  e: z.number({ error: 'expected a finite number' }).describe('e: exponent of η = (√K d)^e η0 (Section 4)'),
  lambda: positive().describe('λ itself, overriding l'),
  eta: positive().describe('η itself, overriding e'),
  m: z
    .union([z.literal('auto', { error: mError }), z.literal('adaptive', { error: mError }), integer(1, Number.MAX_SAFE_INTEGER, mError)], { error: mError })
    .describe(
      "m: sketch size of the sketched policies (EOFD-MLogB, EOFD-TS: at most Kd; SOFUL: at most d); auto = ⌊Kd/10⌋; adaptive = start at 1 and grow m_t (never beyond Kd, or d) instead of discarding mass that would make Δ_t = 1 + ρ_{1:t}/λ exceed 1 + delta_max",
    ),
  delta_max: positive()
    .describe('ε of an adaptive sketch (params.m: adaptive): Δ_t = 1 + ρ_{1:t}/λ ≤ 1 + ε in every round; default 0.1 (Kd ln 1.1 ≈ Kd/10.5, the default m)'),
  beta: z
    .union([z.enum(BETA_MODES, { error: betaError }), z.number({ error: betaError }).nonnegative({ error: betaError })], { error: betaError })
    .describe("β: confidence radius; 'order' = eq. (27) with its constants 1, 'theory' = eq. (36) (each baseline: its paper's radius), or a fixed number ≥ 0 (0: greedy)"),
  beta_scale: positive().describe('factor β is multiplied by'),
  beta_rank: z
    .enum(BETA_RANKS, { error: `expected ${listAllowed(BETA_RANKS)}` })
    .describe("rank and Δ a sketched policy puts into β: 'sketch' (m, 1 + ρ/λ) or 'full' (Kd, 1: OFUL-MLogB's radius)"),
  sketch: z
    .enum(SKETCH_VARIANTS, { error: sketchError })
    .describe("the sketched policies' frequent directions: 'fd' (Alg. 1, the default) or 'rfd' (robust FD, λ_t = λ + ρ/2)"),
  delta: z
    .union(
      [z.literal('auto', { error: deltaError }), z.number({ error: deltaError }).gt(0, { error: deltaError }).lt(1, { error: deltaError })],
      { error: deltaError },
    )
    .describe('δ: confidence level; auto = 1/T'),
} satisfies Record<ParamKey, z.ZodType>;

/** A declared option's value schema: its type (its values, when it lists them), checked by its declaration (base/options.ts). */
function optionField(option: DeclaredOption): z.ZodType<OptionValue> {
  const values = option.values;
  const type = typeof option.default;
  const base =
    values !== undefined && values.every((v) => typeof v === 'string')
      ? z.enum(values as [string, ...string[]], { error: `expected ${listAllowed(values as string[])}` })
      : type === 'number'
        ? z.number({ error: 'expected a finite number' })
        : type === 'string'
          ? z.string({ error: 'expected a string' })
          : z.boolean({ error: 'expected true or false' });
  const field = (base as z.ZodType<OptionValue>).superRefine((value, ctx) => {
    const problem = optionProblem(option, value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });
  return option.description === undefined ? field : field.describe(option.description);
}

/** Declared options as optional fields (typed as no keys: which exist depends on the registry). */
function optionalFields(declared: OptionDeclarations): Record<never, never> {
  return Object.fromEntries(Object.entries(declared).map(([key, option]) => [key, optionField(option).optional()]));
}

const paramsSchema = strictObject(
  {
    S: paramFields.S.default(HYPERPARAMETER_DEFAULTS.S),
    l: paramFields.l.default(HYPERPARAMETER_DEFAULTS.l),
    e: paramFields.e.default(HYPERPARAMETER_DEFAULTS.e),
    lambda: paramFields.lambda.optional(),
    eta: paramFields.eta.optional(),
    m: paramFields.m.default('auto'),
    // Absent means 0.1 when m is adaptive (left out rather than defaulted, so that existing manifests stay as they were).
    delta_max: paramFields.delta_max.optional(),
    beta: paramFields.beta.default(HYPERPARAMETER_DEFAULTS.beta),
    beta_scale: paramFields.beta_scale.default(HYPERPARAMETER_DEFAULTS.betaScale),
    beta_rank: paramFields.beta_rank.default(HYPERPARAMETER_DEFAULTS.betaRank),
    // Absent means 'fd' (left out rather than defaulted, so that existing manifests stay as they were).
    sketch: paramFields.sketch.optional(),
    delta: paramFields.delta.default('auto'),
    // Every registered policy's own keys, absent when not given (their declared defaults fill the spec, not the manifest, so that existing manifests stay as they were).
    ...optionalFields(DECLARED_OPTIONS),
  },
  'a params mapping',
);

/** Every shared `params` key's default (lambda, eta, delta_max, sketch and every policy's own keys have none: absent means derived, 0.1, 'fd' or the declared default). */
export const PARAM_DEFAULTS: Readonly<Record<string, unknown>> = Object.freeze(paramsSchema.parse({}));

/** A policy entry's own params: any shared `params` key or option of `declared`, none defaulted (absent keys come from the experiment's). */
function entryParamsSchemaWith(declared: OptionDeclarations) {
  return strictObject(
    {
      ...(Object.fromEntries(Object.entries(paramFields).map(([key, field]) => [key, field.optional()])) as {
        [K in ParamKey]: z.ZodOptional<(typeof paramFields)[K]>;
      }),
      ...optionalFields(declared),
    },
    'a params mapping',
  );
}
const entryParamsSchema = entryParamsSchemaWith(DECLARED_OPTIONS);

/** The keys `params` (and a policy entry's params) take: the shared ones, then every registered policy's own. */
export const CONFIG_PARAM_KEYS: readonly string[] = Object.keys(paramsSchema.shape);

const policyNames = POLICY_NAMES as unknown as [string, ...string[]];
const policyNameSchema = z.enum(policyNames, { error: `expected ${listAllowed(POLICY_NAMES)}` });
const entryError = `expected a policy name (${listAllowed(POLICY_NAMES)}), a mapping {policy, label, params}, {command, label, params, timeout} (a policy in another process) or {module, label, params} (a policy from a JavaScript module)`;
const labelSchema = z.string({ error: labelError }).superRefine((label, ctx) => {
  const reason = labelReason(label);
  if (reason !== null) ctx.addIssue({ code: 'custom', message: reason });
});
const timeoutError = `expected a number of seconds in (0, ${MAX_MESSAGE_TIMEOUT_S}]`;
const commandError = 'expected a non-empty list of strings: the program and its arguments, e.g. [python3, my_policy.py]';
/** An external policy's own params: any JSON values, which it reads itself (a module's are checked against its declared schema). */
const externalParamsSchema = z.record(z.string(), z.unknown(), { error: 'expected a params mapping' });
const policyEntrySchema = z.union(
  [
    policyNameSchema,
    strictObject(
      {
        policy: policyNameSchema.describe('the policy (eofd list)'),
        label: labelSchema.optional().describe('its name in folders, CSV rows, legends and best.json (default: the policy)'),
        params: entryParamsSchema.optional().describe("this entry's own params, overriding the experiment's (only keys the policy reads)"),
      },
      'a mapping {policy, label, params}',
    ),
    strictObject(
      {
        command: z
          .array(z.string({ error: commandError }).min(1, { error: commandError }), { error: commandError })
          .min(1, { error: commandError })
          .describe("a policy in another process, spoken to over eofd's protocol (docs/policies.md): the program and its arguments, run in the config's folder"),
        label: labelSchema.describe('its name in folders, CSV rows, legends and best.json'),
        params: externalParamsSchema.optional().describe('sent to the process in its hello message, as given'),
        timeout: positive(timeoutError)
          .max(MAX_MESSAGE_TIMEOUT_S, { error: timeoutError })
          .optional()
          .describe(`seconds the process may take to answer one message (default ${DEFAULT_MESSAGE_TIMEOUT_S})`),
      },
      'a mapping {command, label, params, timeout}',
    ),
    strictObject(
      {
        module: z.string({ error: 'expected the path of a JavaScript module' }).min(1, { error: 'expected the path of a JavaScript module' }).describe('a JavaScript module (path relative to the config) whose default export is a policy descriptor (docs/policies.md)'),
        label: labelSchema.describe('its name in folders, CSV rows, legends and best.json'),
        params: externalParamsSchema.optional().describe("its params, checked against the module's declared params"),
      },
      'a mapping {module, label, params}',
    ),
  ],
  { error: entryError },
);
const policiesError = `expected a non-empty list of policies: names from ${listAllowed(POLICY_NAMES)} or mappings {policy, label, params}, {command, label, params} or {module, label, params}`;
const policiesSchema = z
  .array(policyEntrySchema, { error: policiesError })
  .min(1, { error: policiesError })
  .superRefine((entries, ctx) => {
    const labels = entries.map((entry) => (typeof entry === 'string' ? entry : (entry.label ?? (entry as { policy: string }).policy)));
    labels.forEach((label, index) => {
      const first = labels.indexOf(label);
      if (first !== index) {
        const path = typeof entries[index] === 'string' || (entries[index] as { label?: string }).label === undefined ? [index] : [index, 'label'];
        ctx.addIssue({ code: 'custom', path, message: `the label "${label}" is used twice (also at index ${first}); give each variant its own label` });
      }
    });
  });

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
    policies: policiesSchema.describe('the policies to run, each on every trial: a name, {policy, label, params} for a variant with its own params (eofd list), or an external policy: {command, label, params} (another process) or {module, label, params} (a JavaScript module)'),
    params: paramsSchema.prefault({}).describe('hyperparameters shared by the policies (each reads those it uses: eofd list)'),
    tune_from: nameSchema
      .optional()
      .describe("eofd reproduce: take the tuned values from this other experiment's grid (an experiment of the same reproduction) instead of running a grid of this one"),
  },
  'a mapping with keys name, environment, horizon, trials, seed, policies, params, tune_from',
);

export type ExperimentConfigDocument = Omit<z.output<typeof experimentConfigSchema>, 'environment'> & {
  environment: ParsedEnvironmentConfig;
};
/** A policy entry as the file gives it: a name, or a mapping. */
export type PolicyEntryDocument = z.output<typeof policyEntrySchema>;
/** A policy entry's own params (only the keys it gives). */
export type EntryParams = z.output<typeof entryParamsSchema>;

/**
 * A policy outside the registry (policies/external): a process spoken to over the protocol, or a
 * JavaScript module's descriptor. Resolved by load.ts: paths absolute, files hashed.
 */
export type ExternalPolicy =
  | {
      readonly kind: 'command';
      /** The program and its arguments, as the config gives them. */
      readonly command: readonly string[];
      /** The folder it runs in: the config's. */
      readonly cwd: string;
      /** Seconds per message. */
      readonly timeout: number;
      /** The first element of the command that names a file (the script), and its SHA-256; absent when none does. */
      readonly script?: { readonly file: string; readonly sha256: string };
    }
  | {
      readonly kind: 'module';
      /** Absolute path of the module, the path as the config gives it, and the SHA-256 of its bytes. */
      readonly module: string;
      readonly given: string;
      readonly sha256: string;
    };

/**
 * One policy of an experiment: the registry's policy, the label that names its results, its own params.
 * An external entry's `policy` is its label, and its params are its own keys (a module's with its
 * declared defaults filled in).
 */
export interface PolicyEntry {
  readonly label: string;
  readonly policy: string;
  readonly params: Readonly<EntryParams>;
  readonly external?: ExternalPolicy;
}

/** The entry as resolved: label defaulting to the policy's name, params to none (load.ts resolves external entries). */
export function policyEntry(document: PolicyEntryDocument): PolicyEntry {
  if (typeof document === 'string') return { label: document, policy: document, params: {} };
  if ('policy' in document) return { label: document.label ?? document.policy, policy: document.policy, params: document.params ?? {} };
  throw new RangeError(`${document.label}: an external policy entry is resolved by config/load.ts`);
}

/**
 * `params` checked as a policy entry's own params (eofd serve-policy), whose policies' own keys are
 * `declared` (default: every registered policy's); throws a RangeError naming the first bad key.
 */
export function entryParams(params: unknown, declared: OptionDeclarations = DECLARED_OPTIONS): EntryParams {
  const result = (declared === DECLARED_OPTIONS ? entryParamsSchema : entryParamsSchemaWith(declared)).safeParse(params);
  if (result.success) return result.data;
  const issue = result.error.issues[0] as z.core.$ZodIssue;
  throw new RangeError(`params${issue.path.length === 0 ? '' : `.${issue.path.join('.')}`}: ${issue.message}`);
}

/** The experiment's labels, in config order (folders, CSV rows, legends). */
export function policyLabels(config: Pick<ExperimentConfig, 'policies'>): string[] {
  return config.policies.map((entry) => entry.label);
}

/** The entry of `label`; throws a RangeError naming the labels otherwise. */
export function entryOf(config: Pick<ExperimentConfig, 'policies'>, label: string): PolicyEntry {
  const entry = config.policies.find((e) => e.label === label);
  if (entry === undefined) throw new RangeError(`no policy labelled ${JSON.stringify(label)} (labels: ${policyLabels(config).join(', ')})`);
  return entry;
}
export type ExperimentParams = ExperimentConfigDocument['params'];

/** A validated config with every default resolved. */
export interface ExperimentConfig extends Omit<ExperimentConfigDocument, 'environment' | 'policies'> {
  readonly environment: EnvironmentConfig;
  /** The policies in config order, each with its label and own params. */
  readonly policies: readonly PolicyEntry[];
  /** Absolute path of the config file it was loaded from. */
  readonly source: string;
  /** The config as validated (after --set overrides, input paths made absolute): what `reconfigure` varies. */
  readonly document: unknown;
  /**
   * Name the trial seeds are derived from, when not `name` (the grid's variants `l=…,e=…` share the
   * seeds of their base experiment, so every grid point sees the same instances).
   */
  readonly seedName?: string;
}
