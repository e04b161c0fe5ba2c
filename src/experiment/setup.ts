/**
 * A validated config → a resolved experiment: the environment's d, K, rewards and D (read from trial
 * 0's environment), Section 4's derived hyperparameters, and per (policy, trial) the PolicySpec and
 * the seeds. Everything here is plain data, so a resolved experiment crosses to worker threads as is.
 */
import path from 'node:path';
import { ConfigError } from '../config/errors.js';
import type { ExperimentConfig } from '../config/schema.js';
import type { Environment } from '../environments/environment.js';
import { RandomStream } from '../environments/random-stream.js';
import { createEnvironment } from '../environments/registry.js';
import type { BetaMode } from '../model/beta.js';
import { deriveHyperparameters } from '../model/hyperparameters.js';
import { nonNullRewards, type PolicySpec } from '../policies/spec.js';
import { formatShort as short } from '../report/format.js';
import { trialSeed, type SeedSplit } from './seeds.js';

/** Every derived value, under the names the manifest uses (the paper's symbol in each comment). */
export interface DerivedValues {
  /** λ */
  lambda: number;
  /** η */
  eta: number;
  /** m: sketch size (EOFD-MLogB caps it at Kd). */
  m: number;
  /** δ */
  delta: number;
  /** β mode: 'theory', 'order' or a constant. */
  beta: BetaMode;
  beta_scale: number;
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
  /** S: the radius of the parameter domain. */
  S: number;
  /** Per-policy (l, e, λ, η) overriding the shared ones (only with `eofd run --params`). */
  policies?: Record<string, PolicyHyperparameters>;
}

/** One policy's own λ and η (from its own l and e). */
export interface PolicyHyperparameters {
  l: number;
  e: number;
  lambda: number;
  eta: number;
}

/** The environment as the manifest states it: the config's fields plus d, K and r_0..r_K. */
export interface ResolvedEnvironment {
  type: string;
  d: number;
  K: number;
  /** r_0..r_K (r_0 = 0). */
  reward: number[];
  [field: string]: unknown;
}

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
  const { params } = config;
  const D = environment.maxActionNorm;
  const hp = deriveHyperparameters({
    d: environment.d,
    K: environment.K,
    radius: params.S,
    maxActionNorm: D,
    horizon: config.horizon,
    l: params.l,
    e: params.e,
    regularization: params.lambda,
    stepSize: params.eta,
    sketchSize: params.m,
    delta: params.delta,
  });
  const { type, ...rest } = config.environment;
  let policies: Record<string, PolicyHyperparameters> | undefined;
  if (config.policyParams !== undefined) {
    policies = {};
    for (const policy of config.policies) {
      const own = config.policyParams[policy];
      if (own === undefined || policy === 'Random') continue;
      const scale = Math.sqrt(environment.K) * environment.d;
      policies[policy] = { l: own.l, e: own.e, lambda: scale ** own.l * hp.baseRegularization, eta: scale ** own.e * hp.baseStepSize };
    }
  }
  return {
    config,
    environment: { type, ...rest, d: environment.d, K: environment.K, reward: [0, ...environment.reward] },
    derived: {
      lambda: hp.regularization,
      eta: hp.stepSize,
      m: hp.sketchSize,
      delta: hp.delta,
      beta: params.beta,
      beta_scale: params.beta_scale,
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
}

/** The PolicySpec of `policy` in trial `trial`; Random draws from its own seeded stream. */
export function policySpecFor(experiment: ResolvedExperiment, policy: string, trial: number): PolicySpec {
  const { environment: env, derived } = experiment;
  const spec: PolicySpec = {
    d: env.d,
    K: env.K,
    reward: nonNullRewards(env.reward),
    radius: derived.S,
    regularization: derived.policies?.[policy]?.lambda ?? derived.lambda,
    stepSize: derived.policies?.[policy]?.eta ?? derived.eta,
    sketchSize: derived.m,
    beta: derived.beta,
    betaScale: derived.beta_scale,
    delta: derived.delta,
    maxActionNorm: derived.D,
  };
  if (policy === 'Random') {
    const stream = new RandomStream(unitSeeds(experiment.config, trial, experiment.split).policy(policy));
    spec.uniform = () => stream.uniform();
  }
  return spec;
}


/** One line with the setting and every derived value, e.g. for stderr at the start of a run. */
export function describeResolved(experiment: ResolvedExperiment): string {
  const { config, environment: env, derived: v } = experiment;
  const beta = typeof v.beta === 'number' ? short(v.beta) : v.beta;
  return (
    `${config.name}: ${env.type}, d = ${env.d}, K = ${env.K}, T = ${config.horizon}, ${config.trials} trial${config.trials === 1 ? '' : 's'}, ` +
    `policies ${config.policies.join(', ')}; S = ${short(v.S)}, D = ${short(v.D)}, α = ${short(v.alpha)}, ` +
    `λ0 = ${short(v.lambda0)}, η0 = ${short(v.eta0)}, l = ${v.l ?? '–'}, e = ${v.e ?? '–'}, λ = ${short(v.lambda)}, ` +
    `η = ${short(v.eta)}, m = ${v.m}, δ = ${short(v.delta)}, β = ${beta} × ${short(v.beta_scale)}` +
    Object.entries(v.policies ?? {})
      .map(([policy, p]) => `; ${policy}: l = ${p.l}, e = ${p.e}, λ = ${short(p.lambda)}, η = ${short(p.eta)}`)
      .join('')
  );
}
