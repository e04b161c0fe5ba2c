import { parseDocument } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { applyOverrides, overrideFor, parseOverride, parseOverrides } from '../../src/config/overrides.js';
import { thrownBy } from '../helpers/errors.js';

describe('parseOverride: bad arguments', () => {
  it('rejects an override without "="', () => {
    const error = thrownBy(ConfigError, () => parseOverride('params.m', 'c.yaml'));
    expect(error.message).toBe("--set params.m: expected key=value (e.g. 'params.m=400'), found no '='");
    expect(error.exitCode).toBe(2);
  });
  it('rejects an empty key', () => {
    expect(thrownBy(ConfigError, () => parseOverride('=5', 'c.yaml')).message).toMatch(/^--set =5: .*the key is empty$/);
    expect(thrownBy(ConfigError, () => parseOverride('  =5', 'c.yaml')).message).toMatch(/the key is empty$/);
  });
  it('rejects empty or odd key segments', () => {
    expect(thrownBy(ConfigError, () => parseOverride('params..m=1', 'c.yaml')).message).toMatch(/dotted key/);
    expect(thrownBy(ConfigError, () => parseOverride('.m=1', 'c.yaml')).message).toMatch(/dotted key/);
    expect(thrownBy(ConfigError, () => parseOverride('a b=1', 'c.yaml')).message).toMatch(/dotted key/);
  });
  it('rejects a key that is not a config key, and __proto__, constructor and prototype anywhere (issue #23)', () => {
    for (const key of ['__proto__.x', 'foo', 'foo.bar', 'Params.m', 'constructor', 'prototype.x']) {
      const error = thrownBy(ConfigError, () => parseOverride(`${key}=1`, 'c.yaml'));
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(new RegExp(`^--set ${key.replace('.', '\\.')}=1: ${key.split('.')[0]} is not a config key \\(it has name, environment, horizon, trials, seed, policies, params, tune_from\\)$`));
    }
    for (const key of ['params.__proto__', 'environment.constructor', 'policies.0.prototype', 'params.__proto__.polluted']) {
      expect(thrownBy(ConfigError, () => parseOverride(`${key}=1`, 'c.yaml')).message, key).toMatch(/: __proto__, constructor and prototype are not config keys$/);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
  it('rejects a value that is not YAML, naming the field', () => {
    const error = thrownBy(ConfigError, () => parseOverride('policies=[EOFD-MLogB', 'c.yaml'));
    expect(error.field).toBe('policies');
    expect(error.message).toMatch(/^--set policies=\[EOFD-MLogB: policies: the value is not valid YAML: /);
    expect(error.message).not.toContain('\n');
  });
  it('rejects setting a key below a scalar', () => {
    const document = parseDocument('name: x\n');
    const error = thrownBy(ConfigError, () => applyOverrides(document, [parseOverride('name.first=1', 'c.yaml')], 'c.yaml'));
    expect(error.message).toBe('--set name.first=1: name.first: cannot set this key: name is not a mapping or list');
  });
});

describe('parseOverride', () => {
  it('parses the documented examples', () => {
    expect(parseOverride('params.m=400', 'c.yaml')).toEqual({ text: 'params.m=400', path: ['params', 'm'], value: 400 });
    expect(parseOverride('horizon=200', 'c.yaml')).toMatchObject({ path: ['horizon'], value: 200 });
    expect(parseOverride('policies=[EOFD-MLogB, Random]', 'c.yaml')).toMatchObject({
      path: ['policies'],
      value: ['EOFD-MLogB', 'Random'],
    });
    expect(parseOverride('environment.d=50', 'c.yaml')).toMatchObject({ path: ['environment', 'd'], value: 50 });
  });
  it('parses values as YAML: strings, floats, mappings, empty, and "=" inside the value', () => {
    expect(parseOverride('params.beta=theory', 'c.yaml').value).toBe('theory');
    expect(parseOverride('params.delta=1e-3', 'c.yaml').value).toBe(0.001);
    expect(parseOverride('environment={type: mnist, target: 7}', 'c.yaml').value).toEqual({ type: 'mnist', target: 7 });
    expect(parseOverride('name=', 'c.yaml').value).toBeNull();
    expect(parseOverride('name="a=b"', 'c.yaml').value).toBe('a=b');
    expect(parseOverride(' horizon =200', 'c.yaml').path).toEqual(['horizon']);
  });
  it('parses lists of overrides in order', () => {
    expect(parseOverrides(['horizon=1', 'horizon=2'], 'c.yaml').map((o) => o.value)).toEqual([1, 2]);
  });
});

describe('applyOverrides and overrideFor', () => {
  it('sets existing and new keys, creating mappings, later overrides winning', () => {
    const document = parseDocument('horizon: 5\nparams: {S: 1}\nenvironment: {actions: [10, 30]}\n');
    applyOverrides(
      document,
      parseOverrides(['horizon=7', 'params.m=400', 'seed=3', 'policies.deep.key=x', 'environment.actions.1=20', 'seed=4'], 'c.yaml'),
      'c.yaml',
    );
    expect(document.toJS()).toEqual({
      horizon: 7,
      params: { S: 1, m: 400 },
      environment: { actions: [10, 20] },
      seed: 4,
      policies: { deep: { key: 'x' } },
    });
  });
  it('removes a key whose value is null (null, ~ or nothing), so its default applies; a later override can set it again', () => {
    const document = parseDocument('environment: {type: classification, label: y, target: 1}\nparams: {m: 4, S: 2}\nseed: 3\n');
    applyOverrides(document, parseOverrides(['environment.label=null', 'params.m=~', 'seed=', 'params.absent=null'], 'c.yaml'), 'c.yaml');
    expect(document.toJS()).toEqual({ environment: { type: 'classification', target: 1 }, params: { S: 2 } });
    applyOverrides(document, parseOverrides(['seed=null', 'seed=5'], 'c.yaml'), 'c.yaml');
    expect(document.toJS()).toMatchObject({ seed: 5 });
  });
  it('refuses to remove a key below a scalar, naming it', () => {
    const document = parseDocument('name: x\n');
    const error = thrownBy(ConfigError, () => applyOverrides(document, [parseOverride('name.first=null', 'c.yaml')], 'c.yaml'));
    expect(error.message).toBe('--set name.first=null: name.first: cannot set this key: name is not a mapping or list');
  });
  it('finds the last override covering a field', () => {
    const overrides = parseOverrides(['environment={type: mnist}', 'params.m=1', 'environment.target=3'], 'c.yaml');
    expect(overrideFor(['environment', 'target'], overrides)?.text).toBe('environment.target=3');
    expect(overrideFor(['environment', 'type'], overrides)?.text).toBe('environment={type: mnist}');
    expect(overrideFor(['params', 'beta'], overrides)).toBeUndefined();
    expect(overrideFor(['horizon'], overrides)).toBeUndefined();
  });
});

describe('--set values that parse but cannot be resolved', () => {
  it('an alias without its anchor is a usage error naming the override', () => {
    const error = thrownBy(ConfigError, () => parseOverride('horizon=*a', 'c.yaml'));
    expect(error.exitCode).toBe(2);
    expect(error.message).toMatch(/horizon=\*a.*the value is not valid YAML/);
  });
});
