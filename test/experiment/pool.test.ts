/**
 * The bytes a run plays are the bytes its manifest hashed (issue #23): an input file is read, parsed
 * and scaled once, in the main thread, when the experiment is resolved, and every unit — in this
 * thread or on a worker — plays that one shared copy. Replacing or deleting the file after the run
 * started changes nothing.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfigs } from '../../src/config/load.js';
import { labelledDataReads } from '../../src/environments/labelled-data.js';
import { runExperiments } from '../../src/experiment/runner.js';
import { resolveExperiment } from '../../src/experiment/setup.js';
import { defaultWorkerScript } from '../../src/experiment/pool.js';
import { listFiles, tempDir, trialCsvs, withoutTimings, writeFile } from './fixtures.js';

let root: string;
let dataFile: string;
let original: string;
let originalSha: string;
/** The same header and size class, other labels and values: what a careless `cp` or a re-download leaves. */
const REPLACEMENT = ['x,y,label', ...Array.from({ length: 60 }, (_, i) => `${(i * 7) % 11},${(i * 5) % 13},${['a', 'b', 'c'][(i * 2) % 3]}`)].join('\n');

beforeAll(() => {
  root = tempDir('eofd-pool-');
  original = ['x,y,label', ...Array.from({ length: 60 }, (_, i) => `${i % 5},${(i * 3) % 7},${['a', 'b', 'c'][i % 3]}`)].join('\n');
  originalSha = createHash('sha256').update(original).digest('hex');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function config(name: string): ReturnType<typeof loadConfigs> {
  dataFile = writeFile(root, `${name}.csv`, original);
  const text = [
    `name: ${name}`,
    `environment: {type: classification, file: ${name}.csv, target: a}`,
    'horizon: 40',
    'trials: 3',
    'seed: 0',
    'policies: [EOFD-MLogB, Random]',
    'params: {S: 5, m: 3, beta: order}',
    '',
  ].join('\n');
  return loadConfigs(writeFile(root, `${name}.yaml`, text));
}

/** Trial CSVs (without timings) of an undisturbed run on the original file. */
async function reference(): Promise<Map<string, string>> {
  const out = path.join(root, 'reference');
  if (!fs.existsSync(out)) await runExperiments(config('data'), { out, jobs: 1 });
  return new Map([...trialCsvs(path.join(out, 'data'))].map(([file, text]) => [file, withoutTimings(text)]));
}

describe('a data file changed after the run started', () => {
  it.each([
    ['replaced', 1],
    ['replaced', 3],
    ['deleted', 3],
  ] as const)('%s, --jobs %i: every unit plays the bytes the manifest hashed', async (change, jobs) => {
    const expected = await reference();
    const configs = config('data');
    const out = path.join(root, `${change}-${jobs}`);
    const reads = labelledDataReads();
    const result = await runExperiments(configs, {
      out,
      jobs,
      // After the experiment was resolved (the file read and hashed), before any unit runs.
      beforeWriting: () => {
        if (change === 'deleted') fs.rmSync(dataFile);
        else fs.writeFileSync(dataFile, REPLACEMENT);
      },
    });
    expect(result.unitsFailed).toBe(0);
    expect(result.unitsRun).toBe(6);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'data', 'manifest.json'), 'utf8'));
    expect(manifest.config.environment.inputs).toEqual([{ file: dataFile, bytes: original.length, sha256: originalSha }]);
    const played = trialCsvs(path.join(out, 'data'));
    expect([...played.keys()]).toEqual([...expected.keys()]);
    for (const [file, text] of played) expect(withoutTimings(text), file).toBe(expected.get(file));
    // Parsed once, in this thread (workers cannot have read a deleted file).
    expect(labelledDataReads() - reads).toBe(1);
  });

  it('a trace deleted after the run started: --jobs 2 plays the bytes the manifest hashed', async () => {
    const trace = JSON.stringify({
      K: 1,
      d: 2,
      reward: [0, 1],
      W_star: [[1, -1]],
      rounds: Array.from({ length: 20 }, (_, t) => ({ actions: [[1, 0], [0, 1], [0.6, 0.8]], u: ((t * 37) % 100) / 100 })),
    });
    const file = writeFile(root, 'trace.json', trace);
    const text = ['name: trace', 'environment: {type: trace, file: trace.json}', 'horizon: 20', 'trials: 2', 'seed: 0', 'policies: [OFUL-MLogB, Random]', 'params: {S: 2, beta: order}', ''].join('\n');
    const configs = loadConfigs(writeFile(root, 'trace.yaml', text));
    const out = path.join(root, 'trace-out');
    const result = await runExperiments(configs, { out, jobs: 2, beforeWriting: () => fs.rmSync(file) });
    expect(result.unitsFailed).toBe(0);
    expect(result.unitsRun).toBe(4);
    const manifest = JSON.parse(fs.readFileSync(path.join(out, 'trace', 'manifest.json'), 'utf8'));
    expect(manifest.config.environment.inputs).toEqual([{ file, bytes: trace.length, sha256: createHash('sha256').update(trace).digest('hex') }]);
  });

  it('the resolved experiment carries the parsed table in shared memory: a task message shares it, never copies it', () => {
    const [loaded] = config('shared');
    const experiment = resolveExperiment(loaded!);
    // What postMessage does to a task (structured clone).
    const copy = structuredClone(experiment);
    const values = (e: typeof experiment): Float64Array => (e.loaded as { data: { values: { blocks: Float64Array[] } } }).data.values.blocks[0]!;
    expect(values(copy).buffer).toBeInstanceOf(SharedArrayBuffer);
    expect(values(copy)[0]).toBe(values(experiment)[0]);
    expect(Object.is(values(copy).buffer, values(experiment).buffer)).toBe(false);
    // The same memory behind two handles.
    const before = values(experiment)[0]!;
    values(copy)[0] = 123;
    expect(values(experiment)[0]).toBe(123);
    values(copy)[0] = before;
  });
});

describe('a lock-step run on a worker thread (a signalled --jobs 1 run of the compiled CLI)', () => {
  it('plays what this thread plays (every unit, the same rows), and an aborted signal stops it between rounds (checkpoints off: no partial file left)', async () => {
    const text = [
      'name: lockstep',
      'environment: {type: synthetic, d: 6, K: 2, reward: [0, 0.5, 1], actions: [3, 6]}',
      'horizon: 400',
      'trials: 2',
      'seed: 0',
      'policies: [EOFD-MLogB, OFUL-MLogB, Random]',
      'params: {S: 2, m: 3, beta: order}',
      '',
    ].join('\n');
    const configs = loadConfigs(writeFile(root, 'lockstep.yaml', text));
    const here = path.join(root, 'lockstep-here');
    await runExperiments(configs, { out: here, jobs: 1 });
    const thread = path.join(root, 'lockstep-thread');
    const onWorker = await runExperiments(configs, { out: thread, jobs: 1, signal: new AbortController().signal, workerScript: defaultWorkerScript() });
    expect(onWorker).toMatchObject({ interrupted: false, unitsRun: 6, unitsFailed: 0 });
    const expected = trialCsvs(path.join(here, 'lockstep'));
    const actual = trialCsvs(path.join(thread, 'lockstep'));
    expect([...actual.keys()]).toEqual([...expected.keys()]);
    for (const [file, csv] of expected) expect(withoutTimings(actual.get(file) as string)).toBe(withoutTimings(csv));

    const stopped = path.join(root, 'lockstep-stopped');
    const controller = new AbortController();
    const run = runExperiments(configs, {
      out: stopped,
      jobs: 1,
      signal: controller.signal,
      workerScript: defaultWorkerScript(),
      checkpoint: null,
      events: { onProgress: (_, rounds) => (rounds > 0 ? controller.abort() : undefined) },
    });
    const result = await run;
    expect(result.interrupted).toBe(true);
    expect(listFiles(path.join(stopped, 'lockstep')).filter((f) => f.endsWith('.partial'))).toEqual([]);
  });
});
