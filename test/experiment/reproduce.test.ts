/** `tuneSources`: which experiment's grid tunes each experiment of a reproduction (`tune_from`). */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/base/errors.js';
import { parseConfigs } from '../../src/config/load.js';
import { tuneSources } from '../../src/experiment/reproduce.js';
import { tinyConfig } from './fixtures.js';

const configs = (...documents: string[]) => parseConfigs(documents.join('---\n'), 'paper.yaml');

describe('tuneSources', () => {
  it('an experiment takes its own grid, or the grid of the experiment its tune_from names', () => {
    const loaded = configs(tinyConfig('a'), `${tinyConfig('b')}tune_from: a\n`, tinyConfig('c'));
    expect(tuneSources(loaded).map((c) => c.name)).toEqual(['a', 'a', 'c']);
  });

  it('refuses an unknown name, the experiment itself and a chain, naming the file and the field (exit 2)', () => {
    for (const [documents, detail] of [
      [[tinyConfig('a'), `${tinyConfig('b')}tune_from: z\n`], /^paper\.yaml: b: tune_from: "z" is not an experiment of this reproduction \(a, b\)$/],
      [[`${tinyConfig('a')}tune_from: a\n`], /^paper\.yaml: a: tune_from: an experiment cannot be tuned from itself/],
      [[tinyConfig('a'), `${tinyConfig('b')}tune_from: a\n`, `${tinyConfig('c')}tune_from: b\n`], /^paper\.yaml: c: tune_from: "b" is itself tuned from "a"/],
    ] as const) {
      const loaded = configs(...documents);
      let error: unknown;
      try {
        tuneSources(loaded);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(detail);
      expect((error as ConfigError).exitCode).toBe(2);
    }
  });
});
