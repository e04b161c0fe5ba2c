/**
 * The environments a config can name, one descriptor each (environment.ts: type, schema, resolve,
 * create). To add one: a new file exporting its descriptor (`defineEnvironment`), and one line here.
 */
import type { z } from 'zod';
import type { Environment, EnvironmentContext, EnvironmentDescriptor } from './environment.js';
import { classificationEnvironment } from './classification.js';
import { mnistEnvironment } from './mnist.js';
import { moduleEnvironment } from './module.js';
import { syntheticEnvironment } from './synthetic.js';
import { traceEnvironment } from './trace.js';

/** Every environment type, in the order `eofd list` and error messages show them. */
export const ENVIRONMENTS = [syntheticEnvironment, mnistEnvironment, classificationEnvironment, traceEnvironment, moduleEnvironment] as const;

type Registered = (typeof ENVIRONMENTS)[number];

/** A resolved environment config (the manifest's `config.environment` before d, K and r are added). */
export type EnvironmentConfig = ReturnType<Registered['resolve']>;

/** A parsed, not yet resolved, environment config. */
export type ParsedEnvironmentConfig = z.output<Registered['schema']>;

export type EnvironmentType = Registered['type'];

export const ENVIRONMENT_TYPES: readonly EnvironmentType[] = ENVIRONMENTS.map((e) => e.type);

/** The descriptor of `type`; throws a RangeError naming the known types otherwise. */
export function environmentDescriptor(type: string): EnvironmentDescriptor {
  const descriptor = ENVIRONMENTS.find((e) => e.type === type);
  if (descriptor === undefined) {
    throw new RangeError(`unknown environment type ${JSON.stringify(type)}; expected one of ${ENVIRONMENT_TYPES.join(', ')}`);
  }
  return descriptor as unknown as EnvironmentDescriptor;
}

/** Builds the environment of one trial; fails if it cannot last `context.horizon` rounds. */
export function createEnvironment(config: EnvironmentConfig, context: EnvironmentContext): Environment {
  const descriptor = environmentDescriptor(config.type);
  const loaded = context.loaded ?? descriptor.load?.(config).data;
  const environment = descriptor.create(config, loaded === undefined ? context : { ...context, loaded });
  if (environment.horizon < context.horizon) {
    throw new RangeError(
      `${config.type} environment has ${environment.horizon} rounds, fewer than the horizon ${context.horizon}`,
    );
  }
  return environment;
}
