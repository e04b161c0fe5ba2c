/**
 * The config schema for people and editors, generated from the zod schema (schema.ts, which takes
 * environments and policies from their registries): a JSON Schema (`eofd schema`,
 * configs/eofd.schema.json) and docs/config-reference.md (`eofd schema --markdown`).
 */
import { z } from 'zod';
import { ENVIRONMENTS } from '../environments/registry.js';
import { experimentConfigSchema } from './schema.js';

/** A JSON Schema node (the subset z.toJSONSchema writes). */
export interface JsonSchema {
  $schema?: string;
  $id?: string;
  title?: string;
  description?: string;
  type?: string;
  const?: unknown;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  items?: JsonSchema | false;
  prefixItems?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** The `$id` of the schema (where the repository publishes it). */
export const SCHEMA_FILE = 'eofd.schema.json';

/**
 * The JSON Schema (draft 2020-12) of one experiment config as written (defaults optional). Checks
 * that JSON Schema cannot state (r_0 = 0, K + 1 rewards, unique policies) are left to `eofd run`.
 */
export function configJsonSchema(): JsonSchema {
  const schema = z.toJSONSchema(experimentConfigSchema, { io: 'input', unrepresentable: 'any' }) as JsonSchema;
  // `environment: {module, params}` may leave out `type: module` (load.ts moduleEnvironmentShorthand).
  for (const branch of schema.properties?.['environment']?.oneOf ?? []) {
    if (branch.properties?.['type']?.const === 'module') branch.required = branch.required?.filter((key) => key !== 'type');
  }
  return {
    $schema: schema.$schema,
    title: 'eofd experiment config',
    description:
      'One experiment of eofd (EOFD-MLogB / OFUL-MLogB multinomial logistic bandits). A YAML file may hold several, separated by ---. ' +
      'Generated from the zod schema by `eofd schema`.',
    ...schema,
    properties: {
      $schema: { type: 'string', description: 'the JSON Schema this file follows (for editors; ignored by eofd)' },
      ...schema.properties,
    },
  };
}

/** A JSON Schema value as a short type text: `integer ≥ 1`, `'auto' or integer ≥ 1`, `list of …`. */
export function typeText(node: JsonSchema): string {
  if (node.const !== undefined) return `\`${JSON.stringify(node.const)}\``;
  if (node.enum !== undefined) return node.enum.map((v) => `\`${JSON.stringify(v)}\``).join(' \\| ');
  const union = node.anyOf ?? node.oneOf;
  if (union !== undefined) {
    const types = union.map((u) => u.properties?.['type']?.const);
    if (types.every((t) => typeof t === 'string')) return `mapping with \`type\` ${types.map((t) => `\`${JSON.stringify(t)}\``).join(' \\| ')} (below)`;
    return union.map(typeText).join(' or ');
  }
  if (node.type === 'integer' || node.type === 'number') return `${node.type}${rangeText(node)}`;
  if (node.type === 'string') {
    if (node.pattern !== undefined) return `string of \`${node.pattern.replace(/^\^|\$$/g, '')}\`${node.maxLength === undefined ? '' : `, ≤ ${node.maxLength} characters`}`;
    return node.minLength === undefined ? 'string' : 'non-empty string';
  }
  if (node.type === 'array') {
    if (node.prefixItems !== undefined) return `[${node.prefixItems.map(typeText).join(', ')}]`;
    const items = node.items === undefined || node.items === false ? 'values' : typeText(node.items);
    return `${node.minItems === 1 ? 'non-empty ' : ''}list of ${items}`;
  }
  if (node.type === 'object') return 'mapping';
  return 'any';
}

function rangeText(node: JsonSchema): string {
  const lowInclusive = node.minimum;
  const lowExclusive = node.exclusiveMinimum;
  const high = node.maximum !== undefined && node.maximum < Number.MAX_SAFE_INTEGER ? node.maximum : undefined;
  const highExclusive = node.exclusiveMaximum;
  const low = lowInclusive ?? lowExclusive;
  const top = high ?? highExclusive;
  if (low !== undefined && top !== undefined) {
    return ` in ${lowInclusive !== undefined ? '[' : '('}${low}, ${top}${high !== undefined ? ']' : ')'}`;
  }
  if (lowInclusive !== undefined) return ` ≥ ${lowInclusive}`;
  if (lowExclusive !== undefined) return ` > ${lowExclusive}`;
  return '';
}

/** One row per key of `node` (an object schema), dotted under `prefix`. */
function rows(node: JsonSchema, prefix: string, skip: readonly string[] = []): string[] {
  const required = new Set(node.required ?? []);
  return Object.entries(node.properties ?? {})
    .filter(([key]) => !skip.includes(key))
    .map(([key, value]) => {
      const fallback = value.default !== undefined ? `\`${JSON.stringify(value.default)}\`` : required.has(key) ? '(required)' : '(none)';
      const description = (value.description ?? '').replace(/\|/g, '\\|');
      return `| \`${prefix}${key}\` | ${typeText(value)} | ${fallback} | ${description} |`;
    });
}

/**
 * The config reference as Markdown: the top-level keys, `params`, and one table per environment
 * type, each key with its type, default and meaning. Generated, so it cannot drift from the schema.
 */
export function configReference(): string {
  const schema = configJsonSchema();
  const props = schema.properties ?? {};
  const header = ['| key | type | default | meaning |', '|---|---|---|---|'];
  const lines = [
    'Generated from the config schema by `npm run docs` (`eofd schema --markdown`); a test fails when it is stale.',
    'Editors that read JSON Schema (VS Code with the YAML extension, JetBrains) check and complete configs with',
    '`eofd schema` (also in `configs/eofd.schema.json`; the shipped configs link it on their first line).',
    '',
    ...header,
    ...rows(schema, '', ['$schema', 'params']),
    '',
    '`params` (each policy reads the keys `eofd list` shows for it):',
    '',
    ...header,
    ...rows(props['params'] ?? {}, 'params.'),
  ];
  const environments = props['environment']?.oneOf ?? props['environment']?.anyOf ?? [];
  environments.forEach((environment) => {
    const type = environment.properties?.['type']?.const;
    const summary = ENVIRONMENTS.find((e) => e.type === type)?.summary ?? '';
    lines.push('', `\`environment\` with \`type: ${String(type)}\`${summary === '' ? '' : `: ${summary}`}:`, '', ...header, ...rows(environment, 'environment.', ['type']));
  });
  return lines.join('\n') + '\n';
}

/** The name of docs/config-reference.md's generated section (base/generated-section.ts). */
export const REFERENCE_SECTION = 'config-reference';
