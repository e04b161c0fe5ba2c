/**
 * Nothing lost: a run killed part-way resumes to the same result without rewriting finished units,
 * and Ctrl-C (SIGINT) stops cleanly with exit 130, no partial file under a final name and a resume hint.
 * These spawn `node bin/eofd.js` (the compiled CLI), as a user would.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitOf, listFiles, runCli, sha256, spawnCli, tempDir, tinyConfig, trialCsvs, waitFor, withoutTimings, writeFile } from '../experiment/fixtures.js';

let root: string;
let config: string;
const HORIZON = 1000;
beforeAll(() => {
  root = tempDir('eofd-signals-');
  // Six units of about 0.1 s each (d = 30, T = 1,000): slow enough to interrupt between them.
  config = writeFile(root, 'slow.yaml', tinyConfig('slow', { d: 30, horizon: HORIZON, trials: 3, policies: '[EOFD-MLogB, OFUL-MLogB]' }));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const finalCsvs = (dir: string): string[] =>
  fs.existsSync(dir) ? listFiles(dir).filter((f) => /trial-\d+\.csv$/.test(f)) : [];

/** Every trial CSV under its final name is complete: T rows, and its summary file beside it; a partial one has its checkpoint beside it. */
function expectOnlyCompleteFiles(dir: string): void {
  const files = listFiles(dir);
  expect(files.filter((f) => /\.tmp-\d+$/.test(f) || (f.endsWith('.partial') && !files.includes(f.replace(/\.csv\.partial$/, '.checkpoint'))))).toEqual([]);
  for (const file of finalCsvs(dir)) {
    expect(fs.readFileSync(path.join(dir, file), 'utf8').trimEnd().split('\n')).toHaveLength(HORIZON + 1);
    expect(fs.existsSync(path.join(dir, file.replace(/\.csv$/, '.summary.json')))).toBe(true);
  }
}

describe('eofd run: killed and interrupted runs', () => {
  it('after SIGKILL, --resume gives the uninterrupted result and leaves finished units untouched', async () => {
    const killedOut = path.join(root, 'killed');
    const dir = path.join(killedOut, 'slow');
    const child = spawnCli(['run', config, '--out', killedOut, '--jobs', '1'], root);
    await waitFor(() => finalCsvs(dir).length >= 1);
    child.kill('SIGKILL');
    expect((await exitOf(child)).signal).toBe('SIGKILL');
    const finished = finalCsvs(dir);
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.length).toBeLessThan(6);
    expect(fs.existsSync(path.join(dir, 'summary.csv'))).toBe(false);
    const before = new Map(finished.map((f) => {
      const stat = fs.statSync(path.join(dir, f));
      return [f, { ino: stat.ino, mtime: stat.mtimeMs, hash: sha256(path.join(dir, f)) }];
    }));

    const resumed = await runCli(['run', config, '--out', killedOut, '--jobs', '2', '--resume']);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(new RegExp(`resuming .*: ${finished.length} of 6 units already finished`));
    for (const [file, was] of before) {
      const stat = fs.statSync(path.join(dir, file));
      expect({ ino: stat.ino, mtime: stat.mtimeMs, hash: sha256(path.join(dir, file)) }).toEqual(was);
    }

    const cleanOut = path.join(root, 'clean');
    expect((await runCli(['run', config, '--out', cleanOut, '--jobs', '2', '--quiet'])).code).toBe(0);
    const clean = trialCsvs(path.join(cleanOut, 'slow'));
    const after = trialCsvs(dir);
    expect([...after.keys()]).toEqual([...clean.keys()]);
    for (const [file, text] of clean) expect(withoutTimings(after.get(file) as string)).toBe(withoutTimings(text));
    const regrets = (file: string) =>
      fs.readFileSync(file, 'utf8').split('\n').map((line) => line.split(',').slice(0, 3).join(','));
    expect(regrets(path.join(dir, 'summary.csv'))).toEqual(regrets(path.join(cleanOut, 'slow', 'summary.csv')));
  });

  it('SIGINT in the middle of a long unit (--jobs 1) exits 130 within 2 s, keeps the finished unit; --resume gives the uninterrupted result', async () => {
    // `short` (OFUL-MLogB, the costlier policy, so first) takes well under a second; `long` about a
    // second (8,000 rounds at d = 120), of which the signal below comes after the first ~1,000.
    const longConfig = writeFile(root, 'long.yaml', [
      tinyConfig('short', { d: 30, horizon: 300, trials: 1, policies: '[OFUL-MLogB]' }),
      tinyConfig('long', { d: 120, horizon: 8_000, trials: 1, policies: '[EOFD-MLogB]' }),
    ].join('---\n'));
    const out = path.join(root, 'long-interrupted');
    const partial = path.join(out, 'long', 'EOFD-MLogB', 'trial-0.csv.partial');
    const child = spawnCli(['run', longConfig, '--out', out, '--jobs', '1'], root);
    // Some thousand rounds into the long unit (rows are written 256 at a time).
    await waitFor(() => fs.existsSync(partial) && fs.statSync(partial).size > 100_000, 60_000);
    const sent = performance.now();
    child.kill('SIGINT');
    const { code } = await exitOf(child);
    expect((performance.now() - sent) / 1000).toBeLessThan(2);
    expect(code).toBe(130);
    expect(child.output.stderr).toMatch(/^eofd run: interrupted: 1 units are finished and kept; resume with: .*--resume$/m);
    expect(finalCsvs(path.join(out, 'short'))).toEqual([path.join('OFUL-MLogB', 'trial-0.csv')]);
    // The long unit was checkpointed where the signal stopped it.
    expect(listFiles(path.join(out, 'long'))).toEqual(['EOFD-MLogB/trial-0.checkpoint', 'EOFD-MLogB/trial-0.csv.partial', 'manifest.json'].map((f) => f.split('/').join(path.sep)));

    // The resumed run and an uninterrupted one, side by side.
    const cleanOut = path.join(root, 'long-clean');
    const resumed = spawnCli(['run', longConfig, '--out', out, '--jobs', '1', '--quiet', '--resume'], root);
    const clean = spawnCli(['run', longConfig, '--out', cleanOut, '--jobs', '1', '--quiet'], root);
    expect((await exitOf(resumed)).code).toBe(0);
    expect((await exitOf(clean)).code).toBe(0);
    for (const name of ['short', 'long']) {
      const expected = trialCsvs(path.join(cleanOut, name));
      const actual = trialCsvs(path.join(out, name));
      expect([...actual.keys()]).toEqual([...expected.keys()]);
      for (const [file, text] of expected) expect(withoutTimings(actual.get(file) as string)).toBe(withoutTimings(text));
    }
  }, 180_000);

  it.each([['2'], ['1']])('SIGINT (--jobs %s) exits 130 with a resume hint and no partial file under a final name', async (jobs) => {
    const out = path.join(root, `interrupted-${jobs}`);
    const dir = path.join(out, 'slow');
    const child = spawnCli(['run', config, '--out', out, '--jobs', jobs], root);
    await waitFor(() => finalCsvs(dir).length >= 1);
    child.kill('SIGINT');
    const { code } = await exitOf(child);
    expect(code).toBe(130);
    const stderr = child.output.stderr;
    expect(stderr).toMatch(/^eofd run: interrupted: \d+ units are finished and kept; resume with: .*eofd(\.js)? run .*slow\.yaml --out .*--resume$/m);
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(finalCsvs(dir).length).toBeLessThan(6);
    expectOnlyCompleteFiles(dir);
    expect(fs.existsSync(path.join(out, '.slow.lock'))).toBe(false);
    const resumed = await runCli(['run', config, '--out', out, '--jobs', '2', '--quiet', '--resume']);
    expect(resumed.code).toBe(0);
    expect(finalCsvs(dir)).toHaveLength(6);
  });

  it('reliability: a second signal ends the process at once while a round takes seconds (--jobs 1), leaving the folder resumable (signals taken off the computing thread)', async () => {
    // OFUL-MLogB textbook at d = 2,000: an O(d³) inversion and eigendecomposition a round, seconds each.
    const slowText = [
      'name: slowrounds',
      'environment: {type: synthetic, d: 2000, K: 1, reward: [0, 1], actions: [3, 3]}',
      'horizon: 3',
      'trials: 1',
      'seed: 0',
      'policies: [{policy: OFUL-MLogB, params: {oful_solver: textbook}}]',
      'params: {S: 2}',
      '',
    ].join('\n');
    const slow = writeFile(root, 'slowrounds.yaml', slowText);
    const out = path.join(root, 'second-signal');
    const partial = path.join(out, 'slowrounds', 'OFUL-MLogB', 'trial-0.csv.partial');
    const interruptTwice = async (child: ReturnType<typeof spawnCli>, after = 0): Promise<number> => {
      // The unit opens (truncates) its partial file as it starts.
      await waitFor(() => fs.existsSync(partial) && fs.statSync(partial).mtimeMs > after, 60_000);
      // Inside round 1 (the partial file is opened as the unit starts).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const sent = performance.now();
      child.kill('SIGINT');
      await new Promise((resolve) => setTimeout(resolve, 100));
      child.kill('SIGINT');
      const { code } = await exitOf(child);
      expect(code).toBe(130);
      expect(child.output.stderr).toMatch(/^eofd run: stopping now \(second signal\)$/m);
      return (performance.now() - sent) / 1000;
    };
    const first = spawnCli(['run', slow, '--out', out, '--jobs', '1', '--quiet'], root);
    expect(await interruptTwice(first)).toBeLessThan(1.5);
    expect(finalCsvs(path.join(out, 'slowrounds'))).toEqual([]);
    // Resumable: the lock of the process that ended is taken over (its pid is gone), the partial file redone.
    const leftover = fs.statSync(partial).mtimeMs;
    await new Promise((resolve) => setTimeout(resolve, 20));
    const again = spawnCli(['run', slow, '--out', out, '--jobs', '1', '--quiet', '--resume'], root);
    expect(await interruptTwice(again, leftover)).toBeLessThan(1.5);
    expect(again.output.stderr).not.toMatch(/another eofd run/);
  }, 120_000);
});
