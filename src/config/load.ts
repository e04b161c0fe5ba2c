/**
 * Loading a config: bytes → UTF-8 check → YAML document (JSON is YAML) → `--set` overrides →
 * zod validation → defaults resolved. Every failure is a one-line `ConfigError` that names
 * `file:line:column` (or the override) and the dotted field. A file may hold several experiments as
 * YAML documents separated by `---` (`loadConfigs`); `loadConfig` reads single-document files.
 */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseAllDocuments, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { BEST_FORMAT } from '../results/sweep.js';
import { ConfigError } from '../base/errors.js';
import { INPUT_LIMITS, InputFileError, readInputFile } from '../base/files.js';
import { invalidUtf8 } from '../base/utf8.js';
import { describeIssue, type FieldPath } from '../base/zod-issues.js';
import { environmentDescriptor } from '../environments/registry.js';
import { applyOverrides, overrideFor, parseOverrides, type ConfigOverride } from './overrides.js';
import { configPath, shippedConfigs } from './shipped.js';
import { fileDigest } from '../base/hash.js';
import { entryReads, loadPolicyModule, moduleParams } from './policy-entries.js';
import { DEFAULT_MESSAGE_TIMEOUT_S } from '../policies/external/protocol.js';
import {
  experimentConfigSchema,
  policyEntry,
  type EntryParams,
  type EnvironmentConfig,
  type ExperimentConfig,
  type ExperimentConfigDocument,
  type ExternalPolicy,
  type PolicyEntry,
  type PolicyEntryDocument,
} from './schema.js';

/** Reads, overrides, validates and resolves the single-document config at `file` (YAML or JSON). */
export function loadConfig(file: string, overrides: readonly string[] = []): ExperimentConfig {
  return parseConfig(readConfigBytes(file), file, overrides);
}

/**
 * Validates config text or bytes as if read from `file` (named in errors; relative trace paths
 * resolve against its folder). Overrides' relative trace paths resolve against the working directory.
 * The text must hold one YAML document (see `parseConfigs` for several).
 */
export function parseConfig(source: Uint8Array | string, file: string, overrides: readonly string[] = []): ExperimentConfig {
  const text = typeof source === 'string' ? source : decodeUtf8(source, file);
  const parsedOverrides = parseOverrides(overrides, file);
  const lineCounter = new LineCounter();
  const document = parseDocument(stripBom(text), {
    lineCounter,
    uniqueKeys: true,
    prettyErrors: false,
  });
  return validateDocument(document, file, parsedOverrides, locator(lineCounter));
}

/**
 * Reads the config at `file`, which may hold several YAML documents separated by `---`, each one
 * experiment with its own `name`. `overrides` apply to every document; errors name the line and
 * column of the right document (line numbers count from the top of the file).
 */
export function loadConfigs(file: string, overrides: readonly string[] = []): ExperimentConfig[] {
  const found = configPath(file);
  return parseConfigs(readConfigBytes(found), found, overrides);
}

/**
 * `loadConfigs` of several files (each a path or a shipped config's name), in order; the experiments'
 * names must be unique across all of them (each names an output folder).
 */
export function loadConfigFiles(files: readonly string[], overrides: readonly string[] = []): ExperimentConfig[] {
  const all: ExperimentConfig[] = [];
  const fileOf = new Map<string, string>();
  for (const file of files) {
    for (const config of loadConfigs(file, overrides)) {
      const earlier = fileOf.get(config.name);
      if (earlier !== undefined) {
        throw new ConfigError({
          file,
          field: 'name',
          detail: `${JSON.stringify(config.name)} is also the name of an experiment in ${earlier}; names must be unique (each names an output folder): rename one, or use --name`,
        });
      }
      fileOf.set(config.name, file);
      all.push(config);
    }
  }
  return all;
}

/**
 * `--name NAME`: the experiments' output folders (and names) become NAME for one experiment and
 * `NAME-<name>` for several. The trial seeds still come from the original name (`seedName`), so a
 * renamed run plays the same instances as the original: a variant made with --set stays paired with it.
 */
export function renameConfigs(configs: readonly ExperimentConfig[], name: string): ExperimentConfig[] {
  return configs.map((config) => {
    const renamed = configs.length === 1 ? name : `${name}-${config.name}`;
    const checked = experimentConfigSchema.shape.name.safeParse(renamed);
    if (!checked.success) {
      const file = path.relative(process.cwd(), config.source) || config.source;
      const { detail } = describeIssue(checked.error.issues[0] as z.core.$ZodIssue, renamed);
      throw new ConfigError({ file, override: `--name ${name}`, field: 'name', detail });
    }
    const document = structuredClone(config.document) as Record<string, unknown>;
    setField(document, ['name'], renamed);
    return { ...config, name: renamed, seedName: config.seedName ?? config.name, document };
  });
}

/** `loadConfigs` on text or bytes read from `file`. Empty documents (a trailing `---`) are skipped. */
export function parseConfigs(source: Uint8Array | string, file: string, overrides: readonly string[] = []): ExperimentConfig[] {
  const text = typeof source === 'string' ? source : decodeUtf8(source, file);
  const parsedOverrides = parseOverrides(overrides, file);
  const lineCounter = new LineCounter();
  const locate = locator(lineCounter);
  const all = parseAllDocuments(stripBom(text), { lineCounter, uniqueKeys: true, prettyErrors: false });
  const documents = Array.from(all as Iterable<Document.Parsed>);
  const isEmpty = (document: Document.Parsed): boolean =>
    document.errors.length === 0 && (document.contents === null || (isScalar(document.contents) && document.contents.value === null));
  const nonEmpty = documents.filter((document) => !isEmpty(document));
  // An empty file is reported like an empty single document (`expected a mapping …, got null`).
  const chosen = nonEmpty.length > 0 ? nonEmpty : documents.slice(0, 1);
  if (chosen.length === 0) return [parseConfig(text, file, overrides)];
  const configs: ExperimentConfig[] = [];
  const firstLineOfName = new Map<string, number>();
  for (const document of chosen) {
    const config = validateDocument(document, file, parsedOverrides, locate);
    const earlier = firstLineOfName.get(config.name);
    const nameOffset = offsetOf(document, ['name'], false);
    if (earlier !== undefined) {
      const detail = `${JSON.stringify(config.name)} is already the name of the experiment at line ${earlier}; names must be unique (each names an output folder)`;
      const override = overrideFor(['name'], parsedOverrides);
      throw override
        ? new ConfigError({ file, override: override.text, field: 'name', detail })
        : new ConfigError({ file, ...locate(nameOffset), field: 'name', detail });
    }
    firstLineOfName.set(config.name, locate(nameOffset).line);
    configs.push(config);
  }
  return configs;
}

function readConfigBytes(file: string): Uint8Array {
  try {
    return readInputFile(file, INPUT_LIMITS.configBytes);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    const shipped = error.code === 'ENOENT' ? shippedConfigs().map((c) => c.name) : [];
    const example = shipped.includes('quick') ? 'quick' : shipped[0];
    const hint = shipped.length === 0 ? '' : ` (the package ships: ${shipped.join(', ')}; name one instead of a file, e.g. \`eofd run ${example}\`)`;
    throw new ConfigError({ file, detail: `cannot read the config: ${error.message}${hint}` });
  }
}

function stripBom(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text;
}

type Locate = (offset: number) => { line: number; column: number };

function locator(lineCounter: LineCounter): Locate {
  return (offset) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
}

/** One parsed YAML document → overrides applied → validated → resolved. */
function validateDocument(
  document: Document,
  file: string,
  parsedOverrides: readonly ConfigOverride[],
  locate: Locate,
): ExperimentConfig {
  if (document.errors.length > 0) {
    const error = document.errors[0];
    const field = fieldAt(document.contents, error.pos[0], []).join('.');
    const detail =
      error.code === 'DUPLICATE_KEY'
        ? 'duplicate key (keys must be unique)'
        : error.code === 'MULTIPLE_DOCS'
          ? 'the file holds multiple documents (---); `eofd run` reads them all, this reads one'
          : yamlMessage(error.message);
    throw new ConfigError({ file, ...locate(error.pos[0]), field, detail });
  }

  applyOverrides(document, parsedOverrides, file);
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    throw new ConfigError({ file, detail: `cannot read the YAML: ${error instanceof Error ? error.message : String(error)}` });
  }

  dropSchemaLink(data);
  moduleEnvironmentShorthand(data);
  refuseBestFile(data, file);
  const result = experimentConfigSchema.safeParse(data);
  if (!result.success) {
    throw issueError(result.error.issues, { file, document, data, overrides: parsedOverrides, locate });
  }
  return resolveConfig(result.data as unknown as ExperimentConfigDocument, file, parsedOverrides, data, (field, detail) => {
    const override = overrideFor(field, parsedOverrides);
    if (override) return new ConfigError({ file, override: override.text, field: field.join('.'), detail });
    return new ConfigError({ file, ...locate(offsetOf(document, field, false)), field: field.join('.'), detail });
  });
}

/**
 * A best.json given where a config goes: most often `--params dir/*-grid/best.json`, which the shell
 * turns into `--params a/best.json b/best.json`, b then read as a config.
 */
function refuseBestFile(data: unknown, file: string): void {
  if (typeof data === 'object' && data !== null && (data as Record<string, unknown>).format === BEST_FORMAT) {
    throw new ConfigError({
      file,
      field: 'format',
      detail: `this is a best.json (eofd grid's choice), not an experiment config: give it after --params, one --params per file (the shell turns --params dir/*-grid/best.json into one --params followed by the other files, read as configs)`,
    });
  }
}

/**
 * A top-level `"$schema": "<path or URL>"` links a JSON config to its JSON Schema for editors (as the
 * `# yaml-language-server: $schema=…` comment does in YAML); it is not part of the experiment.
 */
function dropSchemaLink(data: unknown): void {
  if (typeof data === 'object' && data !== null && !Array.isArray(data) && typeof (data as Record<string, unknown>)['$schema'] === 'string') {
    delete (data as Record<string, unknown>)['$schema'];
  }
}

/** `environment: {module, params}` is short for `{type: module, module, params}` (environments/module.ts). */
function moduleEnvironmentShorthand(data: unknown): void {
  const environment = typeof data === 'object' && data !== null ? (data as Record<string, unknown>).environment : undefined;
  if (typeof environment === 'object' && environment !== null && !Array.isArray(environment) && 'module' in environment && !('type' in environment)) {
    (data as Record<string, unknown>).environment = { type: 'module', ...environment };
  }
}

/** Defaults that depend on other fields or on the file's location. */
function resolveConfig(
  parsed: ExperimentConfigDocument,
  file: string,
  overrides: readonly ConfigOverride[],
  data: unknown,
  fail: (field: FieldPath, detail: string) => ConfigError,
): ExperimentConfig {
  const document = structuredClone(data) as Record<string, unknown>;
  const source = path.resolve(file);
  /** A file named at `field`: against the config's folder, or the working directory when given on the command line. */
  const fileAt = (field: readonly (string | number)[], value: string): string => {
    const base = overrideFor([...field], overrides) ? process.cwd() : path.dirname(source);
    const resolved = path.resolve(base, value);
    let stat: ReturnType<typeof statSync> | null = null;
    try {
      stat = statSync(resolved);
    } catch {
      stat = null;
    }
    if (stat === null) throw fail([...field], `no such file: ${resolved}`);
    // A FIFO or device could block a reader forever; a folder is not data.
    if (!stat.isFile()) throw fail([...field], `not a regular file: ${resolved}`);
    return resolved;
  };
  const environment = environmentDescriptor(parsed.environment.type).resolve(parsed.environment, {
    S: parsed.params.S,
    inputFile: (field, value) => {
      const resolved = fileAt(field, value);
      // The document keeps the absolute path, so that a variant (reconfigure) reads the same file.
      setField(document, field, resolved);
      return resolved;
    },
    // The document keeps the module's path as given (a variant resolves it against the config's folder again), as a module policy's.
    moduleFile: fileAt,
    fail: (field, detail) => fail([...field], detail),
  }) as EnvironmentConfig;
  const policies = parsed.policies.map((entry, index) => {
    if (typeof entry === 'string' || 'policy' in entry) return policyEntry(entry);
    const field = ['policies', index] as const;
    const base = overrideFor([...field], overrides) || overrideFor(['policies'], overrides) ? process.cwd() : path.dirname(source);
    return externalEntry(entry, base, (key, detail) => fail([...field, ...key], detail));
  });
  const setOnCommandLine = overrides.filter((o) => o.path.length === 2 && o.path[0] === 'params').map((o) => String(o.path[1]));
  checkParamsRead(policies, setOnCommandLine, fail);
  return { ...parsed, environment, policies, source, document };
}

/**
 * A key given to a policy that does not read it is a mistake (it would change nothing): an entry's own
 * params may hold only keys its policy reads, and a `--set params.<key>` must be read by at least one
 * of the experiment's policies (S aside: the environment reads it too). The file's shared `params`
 * may hold keys some experiments do not use (one block for several policies, or `--set policies=…`).
 */
function checkParamsRead(policies: readonly PolicyEntry[], given: readonly string[], fail: (field: FieldPath, detail: string) => ConfigError): void {
  policies.forEach((entry, index) => {
    // An external entry's params are its own: a process reads them itself, a module's were checked against its declaration.
    if (entry.external !== undefined) return;
    for (const key of Object.keys(entry.params)) {
      if (!entryReads(entry).includes(key)) {
        const what = entry.label === entry.policy ? entry.policy : `${entry.label} (${entry.policy})`;
        const known = entryReads(entry);
        throw fail(['policies', index, 'params', key], `${what} does not read ${key}; it reads ${known.length === 0 ? 'no params' : known.join(', ')}`);
      }
    }
  });
  for (const key of given) {
    // S is also the environment's (synthetic W* has ‖W*‖_F = S unless S_star is given).
    if (key !== 'S' && !policies.some((entry) => entryReads(entry).includes(key))) {
      const policyList = [...new Set(policies.map((e) => e.policy))].join(', ');
      throw fail(['params', key], `no policy of this experiment reads ${key} (${policyList}); remove it, or list a policy that reads it (eofd list)`);
    }
  }
}

type ExternalDocument = Exclude<PolicyEntryDocument, string | { policy: string }>;

/**
 * An external entry (policies/external) resolved against `base` (the config's folder): a command's
 * program found (on PATH unless it is a path) and its script (the first element naming a file) hashed;
 * a module loaded, hashed, and the entry's params checked against its declared ones, defaults filled in.
 */
function externalEntry(document: ExternalDocument, base: string, fail: (field: FieldPath, detail: string) => ConfigError): PolicyEntry {
  const { label } = document;
  const given = document.params ?? {};
  if ('command' in document) {
    const { command } = document;
    const program = command[0] as string;
    if (program.includes('/') ? !isFile(path.resolve(base, program)) : findOnPath(program) === null) {
      throw fail(['command', 0], program.includes('/') ? `no such file: ${path.resolve(base, program)}` : `no program ${JSON.stringify(program)} on PATH`);
    }
    // The script: the first argument naming a file (python3 my_policy.py), else the program when it is a path (./my_policy).
    const found = command.findIndex((arg, i) => i > 0 && isFile(path.resolve(base, arg)));
    const scriptAt = found > 0 ? found : program.includes('/') ? 0 : -1;
    const script = scriptAt < 0 ? undefined : { file: command[scriptAt] as string, sha256: fileDigest(path.resolve(base, command[scriptAt] as string)).sha256 };
    const external: ExternalPolicy = { kind: 'command', command: [...command], cwd: base, timeout: document.timeout ?? DEFAULT_MESSAGE_TIMEOUT_S, ...(script === undefined ? {} : { script }) };
    return { label, policy: label, params: given as EntryParams, external };
  }
  const file = path.resolve(base, document.module);
  if (!isFile(file)) throw fail(['module'], `no such file: ${file}`);
  let params: Record<string, unknown>;
  try {
    params = moduleParams(loadPolicyModule(file), given);
  } catch (error) {
    if (!(error instanceof RangeError)) throw fail(['module'], (error as Error).message);
    const key = error.message.slice(0, error.message.indexOf(':'));
    throw fail(['params', key], `${label}: ${error.message.slice(key.length + 2)}`);
  }
  return { label, policy: label, params: params as EntryParams, external: { kind: 'module', module: file, given: document.module, sha256: fileDigest(file).sha256 } };
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The executable `program` on PATH, or null. */
function findOnPath(program: string): string | null {
  for (const folder of (process.env.PATH ?? '').split(path.delimiter)) {
    if (folder === '') continue;
    const candidate = path.join(folder, program);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Sets `field` (a path of keys and indices) in plain data, creating mappings on the way. */
export function setField(data: Record<string, unknown>, field: readonly (string | number)[], value: unknown): void {
  let node: Record<string | number, unknown> = data;
  field.forEach((key, i) => {
    if (i === field.length - 1) {
      node[key] = value;
      return;
    }
    const next = node[key];
    if (typeof next !== 'object' || next === null) node[key] = {};
    node = node[key] as Record<string | number, unknown>;
  });
}

/**
 * A variant of a loaded config: `edit` changes a copy of its document (the config as validated),
 * which is then validated and resolved again exactly as a file would be. A problem is a ConfigError
 * naming `origin` (e.g. `--over params.m=abc`) and the field. `commandLine`: the dotted keys (split
 * at dots) whose values `edit` took from the command line; a relative input file under one of them
 * resolves against the working directory, as a `--set` one does (the file's own, against its folder).
 */
export function reconfigure(
  config: ExperimentConfig,
  edit: (document: Record<string, unknown>) => void,
  origin: string,
  commandLine: readonly (readonly string[])[] = [],
): ExperimentConfig {
  const data = structuredClone(config.document) as Record<string, unknown>;
  edit(data);
  moduleEnvironmentShorthand(data);
  const file = path.relative(process.cwd(), config.source) || config.source;
  const result = experimentConfigSchema.safeParse(data);
  if (!result.success) {
    const { field, detail } = describeIssue(result.error.issues[0] as z.core.$ZodIssue, data);
    throw new ConfigError({ file, override: origin, field: field.join('.'), detail });
  }
  const given: ConfigOverride[] = commandLine.map((key) => ({ text: origin, path: key, value: undefined }));
  return resolveConfig(result.data as unknown as ExperimentConfigDocument, config.source, given, data, (field, detail) =>
    new ConfigError({ file, override: origin, field: field.join('.'), detail }),
  );
}

interface IssueContext {
  file: string;
  document: Document;
  data: unknown;
  overrides: readonly ConfigOverride[];
  locate: (offset: number) => { line: number; column: number };
}

/** The first problem (command-line overrides first, then in file order) as a ConfigError. */
function issueError(issues: readonly z.core.$ZodIssue[], context: IssueContext): ConfigError {
  const errors = issues.map((issue) => {
    const { field, atKey, detail } = describeIssue(issue, context.data);
    const override = overrideFor(field, context.overrides);
    if (override) {
      return {
        rank: -1,
        error: new ConfigError({ file: context.file, override: override.text, field: field.join('.'), detail }),
      };
    }
    const offset = offsetOf(context.document, field, atKey);
    return {
      rank: offset,
      error: new ConfigError({ file: context.file, ...context.locate(offset), field: field.join('.'), detail }),
    };
  });
  errors.sort((a, b) => a.rank - b.rank);
  return errors[0].error;
}

/**
 * Start offset of the field's node (of its key, when `atKey`), or of its deepest ancestor present in
 * the document when the field itself is missing.
 */
function offsetOf(document: Document, field: FieldPath, atKey: boolean): number {
  let node: unknown = document.contents;
  let offset = rangeStart(node) ?? 0;
  for (let i = 0; i < field.length; i++) {
    const key = field[i];
    if (isMap(node)) {
      const pair = node.items.find((item) => String(keyValue(item.key)) === String(key));
      if (!pair) break;
      if (atKey && i === field.length - 1) return rangeStart(pair.key) ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      node = node.items[key];
    } else {
      break;
    }
    const start = rangeStart(node);
    if (start === undefined) break;
    offset = start;
  }
  return offset;
}

/** The dotted path of the deepest key or value containing `offset` (for YAML syntax errors). */
function fieldAt(node: unknown, offset: number, prefix: FieldPath): FieldPath {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = keyValue(pair.key);
      if (contains(pair.key, offset)) return [...prefix, String(key)];
      if (contains(pair.value, offset)) return fieldAt(pair.value, offset, [...prefix, String(key)]);
    }
  } else if (isSeq(node)) {
    for (let i = 0; i < node.items.length; i++) {
      if (contains(node.items[i], offset)) return fieldAt(node.items[i], offset, [...prefix, i]);
    }
  }
  return prefix;
}

function keyValue(key: unknown): unknown {
  return key !== null && typeof key === 'object' && 'value' in key ? (key as { value: unknown }).value : key;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}

function contains(node: unknown, offset: number): boolean {
  const range = (node as Node | null | undefined)?.range;
  return range !== undefined && range !== null && range[0] <= offset && offset < Math.max(range[1], range[0] + 1);
}

/** yaml's message without its trailing location (we print our own). */
function yamlMessage(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '').trim();
}

/** UTF-8 text of the bytes, or a ConfigError at the first invalid byte. */
function decodeUtf8(bytes: Uint8Array, file: string): string {
  const bad = invalidUtf8(bytes);
  if (bad === null) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const byte = bad.byte.toString(16).padStart(2, '0');
  throw new ConfigError({
    file,
    line: bad.line,
    column: bad.column,
    detail: `not valid UTF-8 (byte 0x${byte} at offset ${bad.offset}); save the config as UTF-8`,
  });
}
