import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { replaceGeneratedSection } from '../../src/base/generated-section.js';
import { configJsonSchema, configReference, REFERENCE_SECTION, typeText } from '../../src/config/json-schema.js';
import { ENVIRONMENT_TYPES } from '../../src/environments/registry.js';
import { POLICY_NAMES } from '../../src/policies/registry.js';

describe('typeText: bad arguments', () => {
  it('an empty schema node is "any"', () => {
    expect(typeText({})).toBe('any');
  });
});

describe('configJsonSchema', () => {
  it('takes the policies and environments from the registries', () => {
    const schema = configJsonSchema();
    const items = schema.properties?.['policies']?.items;
    const entries = typeof items === 'object' ? (items.anyOf ?? []) : [];
    expect(entries[0]).toMatchObject({ enum: [...POLICY_NAMES] });
    expect(entries[1]?.properties?.['policy']).toMatchObject({ enum: [...POLICY_NAMES] });
    expect((schema.properties?.['environment']?.oneOf ?? []).map((e) => e.properties?.['type']?.const)).toEqual([...ENVIRONMENT_TYPES]);
    expect(schema.properties?.['params']?.properties?.['beta']?.default).toBe('order');
    expect(schema.required).toEqual(['name', 'environment', 'horizon', 'trials', 'policies']);
  });

  it('configs/eofd.schema.json is the generated schema (regenerate: node bin/eofd.js schema > configs/eofd.schema.json)', () => {
    expect(JSON.parse(fs.readFileSync('configs/eofd.schema.json', 'utf8'))).toEqual(configJsonSchema());
  });

  it('the reference has a row per key with type and default', () => {
    const text = configReference();
    expect(text).toContain('| `params.m` | `"auto"` or `"adaptive"` or integer ≥ 1 | `"auto"` |');
    expect(text).toContain('| `params.delta_max` | number > 0 | (none) |');
    expect(text).toContain('| `horizon` | integer in [1, 100000000] | (required) |');
    for (const type of ENVIRONMENT_TYPES) expect(text).toContain(`\`environment\` with \`type: ${type}\``);
  });
});

describe('the docs derived from the schema', () => {
  it("docs/config-reference.md is the generated one (regenerate: npm run docs)", () => {
    const reference = fs.readFileSync('docs/config-reference.md', 'utf8');
    expect(replaceGeneratedSection(reference, configReference(), REFERENCE_SECTION)).toBe(reference);
  });

  it('every shipped YAML config links the schema on its first line; the JSON ones in $schema', () => {
    const files = fs.readdirSync('configs');
    for (const file of files.filter((f) => f.endsWith('.yaml'))) {
      expect(fs.readFileSync(`configs/${file}`, 'utf8').split('\n')[0], file).toBe('# yaml-language-server: $schema=./eofd.schema.json');
    }
    for (const file of files.filter((f) => f.endsWith('.json') && f !== 'eofd.schema.json')) {
      expect(JSON.parse(fs.readFileSync(`configs/${file}`, 'utf8')).$schema, file).toBe('./eofd.schema.json');
    }
  });
});
