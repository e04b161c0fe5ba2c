import { EofdMLogB } from './eofd-mlogb.js';
import { OfulMLogB } from './oful-mlogb.js';
import { POLICY_NAMES, type Policy, type PolicyName } from './policy.js';
import { RandomPolicy } from './random.js';
import type { PolicySpec } from './spec.js';

/** Constructors keyed by the paper's names. */
const POLICIES: Record<PolicyName, (spec: PolicySpec) => Policy> = {
  'EOFD-MLogB': (spec) => new EofdMLogB(spec),
  'OFUL-MLogB': (spec) => new OfulMLogB(spec),
  Random: (spec) => new RandomPolicy(spec),
};

export function isPolicyName(name: string): name is PolicyName {
  return (POLICY_NAMES as readonly string[]).includes(name);
}

/** A fresh policy for one trial. */
export function createPolicy(name: string, spec: PolicySpec): Policy {
  if (!isPolicyName(name)) {
    throw new RangeError(`unknown policy ${JSON.stringify(name)}; expected one of ${POLICY_NAMES.join(', ')}`);
  }
  return POLICIES[name](spec);
}
