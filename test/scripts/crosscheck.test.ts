/**
 * scripts/crosscheck/_trace.py draws each round's outcome for the authors' code; it must be eofd's rule
 * (model/logistic.ts: softmaxWithNull, then sampleOutcome) exactly, or a cross-check would compare
 * decisions made on different outcomes. Here both rules draw from the same W*, x and u: uniform u, and
 * u a relative 1e-9 either side of every cumulative boundary p_0, p_0 + p_1, … (the order of the
 * outcomes). Exactly on a boundary the two may differ: numpy's and V8's exp and sums differ in the last
 * ulp, and a uniform lands within an ulp of a boundary with probability ~1e-16 a round.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleOutcome, softmaxWithNull } from '../../src/model/logistic.js';
import { REPO } from '../experiment/fixtures.js';
import { seededNormal, seededUniform } from '../helpers/dense.js';

const python = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' });

describe.skipIf(python.status !== 0)('scripts/crosscheck/_trace.py (python3 with numpy)', () => {
  it("draws every outcome as eofd does, for K = 1 and K = 3, with u either side of each boundary", () => {
    const normal = seededNormal(11);
    const uniform = seededUniform(12);
    const cases: { W: number[][]; x: number[]; u: number; expected: number }[] = [];
    for (const K of [1, 3]) {
      for (let i = 0; i < 150; i++) {
        const d = 4;
        const W = Array.from({ length: K }, () => Array.from({ length: d }, () => 2 * normal()));
        const x = Array.from({ length: d }, normal);
        const z = new Float64Array(W.map((row) => row.reduce((s, w, a) => s + w * (x[a] as number), 0)));
        const sigma = new Float64Array(K);
        const p0 = softmaxWithNull(K, z, sigma);
        const boundaries = [p0];
        for (let k = 0; k < K - 1; k++) boundaries.push((boundaries[k] as number) + (sigma[k] as number));
        for (const u of [uniform(), ...boundaries.flatMap((b) => [b * (1 - 1e-9), b * (1 + 1e-9)])]) {
          if (u < 1) cases.push({ W, x, u, expected: sampleOutcome(K, u, p0, sigma) });
        }
      }
    }
    const script = `import json, sys\nsys.path.insert(0, ${JSON.stringify(path.join(REPO, 'scripts', 'crosscheck'))})\nfrom _trace import outcome\nimport numpy as np\ncases = json.load(sys.stdin)\nprint(json.dumps([outcome({'W_star': c['W']}, np.asarray(c['x'], dtype=float), c['u']) for c in cases]))`;
    const run = spawnSync('python3', ['-c', script], { input: JSON.stringify(cases), encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const theirs = JSON.parse(run.stdout) as number[];
    expect(theirs).toHaveLength(cases.length);
    const differing = cases.map((c, i) => (theirs[i] === c.expected ? null : { i, ...c, got: theirs[i] })).filter((c) => c !== null);
    expect(differing).toEqual([]);
    expect(new Set(cases.map((c) => c.expected)).size).toBe(4); // every outcome 0..3 occurs
  });
});
