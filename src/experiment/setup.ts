/**
 * A validated config → a resolved experiment: the environment's d, K, rewards and D (read from trial
 * 0's environment), Section 4's derived hyperparameters, and per (policy, trial) the PolicySpec and
 * the seeds. Everything here is plain data, so a resolved experiment crosses to worker threads as is.
 *
 * An environment's input files (a data set) are read, parsed and hashed once, here, in the main
 * thread (EnvironmentDescriptor.load): the manifest records the hash of the bytes that were parsed,
 * and every unit, in this thread or on a worker, plays that one copy (its large arrays shared, not
 * copied, when a task is posted). Replacing or deleting the file once the run started changes nothing.
 */
import path from 'node:path';
import { ConfigError, describeFsError } from '../base/errors.js';
import { entryOf, type EntryParams, type ExperimentConfig, type PolicyEntry } from '../config/schema.js';
import { PARAM_DEFAULTS } from '../config/schema.js';
import type { Environment, LoadedInput } from '../environments/environment.js';
import { fileIdentity, type InputFileIdentity } from '../environments/input-files.js';
import { createEnvironment, environmentDescriptor } from '../environments/registry.js';
import { deriveHyperparameters } from '../model/hyperparameters.js';
import { policyOption, type OptionValues } from '../base/options.js';
import { PARAM_KEYS, type ParamKey, type PolicyDescriptor } from '../policies/policy.js';
import { entryNeedsRandomStream, entrySupports } from '../config/policy-entries.js';
import { createModulePolicy } from '../policies/external/module-policy.js';
import { ProcessPolicy } from '../policies/external/process-policy.js';
import { seedInteger } from '../policies/external/protocol.js';
import type { Policy } from '../policies/policy.js';
import { createPolicy, policyDescriptor, sketchSizeOf } from '../policies/registry.js';
import { ADAPTIVE_INITIAL_SKETCH_SIZE, DEFAULT_DELTA_MAX, nonNullRewards, validatePolicySpec, type PolicySpec, type SketchVariant } from '../policies/spec.js';
import { RandomStream, uniformOf } from '../random/stream.js';
import type { DerivedValues, PolicyHyperparameters, ResolvedEnvironment } from '../results/manifest.js';
import { gb, machineMemory, UNIT_OVERHEAD_BYTES, type MachineMemory } from '../base/machine.js';
import { trialSeed, type SeedSplit } from './seeds.js';

export interface ResolvedExperiment {
  config: ExperimentConfig;
  environment: ResolvedEnvironment;
  derived: DerivedValues;
  /** Which seed split the trials come from ('report' for `eofd run`). */
  split: SeedSplit;
  /** Folder with the MNIST digit files (default: the installed `mnist` package). */
  mnistDataRoot?: string;
  /** The environment's input as its descriptor's `load` read it (absent: it reads none). */
  loaded?: unknown;
}

export interface ResolveOptions {
  split?: SeedSplit;
  /** The config file as the user named it, for error messages (default: relative to the cwd). */
  configFile?: string;
  mnistDataRoot?: string;
  /** What the machine can give (default: machine.ts machineMemory()); an environment copy larger is refused before it is built. */
  machine?: MachineMemory;
}

/** The seeds of one trial, from its identity (DESIGN §4). */
export function unitSeeds(config: ExperimentConfig, trial: number, split: SeedSplit): { environment: string; policy: (name: string) => string } {
  return {
    environment: trialSeed(config.seedName ?? config.name, trial, 'environment', split, config.seed),
    policy: (name) => trialSeed(config.seedName ?? config.name, trial, `policy:${name}`, split, config.seed),
  };
}

function buildEnvironment(
  config: ExperimentConfig,
  trial: number,
  split: SeedSplit,
  mnistDataRoot: string | undefined,
  /** The descriptor's loaded input (LoadedInput.data), when it has one. */
  loaded: unknown,
): Environment {
  const stream = new RandomStream(unitSeeds(config, trial, split).environment);
  return createEnvironment(config.environment, { horizon: config.horizon, stream, mnistDataRoot, ...(loaded === undefined ? {} : { loaded }) });
}

/** Trial `trial`'s environment: every policy of the trial gets its own copy of the same instance, over the experiment's one loaded input. */
export function createTrialEnvironment(experiment: ResolvedExperiment, trial: number): Environment {
  return buildEnvironment(experiment.config, trial, experiment.split, experiment.mnistDataRoot, experiment.loaded);
}

/** Size and SHA-256 of each file the environment reads (undefined when it reads none), for an environment without `load`. */
function inputIdentities(config: ExperimentConfig, file: string): InputFileIdentity[] | undefined {
  const inputs = environmentDescriptor(config.environment.type).inputFiles?.(config.environment);
  return inputs?.map((input) => {
    try {
      return fileIdentity(input);
    } catch (error) {
      throw new ConfigError({ file, field: 'environment.file', detail: `cannot read ${input}: ${describeFsError(error)}` });
    }
  });
}

/** Resolves a config; a problem with the environment (a trace shorter than T, …) is a ConfigError. */
export function resolveExperiment(config: ExperimentConfig, options: ResolveOptions = {}): ResolvedExperiment {
  const split = options.split ?? 'report';
  const file = options.configFile ?? (path.relative(process.cwd(), config.source) || config.source);
  let environment: Environment;
  let loaded: LoadedInput | undefined;
  checkEnvironmentSize(config, file, options.machine);
  try {
    loaded = environmentDescriptor(config.environment.type).load?.(config.environment);
    environment = buildEnvironment(config, 0, split, options.mnistDataRoot, loaded?.data);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (error instanceof RangeError) throw new ConfigError({ file, field: 'environment', detail: error.message });
    throw error;
  }
  for (const entry of config.policies) {
    const supports = entrySupports(entry);
    if (!(environment.K === 1 ? supports.binary : supports.multinomial)) {
      throw new ConfigError({ file, field: 'policies', detail: `${entry.label}: ${entry.policy} does not play K = ${environment.K} problems` });
    }
  }
  const D = environment.maxActionNorm;
  const inputs = loaded === undefined ? inputIdentities(config, file) : [...loaded.inputs];
  const { type, ...rest } = environmentDescriptor(config.environment.type).recorded?.(config.environment) ?? config.environment;
  // Keyed by validated labels (config/schema.ts labelReason): every label an own key.
  const policies: Record<string, PolicyHyperparameters> = Object.fromEntries(
    config.policies.map((entry) => [entry.label, resolvePolicyParams(config, entry, { d: environment.d, K: environment.K, D })]),
  );
  const experiment: ResolvedExperiment = {
    config,
    environment: {
      type,
      ...rest,
      d: environment.d,
      K: environment.K,
      reward: [0, ...environment.reward],
      ...environment.facts,
      ...(inputs === undefined ? {} : { inputs }),
    },
    derived: { ...sharedDerived(config, { d: environment.d, K: environment.K, D }), policies },
    split,
    mnistDataRoot: options.mnistDataRoot,
    ...(loaded === undefined ? {} : { loaded: loaded.data }),
  };
  checkPolicySpecs(experiment, file);
  return experiment;
}

/** The experiment's own derived values (its `params`, Section 4's derivations), before any entry's. */
function sharedDerived(config: Pick<ExperimentConfig, 'params' | 'horizon'>, problem: { d: number; K: number; D: number }): Omit<DerivedValues, 'policies'> {
  const { params } = config;
  const hp = deriveHyperparameters({
    d: problem.d,
    K: problem.K,
    normBound: params.S,
    maxActionNorm: problem.D,
    horizon: config.horizon,
    l: params.l,
    e: params.e,
    regularization: params.lambda,
    stepSize: params.eta,
    sketchSize: params.m === 'adaptive' ? ADAPTIVE_INITIAL_SKETCH_SIZE : params.m,
    delta: params.delta,
  });
  return {
    lambda: hp.regularization,
    eta: hp.stepSize,
    m: params.m === 'adaptive' ? 'adaptive' : hp.sketchSize,
    delta: hp.delta,
    beta: params.beta,
    beta_scale: params.beta_scale,
    beta_rank: params.beta_rank,
    alpha: hp.alpha,
    lambda0: hp.baseRegularization,
    eta0: hp.baseStepSize,
    l: hp.l,
    e: hp.e,
    D: problem.D,
    S: params.S,
  };
}

/** Refuses an environment whose one copy (resolution builds trial 0's) the machine cannot hold, before it is allocated. */
function checkEnvironmentSize(config: ExperimentConfig, file: string, machine: MachineMemory = machineMemory()): void {
  const bytes = environmentDescriptor(config.environment.type).copyBytes?.(config.environment);
  if (bytes === undefined || bytes + UNIT_OVERHEAD_BYTES <= machine.bytes) return;
  throw new ConfigError({
    file,
    field: 'environment',
    detail: `one copy of this environment needs about ${gb(bytes)} (every unit plays its own), more than the ${gb(machine.bytes)} of ${machine.source}; use fewer actions a round or a smaller d`,
  });
}

/**
 * Every policy's spec must be valid before any work starts: an extreme l, e or S (λ or η overflowing
 * to Infinity or underflowing to 0), δ = 1/T = 1 at T = 1, a reward too large to sum, or a value
 * outside the range the policy itself computes in (its descriptor's rangeProblem), is a config error
 * (exit 2), never a unit failing at run time.
 */
function checkPolicySpecs(experiment: ResolvedExperiment, file: string): void {
  const { config, derived } = experiment;
  for (const { label: policy, policy: name, external } of config.policies) {
    // A process gets no spec (its hello carries the problem); a module's is the experiment's, checked as any.
    if (external?.kind === 'command') continue;
    const spec = policySpecFor(experiment, policy, 0);
    try {
      validatePolicySpec(spec);
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      let hint = '';
      if (/^delta/.test(error.message) && config.params.delta === 'auto') hint = ` (δ = 1/T with T = ${config.horizon}: give horizon ≥ 2, or params.delta in (0, 1))`;
      else if (/^lambda/.test(error.message) && derived.l !== null) hint = ` (λ = (√K d)^l λ0 with l = ${derived.l}, λ0 = ${derived.lambda0}: choose a smaller |l| or give params.lambda)`;
      else if (/^eta/.test(error.message) && derived.e !== null) hint = ` (η = (√K d)^e η0 with e = ${derived.e}, η0 = ${derived.eta0}: choose a smaller |e| or give params.eta)`;
      throw new ConfigError({ file, field: 'params', detail: `${policy}: ${error.message}${hint}` });
    }
    // The policy's own range (PolicyDescriptor.rangeProblem), from the values it will be built with.
    const problem = external === undefined ? (policyDescriptor(name).rangeProblem?.(spec) ?? null) : null;
    if (problem !== null) throw new ConfigError({ file, field: `params.${problem.field}`, detail: `${policy}: ${problem.detail}` });
  }
}

/** What `params` a policy entry sees: each layer overrides the one before; l given without λ drops λ (and e, η). */
function overlay(values: Record<string, unknown>, layer: Readonly<Record<string, unknown>>): void {
  for (const [key, value] of Object.entries(layer)) {
    if (value === undefined) continue;
    if (key === 'l' && layer.lambda === undefined) delete values.lambda;
    if (key === 'e' && layer.eta === undefined) delete values.eta;
    values[key] = value;
  }
}

/**
 * One policy entry's hyperparameters, resolved once: the shared defaults, then its policy's authors'
 * defaults (descriptor.defaults), then the experiment's `params` as the config gives them, then the
 * entry's own params; λ, η, m and δ derived from them as Section 4 does, m capped at the dimension the
 * policy sketches. Only the keys the policy reads are recorded (λ and η with l and e), and its own
 * keys (descriptor.options) the config gives. `unregistered`: a descriptor the registry does not list.
 */
export function resolvePolicyParams(
  config: ExperimentConfig,
  entry: PolicyEntry,
  problem: { d: number; K: number; D: number },
  unregistered?: PolicyDescriptor,
): PolicyHyperparameters {
  // An external policy reads none of the shared keys: its own params are recorded instead (a process's
  // scalar ones; all are in the manifest's variants), which the run's header, the report and export show.
  if (entry.external !== undefined) {
    const scalars = Object.entries(entry.params).filter(([, value]) => ['number', 'string', 'boolean'].includes(typeof value));
    return { ...Object.fromEntries(scalars), policy: entry.policy };
  }
  const descriptor = unregistered ?? policyDescriptor(entry.policy);
  const values: Record<string, unknown> = { ...PARAM_DEFAULTS };
  overlay(values, descriptor.defaults ?? {});
  const document = config.document as { params?: Record<string, unknown> } | undefined;
  const given = Object.fromEntries(Object.keys(document?.params ?? {}).map((key) => [key, (config.params as Record<string, unknown>)[key]]));
  overlay(values, given);
  overlay(values, entry.params);
  const { d, K, D } = problem;
  const S = values.S as number;
  // params.m: adaptive passes through as 'adaptive' with its budget ε (delta_max; absent otherwise).
  const adaptive = values.m === 'adaptive';
  const hp = deriveHyperparameters({
    d,
    K,
    normBound: S,
    maxActionNorm: D,
    horizon: config.horizon,
    l: values.l as number,
    e: values.e as number,
    regularization: values.lambda as number | undefined,
    stepSize: values.eta as number | undefined,
    sketchSize: adaptive ? ADAPTIVE_INITIAL_SKETCH_SIZE : (values.m as number | 'auto'),
    delta: values.delta as number | 'auto',
  });
  const all: Record<ParamKey, unknown> = {
    S,
    l: hp.l,
    e: hp.e,
    lambda: hp.regularization,
    eta: hp.stepSize,
    m: adaptive ? 'adaptive' : sketchSizeOf(descriptor, hp.sketchSize, d, K),
    delta_max: adaptive ? ((values.delta_max as number | undefined) ?? DEFAULT_DELTA_MAX) : undefined,
    beta: values.beta,
    beta_scale: values.beta_scale,
    beta_rank: values.beta_rank,
    sketch: values.sketch ?? 'fd',
    delta: hp.delta,
  };
  const read = new Set<ParamKey>(descriptor.reads);
  if (read.has('l')) read.add('lambda');
  if (read.has('e')) read.add('eta');
  const recorded: PolicyHyperparameters = { policy: entry.policy };
  for (const key of PARAM_KEYS) if (read.has(key) && all[key] !== undefined) (recorded as unknown as Record<string, unknown>)[key] = all[key];
  // Its own keys are recorded only when given (their declared defaults apply otherwise), so that existing manifests stay as they were.
  for (const key of Object.keys(descriptor.options ?? {})) if (values[key] !== undefined) recorded[key] = values[key];
  return recorded;
}

/** The PolicySpec of `policy` in trial `trial`; a policy that draws gets its own seeded stream. */
export function policySpecFor(experiment: ResolvedExperiment, label: string, trial: number): PolicySpec {
  const entry = entryOf(experiment.config, label);
  const recorded = experiment.derived.policies[label];
  if (recorded === undefined) throw new RangeError(`no resolved hyperparameters for ${JSON.stringify(label)}`);
  // A module's spec is the experiment's: its own params (recorded, whatever their names) are not the shared keys.
  const own = entry.external === undefined ? recorded : { policy: entry.policy };
  // Variants of one policy draw from the policy's stream: they are paired draw for draw (DESIGN §4).
  const seed = entryNeedsRandomStream(entry) ? unitSeeds(experiment.config, trial, experiment.split).policy(entry.policy) : undefined;
  const descriptor = entry.external === undefined ? policyDescriptor(entry.policy) : undefined;
  return specFrom(experiment.derived, own, descriptor, { d: experiment.environment.d, K: experiment.environment.K, reward: experiment.environment.reward }, experiment.config.horizon, seed);
}

/** `descriptor`'s own keys (PolicyDescriptor.options) in `own`, each defaulted as declared; undefined when it declares none. */
function resolvedOptions(descriptor: PolicyDescriptor | undefined, own: Readonly<Record<string, unknown>>): OptionValues | undefined {
  const keys = Object.keys(descriptor?.options ?? {});
  return descriptor === undefined || keys.length === 0 ? undefined : Object.fromEntries(keys.map((key) => [key, policyOption(descriptor, own, key)]));
}

/** A spec from the experiment's derived values and an entry's own (`own` first), its policy's own keys defaulted as `descriptor` declares them; `seed`: the policy's uniform stream's. */
function specFrom(derived: Omit<DerivedValues, 'policies'>, own: PolicyHyperparameters, descriptor: PolicyDescriptor | undefined, env: { d: number; K: number; reward: readonly number[] }, horizon: number, seed: string | undefined): PolicySpec {
  const options = resolvedOptions(descriptor, own);
  // A policy that reads no m (OFUL-MLogB, …) is given the experiment's, which it ignores.
  const m = own.m ?? derived.m;
  const uniform = seed === undefined ? undefined : uniformOf(new RandomStream(seed));
  return {
    d: env.d,
    K: env.K,
    reward: nonNullRewards(env.reward),
    normBound: own.S ?? derived.S,
    regularization: own.lambda ?? derived.lambda,
    stepSize: own.eta ?? derived.eta,
    sketchSize: typeof m === 'number' ? m : ADAPTIVE_INITIAL_SKETCH_SIZE,
    ...(m === 'adaptive' && own.delta_max !== undefined ? { adaptiveSketch: { deltaMax: own.delta_max } } : {}),
    beta: own.beta ?? derived.beta,
    betaScale: own.beta_scale ?? derived.beta_scale,
    betaRank: own.beta_rank ?? derived.beta_rank,
    delta: own.delta ?? derived.delta,
    maxActionNorm: derived.D,
    horizon,
    sketchVariant: (own.sketch ?? 'fd') as SketchVariant,
    ...(options === undefined ? {} : { options }),
    ...(uniform === undefined ? {} : { uniform }),
  };
}

/**
 * The spec the built-in `name` gets, with the entry params `params`, in an experiment whose shared
 * `params` are the defaults and whose problem is `problem` (eofd serve-policy: the same spec, hence the
 * same decisions, as the built-in entry `{policy: name, params}` of such an experiment).
 */
export function builtInSpec(name: string, params: Readonly<EntryParams>, problem: { d: number; K: number; reward: readonly number[]; D: number; horizon: number }, seed: string | undefined): PolicySpec {
  return descriptorSpec(policyDescriptor(name), params, problem, seed);
}

/** builtInSpec for `descriptor`, registered or not. */
export function descriptorSpec(descriptor: PolicyDescriptor, params: Readonly<EntryParams>, problem: { d: number; K: number; reward: readonly number[]; D: number; horizon: number }, seed: string | undefined): PolicySpec {
  const name = descriptor.name;
  const config = { horizon: problem.horizon, params: PARAM_DEFAULTS, document: { params: {} } } as unknown as ExperimentConfig;
  const own = resolvePolicyParams(config, { label: name, policy: name, params }, problem, descriptor);
  return specFrom(sharedDerived(config, problem), own, descriptor, problem, problem.horizon, descriptor.needsRandomStream ? seed : undefined);
}

/**
 * A fresh policy for unit (label, trial): a registry policy or a module's from the entry's spec, or a
 * process started and greeted (its hello: the problem, the unit's seed and the entry's params).
 */
export function createUnitPolicy(experiment: ResolvedExperiment, label: string, trial: number): Policy {
  const entry = entryOf(experiment.config, label);
  const external = entry.external;
  if (external === undefined) return createPolicy(entry.policy, policySpecFor(experiment, label, trial));
  if (external.kind === 'module') {
    return createModulePolicy(external.module, policySpecFor(experiment, label, trial), { ...entry.params }, label);
  }
  const { environment: env, config } = experiment;
  const seed = unitSeeds(config, trial, experiment.split).policy(label);
  return new ProcessPolicy({
    label,
    command: external.command,
    cwd: external.cwd,
    timeoutMs: external.timeout * 1000,
    hello: { label, d: env.d, K: env.K, reward: [...env.reward], horizon: config.horizon, trial, seed, seed_int: seedInteger(seed), max_action_norm: experiment.derived.D, params: { ...entry.params } },
  });
}
