/**
 * `--set key=value` overrides: a dotted key (`params.m`, `environment.d`, `environment.actions.1`)
 * and a value parsed as YAML (`400`, `[EOFD-MLogB, Random]`, `{type: mnist}`). They are applied to
 * the parsed YAML document before validation, so a bad value is reported like a bad file entry,
 * prefixed by the override that supplied it. `key=null` (or `key=~`) removes the key, so its default
 * applies: no config key takes null as a value. A key must start with a config key (`name`,
 * `environment`, …) and no segment may be `__proto__`, `constructor` or `prototype` (configKeyProblem,
 * shared with `--over`).
 */
import { isCollection, parseDocument, type Document } from 'yaml';
import { ConfigError } from '../base/errors.js';
import { experimentConfigSchema } from './schema.js';

export interface ConfigOverride {
  /** The override as the user wrote it (`params.m=400`). */
  readonly text: string;
  /** The key split at dots (`['params', 'm']`); numeric segments index lists. */
  readonly path: readonly string[];
  /** The value, parsed as YAML. */
  readonly value: unknown;
}

const SEGMENT = /^[A-Za-z0-9_-]+$/;

/** The keys of a config file's top level: the first segment of every key given on the command line. */
const CONFIG_KEYS: readonly string[] = Object.keys(experimentConfigSchema.shape);

/** Segments that would reach an object's prototype instead of a key (`__proto__.x` sets Object.prototype.x). */
const PROTOTYPE_SEGMENTS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Why a dotted key given on the command line (`--set`, `--over`) cannot name a config key, or null
 * when it can: its first segment must be a top-level config key, and no segment may reach a prototype.
 */
export function configKeyProblem(path: readonly string[]): string | null {
  const first = path[0] ?? '';
  if (!CONFIG_KEYS.includes(first)) return `${first} is not a config key (it has ${CONFIG_KEYS.join(', ')})`;
  if (path.some((segment) => PROTOTYPE_SEGMENTS.has(segment))) return '__proto__, constructor and prototype are not config keys';
  return null;
}

/** Parses one `key=value` string. `file` is the config file, named in errors. */
export function parseOverride(text: string, file: string): ConfigOverride {
  const fail = (detail: string, field?: string): ConfigError => new ConfigError({ file, override: text, field, detail });
  const equals = text.indexOf('=');
  if (equals < 0) throw fail("expected key=value (e.g. 'params.m=400'), found no '='");
  const key = text.slice(0, equals).trim();
  if (key === '') throw fail("expected key=value (e.g. 'params.m=400'), the key is empty");
  const path = key.split('.');
  if (!path.every((segment) => SEGMENT.test(segment))) {
    throw fail('expected a dotted key of [A-Za-z0-9_-] segments (e.g. params.beta), got ' + JSON.stringify(key));
  }
  const problem = configKeyProblem(path);
  if (problem !== null) throw fail(problem);
  const document = parseDocument(text.slice(equals + 1), { uniqueKeys: true, prettyErrors: false });
  if (document.errors.length > 0) {
    throw fail(`the value is not valid YAML: ${firstLine(document.errors[0].message)}`, key);
  }
  let value: unknown;
  try {
    value = document.toJS();
  } catch (error) {
    // An alias without its anchor (`*a`) parses but cannot be resolved.
    throw fail(`the value is not valid YAML: ${firstLine(error instanceof Error ? error.message : String(error))}`, key);
  }
  return { text, path, value };
}

export function parseOverrides(texts: readonly string[], file: string): ConfigOverride[] {
  return texts.map((text) => parseOverride(text, file));
}

/** Sets (or, for a null value, removes) each override's key in the document, in order (later overrides win). */
export function applyOverrides(document: Document, overrides: readonly ConfigOverride[], file: string): void {
  for (const override of overrides) {
    try {
      if (override.value === null) removeKey(document, override.path);
      else document.setIn(override.path, document.createNode(override.value));
    } catch (error) {
      throw new ConfigError({
        file,
        override: override.text,
        field: override.path.join('.'),
        detail: `cannot set this key: ${blockingAncestor(document, override.path) ?? firstLine(error instanceof Error ? error.message : String(error))}`,
      });
    }
  }
}

/**
 * The override whose key is the field or one of its ancestors (the last such, as it won), or
 * undefined when the field's value came from the file.
 */
export function overrideFor(field: readonly (string | number)[], overrides: readonly ConfigOverride[]): ConfigOverride | undefined {
  for (let i = overrides.length - 1; i >= 0; i--) {
    const path = overrides[i].path;
    if (path.length <= field.length && path.every((segment, j) => segment === String(field[j]))) return overrides[i];
  }
  return undefined;
}

/** Removes the key at `path`; a key under an absent mapping is absent already, so there is nothing to remove. */
function removeKey(document: Document, path: readonly string[]): void {
  for (let i = 1; i < path.length; i++) if (document.getIn(path.slice(0, i), true) === undefined) return;
  document.deleteIn(path);
}

/** `name is not a mapping or list` for the first ancestor of `path` that cannot hold a key. */
function blockingAncestor(document: Document, path: readonly string[]): string | undefined {
  for (let i = 1; i < path.length; i++) {
    const node = document.getIn(path.slice(0, i), true);
    if (node === undefined) return undefined;
    if (!isCollection(node)) return `${path.slice(0, i).join('.')} is not a mapping or list`;
  }
  return undefined;
}

function firstLine(message: string): string {
  return message.split('\n')[0].trim();
}
