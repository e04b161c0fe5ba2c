/**
 * The package entry: what `import … from 'eofd'` gives (through package.json's exports, as an
 * installed package would), and the library's one PolicySpec factory against Section 4 by hand.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createPolicy, policySpec } from '../src/index.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

describe('policySpec: bad arguments', () => {
  it('rejects a reward vector of the wrong length or with r_0 ≠ 0', () => {
    expect(() => policySpec({ d: 3, K: 2, reward: [0, 1] })).toThrow(/reward must list r_0..r_K \(3 values\), got 2/);
    expect(() => policySpec({ d: 3, K: 1, reward: [1, 1] })).toThrow(/r_0 must be 0/);
  });
});

describe('policySpec', () => {
  it('derives λ, η, m and δ as Section 4 does', () => {
    const d = 100;
    const K = 4;
    const S = 5;
    const spec = policySpec({ d, K, reward: [0, 0.25, 0.5, 0.75, 1], normBound: S, horizon: 3000 });
    // α = 2(1 + S·D) + ln(K+1), λ0 = √K·α·S, η0 = S/2 + ln(K+1)/4, (λ, η) = ((√K d)^0.75 λ0, (√K d)^0.75 η0)
    const alpha = 2 * (1 + S) + Math.log(5);
    const scale = (2 * 100) ** 0.75;
    expect(spec.regularization).toBeCloseTo(scale * 2 * alpha * S, 9);
    expect(spec.stepSize).toBeCloseTo(scale * (S / 2 + Math.log(5) / 4), 9);
    expect(spec.sketchSize).toBe(40);
    expect(spec.delta).toBe(1 / 3000);
    expect([spec.beta, spec.betaScale, spec.normBound, spec.maxActionNorm]).toEqual(['order', 1, 5, 1]);
    expect(Array.from(spec.reward)).toEqual([0.25, 0.5, 0.75, 1]);
  });

  it('caps m at Kd, so the m recorded is the m that runs', () => {
    expect(policySpec({ d: 3, K: 2, reward: [0, 1, 1], sketchSize: 50 }).sketchSize).toBe(6);
    expect(createPolicy('EOFD-MLogB', policySpec({ d: 3, K: 2, reward: [0, 1, 1], sketchSize: 50 })).stats().stateBytes).toBeGreaterThan(0);
  });

  it('takes λ, η and δ as given when given', () => {
    const spec = policySpec({ d: 5, K: 1, reward: [0, 1], regularization: 2, stepSize: 3, delta: 0.1 });
    expect([spec.regularization, spec.stepSize, spec.delta]).toEqual([2, 3, 0.1]);
  });
});

describe("import from 'eofd'", () => {
  it('exports the library API through the package name', () => {
    const script = "const m = await import('eofd'); process.stdout.write(JSON.stringify(Object.keys(m)));";
    const names = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO, encoding: 'utf8' })) as string[];
    for (const name of [
      'runExperiments',
      'loadConfigs',
      'createPolicy',
      'policySpec',
      'POLICIES',
      'ENVIRONMENTS',
      'readResults',
      'readManifest',
      'readFinishedUnit',
      'buildReport',
      'EofdMLogB',
      'OfulMLogB',
      'snapshotPolicy',
      'restorePolicy',
      'uniformOf',
      'RandomStream',
    ]) {
      expect(names, name).toContain(name);
    }
  });
});
