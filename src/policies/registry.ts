/**
 * The policies a config can name, one descriptor each (policy.ts). To add one: a new file exporting
 * its class and its `PolicyDescriptor`, one line in DESCRIPTORS below, and its name in
 * base/policy-catalogue.ts (the order reports, figures and `eofd list` show them in, and their figure styles).
 */
import { POLICY_ORDER } from '../base/policy-catalogue.js';
import { adaOfuEcologPolicy } from './ada-ofu-ecolog.js';
import { dbsLinUcbPolicy } from './dbslinucb.js';
import { eofdMLogBPolicy } from './eofd-mlogb.js';
import { eofdTsPolicy } from './eofd-ts.js';
import { glmUcbPolicy } from './glm-ucb.js';
import { glocPolicy } from './gloc.js';
import { logisticUcb1Policy } from './logistic-ucb-1.js';
import { mnlUcbPolicy } from './mnl-ucb.js';
import { ofulogRPolicy } from './ofulog-r.js';
import { ofulMLogBPolicy } from './oful-mlogb.js';
import { ofulogPlusPolicy } from './ofulog-plus.js';
import { ol2mPolicy } from './ol2m.js';
import type { DeclaredOption, OptionDeclarations } from '../base/options.js';
import { PARAM_KEYS, type Policy, type PolicyDescriptor } from './policy.js';
import { randomPolicy } from './random.js';
import { rsGlincbPolicy } from './rs-glincb.js';
import { rsMnlPolicy } from './rs-mnl.js';
import { sofulPolicy } from './soful.js';
import type { PolicySpec } from './spec.js';
import { cappedSketchSize } from '../sketch/frequent-directions.js';
import { tsMLogBPolicy } from './ts-mlogb.js';

const DESCRIPTORS: readonly PolicyDescriptor[] = [
  adaOfuEcologPolicy,
  dbsLinUcbPolicy,
  eofdMLogBPolicy,
  eofdTsPolicy,
  glmUcbPolicy,
  glocPolicy,
  logisticUcb1Policy,
  mnlUcbPolicy,
  ofulogRPolicy,
  ofulMLogBPolicy,
  ofulogPlusPolicy,
  ol2mPolicy,
  randomPolicy,
  rsGlincbPolicy,
  rsMnlPolicy,
  sofulPolicy,
  tsMLogBPolicy,
];

/** Every policy, in POLICY_ORDER (the order reports and `eofd list` show them); each must be listed there, and only they. */
export const POLICIES: readonly PolicyDescriptor[] = POLICY_ORDER.map((name) => {
  const descriptor = DESCRIPTORS.find((d) => d.name === name);
  if (descriptor === undefined) throw new Error(`base/policy-catalogue.ts lists ${JSON.stringify(name)}, which no descriptor registers`);
  return descriptor;
});
const unordered = DESCRIPTORS.find((d) => !POLICY_ORDER.includes(d.name));
if (unordered !== undefined) throw new Error(`policy ${JSON.stringify(unordered.name)} is missing from base/policy-catalogue.ts`);

export const POLICY_NAMES: readonly string[] = POLICIES.map((p) => p.name);

/**
 * The options `descriptors` declare (PolicyDescriptor.options), by key; throws an Error when two
 * declare one key differently (they may share one declaration) or one takes a shared key's name.
 */
export function declaredOptions(descriptors: readonly PolicyDescriptor[]): OptionDeclarations {
  const declared: Record<string, DeclaredOption> = {};
  const owners: Record<string, string> = {};
  for (const descriptor of descriptors) {
    for (const [key, option] of Object.entries(descriptor.options ?? {})) {
      if ((PARAM_KEYS as readonly string[]).includes(key)) throw new Error(`policy ${descriptor.name} declares the option ${key}, a shared params key: give it another name`);
      if (Object.hasOwn(declared, key) && declared[key] !== option) throw new Error(`policies ${owners[key]} and ${descriptor.name} both declare the option ${key}: declare it once and share the declaration`);
      declared[key] = option;
      owners[key] = descriptor.name;
    }
  }
  return Object.freeze(declared);
}

/** Every option a registered policy declares, by key: the config's `params` take them beside the shared keys. */
export const DECLARED_OPTIONS: OptionDeclarations = declaredOptions(POLICIES);

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

/** The registry name and spec each policy createPolicy made was built from (what a snapshot records). */
const origins = new WeakMap<Policy, { name: string; spec: PolicySpec }>();

/** A fresh policy for one trial. */
export function createPolicy(name: string, spec: PolicySpec): Policy {
  const policy = policyDescriptor(name).create(spec);
  origins.set(policy, { name, spec });
  return policy;
}

/** The name and spec `createPolicy` built `policy` from, or undefined for a policy it did not make. */
export function policyOrigin(policy: Policy): { name: string; spec: PolicySpec } | undefined {
  return origins.get(policy);
}

/** The m `name`'s sketch runs with when asked for m at (d, K): capped at the dimension it lives in (Kd for EOFD-MLogB, d for SOFUL). */
export function sketchSizeOf(policy: string | PolicyDescriptor, m: number, d: number, K: number): number {
  const descriptor = typeof policy === 'string' ? policyDescriptor(policy) : policy;
  return cappedSketchSize(m, descriptor.sketchDimension?.(d, K) ?? K * d);
}

/** The `params` keys `descriptor` takes: the shared keys it reads, then the options it declares. */
export function policyKeys(descriptor: PolicyDescriptor): readonly string[] {
  return [...descriptor.reads, ...Object.keys(descriptor.options ?? {})];
}

/** Whether `name`'s policy reads the `params` key `key` (a shared key it reads or an option it declares: a sweep, grid or entry over it means something). */
export function readsParam(name: string, key: string): boolean {
  return policyKeys(policyDescriptor(name)).includes(key);
}
