/**
 * One bench point under each backend: every policy of the point is built under the point's backend,
 * and the backends make the same decisions (their kernels compute the same bits). Nothing here
 * asserts a time.
 */
import { describe, expect, it, vi } from 'vitest';
import { benchSpec, decisionsDigest, measurePoint, type BenchPoint } from '../../src/bench/measure.js';
import { BenchWorkload } from '../../src/bench/workload.js';
import { backend, BACKENDS, homeOf, withBackend, type Backend } from '../../src/linalg/simd.js';
import { createPolicy } from '../../src/policies/registry.js';

/** The backend in force each time the bench built a policy. */
const built = vi.hoisted(() => [] as string[]);

vi.mock('../../src/policies/registry.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/policies/registry.js')>();
  const simd = await import('../../src/linalg/simd.js');
  return {
    ...original,
    createPolicy: (...args: Parameters<typeof original.createPolicy>) => {
      built.push(simd.backend());
      return original.createPolicy(...args);
    },
  };
});

function point(overrides: Partial<BenchPoint>): BenchPoint {
  return {
    policy: 'EOFD-MLogB',
    backend: 'js',
    d: 20,
    K: 1,
    sketchSize: 2,
    sketchRequest: 'auto',
    actions: 20,
    warmup: 2,
    warmupRequest: 2,
    rounds: 2,
    seed: 1,
    ...overrides,
  };
}

describe('measurePoint: bad points', () => {
  it('an unknown policy is rejected by name, and the backend in force is left as it was', async () => {
    const before = backend();
    await expect(measurePoint(point({ policy: 'Nope', backend: before === 'js' ? 'wasm' : 'js' }), { probeRounds: 0 })).rejects.toThrow(/^unknown policy "Nope"/);
    expect(backend()).toBe(before);
  });
});

describe('measurePoint under each backend', () => {
  it("builds every policy of the point (JIT warm-up, measured, probe) under the point's backend, and the decisions agree", async () => {
    const decisions: string[] = [];
    for (const choice of BACKENDS) {
      built.length = 0;
      const before = backend();
      const measurement = await measurePoint(point({ policy: 'OFUL-MLogB', backend: choice, d: 6, sketchSize: 6, sketchRequest: 'exact' }), { probeRounds: 1 });
      // Two JIT warm-up policies (as measured, and every update projecting), the measured one, the probe.
      expect(built).toEqual([choice, choice, choice, choice]);
      expect(backend()).toBe(before);
      decisions.push(measurement.decisions);
    }
    expect(decisions[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(decisions[1]).toBe(decisions[0]);
  });

  it('EOFD-MLogB built under js and under wasm chooses the same actions for 50 rounds and ends with the same bits', () => {
    const d = 40;
    const K = 2;
    const spec = benchSpec(point({ d, K, sketchSize: 8, warmup: 0, rounds: 50 }));
    const policies = Object.fromEntries(BACKENDS.map((choice) => [choice, withBackend(choice, () => createPolicy('EOFD-MLogB', spec))])) as Record<Backend, ReturnType<typeof createPolicy>>;
    const workload = new BenchWorkload(d, Float64Array.of(0.5, 1), 20, 1, 7);
    const chosen: Record<Backend, number[]> = { js: [], wasm: [] };
    for (let t = 1; t <= 50; t++) {
      const actions = workload.nextActions();
      for (const choice of BACKENDS) chosen[choice].push(policies[choice].select(actions, t));
      const index = chosen.js[t - 1];
      const played = actions.features.slice(index * d, (index + 1) * d);
      const outcome = workload.outcome(index);
      for (const choice of BACKENDS) policies[choice].update(played, outcome);
    }
    expect(chosen.wasm).toEqual(chosen.js);
    // Not every round picks the same action (the test would pass trivially if the policy never moved).
    expect(new Set(chosen.js).size).toBeGreaterThan(1);
    const [js, wasm] = [policies.js.estimate(), policies.wasm.estimate()];
    expect(js).toHaveLength(K * d);
    // The two really ran apart: W_t (written by the kernels) lives in a WebAssembly memory only under wasm.
    expect(homeOf(wasm)).toBeDefined();
    expect(homeOf(js)).toBeUndefined();
    expect(Buffer.from(wasm.buffer, wasm.byteOffset, wasm.byteLength).equals(Buffer.from(js.buffer, js.byteOffset, js.byteLength))).toBe(true);
    expect(policies.wasm.stats()).toEqual(policies.js.stats());
  });
});

describe('decisionsDigest', () => {
  it('changes with any chosen index and with any bit of the estimate', () => {
    const chosen = Int32Array.of(3, 1, 4);
    const estimate = Float64Array.of(0.5, -2);
    const digest = decisionsDigest(chosen, estimate);
    expect(digest).toMatch(/^[0-9a-f]{16}$/);
    expect(decisionsDigest(Int32Array.of(3, 1, 4), Float64Array.of(0.5, -2))).toBe(digest);
    expect(decisionsDigest(Int32Array.of(3, 1, 5), estimate)).not.toBe(digest);
    // The next double after 0.5: one bit apart.
    expect(decisionsDigest(chosen, Float64Array.of(0.5 + 2 ** -53, -2))).not.toBe(digest);
  });
});

describe('measurePoint with an adaptive m (eofd bench --m adaptive)', () => {
  it('starts the sketch at m = 1, reports the m reached, and plays the same under both backends', async () => {
    const reached: (number | null)[] = [];
    const decisions: string[] = [];
    for (const choice of BACKENDS) {
      // A budget so small (ε = 1e-4, with Section 4's λ) that the sketch must grow within 40 rounds.
      const adaptive = point({ backend: choice, d: 8, K: 2, sketchSize: 1, sketchRequest: 'adaptive', deltaMax: 1e-4, warmup: 30, rounds: 10 });
      expect(benchSpec(adaptive)).toMatchObject({ sketchSize: 1, adaptiveSketch: { deltaMax: 1e-4 } });
      const measurement = await measurePoint(adaptive, { probeRounds: 0 });
      reached.push(measurement.sketchSize);
      decisions.push(measurement.decisions);
      expect(measurement.sketchSizeStart).toBeLessThanOrEqual(measurement.sketchSize!);
    }
    expect(reached[0]).toBeGreaterThan(1);
    expect(new Set(reached).size).toBe(1);
    expect(new Set(decisions).size).toBe(1);
  });
});
