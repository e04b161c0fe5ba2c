/**
 * What module policies and module environments share: a JavaScript module's default export, loaded
 * synchronously with `require` (Node ≥ 20.19 requires ES modules without top-level await), and the
 * params such a descriptor declares (declared options, base/options.ts), an entry's values checked
 * against them with the declared defaults filled in (config errors name the key).
 */
import { createRequire } from 'node:module';
import { type DeclaredOption, resolveOptions } from './options.js';

/** One param a module declares (a declared option, base/options.ts). */
export type ModuleParam = DeclaredOption;

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

/**
 * The given params with the descriptor's declared defaults filled in; throws a RangeError `key: detail`
 * for a key it does not declare or a value outside its declaration.
 */
export function moduleParams(descriptor: DeclaresParams, given: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return resolveOptions(descriptor.params, given, 'the module');
}
