import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridConfigText, runCli, tempDir, writeFile } from '../experiment/fixtures.js';

const CONFIG = gridConfigText('small');

let root: string;
let config: string;
beforeAll(() => {
  root = tempDir('eofd-sweep-cli-');
  config = writeFile(root, 'small.yaml', CONFIG);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('eofd sweep and grid: bad arguments', () => {
  it('refuse --trials or --set on a key an --over sweeps (or on its ancestor or descendant), naming both; nothing is written (issue #23)', async () => {
    const cases: [string, string[], RegExp][] = [
      ['sweep', ['--over', 'trials=1,2', '--trials', '3'], /^eofd sweep: --trials 3 sets trials, which --over trials=1,2 sweeps; drop one of them$/],
      ['sweep', ['--over', 'trials=1,2', '--set', 'trials=3'], /^eofd sweep: --set trials=3 sets trials, which --over trials=1,2 sweeps; drop one of them$/],
      ['sweep', ['--set', 'environment.d=6', '--over', 'environment={type: synthetic, d: 4, K: 2},{type: synthetic, d: 5, K: 2}'], /^eofd sweep: --set environment\.d=6 sets environment\.d, which --over environment=.* sweeps; drop one of them$/],
      ['sweep', ['--over', 'params.m=2,3', '--set', 'params=null'], /^eofd sweep: --set params=null sets params, which --over params\.m=2,3 sweeps; drop one of them$/],
      ['grid', ['--over', 'params.m=2,3', '--set', 'params.m=4'], /^eofd grid: --set params\.m=4 sets params\.m, which --over params\.m=2,3 sweeps; drop one of them$/],
      ['grid', ['--over', 'trials=1,2', '--trials', '2'], /^eofd grid: --trials 2 sets trials, which --over trials=1,2 sweeps; drop one of them$/],
      ['grid', ['--set', 'params.l=0'], /^eofd grid: --set params\.l=0 sets params\.l, which the \(l, e\) grid \(params\.l\) sweeps; drop one of them$/],
      ['grid', ['--e', '0,1', '--set', 'params.e=0'], /^eofd grid: --set params\.e=0 sets params\.e, which --e 0,1 sweeps; drop one of them$/],
    ];
    for (const [command, args, message] of cases) {
      const out = path.join(root, `refused-${command}`);
      const result = await runCli([command, config, ...args, '--jobs', '1', '--out', out, '--quiet']);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trimEnd(), args.join(' ')).toMatch(message);
      expect(fs.existsSync(out)).toBe(false);
    }
  });

  it('refuse --over and --set keys that are not config keys', async () => {
    for (const [command, args] of [
      ['sweep', ['--over', '__proto__.x=1,2']],
      ['grid', ['--over', '__proto__.x=1,2']],
      ['sweep', ['--over', 'params.m=2,3', '--set', '__proto__.x=1']],
    ] as const) {
      const out = path.join(root, 'refused-keys');
      const result = await runCli([command, config, ...args, '--jobs', '1', '--out', out, '--quiet']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/__proto__ is not a config key/);
      expect(fs.existsSync(out)).toBe(false);
    }
  });
});
