/**
 * What the rest of eofd asks of a policy entry, for every kind of entry: a registry policy, a process
 * (`{command}`, process-policy.ts) or a module (`{module}`, module-policy.ts). A module's default export is a
 * descriptor (ModulePolicyDescriptor, exported by the package): `create(spec, params)` and the params
 * it declares, which configs, `grid --over` and `sweep --over` then take as they take a built-in's.
 */
import type { PolicyEntry } from './schema.js';
import { moduleParams } from '../base/module-descriptor.js';

// moduleParams: an entry's params checked against the module's declaration (shared with module environments).
export { loadPolicyModule, moduleParams, type ModuleParam, type ModulePolicyDescriptor };
import { loadPolicyModule, type ModuleParam, type ModulePolicyDescriptor } from '../policies/external/module-policy.js';
import type { PolicyCost, ProblemShape } from '../policies/policy.js';
import { costOnlyKeys } from '../base/options.js';
import { policyDescriptor, policyKeys } from '../policies/registry.js';


/** The `params` keys the entry reads (a built-in's PolicyDescriptor.reads and declared options, a module's declared keys; a process: none of them). */
export function entryReads(entry: PolicyEntry): readonly string[] {
  const external = entry.external;
  if (external === undefined) return policyKeys(policyDescriptor(entry.policy));
  return external.kind === 'module' ? Object.keys(loadPolicyModule(external.module).params ?? {}) : [];
}

/** Whether the entry reads the `params` key `key` (a sweep, grid or entry over it means something). */
export function entryReadsParam(entry: PolicyEntry, key: string): boolean {
  return entryReads(entry).includes(key);
}

/** Which problems the entry plays (a process: both, as far as eofd knows). */
export function entrySupports(entry: PolicyEntry): { readonly binary: boolean; readonly multinomial: boolean } {
  const external = entry.external;
  if (external === undefined) return policyDescriptor(entry.policy).supports;
  return external.kind === 'module' ? (loadPolicyModule(external.module).supports ?? { binary: true, multinomial: true }) : { binary: true, multinomial: true };
}

/** Whether the entry's policy gets a seeded uniform stream in its spec (a process gets its seed in the hello instead). */
export function entryNeedsRandomStream(entry: PolicyEntry): boolean {
  const external = entry.external;
  if (external === undefined) return policyDescriptor(entry.policy).needsRandomStream;
  return external.kind === 'module' && loadPolicyModule(external.module).needsRandomStream === true;
}

/**
 * An external policy's cost, which eofd cannot know: no operations or bytes in its estimates (the run's
 * size checks count only the built-ins), and a rank above every built-in's, so its units start first.
 */
const EXTERNAL_COST: PolicyCost = { round: 'unknown', memory: 'unknown', flops: (_: ProblemShape) => 0, bytes: (_: ProblemShape) => 0, probeProjection: false };
const EXTERNAL_COST_RANK = 1000;

/** The entry's cost model (PolicyDescriptor.cost; EXTERNAL_COST for an external one). */
export function entryCost(entry: PolicyEntry): PolicyCost {
  return entry.external === undefined ? policyDescriptor(entry.policy).cost : EXTERNAL_COST;
}

/** The entry's cost rank (PolicyDescriptor.costRank): larger runs earlier. */
export function entryCostRank(entry: PolicyEntry): number {
  return entry.external === undefined ? policyDescriptor(entry.policy).costRank : EXTERNAL_COST_RANK;
}

/** The entry's keys that change only what a round costs (its policy's options marked costOnly; none for an external one, whose labels are never cost twins). */
export function entryCostOnly(entry: PolicyEntry): readonly string[] {
  return entry.external === undefined ? costOnlyKeys(policyDescriptor(entry.policy).options) : [];
}
