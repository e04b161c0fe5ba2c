import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, tempDir, tinyConfig, writeFile } from '../experiment/fixtures.js';

/** The CLI with EOFD_BACKEND set (or removed when undefined). */
function eofd(args: string[], backendChoice: string | undefined) {
  const env = { ...process.env };
  if (backendChoice === undefined) delete env.EOFD_BACKEND;
  else env.EOFD_BACKEND = backendChoice;
  return spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8' });
}

describe('EOFD_BACKEND: bad values', () => {
  it('refuses a backend it does not know, before any work (exit 2, one line)', () => {
    const result = eofd(['list'], 'gpu');
    expect(result.status).toBe(2);
    expect(result.stderr).toBe('eofd: EOFD_BACKEND must be js or wasm, got "gpu"\n');
    expect(result.stdout).toBe('');
  });
});

describe('EOFD_BACKEND: js and wasm', () => {
  it('give the same decisions, outcomes and regret, round by round (the time columns aside)', () => {
    const dir = tempDir('eofd-backend-');
    const config = writeFile(dir, 'tiny.yaml', tinyConfig('tiny', { horizon: 40, d: 70, trials: 1 }));
    const trials: Record<string, string[]> = {};
    for (const choice of ['js', 'wasm']) {
      const out = path.join(dir, choice);
      const result = eofd(['run', config, '--out', out, '--quiet'], choice);
      expect(result.status, result.stderr).toBe(0);
      const experiment = path.join(out, 'tiny');
      trials[choice] = fs
        .readdirSync(experiment, { recursive: true, encoding: 'utf8' })
        .filter((file) => /trial-\d+\.csv$/.test(file))
        .sort()
        .map((file) => {
          const lines = fs.readFileSync(path.join(experiment, file), 'utf8').trim().split('\n');
          const header = lines[0]!.split(',');
          const keep = header.map((name, i) => (name.endsWith('_ms') ? -1 : i)).filter((i) => i >= 0);
          return `${file}\n${lines.map((line) => keep.map((i) => line.split(',')[i]).join(',')).join('\n')}`;
        });
    }
    expect(trials.js!.length).toBeGreaterThanOrEqual(3);
    expect(trials.wasm).toEqual(trials.js);
  });
});
