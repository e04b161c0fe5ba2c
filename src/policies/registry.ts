/**
 * The policies a config can name, one descriptor each (policy.ts). To add one: a new file exporting
 * its class and its `PolicyDescriptor`, and one line in POLICIES below.
 */
import { adaOfuEcologPolicy } from './ada-ofu-ecolog.js';
import { eofdMLogBPolicy } from './eofd-mlogb.js';
import { eofdTsPolicy } from './eofd-ts.js';
import { mnlUcbPolicy } from './mnl-ucb.js';
import { ofulMLogBPolicy } from './oful-mlogb.js';
import { ol2mPolicy } from './ol2m.js';
import type { Policy, PolicyDescriptor } from './policy.js';
import { randomPolicy } from './random.js';
import { sofulPolicy } from './soful.js';
import type { PolicySpec } from './spec.js';
import { tsMLogBPolicy } from './ts-mlogb.js';

/** Every policy, in the order reports and `eofd list` show them. */
export const POLICIES: readonly PolicyDescriptor[] = [
  eofdMLogBPolicy,
  ofulMLogBPolicy,
  randomPolicy,
  mnlUcbPolicy,
  ol2mPolicy,
  adaOfuEcologPolicy,
  sofulPolicy,
  tsMLogBPolicy,
  eofdTsPolicy,
];

export const POLICY_NAMES: readonly string[] = POLICIES.map((p) => p.name);

export function isPolicyName(name: string): boolean {
  return POLICY_NAMES.includes(name);
}

/** The descriptor of `name`; throws a RangeError naming the known policies otherwise. */
export function policyDescriptor(name: string): PolicyDescriptor {
  const descriptor = POLICIES.find((p) => p.name === name);
  if (descriptor === undefined) {
    throw new RangeError(`unknown policy ${JSON.stringify(name)}; expected one of ${POLICY_NAMES.join(', ')}`);
  }
  return descriptor;
}

/** A fresh policy for one trial. */
export function createPolicy(name: string, spec: PolicySpec): Policy {
  return policyDescriptor(name).create(spec);
}

/** Whether `name`'s policy reads the `params` key `key` (a sweep, grid or entry over it means something). */
export function readsParam(name: string, key: string): boolean {
  return (policyDescriptor(name).reads as readonly string[]).includes(key);
}
