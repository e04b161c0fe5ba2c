import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configJsonSchema, configReference, typeText } from '../../src/config/json-schema.js';
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
    expect(schema.properties?.['policies']?.items).toMatchObject({ enum: [...POLICY_NAMES] });
    expect((schema.properties?.['environment']?.oneOf ?? []).map((e) => e.properties?.['type']?.const)).toEqual([...ENVIRONMENT_TYPES]);
    expect(schema.properties?.['params']?.properties?.['beta']?.default).toBe('order');
    expect(schema.required).toEqual(['name', 'environment', 'horizon', 'trials', 'policies']);
  });

  it('configs/eofd.schema.json is the generated schema (regenerate: node bin/eofd.js schema > configs/eofd.schema.json)', () => {
    expect(JSON.parse(fs.readFileSync('configs/eofd.schema.json', 'utf8'))).toEqual(configJsonSchema());
  });

  it('the reference has a row per key with type and default', () => {
    const text = configReference();
    expect(text).toContain('| `params.m` | `"auto"` or integer ≥ 1 | `"auto"` |');
    expect(text).toContain('| `horizon` | integer in [1, 100000000] | (required) |');
    for (const type of ENVIRONMENT_TYPES) expect(text).toContain(`\`environment\` with \`type: ${type}\``);
  });
});
