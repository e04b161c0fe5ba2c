/**
 * Mid-unit checkpoints (experiment/checkpoint.ts) through the CLI, as on a preemptible cluster: a unit
 * killed (SIGKILL) at about 60% continues from its last checkpoint under --resume, not from round 1,
 * and SIGTERM writes a checkpoint before the process ends; either way the trial CSVs come out as an
 * uninterrupted run's (timing columns aside), and the rows before the checkpoint are the killed run's own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, runCli, spawnCli, tempDir, tinyConfig, trialCsvs, waitFor, withoutTimings, writeFile } from '../experiment/fixtures.js';

let root: string;
const T = 12_000;
beforeAll(() => {
  root = tempDir('eofd-checkpoint-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** The header of a checkpoint file (EOFDCKPT · u32 length · JSON), or null while there is none. */
function checkpointHeader(file: string): { rounds: number; csv: { bytes: number; rows: number; sha256: string } } | null {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return null;
  }
  expect(bytes.subarray(0, 8).toString('latin1')).toBe('EOFDCKPT');
  const length = bytes.readUInt32LE(8);
  return JSON.parse(bytes.subarray(12, 12 + length).toString('utf8')) as { rounds: number; csv: { bytes: number; rows: number; sha256: string } };
}

/** Rows (rounds) in a partial CSV so far. */
const roundsIn = (file: string): number => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').length - 2 : 0);

async function cleanRun(config: string, name: string): Promise<Map<string, string>> {
  const out = path.join(root, `${name}-clean`);
  expect((await runCli(['run', config, '--out', out, '--jobs', '1', '--quiet', '--checkpoint', 'off'])).code).toBe(0);
  return trialCsvs(path.join(out, name));
}

describe('eofd run: mid-unit checkpoints', () => {
  it('SIGKILL at about 60% of a long unit: --resume continues from its last checkpoint, and the CSV is the uninterrupted one', async () => {
    const config = writeFile(root, 'killed.yaml', tinyConfig('killed', { d: 60, horizon: T, trials: 1, policies: '[EOFD-MLogB]' }));
    const out = path.join(root, 'killed-out');
    const files = path.join(out, 'killed', 'EOFD-MLogB');
    const checkpoint = path.join(files, 'trial-0.checkpoint');
    const child = spawnCli(['run', config, '--out', out, '--jobs', '1', '--quiet', '--checkpoint', '500'], root);
    await waitFor(() => (checkpointHeader(checkpoint)?.rounds ?? 0) >= 0.6 * T, 120_000);
    child.kill('SIGKILL');
    expect((await exitOf(child)).signal).toBe('SIGKILL');
    const header = checkpointHeader(checkpoint)!;
    expect(header.rounds).toBeGreaterThanOrEqual(0.6 * T);
    expect(header.rounds).toBeLessThan(T);
    const partial = fs.readFileSync(path.join(files, 'trial-0.csv.partial'));
    const marked = partial.subarray(0, header.csv.bytes);

    const resumed = await runCli(['run', config, '--out', out, '--jobs', '1', '--resume', '--checkpoint', '500']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`killed: EOFD-MLogB, trial 0 continues from its checkpoint after round ${header.rounds}`);
    const csv = fs.readFileSync(path.join(files, 'trial-0.csv'));
    // The rounds before the checkpoint were not played again: their rows, times included, are the killed run's.
    expect(csv.subarray(0, header.csv.bytes).equals(marked)).toBe(true);
    const clean = await cleanRun(config, 'killed');
    expect(withoutTimings(csv.toString('utf8'))).toBe(withoutTimings(clean.get(path.join('EOFD-MLogB', 'trial-0.csv'))!));
    expect(fs.existsSync(checkpoint)).toBe(false);
  }, 240_000);

  it('SIGTERM on worker threads (--jobs 2) writes each running unit\'s checkpoint before exiting 143; --resume continues them to the uninterrupted CSVs', async () => {
    const config = writeFile(root, 'termed.yaml', tinyConfig('termed', { d: 60, horizon: T, trials: 2, policies: '[EOFD-MLogB]' }));
    const out = path.join(root, 'termed-out');
    const files = path.join(out, 'termed', 'EOFD-MLogB');
    // The default interval (10 minutes) writes no checkpoint in this run: only the signal does.
    const child = spawnCli(['run', config, '--out', out, '--jobs', '2', '--quiet'], root);
    await waitFor(() => roundsIn(path.join(files, 'trial-0.csv.partial')) >= 0.6 * T || roundsIn(path.join(files, 'trial-1.csv.partial')) >= 0.6 * T, 120_000);
    expect(fs.readdirSync(files).filter((f) => f.endsWith('.checkpoint'))).toEqual([]);
    child.kill('SIGTERM');
    expect((await exitOf(child)).code).toBe(143);
    const headers = [0, 1].map((trial) => checkpointHeader(path.join(files, `trial-${trial}.checkpoint`)));
    const marked = headers.map((header, trial) => (header === null ? null : fs.readFileSync(path.join(files, `trial-${trial}.csv.partial`)).subarray(0, header.csv.bytes)));
    expect(Math.max(...headers.map((h) => h?.rounds ?? 0))).toBeGreaterThanOrEqual(0.6 * T);

    const resumed = await runCli(['run', config, '--out', out, '--jobs', '2', '--resume']);
    expect(resumed.code).toBe(0);
    const clean = await cleanRun(config, 'termed');
    for (const trial of [0, 1]) {
      const header = headers[trial];
      const csv = fs.readFileSync(path.join(files, `trial-${trial}.csv`));
      if (header !== null) {
        expect(resumed.stderr).toContain(`termed: EOFD-MLogB, trial ${trial} continues from its checkpoint after round ${header.rounds}`);
        expect(csv.subarray(0, header.csv.bytes).equals(marked[trial]!)).toBe(true);
      }
      expect(withoutTimings(csv.toString('utf8'))).toBe(withoutTimings(clean.get(path.join('EOFD-MLogB', `trial-${trial}.csv`))!));
    }
  }, 240_000);

  it('a checkpoint whose partial CSV was damaged is not used: the unit starts again from round 1 and says why', async () => {
    const config = writeFile(root, 'damaged.yaml', tinyConfig('damaged', { d: 40, horizon: 30_000, trials: 1, policies: '[OFUL-MLogB]' }));
    const out = path.join(root, 'damaged-out');
    const files = path.join(out, 'damaged', 'OFUL-MLogB');
    const child = spawnCli(['run', config, '--out', out, '--jobs', '1', '--quiet', '--checkpoint', '200'], root);
    await waitFor(() => (checkpointHeader(path.join(files, 'trial-0.checkpoint'))?.rounds ?? 0) >= 1000, 120_000);
    child.kill('SIGKILL');
    await exitOf(child);
    const partial = path.join(files, 'trial-0.csv.partial');
    const text = fs.readFileSync(partial, 'utf8');
    fs.writeFileSync(partial, text.replace(/^trial,policy,t,action/, 'trial,policy,t,Action'));
    const resumed = await runCli(['run', config, '--out', out, '--jobs', '1', '--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/damaged: OFUL-MLogB, trial 0: its checkpoint cannot be used, so it starts again from round 1: .*trial-0\.csv\.partial's first \d+ bytes are not those its checkpoint marked \(SHA-256 differs\)$/m);
    const clean = await cleanRun(config, 'damaged');
    expect(withoutTimings(fs.readFileSync(path.join(files, 'trial-0.csv'), 'utf8'))).toBe(withoutTimings(clean.get(path.join('OFUL-MLogB', 'trial-0.csv'))!));
  }, 240_000);
});
