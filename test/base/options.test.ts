/**
 * A policy's own keys (base/options.ts), declared in its descriptor: checked by the config schema,
 * defaulted, passed to the policy as spec.options and recorded as given. The descriptor here is not
 * registered: every step takes it (or its declarations) as an argument.
 */
import { describe, expect, it } from 'vitest';
import { entryParams, PARAM_DEFAULTS, type ExperimentConfig } from '../../src/config/schema.js';
import { descriptorSpec, resolvePolicyParams } from '../../src/experiment/setup.js';
import { costOnlyKeys, optionProblem, policyOption, resolveOptions, type OptionDeclarations } from '../../src/base/options.js';
import type { PolicyDescriptor } from '../../src/policies/policy.js';
import { randomPolicy } from '../../src/policies/random.js';
import { declaredOptions, DECLARED_OPTIONS, POLICIES } from '../../src/policies/registry.js';
import type { PolicySpec } from '../../src/policies/spec.js';

const options: OptionDeclarations = {
  flavour: { default: 'plain', values: ['plain', 'spicy'], description: 'how it plays', costOnly: true },
  depth: { default: 3, integer: true, min: 1, max: 10 },
  verbose: { default: false },
};
const built: PolicySpec[] = [];
const flavoured: PolicyDescriptor = {
  ...randomPolicy,
  name: 'Flavoured',
  options,
  create: (spec) => {
    built.push(spec);
    return randomPolicy.create(spec);
  },
};
const problem = { d: 3, K: 2, reward: [0, 0.5, 1], D: 1, horizon: 50 };
/** An experiment whose shared params are the defaults (what descriptorSpec assumes). */
const config = { horizon: problem.horizon, params: PARAM_DEFAULTS, document: { params: {} } } as unknown as ExperimentConfig;

describe('declared options: bad values and keys', () => {
  it('the config schema refuses a value outside the declaration, naming the field and what it allows', () => {
    expect(() => entryParams({ flavour: 'sour' }, options)).toThrow("params.flavour: expected 'plain' or 'spicy'");
    expect(() => entryParams({ depth: 2.5 }, options)).toThrow('params.depth: expected an integer');
    expect(() => entryParams({ depth: 0 }, options)).toThrow('params.depth: expected a number ≥ 1');
    expect(() => entryParams({ verbose: 'yes' }, options)).toThrow('params.verbose: expected true or false');
    // A key no policy declares is an unknown key, as before (the allowed keys are named).
    expect(() => entryParams({ flavor: 'plain' }, options)).toThrow(/params(\.flavor)?: .*flavour/);
  });

  it('optionProblem and resolveOptions say what is wrong and with which key', () => {
    expect(optionProblem(options.flavour!, 'sour')).toBe("expected 'plain' or 'spicy'");
    expect(optionProblem(options.depth!, 11)).toBe('expected a number ≤ 10');
    expect(optionProblem(options.depth!, Number.NaN)).toBe('expected a finite number');
    expect(optionProblem(options.depth!, 4)).toBeNull();
    expect(() => resolveOptions(options, { depth: 'deep' }, 'Flavoured')).toThrow('depth: expected a finite number, got "deep"');
    expect(() => resolveOptions(options, { colour: 1 }, 'Flavoured')).toThrow('colour: Flavoured does not declare colour; it declares flavour, depth, verbose');
  });

  it('policyOption refuses a key the policy does not declare, and a recorded value outside its declaration', () => {
    expect(() => policyOption(flavoured, {}, 'colour')).toThrow('Flavoured declares no option colour');
    expect(() => policyOption(flavoured, { flavour: 'sour' }, 'flavour')).toThrow(`flavour: expected 'plain' or 'spicy', got "sour"`);
  });

  it('a key is declared once: two policies declaring it differently, or a shared key, are refused', () => {
    const other: PolicyDescriptor = { ...flavoured, name: 'Other', options: { flavour: { default: 'plain', values: ['plain'] } } };
    expect(() => declaredOptions([flavoured, other])).toThrow('policies Flavoured and Other both declare the option flavour: declare it once and share the declaration');
    expect(declaredOptions([flavoured, { ...other, options: { flavour: options.flavour! } }])).toEqual({ ...options });
    expect(() => declaredOptions([{ ...flavoured, options: { beta: { default: 1 } } }])).toThrow('policy Flavoured declares the option beta, a shared params key: give it another name');
  });
});

describe('declared options: defaulted, passed to the policy, recorded', () => {
  it('absent keys take their declared defaults in the spec, and are not recorded', () => {
    const recorded = resolvePolicyParams(config, { label: 'F', policy: 'Flavoured', params: {} }, problem, flavoured);
    expect(recorded).not.toHaveProperty('flavour');
    expect(recorded).not.toHaveProperty('depth');
    const spec = descriptorSpec(flavoured, {}, problem, 'seed');
    expect(spec.options).toEqual({ flavour: 'plain', depth: 3, verbose: false });
    // A manifest written before the key existed reads as its default.
    expect(policyOption(flavoured, recorded, 'depth')).toBe(3);
  });

  it('given keys reach the policy through spec.options and are recorded in derived.policies', () => {
    const params = entryParams({ flavour: 'spicy', depth: 7 }, options);
    const recorded = resolvePolicyParams(config, { label: 'F', policy: 'Flavoured', params }, problem, flavoured);
    expect(recorded).toMatchObject({ policy: 'Flavoured', flavour: 'spicy', depth: 7 });
    expect(recorded).not.toHaveProperty('verbose');
    const spec = descriptorSpec(flavoured, params, problem, 'seed');
    expect(spec.options).toEqual({ flavour: 'spicy', depth: 7, verbose: false });
    built.length = 0;
    flavoured.create(spec);
    expect(built[0]!.options).toEqual({ flavour: 'spicy', depth: 7, verbose: false });
    expect(policyOption(flavoured, recorded, 'flavour')).toBe('spicy');
  });

  it('costOnly marks the keys that change only what a round costs', () => {
    expect(costOnlyKeys(options)).toEqual(['flavour']);
    expect(costOnlyKeys(undefined)).toEqual([]);
  });
});

describe('the registry', () => {
  it("takes OFUL-MLogB's oful_solver from its descriptor, and no policy declares a shared key", () => {
    expect(Object.keys(DECLARED_OPTIONS)).toEqual(['oful_solver']);
    expect(DECLARED_OPTIONS.oful_solver).toMatchObject({ default: 'incremental', values: ['incremental', 'textbook'], costOnly: true });
    expect(declaredOptions(POLICIES)).toEqual(DECLARED_OPTIONS);
  });
});
