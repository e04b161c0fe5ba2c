/**
 * A module policy as the runner plays it: the object its descriptor's `create` returned, checked (it
 * must select and update) and completed (a module need not count anything: stats and estimate default
 * to none). A snapshot (snapshot.ts) saves the object `create` returned, field by field, and rebuilds
 * it from the same module file (its SHA-256 checked), spec and params.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { requireDefault, type ModuleParam } from '../../base/module-descriptor.js';
import { declarationsProblem } from '../../base/options.js';
import type { ActionSet } from '../../environments/environment.js';
import { PARAM_KEYS, type Policy, type PolicyStats } from '../policy.js';
import { DECLARED_OPTIONS } from '../registry.js';
import type { PolicySpec } from '../spec.js';

export type { ModuleParam };

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

const loaded = new Map<string, ModulePolicyDescriptor>();

/**
 * The descriptor a module exports by default, loaded once per thread (base/module-descriptor.ts);
 * throws an Error saying what is wrong with it.
 */
export function loadPolicyModule(file: string): ModulePolicyDescriptor {
  const cached = loaded.get(file);
  if (cached !== undefined) return cached;
  const descriptor = requireDefault(file) as ModulePolicyDescriptor;
  const problem = descriptorProblem(descriptor);
  if (problem !== null) throw new Error(`${file}: its default export ${problem} (docs/policies.md "Policies from a module")`);
  loaded.set(file, descriptor);
  return descriptor;
}

function descriptorProblem(descriptor: unknown): string | null {
  if (typeof descriptor !== 'object' || descriptor === null) return 'is not an object {create, params}';
  const d = descriptor as Record<string, unknown>;
  if (typeof d.create !== 'function') return 'has no create(spec, params) function';
  const problem = declarationsProblem(d.params);
  if (problem !== null) return problem;
  // A shared key reaches the policy through its spec (λ: spec.regularization, …); a key of its own needs a name of its own.
  const shared = Object.keys(d.params ?? {}).find((key) => (PARAM_KEYS as readonly string[]).includes(key));
  if (shared !== undefined) return `declares params.${shared}, a key of the experiment's shared params (its value reaches create through the spec): give the module's own param another name`;
  const builtIn = Object.keys(d.params ?? {}).find((key) => Object.hasOwn(DECLARED_OPTIONS, key));
  return builtIn === undefined ? null : `declares params.${builtIn}, a key a built-in policy declares (the experiment's params take it): give the module's own param another name`;
}

const NO_STATS: PolicyStats = { stateBytes: 0, sketchError: 0, projections: 0, beta: NaN, delta: NaN };

/** Where a module policy came from: what a snapshot records to build it again (snapshot.ts). */
export interface ModuleOrigin {
  /** Absolute path of the module, and the SHA-256 of its bytes when the policy was made. */
  readonly module: string;
  readonly sha256: string;
  readonly spec: PolicySpec;
  /** The params `create` was given. */
  readonly params: Readonly<Record<string, unknown>>;
}

/** SHA-256 (hex) of a module file's bytes. */
export function moduleSha256(file: string): string {
  return createHash('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** The policy `file`'s descriptor creates for `spec` and `params`, named `label`, with its origin recorded. */
export function createModulePolicy(file: string, spec: PolicySpec, params: Readonly<Record<string, unknown>>, label: string): ModulePolicy {
  const descriptor = loadPolicyModule(file);
  return new ModulePolicy(descriptor.create(spec, params), label, { module: file, sha256: moduleSha256(file), spec, params });
}

export class ModulePolicy implements Policy {
  readonly name: string;
  readonly module: string;

  constructor(
    readonly inner: Partial<Policy>,
    label: string,
    readonly origin: ModuleOrigin,
  ) {
    const module = origin.module;
    this.module = module;
    if (typeof inner !== 'object' || inner === null || typeof inner.select !== 'function' || typeof inner.update !== 'function') {
      throw new Error(`${module}: create(spec, params) returned ${inner === null ? 'null' : typeof inner}, not a policy with select(actions, t) and update(x, outcome)`);
    }
    this.name = label;
    if (typeof inner.sketchSize === 'function') this.sketchSize = () => (inner.sketchSize as () => number).call(inner);
  }

  sketchSize?: () => number;

  select(actions: ActionSet, t: number): number {
    const action = (this.inner.select as Policy['select']).call(this.inner, actions, t);
    if (!(Number.isInteger(action) && action >= 0 && action < actions.count)) {
      throw new Error(`select returned the invalid action ${JSON.stringify(action) ?? 'undefined'} (expected an integer index in 0..${actions.count - 1})`);
    }
    return action;
  }

  update(x: Float64Array, outcome: number): void {
    (this.inner.update as Policy['update']).call(this.inner, x, outcome);
  }

  stats(): PolicyStats {
    return typeof this.inner.stats === 'function' ? { ...NO_STATS, ...this.inner.stats() } : NO_STATS;
  }

  estimate(): Float64Array {
    return typeof this.inner.estimate === 'function' ? this.inner.estimate() : new Float64Array(0);
  }

  close(): void {
    this.inner.close?.();
  }
}
