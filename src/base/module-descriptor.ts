/**
 * What module policies and module environments share: a JavaScript module's default export, loaded
 * synchronously with `require` (Node ≥ 20.19 requires ES modules without top-level await), and the
 * params such a descriptor declares — their declarations checked, and an entry's values checked
 * against them with the declared defaults filled in (config errors name the key).
 */
import { createRequire } from 'node:module';

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

/** A descriptor that declares params (a module policy's or a module environment's). */
export interface DeclaresParams {
  readonly params?: Readonly<Record<string, ModuleParam>>;
}

const require = createRequire(import.meta.url);

/** The default export of the module at the absolute path `file` (the module itself when it has none); throws an Error `cannot load …`. */
export function requireDefault(file: string): unknown {
  let exported: unknown;
  try {
    exported = require(file);
  } catch (error) {
    throw new Error(`cannot load ${file}: ${(error as Error).message.split('\n')[0]}`);
  }
  const namespace = exported as { default?: unknown };
  return typeof namespace === 'object' && namespace !== null && 'default' in namespace ? namespace.default : exported;
}

/** What is wrong with a descriptor's `params` declarations (`declares params.x without …`), or null. */
export function declarationsProblem(params: unknown): string | null {
  if (params === undefined) return null;
  if (typeof params !== 'object' || params === null) return 'has params that are not a mapping of declarations';
  for (const [key, param] of Object.entries(params as Record<string, unknown>)) {
    const p = param as Partial<ModuleParam> | null;
    if (typeof p !== 'object' || p === null || !['number', 'string', 'boolean'].includes(typeof p.default)) return `declares params.${key} without a default number, string or boolean`;
  }
  return null;
}

/**
 * The given params with the descriptor's declared defaults filled in; throws a RangeError `key: detail`
 * for a key it does not declare or a value outside its declaration.
 */
export function moduleParams(descriptor: DeclaresParams, given: Readonly<Record<string, unknown>>): Record<string, unknown> {
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
