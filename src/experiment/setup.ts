/**
 * A validated config → a resolved experiment: the environment's d, K, rewards and D (read from trial
 * 0's environment), Section 4's derived hyperparameters, and per (policy, trial) the PolicySpec and
 * the seeds. Everything here is plain data, so a resolved experiment crosses to worker threads as is.
 */
import path from 'node:path';
import { ConfigError, describeFsError } from '../base/errors.js';
import type { ExperimentConfig } from '../config/schema.js';
import type { Environment } from '../environments/environment.js';
import { fileIdentity, type InputFileIdentity } from '../environments/input-files.js';
import { createEnvironment, environmentDescriptor } from '../environments/registry.js';
import type { BetaMode } from '../model/beta.js';
import { deriveHyperparameters, scaleByDimension } from '../model/hyperparameters.js';
import { hasStepParameters, policyDescriptor } from '../policies/registry.js';
import { policySpec, validatePolicySpec, type PolicySpec } from '../policies/spec.js';
import { RandomStream } from '../random/stream.js';
import type { DerivedValues, PolicyHyperparameters, ResolvedEnvironment } from '../results/manifest.js';
import { trialSeed, type SeedSplit } from './seeds.js';

export interface ResolvedExperiment {
  config: ExperimentConfig;
  environment: ResolvedEnvironment;
  derived: DerivedValues;
  /** Which seed split the trials come from ('report' for `eofd run`). */
  split: SeedSplit;
  /** Folder with the MNIST digit files (default: the installed `mnist` package). */
  mnistDataRoot?: string;
}

export interface ResolveOptions {
  split?: SeedSplit;
  /** The config file as the user named it, for error messages (default: relative to the cwd). */
  configFile?: string;
  mnistDataRoot?: string;
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
): Environment {
  const stream = new RandomStream(unitSeeds(config, trial, split).environment);
  return createEnvironment(config.environment, { horizon: config.horizon, stream, mnistDataRoot });
}

/** Trial `trial`'s environment: every policy of the trial gets its own copy of the same instance. */
export function createTrialEnvironment(experiment: ResolvedExperiment, trial: number): Environment {
  return buildEnvironment(experiment.config, trial, experiment.split, experiment.mnistDataRoot);
}

/** Size and SHA-256 of each file the environment reads (undefined when it reads none). */
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
  try {
    environment = buildEnvironment(config, 0, split, options.mnistDataRoot);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (error instanceof RangeError) throw new ConfigError({ file, field: 'environment', detail: error.message });
    throw error;
  }
  for (const policy of config.policies) {
    const { supports } = policyDescriptor(policy);
    if (!(environment.K === 1 ? supports.binary : supports.multinomial)) {
      throw new ConfigError({ file, field: 'policies', detail: `${policy} does not play K = ${environment.K} problems` });
    }
  }
  const { params } = config;
  const D = environment.maxActionNorm;
  const hp = deriveHyperparameters({
    d: environment.d,
    K: environment.K,
    normBound: params.S,
    maxActionNorm: D,
    horizon: config.horizon,
    l: params.l,
    e: params.e,
    regularization: params.lambda,
    stepSize: params.eta,
    sketchSize: params.m,
    delta: params.delta,
  });
  const inputs = inputIdentities(config, file);
  const { type, ...rest } = config.environment;
  let policies: Record<string, PolicyHyperparameters> | undefined;
  if (config.policyParams !== undefined) {
    policies = {};
    for (const policy of config.policies) {
      const own = config.policyParams[policy];
      if (own === undefined || !hasStepParameters(policy)) continue;
      const { d, K } = environment;
      policies[policy] = {
        l: own.l,
        e: own.e,
        lambda: scaleByDimension(d, K, own.l, hp.baseRegularization),
        eta: scaleByDimension(d, K, own.e, hp.baseStepSize),
      };
    }
  }
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
    derived: {
      lambda: hp.regularization,
      eta: hp.stepSize,
      m: hp.sketchSize,
      delta: hp.delta,
      beta: params.beta,
      beta_scale: params.beta_scale,
      beta_rank: params.beta_rank,
      alpha: hp.alpha,
      lambda0: hp.baseRegularization,
      eta0: hp.baseStepSize,
      l: hp.l,
      e: hp.e,
      D,
      S: params.S,
      ...(policies === undefined ? {} : { policies }),
    },
    split,
    mnistDataRoot: options.mnistDataRoot,
  };
  checkPolicySpecs(experiment, file);
  return experiment;
}

/**
 * Every policy's spec must be valid before any work starts: an extreme l, e or S (λ or η overflowing
 * to Infinity or underflowing to 0), δ = 1/T = 1 at T = 1, or a reward too large to sum, is a config
 * error (exit 2), never a unit failing at run time.
 */
function checkPolicySpecs(experiment: ResolvedExperiment, file: string): void {
  const { config, derived } = experiment;
  for (const policy of config.policies) {
    try {
      validatePolicySpec(policySpecFor(experiment, policy, 0));
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      let hint = '';
      if (/^delta/.test(error.message) && config.params.delta === 'auto') hint = ` (δ = 1/T with T = ${config.horizon}: give horizon ≥ 2, or params.delta in (0, 1))`;
      else if (/^lambda/.test(error.message) && derived.l !== null) hint = ` (λ = (√K d)^l λ0 with l = ${derived.l}, λ0 = ${derived.lambda0}: choose a smaller |l| or give params.lambda)`;
      else if (/^eta/.test(error.message) && derived.e !== null) hint = ` (η = (√K d)^e η0 with e = ${derived.e}, η0 = ${derived.eta0}: choose a smaller |e| or give params.eta)`;
      throw new ConfigError({ file, field: 'params', detail: `${policy}: ${error.message}${hint}` });
    }
  }
}

/** The PolicySpec of `policy` in trial `trial`; a policy that draws gets its own seeded stream. */
export function policySpecFor(experiment: ResolvedExperiment, policy: string, trial: number): PolicySpec {
  const { environment: env, derived } = experiment;
  let uniform: (() => number) | undefined;
  if (policyDescriptor(policy).needsRandomStream) {
    const stream = new RandomStream(unitSeeds(experiment.config, trial, experiment.split).policy(policy));
    uniform = () => stream.uniform();
  }
  return policySpec({
    d: env.d,
    K: env.K,
    reward: env.reward,
    normBound: derived.S,
    maxActionNorm: derived.D,
    regularization: derived.policies?.[policy]?.lambda ?? derived.lambda,
    stepSize: derived.policies?.[policy]?.eta ?? derived.eta,
    sketchSize: derived.m,
    delta: derived.delta,
    beta: derived.beta,
    betaScale: derived.beta_scale,
    betaRank: derived.beta_rank,
    sketchVariant: experiment.config.params.sketch ?? 'fd',
    uniform,
  });
}
