/**
 * Environment configs → environments: one typed table, one entry per `environment.type`.
 */
import type { EnvironmentConfig, EnvironmentType } from '../config/schema.js';
import type { Environment } from './environment.js';
import { createMnistEnvironment } from './mnist.js';
import type { RandomStream } from './random-stream.js';
import { createSyntheticEnvironment } from './synthetic.js';
import { loadTraceEnvironment } from './trace.js';

/** What a trial gives every environment besides its config. */
export interface EnvironmentContext {
  /** T: rounds the trial will take. */
  readonly horizon: number;
  /** The trial's environment stream (seeded from `trialSeed(name, i, 'environment', …)`). */
  readonly stream: RandomStream;
  /** Folder with the MNIST digit files (default: the installed `mnist` package). */
  readonly mnistDataRoot?: string;
}

type EnvironmentFactories = {
  readonly [T in EnvironmentType]: (config: Extract<EnvironmentConfig, { type: T }>, context: EnvironmentContext) => Environment;
};

const ENVIRONMENT_FACTORIES: EnvironmentFactories = {
  synthetic: (config, { horizon, stream }) =>
    createSyntheticEnvironment(
      {
        d: config.d,
        K: config.K,
        // The config lists r_0..r_K; environments hold r_1..r_K (r_0 = 0).
        reward: Float64Array.from(config.reward.slice(1)),
        actionsMin: config.actions[0],
        actionsMax: config.actions[1],
        normStar: config.S_star,
        horizon,
      },
      stream,
    ),
  mnist: (config, { horizon, stream, mnistDataRoot }) =>
    createMnistEnvironment({ target: config.target, horizon }, stream, mnistDataRoot),
  // trace: replays a recorded instance (DESIGN §3) with its recorded u; draws nothing from the stream.
  trace: (config) => loadTraceEnvironment(config.file),
};

/** Builds the environment of one trial; fails if it cannot last `context.horizon` rounds. */
export function createEnvironment(config: EnvironmentConfig, context: EnvironmentContext): Environment {
  const factory = ENVIRONMENT_FACTORIES[config.type] as (
    config: EnvironmentConfig,
    context: EnvironmentContext,
  ) => Environment;
  if (factory === undefined) throw new RangeError(`unknown environment type ${JSON.stringify(config.type)}`);
  const environment = factory(config, context);
  if (environment.horizon < context.horizon) {
    throw new RangeError(
      `${config.type} environment has ${environment.horizon} rounds, fewer than the horizon ${context.horizon}`,
    );
  }
  return environment;
}
