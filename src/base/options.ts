/**
 * Declared keys: a policy's own config keys (PolicyDescriptor.options), a module policy's or module
 * environment's params: each declared once, with its default, its allowed values and what it means. The config schema (config/schema.ts) takes
 * them in `params` and in the policy's entries; a resolved entry's values reach the policy as
 * `spec.options`; every reader goes through `policyOption`, so the declared default is the only one.
 */

/** One declared key: its default (whose type is the key's), and optionally its range or values. */
export interface DeclaredOption {
  readonly default: number | string | boolean;
  /** Numbers: the smallest and largest values allowed, and whether only integers are. */
  readonly min?: number;
  readonly max?: number;
  readonly integer?: boolean;
  /** Strings (or numbers): the values allowed. */
  readonly values?: readonly (string | number)[];
  /** One line for the docs and errors. */
  readonly description?: string;
  /**
   * It changes what a round costs, never what it decides (OFUL-MLogB's oful_solver): two labels that
   * differ only in such keys play the same actions, so they are tuned once (experiment/grid.ts).
   */
  readonly costOnly?: boolean;
}

export type OptionValue = number | string | boolean;
/** Declared keys → their declarations. */
export type OptionDeclarations = Readonly<Record<string, DeclaredOption>>;
/** Resolved values of declared keys (spec.options). */
export type OptionValues = Readonly<Record<string, OptionValue>>;

function allowedText(values: readonly (string | number)[]): string {
  const texts = values.map((v) => (typeof v === 'string' ? `'${v}'` : String(v)));
  return texts.length <= 1 ? texts.join('') : `${texts.slice(0, -1).join(', ')} or ${texts[texts.length - 1]}`;
}

/** What is wrong with `value` for `option` (`expected …`), or null. */
export function optionProblem(option: DeclaredOption, value: unknown): string | null {
  const type = typeof option.default;
  if (option.values !== undefined && !option.values.includes(value as string | number)) return `expected ${allowedText(option.values)}`;
  if (typeof value !== type || (type === 'number' && !Number.isFinite(value))) return `expected a${type === 'number' ? ' finite' : ''} ${type}`;
  if (type !== 'number') return null;
  const n = value as number;
  if (option.integer === true && !Number.isInteger(n)) return 'expected an integer';
  if (option.min !== undefined && n < option.min) return `expected a number ≥ ${option.min}`;
  if (option.max !== undefined && n > option.max) return `expected a number ≤ ${option.max}`;
  return null;
}

/**
 * `given` checked against `declared`, with the declared defaults filled in; throws a RangeError
 * `key: detail` for a key `owner` does not declare or a value outside its declaration.
 */
export function resolveOptions(declared: OptionDeclarations | undefined, given: Readonly<Record<string, unknown>>, owner: string): Record<string, OptionValue> {
  const declarations = declared ?? {};
  for (const key of Object.keys(given)) {
    if (!Object.hasOwn(declarations, key)) {
      const keys = Object.keys(declarations);
      throw new RangeError(`${key}: ${owner} does not declare ${key}; it declares ${keys.length === 0 ? 'no params' : keys.join(', ')}`);
    }
  }
  return Object.fromEntries(Object.keys(declarations).map((key) => [key, checkedOption(declarations, given, key)]));
}

function checkedOption(declarations: OptionDeclarations, values: Readonly<Record<string, unknown>> | undefined, key: string): OptionValue {
  const option = declarations[key] as DeclaredOption;
  const value = values !== undefined && Object.hasOwn(values, key) && values[key] !== undefined ? values[key] : option.default;
  const problem = optionProblem(option, value);
  if (problem !== null) throw new RangeError(`${key}: ${problem}, got ${JSON.stringify(value)}`);
  return value as OptionValue;
}

/**
 * The value of the declared key `key` in `values` (a spec's options, a manifest's recorded params),
 * its declared default when absent (old manifests, a spec built without it); throws a RangeError for a
 * key `owner` does not declare or a value outside its declaration.
 */
export function policyOption(owner: { readonly name: string; readonly options?: OptionDeclarations }, values: Readonly<Record<string, unknown>> | undefined, key: string): OptionValue {
  if (owner.options === undefined || !Object.hasOwn(owner.options, key)) throw new RangeError(`${owner.name} declares no option ${key}`);
  return checkedOption(owner.options, values, key);
}

/** The keys of `declared` that change only what a round costs (DeclaredOption.costOnly). */
export function costOnlyKeys(declared: OptionDeclarations | undefined): string[] {
  return Object.entries(declared ?? {}).filter(([, option]) => option.costOnly === true).map(([key]) => key);
}

/** What is wrong with a module's `params` declarations (`declares params.x without …`), or null. */
export function declarationsProblem(params: unknown): string | null {
  if (params === undefined) return null;
  if (typeof params !== 'object' || params === null) return 'has params that are not a mapping of declarations';
  for (const [key, param] of Object.entries(params as Record<string, unknown>)) {
    const p = param as Partial<DeclaredOption> | null;
    if (typeof p !== 'object' || p === null || !['number', 'string', 'boolean'].includes(typeof p.default)) return `declares params.${key} without a default number, string or boolean`;
  }
  return null;
}
