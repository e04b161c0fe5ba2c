/**
 * What the rest of eofd asks of a policy entry, for every kind of entry: a registry policy, a process
 * (`{command}`, process-policy.ts) or a module (`{module}`, below). A module's default export is a
 * descriptor (ModulePolicyDescriptor, exported by the package): `create(spec, params)` and the params
 * it declares, which configs, `grid --over` and `sweep --over` then take as they take a built-in's.
 */
import { createRequire } from 'node:module';
import type { PolicyEntry } from './schema.js';
import { PARAM_KEYS, type Policy, type PolicyCost, type ProblemShape } from '../policies/policy.js';
import { policyDescriptor } from '../policies/registry.js';
import type { PolicySpec } from '../policies/spec.js';

/** One param a module declares: its default (whose type is the param's), and optionally its range or values. */
export interface ModuleParam {
  readonly default: number | string | boolean;
  /** Numbers: the smallest and largest values allowed, and whether only integers are. */
  readonly min?: number;
  readonly max?: number;
  readonly integer?: boolean;
  /** Strings (or numbers): the values allowed. */
  readonly values?: readonly (string | number)[];
  /** One line for the docs and errors. */
  readonly description?: string;
}

/**
 * A module policy's default export. eofd calls `create` once per unit, in the thread that plays it
 * (a worker thread or the main one), with the unit's PolicySpec (its `uniform` set, seeded per trial
 * and label, when `needsRandomStream`) and the entry's params with the declared defaults filled in.
 */
export interface ModulePolicyDescriptor {
  /** Its name in errors (default: the entry's label). */
  readonly name?: string;
  readonly summary?: string;
  /** Which problems it plays (default: both). */
  readonly supports?: { readonly binary: boolean; readonly multinomial: boolean };
  /** Its params: the keys an entry (and `--over params.<key>`) may give it. */
  readonly params?: Readonly<Record<string, ModuleParam>>;
  /** Gets its own seeded uniform stream (spec.uniform). */
  readonly needsRandomStream?: boolean;
  create(spec: PolicySpec, params: Readonly<Record<string, unknown>>): Policy;
}

const require = createRequire(import.meta.url);
const loaded = new Map<string, ModulePolicyDescriptor>();

/**
 * The descriptor a module exports by default, loaded once per thread (synchronously: Node ≥ 20.19
 * requires ES modules without top-level await); throws an Error saying what is wrong with it.
 */
export function loadPolicyModule(file: string): ModulePolicyDescriptor {
  const cached = loaded.get(file);
  if (cached !== undefined) return cached;
  let exported: unknown;
  try {
    exported = require(file);
  } catch (error) {
    throw new Error(`cannot load ${file}: ${(error as Error).message.split('\n')[0]}`);
  }
  const namespace = exported as { default?: unknown; __esModule?: boolean };
  const descriptor = (typeof namespace === 'object' && namespace !== null && 'default' in namespace ? namespace.default : exported) as ModulePolicyDescriptor;
  const problem = descriptorProblem(descriptor);
  if (problem !== null) throw new Error(`${file}: its default export ${problem} (docs/policies.md "Policies from a module")`);
  loaded.set(file, descriptor);
  return descriptor;
}

function descriptorProblem(descriptor: unknown): string | null {
  if (typeof descriptor !== 'object' || descriptor === null) return 'is not an object {create, params}';
  const d = descriptor as Record<string, unknown>;
  if (typeof d.create !== 'function') return 'has no create(spec, params) function';
  if (d.params !== undefined && (typeof d.params !== 'object' || d.params === null)) return 'has params that are not a mapping of declarations';
  for (const [key, param] of Object.entries((d.params ?? {}) as Record<string, unknown>)) {
    const p = param as Partial<ModuleParam> | null;
    if (typeof p !== 'object' || p === null || !['number', 'string', 'boolean'].includes(typeof p.default)) return `declares params.${key} without a default number, string or boolean`;
    // A shared key reaches the policy through its spec (λ: spec.regularization, …); a key of its own needs a name of its own.
    if ((PARAM_KEYS as readonly string[]).includes(key)) return `declares params.${key}, a key of the experiment's shared params (its value reaches create through the spec): give the module's own param another name`;
  }
  return null;
}

/**
 * The entry's params with the module's declared defaults filled in; throws a RangeError `key: detail`
 * for a key it does not declare or a value outside its declaration.
 */
export function moduleParams(descriptor: ModulePolicyDescriptor, given: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const declared = descriptor.params ?? {};
  const values: Record<string, unknown> = {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(declared, key)) {
      const keys = Object.keys(declared);
      throw new RangeError(`${key}: the module does not declare ${key}; it declares ${keys.length === 0 ? 'no params' : keys.join(', ')}`);
    }
  }
  for (const [key, param] of Object.entries(declared)) {
    const value = Object.hasOwn(given, key) ? given[key] : param.default;
    const problem = paramProblem(param, value);
    if (problem !== null) throw new RangeError(`${key}: ${problem}, got ${JSON.stringify(value)}`);
    values[key] = value;
  }
  return values;
}

function paramProblem(param: ModuleParam, value: unknown): string | null {
  const type = typeof param.default;
  if (typeof value !== type || (type === 'number' && !Number.isFinite(value))) return `expected a${type === 'number' ? ' finite' : ''} ${type}`;
  if (param.values !== undefined && !param.values.includes(value as string | number)) return `expected one of ${param.values.map((v) => JSON.stringify(v)).join(', ')}`;
  if (type !== 'number') return null;
  const n = value as number;
  if (param.integer === true && !Number.isInteger(n)) return 'expected an integer';
  if (param.min !== undefined && n < param.min) return `expected a number ≥ ${param.min}`;
  if (param.max !== undefined && n > param.max) return `expected a number ≤ ${param.max}`;
  return null;
}

/** The `params` keys the entry reads (a built-in's PolicyDescriptor.reads, a module's declared keys; a process: none of them). */
export function entryReads(entry: PolicyEntry): readonly string[] {
  const external = entry.external;
  if (external === undefined) return policyDescriptor(entry.policy).reads;
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

/** The entry's keys that change only what a round costs (PolicyDescriptor.costOnly; none for an external one). */
export function entryCostOnly(entry: PolicyEntry): readonly string[] {
  return entry.external === undefined ? (policyDescriptor(entry.policy).costOnly ?? []) : [];
}
