import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';

describe('ConfigError: bad arguments', () => {
  it('keeps a multi-line detail on one line', () => {
    const error = new ConfigError({ file: 'c.yaml', line: 2, column: 3, field: 'a', detail: 'first\n  second' });
    expect(error.message).toBe('c.yaml:2:3: a: first second');
  });
});

describe('ConfigError', () => {
  it('formats file:line:column: field: detail and exits with 2', () => {
    const error = new ConfigError({
      file: 'configs/x.yaml',
      line: 4,
      column: 14,
      field: 'params.beta',
      detail: `expected 'theory', 'order' or a positive number, got "thoery"`,
    });
    expect(error.message).toBe(`configs/x.yaml:4:14: params.beta: expected 'theory', 'order' or a positive number, got "thoery"`);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ConfigError');
    expect(error.exitCode).toBe(2);
    expect([error.file, error.line, error.column, error.field]).toEqual(['configs/x.yaml', 4, 14, 'params.beta']);
  });
  it('names an override instead of a position, and omits what is unknown', () => {
    expect(new ConfigError({ file: 'c.yaml', override: 'horizon=-1', field: 'horizon', detail: 'bad' }).message).toBe(
      '--set horizon=-1: horizon: bad',
    );
    expect(new ConfigError({ file: 'c.yaml', detail: 'cannot read' }).message).toBe('c.yaml: cannot read');
    expect(new ConfigError({ file: 'c.yaml', line: 1, column: 1, field: '', detail: 'x' }).message).toBe('c.yaml:1:1: x');
  });
});
