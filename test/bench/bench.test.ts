/**
 * `eofd bench`: argument errors (exit 2), the plan of the grid, the workload, the statistics, and a tiny
 * grid run end to end into a well-formed bench.csv and bench.svg. A benchmark is not a test: nothing
 * here asserts how long anything takes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { backendDisagreements, BENCH_COLUMNS, DEFAULT_BENCH_OPTIONS, fitSlopes, runBench, type DgemmReference, leastSquaresSlope, planPoints, quantiles, type BenchOptions, type BenchRow } from '../../src/bench/index.js';
import { benchReward, benchSpec } from '../../src/bench/measure.js';
import { nominalRoundFlops, unavailableBackend, workloadProblem } from '../../src/bench/plan.js';
import type { Backend } from '../../src/linalg/simd.js';
import { seriesKey } from '../../src/bench/output.js';
import { POLICIES, POLICY_NAMES, policyDescriptor } from '../../src/policies/registry.js';
import { BenchWorkload } from '../../src/bench/workload.js';
import { benchCommandOptions, registerBench, runBenchCommand, type BenchCommandOptions } from '../../src/cli/commands/bench.js';
import { descendants, parseXml } from '../report/xml.js';

function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-bench-'));
}

/** Parses `eofd bench <args>` with a program that throws instead of exiting; returns the error, stderr and the options. */
async function parseBench(args: string[]): Promise<{ error: CommanderError | null; stderr: string; options: BenchCommandOptions | null }> {
  const program = new Command('eofd').exitOverride();
  registerBench(program);
  const bench = program.commands.find((c) => c.name() === 'bench')!;
  let stderr = '';
  let options: BenchCommandOptions | null = null;
  bench.configureOutput({ writeErr: (s) => (stderr += s), writeOut: () => undefined });
  bench.action(() => {
    options = benchCommandOptions(bench);
  });
  try {
    await program.parseAsync(['node', 'eofd', 'bench', ...args]);
    return { error: null, stderr, options };
  } catch (err) {
    return { error: err as CommanderError, stderr, options };
  }
}

function options(overrides: Partial<BenchOptions> = {}): BenchOptions {
  return { ...DEFAULT_BENCH_OPTIONS, ...overrides };
}

describe('eofd bench: bad usage is exit code 2 with one line on stderr', () => {
  for (const args of [
    ['--d', '100,x'],
    ['--d', '0'],
    ['--K', '1.5'],
    ['--m', 'auto,-3'],
    ['--rounds', '0'],
    ['--warmup', 'soon'],
    ['--actions', ''],
    ['--policy', 'Nope'],
    ['--warmup', '10,x'],
    ['--max-state-mb', '-1'],
    ['--backend', 'native'],
    ['--backend', 'js,'],
    ['--backend', 'WASM'],
    ['--nope'],
    ['extra-argument'],
    ['--linalg', '--n', '0'],
    ['--linalg', '--n', '32,x'],
    ['--linalg', '--repeats', '0'],
  ]) {
    it(`eofd bench ${args.join(' ')}`, async () => {
      const { error, stderr } = await parseBench(args);
      expect(error).toBeInstanceOf(CommanderError);
      expect(error!.exitCode).toBe(2);
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    });
  }

  it('--linalg alone times the kernels only; with --policy the policies run too', async () => {
    const alone = (await parseBench(['--linalg'])).options!;
    expect([alone.linalg, alone.n, alone.repeats, alone.policies]).toEqual([true, [128, 256, 400, 785, 1600], 5, []]);
    const both = (await parseBench(['--linalg', '--n', '32,64', '--repeats', '2', '--policy', 'OFUL-MLogB'])).options!;
    expect([both.linalg, both.n, both.repeats, both.policies]).toEqual([true, [32, 64], 2, ['OFUL-MLogB']]);
    const without = (await parseBench([])).options!;
    expect([without.linalg, without.policies]).toEqual([false, [...POLICY_NAMES]]);
  });

  it('a bad --backend names the option and the allowed values', async () => {
    const { error, stderr } = await parseBench(['--backend', 'js,native']);
    expect(error!.exitCode).toBe(2);
    expect(stderr).toContain('--backend');
    expect(stderr).toContain('expected backends from js, wasm, comma-separated, got "native"');
  });

  it('a backend this runtime lacks is a one-line error naming it (exit 2)', () => {
    expect(unavailableBackend(['js', 'wasm'], false)).toBe('--backend wasm: this runtime lacks WebAssembly SIMD and shared memory (use --backend js)');
    expect(unavailableBackend(['js'], false)).toBeNull();
    expect(unavailableBackend(['js', 'wasm'], true)).toBeNull();
    expect(unavailableBackend(['gpu' as Backend], true)).toBe('--backend: expected js, wasm, got "gpu"');
  });

  it('--help exits 0, and the help leads with an example', async () => {
    const { error } = await parseBench(['--help']);
    expect(error!.exitCode).toBe(0);
    const program = new Command('eofd');
    registerBench(program);
    const bench = program.commands.find((c) => c.name() === 'bench')!;
    const help = bench.helpInformation();
    expect(help.split('\n').slice(0, 4).join('\n')).toContain('Example: eofd bench --d');
    expect(help).toContain('--backend <list>');
    expect(help).toContain('--no-dgemm');
    let full = '';
    bench.configureOutput({ writeOut: (text) => (full += text) });
    bench.outputHelp();
    expect(full).toContain('eofd bench --d 785 --K 1 --m auto --policy EOFD-MLogB --backend js,wasm');
  });

  it('an unwritable --out is exit code 1 with one line on stderr', async () => {
    const blocker = path.join(tempDir(), 'file');
    fs.writeFileSync(blocker, '');
    let stderr = '';
    const parsed = (await parseBench(['--d', '8', '--K', '1', '--m', '2', '--rounds', '1', '--warmup', '1', '--policy', 'EOFD-MLogB', '--no-dgemm'])).options!;
    const code = await runBenchCommand({ ...parsed, out: path.join(blocker, 'out') }, { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) }, env: {} });
    expect(code).toBe(1);
    expect(stderr.split('\n').filter((l) => l.startsWith('eofd bench:'))).toEqual([expect.stringMatching(/cannot write the bench results to .* \(E[A-Z]+\)$/)]);
  });
});

describe('eofd bench: --actions is bounded before any point runs', () => {
  it('reliability: bench --actions is bounded by the config limit and by the same sizing rule as runs (it ran out of heap in the child)', async () => {
    const { error, stderr } = await parseBench(['--actions', '200000000']);
    expect(error).toBeInstanceOf(CommanderError);
    expect(error!.exitCode).toBe(2);
    expect(stderr.trimEnd()).toMatch(/^error: option '--actions <n>' argument '200000000' is invalid\. expected an integer in \[1, 10000\], got 200000000/);
    expect((await parseBench(['--actions', '10000'])).error).toBeNull();
    // 10,000 actions at d = 10⁶: 80 GB a round, refused up front with the estimate and the limit.
    const machine = { bytes: 16e9, source: 'available memory' };
    expect(workloadProblem({ actions: 10_000, d: [100, 1_000_000], K: [1, 4] }, machine)).toMatch(
      /^--actions 10000: a point at d = 1000000, K = 4 needs about 80\.\d GB \(its workload's 10000 actions × d doubles a round, and the process\), more than the 16\.0 GB of available memory; use fewer --actions or a smaller --d$/,
    );
    expect(workloadProblem({ actions: 10_000, d: [100, 10_000], K: [1, 4] }, machine)).toBeNull();
    const options: BenchOptions = { ...DEFAULT_BENCH_OPTIONS, d: [1_000_000], K: [1], actions: 10_000, policies: ['Random'], dgemm: false, backends: ['js'] };
    // Run only where this machine cannot hold it (else the bench would really run it).
    if (workloadProblem(options) !== null) {
      let measured = false;
      const refused = await runBench(options, tempDir(), { stderr: { write: () => true } }, async () => {
        measured = true;
        return { ok: false, reason: 'unused' };
      }).catch((e: unknown) => e);
      expect(refused).toMatchObject({ exitCode: 2, message: expect.stringMatching(/^--actions 10000: a point at d = 1000000/) });
      expect(measured).toBe(false);
    }
  });
});

describe('eofd bench: options', () => {
  it('parses lists, "auto" and the defaults', async () => {
    const { error, options: parsed } = await parseBench(['--d', '100,200,100', '--K', '4', '--m', 'auto,30', '--warmup', 'auto,100', '--policy', 'OFUL-MLogB']);
    expect(error).toBeNull();
    expect(parsed).toMatchObject({ d: [100, 200], K: [4], m: ['auto', 30], warmup: ['auto', 100], policies: ['OFUL-MLogB'], actions: 20, out: 'results/bench', maxStateMb: 2048 });
    const defaults = (await parseBench([])).options!;
    expect(defaults.d).toEqual([100, 200, 400, 785, 1600, 3200, 12800]);
    expect(defaults.K).toEqual([1, 4]);
    // Every registered policy by default.
    expect(defaults.policies).toEqual([...POLICY_NAMES]);
    expect(defaults.backends).toEqual(['wasm']);
    expect(defaults.dgemm).toBe(true);
    // The CLI's defaults are the library's: one table declares both.
    const { out, ...benchDefaults } = defaults;
    expect(out).toBe('results/bench');
    expect(benchDefaults).toEqual(DEFAULT_BENCH_OPTIONS);
  });

  it('parses --backend as a list without repeats, and --no-dgemm', async () => {
    const { error, options: parsed } = await parseBench(['--backend', 'js, wasm,js', '--no-dgemm']);
    expect(error).toBeNull();
    expect(parsed).toMatchObject({ backends: ['js', 'wasm'], dgemm: false });
  });
});

describe('bench plan', () => {
  it('every point once per backend, adjacent, the same in all else', () => {
    const plan = planPoints(options({ d: [20, 40], K: [1], m: ['auto'], policies: ['EOFD-MLogB', 'OFUL-MLogB'], backends: ['js', 'wasm'] }));
    expect(plan.map((p) => `${p.point.policy} ${p.point.d} ${p.point.backend}`)).toEqual([
      'EOFD-MLogB 20 js',
      'EOFD-MLogB 20 wasm',
      'OFUL-MLogB 20 js',
      'OFUL-MLogB 20 wasm',
      'EOFD-MLogB 40 js',
      'EOFD-MLogB 40 wasm',
      'OFUL-MLogB 40 js',
      'OFUL-MLogB 40 wasm',
    ]);
    for (let i = 0; i < plan.length; i += 2) {
      expect({ ...plan[i + 1], point: { ...plan[i + 1].point, backend: 'js' } }).toEqual(plan[i]);
    }
  });

  it('one OFUL-MLogB point and one EOFD-MLogB point per m per (d, K); m = auto is ⌊Kd/10⌋, capped at Kd', () => {
    const plan = planPoints(options({ d: [20, 785], K: [1], m: ['auto', 50], policies: ['EOFD-MLogB', 'OFUL-MLogB'] }));
    expect(plan.map((p) => [p.point.policy, p.point.d, p.point.sketchSize, p.point.sketchRequest])).toEqual([
      ['EOFD-MLogB', 20, 2, 'auto'],
      ['EOFD-MLogB', 20, 20, 50],
      ['OFUL-MLogB', 20, 20, 'exact'],
      ['EOFD-MLogB', 785, 78, 'auto'],
      ['EOFD-MLogB', 785, 50, 50],
      ['OFUL-MLogB', 785, 785, 'exact'],
    ]);
    // Automatic warm-up fills the sketch: m + 10 rounds for EOFD-MLogB, 10 for OFUL-MLogB.
    expect(plan.map((p) => p.point.warmup)).toEqual([12, 30, 10, 88, 60, 10]);
    expect(plan.every((p) => p.skip === null)).toBe(true);
    expect(plan.map((p) => p.probe)).toEqual([false, false, true, false, false, true]);
  });

  it('skips OFUL-MLogB over the memory cap and anything over the compute cap, saying why', () => {
    const plan = planPoints(options({ d: [12800], K: [1], m: [50, 'auto'], policies: ['EOFD-MLogB', 'OFUL-MLogB'] }));
    expect(plan.map((p) => p.skip)).toEqual([
      null,
      expect.stringMatching(/^skipped: ≈ .* GFLOP per round > --max-gflop 2$/),
      expect.stringMatching(/^skipped: state ≈ \d+ MB > --max-state-mb 2048$/),
    ]);
    expect(planPoints(options({ d: [400], K: [1], maxStateMb: 5, policies: ['EOFD-MLogB', 'OFUL-MLogB'] }))[2].skip).toMatch(/> --max-state-mb 5$/);
  });

  it('every registered policy that plays K, in registry order; one point per warm-up asked for, with t in the series', () => {
    const plan = planPoints(options({ d: [20], K: [1, 4], m: [5], warmup: ['auto', 100] }));
    for (const K of [1, 4]) {
      const players = POLICIES.filter((p) => (K === 1 ? p.supports.binary : p.supports.multinomial)).map((p) => p.name);
      const planned = plan.filter((p) => p.point.K === K);
      expect([...new Set(planned.map((p) => p.point.policy))]).toEqual(players);
      expect(planned).toHaveLength(2 * players.length);
    }
    const oful = plan.filter((p) => p.point.policy === 'OFUL-MLogB' && p.point.K === 1);
    expect(oful.map((p) => [p.point.warmup, p.point.warmupRequest])).toEqual([[10, 'auto'], [100, 100]]);
    const row = (p: (typeof plan)[number]) => ({ plan: p, measurement: null, peakRssBytes: null, rssScope: null, note: '' }) as BenchRow;
    expect(oful.map((p) => seriesKey(row(p)))).toEqual(['OFUL-MLogB K=1 [wasm]', 'OFUL-MLogB K=1 t=101 [wasm]']);
  });

  it('--oful-solver incremental,textbook: two OFUL-MLogB points (only it reads the key), textbook costed at O((Kd)³) and named in its series', async () => {
    const { error, options: parsed } = await parseBench(['--oful-solver', 'textbook, incremental,textbook']);
    expect(error).toBeNull();
    expect(parsed!.ofulSolvers).toEqual(['textbook', 'incremental']);
    expect((await parseBench([])).options!.ofulSolvers).toEqual(['incremental']);
    expect((await parseBench(['--oful-solver', 'fast'])).stderr).toMatch(/expected solvers from incremental, textbook/);

    const plan = planPoints(options({ d: [100, 400], K: [1], m: ['auto'], policies: ['EOFD-MLogB', 'OFUL-MLogB'], ofulSolvers: ['incremental', 'textbook'] }));
    expect(plan.map((p) => `${p.point.policy} ${p.point.d} ${p.point.ofulSolver ?? '-'}`)).toEqual([
      'EOFD-MLogB 100 -',
      'OFUL-MLogB 100 -',
      'OFUL-MLogB 100 textbook',
      'EOFD-MLogB 400 -',
      'OFUL-MLogB 400 -',
      'OFUL-MLogB 400 textbook',
    ]);
    expect(benchSpec(plan[2].point).options?.oful_solver).toBe('textbook');
    expect(benchSpec(plan[1].point).options).toBeUndefined();
    // What textbook adds to a round's estimated work is cubic in Kd: 4³ times as much at 4 times d.
    const extra = (i: number) => nominalRoundFlops(plan[i + 1].point) - nominalRoundFlops(plan[i].point);
    expect(extra(1)).toBeCloseTo((7 / 3) * 100 ** 3, -3);
    expect(extra(4) / extra(1)).toBeCloseTo(64, 10);
    const row = (p: (typeof plan)[number]) => ({ plan: p, measurement: null, peakRssBytes: null, rssScope: null, note: '' }) as BenchRow;
    expect(seriesKey(row(plan[2]))).toBe('OFUL-MLogB textbook K=1 [wasm]');
  });

  it('a policy that draws gets its own seeded stream; one that does not gets none', () => {
    const point = (policy: string) => planPoints(options({ d: [6], K: [1], m: [2], policies: [policy] }))[0].point;
    expect(benchSpec(point('Random')).uniform).toBeTypeOf('function');
    expect(benchSpec(point('EOFD-MLogB')).uniform).toBeUndefined();
    const a = benchSpec(point('Random')).uniform!;
    const b = benchSpec(point('Random')).uniform!;
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
  });
});

describe('bench statistics and workload', () => {
  it('median and p90 interpolate between order statistics', () => {
    expect(quantiles([5, 1, 3, 2, 4])).toEqual({ median: 3, p90: 4.6 });
    expect(quantiles([7])).toEqual({ median: 7, p90: 7 });
    expect(Number.isNaN(quantiles([]).median)).toBe(true);
  });

  it('the log-log slope of ms = c·d^1.5 is 1.5, fitted from the given d on', () => {
    expect(leastSquaresSlope([0, 1, 2], [1, 3, 5])).toBeCloseTo(2, 12);
    const rows = [100, 400, 1600, 6400].map((d) => ({
      plan: planPoints(options({ d: [d], K: [1], m: [50], policies: ['EOFD-MLogB'] }))[0],
      measurement: { round: { median: d === 100 ? 50 : 1e-3 * d ** 1.5 } },
      peakRssBytes: null,
      rssScope: null,
      note: '',
    })) as unknown as BenchRow[];
    const [slope] = fitSlopes(rows, 400);
    expect(slope.series).toBe('EOFD-MLogB K=1 m=50 [wasm]');
    expect(slope.slope).toBeCloseTo(1.5, 12);
    expect([slope.fromD, slope.toD]).toEqual([400, 6400]);
  });

  it('unit-norm actions, and the same seed gives the same problem', () => {
    const a = new BenchWorkload(30, benchReward(2), 5, 1, 9);
    const b = new BenchWorkload(30, benchReward(2), 5, 1, 9);
    const first = Float64Array.from(a.nextActions().features);
    expect(Array.from(b.nextActions().features)).toEqual(Array.from(first));
    for (let i = 0; i < 5; i++) {
      let s = 0;
      for (let j = 0; j < 30; j++) s += first[i * 30 + j] ** 2;
      expect(Math.abs(s - 1)).toBeLessThan(1e-12);
    }
    let norm = 0;
    for (const w of a.trueWeights) norm += w * w;
    expect(Math.abs(Math.sqrt(norm) - 1)).toBeLessThan(1e-12);
    const outcomes = Array.from({ length: 5 }, (_, i) => a.outcome(i));
    expect(outcomes.every((y) => Number.isInteger(y) && y >= 0 && y <= 2)).toBe(true);
  });
});

describe('eofd bench: a tiny grid end to end', () => {
  it('writes bench.csv (a row per point, units in the column names) and a well-formed bench.svg; table on stderr', async () => {
    const out = tempDir();
    let stderr = '';
    const parsed = (
      await parseBench(['--d', '20,40', '--K', '1,2', '--m', 'auto,8', '--rounds', '5', '--projection-rounds', '1', '--max-state-mb', '0.1', '--policy', 'EOFD-MLogB,OFUL-MLogB', '--no-dgemm', '--out', out])
    ).options!;
    const code = await runBenchCommand(parsed, { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) }, env: {} });
    expect(code).toBe(0);
    expect(fs.readdirSync(out).sort()).toEqual(['bench.csv', 'bench.svg']);

    const rows = parse(fs.readFileSync(path.join(out, 'bench.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0])).toEqual([...BENCH_COLUMNS]);
    expect(BENCH_COLUMNS.filter((c) => /_ms$|_p90_ms$/.test(c)).length).toBeGreaterThan(8);
    // (d, K) ∈ {20, 40} × {1, 2}: two EOFD-MLogB points and one OFUL-MLogB point each.
    expect(rows).toHaveLength(12);
    for (const row of rows) {
      if (row.note !== '') {
        expect(row.policy).toBe('OFUL-MLogB'); // Kd×Kd state over 0.1 MB
        expect(row.note).toMatch(/^skipped: state ≈/);
        expect(row.round_median_ms).toBe('');
        continue;
      }
      for (const column of ['select_median_ms', 'select_p90_ms', 'update_median_ms', 'round_median_ms', 'round_p90_ms', 'peak_rss_mb']) {
        expect(Number(row[column])).toBeGreaterThan(0);
      }
      expect(Number(row.round_p90_ms)).toBeGreaterThanOrEqual(Number(row.round_median_ms));
      expect(Number(row.state_bytes)).toBeGreaterThan(0);
      expect(row.timed_rounds).toBe('5');
      expect(row.rss_scope).toBe('process'); // from the TypeScript sources: no compiled child script
    }
    const oful = rows.filter((r) => r.policy === 'OFUL-MLogB' && r.note === '');
    expect(oful.length).toBeGreaterThan(0);
    for (const row of oful) expect(Number(row.probe_projection_update_median_ms)).toBeGreaterThan(0);

    const svg = parseXml(fs.readFileSync(path.join(out, 'bench.svg'), 'utf8'));
    expect(svg.name).toBe('svg');
    const series = descendants(svg).filter((e) => e.name === 'path' && e.attributes.has('data-series'));
    // Every series with a measured point is drawn; OFUL-MLogB at K = 2 (Kd ≥ 40) is over the 0.1 MB cap.
    expect(series.map((e) => e.attributes.get('data-series'))).toEqual([
      'EOFD-MLogB K=1 m=Kd/10 [wasm]',
      'EOFD-MLogB K=1 m=8 [wasm]',
      'OFUL-MLogB K=1 [wasm]',
      'EOFD-MLogB K=2 m=Kd/10 [wasm]',
      'EOFD-MLogB K=2 m=8 [wasm]',
    ]);
    const legend = descendants(svg).filter((e) => e.name === 'text').map((e) => e.text);
    expect(legend.filter((t) => /^slope -?\d+\.\d\d \(d 20–40\)$/.test(t)).length).toBeGreaterThan(0);

    expect(stderr).toContain('select ms');
    expect(stderr).toContain('log-log slope of per-round time against d:');
    expect(stderr).toContain(`wrote ${path.join(out, 'bench.csv')}`);
  });

  it('--backend js,wasm: two rows per point, js then wasm, with the same decisions; throughput against the dgemm reference', async () => {
    const out = tempDir();
    let stderr = '';
    const reference: DgemmReference = { ok: true, gflopPerS: 8, order: 1024, repeats: 5, seconds: 2 * 1024 ** 3 / 8e9, numpy: '2.x', blas: 'test' };
    const benchOptions = options({ d: [20], K: [1], m: ['auto'], policies: ['EOFD-MLogB'], rounds: 2, warmup: [2], backends: ['js', 'wasm'] });
    const result = await runBench(benchOptions, out, { stderr: { write: (s: string) => (stderr += s) } }, async () => reference);
    expect(result.failures).toBe(0);
    expect(result.dgemm).toBe(reference);

    const rows = parse(fs.readFileSync(path.join(out, 'bench.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(BENCH_COLUMNS.indexOf('backend')).toBe(BENCH_COLUMNS.indexOf('policy') + 1);
    expect(rows.map((r) => [r.policy, r.backend, r.d, r.m, r.warmup_rounds, r.timed_rounds])).toEqual([
      ['EOFD-MLogB', 'js', '20', '2', '2', '2'],
      ['EOFD-MLogB', 'wasm', '20', '2', '2', '2'],
    ]);
    // The kernels compute the same bits: the same actions chosen and the same final estimate.
    expect(rows[0].decisions).toMatch(/^[0-9a-f]{16}$/);
    expect(rows[1].decisions).toBe(rows[0].decisions);
    expect(stderr).not.toContain('different decisions');

    // gflop_per_s = the policy's flops at the middle timed round (t = 2 + 1) / the median round, in s.
    const flops = policyDescriptor('EOFD-MLogB').cost.flops({ d: 20, K: 1, m: 2, actions: 20, t: 3 });
    for (const [i, row] of result.rows.entries()) {
      const gflop = flops / (row.measurement!.round.median / 1000) / 1e9;
      expect(rows[i].gflop_per_s).toBe(gflop.toFixed(4));
      expect(rows[i].dgemm_gflop_per_s).toBe('8.00');
      expect(rows[i].fraction_of_dgemm).toBe((gflop / 8).toFixed(5));
    }
    expect(stderr).toContain('[eofd bench] dgemm reference: 8.0 GFLOP/s single-thread (numpy 2.x dot, test, 1024×1024 float64, best of 5)');
    expect(stderr).toMatch(/^\[eofd bench\] 1\/2 EOFD-MLogB d=20 K=1 m=2 \[js\]: /m);
    expect(stderr).toMatch(/^\[eofd bench\] 2\/2 EOFD-MLogB d=20 K=1 m=2 \[wasm\]: /m);
    const table = stderr.split('\n').filter((line) => line.startsWith('EOFD-MLogB'));
    expect(table.map((line) => line.split(/\s+/).slice(0, 3))).toEqual([
      ['EOFD-MLogB', 'js', '20'],
      ['EOFD-MLogB', 'wasm', '20'],
    ]);
    expect(stderr).toContain('EOFD-MLogB K=1 m=Kd/10 t=3 [js]: ');
    expect(stderr).toContain('EOFD-MLogB K=1 m=Kd/10 t=3 [wasm]: ');

    const svg = parseXml(fs.readFileSync(path.join(out, 'bench.svg'), 'utf8'));
    const series = descendants(svg).filter((e) => e.name === 'path' && e.attributes.has('data-series'));
    expect(series.map((e) => e.attributes.get('data-series'))).toEqual(['EOFD-MLogB K=1 m=Kd/10 t=3 [js]', 'EOFD-MLogB K=1 m=Kd/10 t=3 [wasm]']);
  });

  it('--processes 3: each point measured three times in passes over the grid; the row keeps the fastest', async () => {
    const out = tempDir();
    let stderr = '';
    const benchOptions = options({ d: [20], K: [1], m: ['auto'], policies: ['EOFD-MLogB', 'Random'], rounds: 2, warmup: [2], processes: 3, dgemm: false });
    const result = await runBench(benchOptions, out, { stderr: { write: (s: string) => (stderr += s) } });
    expect(result.failures).toBe(0);
    // Passes: EOFD-MLogB, Random, EOFD-MLogB, Random, … (a slow spell of the machine spreads over both).
    const progress = stderr.split('\n').filter((line) => /^\[eofd bench\] \d\/6 /.test(line)).map((line) => line.split(' ')[3]);
    expect(progress).toEqual(['EOFD-MLogB', 'Random', 'EOFD-MLogB', 'Random', 'EOFD-MLogB', 'Random']);
    const rows = parse(fs.readFileSync(path.join(out, 'bench.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    for (const [i, row] of result.rows.entries()) {
      expect(row.processMedians).toHaveLength(3);
      expect(row.measurement!.round.median).toBe(Math.min(...row.processMedians));
      expect(rows[i]!.processes).toBe('3');
      expect(rows[i]!.round_median_worst_ms).toBe(Math.max(...row.processMedians).toFixed(4));
      expect(rows[i]!.round_median_ms).toBe(Math.min(...row.processMedians).toFixed(4));
    }
  });

  it('--processes must be an integer ≥ 1', async () => {
    const { error, stderr } = await parseBench(['--processes', '0']);
    expect(error?.exitCode).toBe(2);
    expect(stderr).toMatch(/--processes <n>.*expected an integer ≥ 1/);
  });

  it('--no-dgemm leaves the dgemm columns empty and says why in one line', async () => {
    const out = tempDir();
    let stderr = '';
    const parsed = (await parseBench(['--d', '8', '--K', '1', '--m', '2', '--rounds', '2', '--warmup', '2', '--policy', 'EOFD-MLogB', '--backend', 'js', '--no-dgemm', '--out', out])).options!;
    const code = await runBenchCommand(parsed, { stdout: { write: () => true }, stderr: { write: (s: string) => (stderr += s) }, env: {} });
    expect(code).toBe(0);
    const rows = parse(fs.readFileSync(path.join(out, 'bench.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.backend, r.dgemm_gflop_per_s, r.fraction_of_dgemm])).toEqual([['js', '', '']]);
    expect(Number(rows[0].gflop_per_s)).toBeGreaterThan(0);
    expect(stderr.split('\n').filter((line) => line.includes('dgemm reference'))).toEqual([
      '[eofd bench] dgemm reference: none (skipped by --no-dgemm); the dgemm columns are empty',
    ]);
  });

  it('names the points whose backends made different decisions', () => {
    const [js, wasm] = planPoints(options({ d: [20], K: [1], m: [2], policies: ['EOFD-MLogB'], backends: ['js', 'wasm'] }));
    const row = (plan: typeof js, decisions: string) => ({ plan, measurement: { decisions }, peakRssBytes: null, rssScope: null, note: '' }) as unknown as BenchRow;
    expect(backendDisagreements([row(js, 'aa'), row(wasm, 'aa')])).toEqual([]);
    expect(backendDisagreements([row(js, 'aa'), row(wasm, 'bb')])).toEqual(['EOFD-MLogB d=20 K=1 m=2: js aa, wasm bb']);
  });

  it('measures every registered policy on a tiny grid, none failing', async () => {
    const out = tempDir();
    const parsed = (await parseBench(['--d', '6', '--K', '1,2', '--m', '3', '--rounds', '3', '--warmup', '4', '--projection-rounds', '1', '--no-dgemm', '--out', out])).options!;
    const code = await runBenchCommand(parsed, { stdout: { write: () => true }, stderr: { write: () => true }, env: {} });
    expect(code).toBe(0);
    const rows = parse(fs.readFileSync(path.join(out, 'bench.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    const expected = [1, 2].flatMap((K) => POLICIES.filter((p) => (K === 1 ? p.supports.binary : p.supports.multinomial)).map((p) => `${p.name} K=${K}`));
    expect(rows.map((r) => `${r.policy} K=${r.K}`)).toEqual(expected);
    for (const row of rows) {
      expect(row.note).toBe('');
      expect(Number(row.round_median_ms)).toBeGreaterThan(0);
      expect(row.warmup_rounds).toBe('4');
    }
  });
});
