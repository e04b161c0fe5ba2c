/**
 * A snapshot restored in a fresh process (node importing dist/) continues as the policy would have:
 * for every registered policy at K = 1 and (where it plays) K = 3, T/2 rounds here, the snapshot to a
 * file, the restore and T/2 rounds in a child — the same actions and the same final snapshot as T
 * rounds straight here.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createTrialEnvironment, policySpecFor } from '../../src/experiment/setup.js';
import { createPolicy, POLICIES } from '../../src/policies/registry.js';
import { snapshotPolicy } from '../../src/policies/snapshot.js';
import { play, SNAPSHOT_HORIZON, snapshotConfig, snapshotExperiment } from '../helpers/snapshot.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const T = SNAPSHOT_HORIZON;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-snapshot-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The child: rebuilds each environment, replays the first half's actions, restores the policy and plays on. */
const CHILD = `
import fs from 'node:fs';
import { createHash } from 'node:crypto';
const [, root, jobs] = process.argv;
const dist = (file) => import(new URL('dist/' + file, root).href);
const { parseConfigs } = await dist('config/load.js');
const { createTrialEnvironment, resolveExperiment } = await dist('experiment/setup.js');
const { restorePolicy, snapshotPolicy } = await dist('policies/snapshot.js');
const out = [];
for (const job of JSON.parse(fs.readFileSync(jobs, 'utf8'))) {
  const experiment = resolveExperiment(parseConfigs(job.config, 'snap.yaml')[0], { configFile: 'snap.yaml' });
  const environment = createTrialEnvironment(experiment, 0);
  for (const [t, i] of job.first.entries()) { environment.actions(t + 1); environment.play(i); }
  const policy = restorePolicy(new Uint8Array(fs.readFileSync(job.snapshot)));
  const actions = [];
  for (let t = job.first.length + 1; t <= job.horizon; t++) {
    const set = environment.actions(t);
    const i = policy.select(set, t);
    const feedback = environment.play(i);
    policy.update(set.features.subarray(i * set.d, (i + 1) * set.d), feedback.outcome);
    actions.push(i);
  }
  out.push({ actions, sha256: createHash('sha256').update(snapshotPolicy(policy)).digest('hex') });
}
process.stdout.write(JSON.stringify(out));
`;

describe('policy snapshots across processes', () => {
  it('every policy, K = 1 and 3: restored in a fresh process, it plays and ends as T rounds straight', () => {
    const cases = POLICIES.flatMap((descriptor) =>
      [1, 3].filter((K) => (K === 1 ? descriptor.supports.binary : descriptor.supports.multinomial)).map((K) => ({ name: descriptor.name, K })),
    );
    const expected: { actions: number[]; sha256: string }[] = [];
    const jobs = cases.map(({ name, K }, n) => {
      const experiment = snapshotExperiment(name, K);
      const straight = createPolicy(name, policySpecFor(experiment, name, 0));
      const all = play(straight, createTrialEnvironment(experiment, 0), 1, T);
      expected.push({ actions: all.slice(T / 2), sha256: createHash('sha256').update(snapshotPolicy(straight)).digest('hex') });
      const half = createPolicy(name, policySpecFor(experiment, name, 0));
      const first = play(half, createTrialEnvironment(experiment, 0), 1, T / 2);
      const snapshot = path.join(dir, `${n}.snap`);
      fs.writeFileSync(snapshot, snapshotPolicy(half));
      return { config: snapshotConfig(name, K), snapshot, first, horizon: T };
    });
    const jobFile = path.join(dir, 'jobs.json');
    fs.writeFileSync(jobFile, JSON.stringify(jobs));
    const repo = pathToFileURL(REPO + path.sep).href;
    const result = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', CHILD, repo, jobFile], { cwd: REPO, encoding: 'utf8' })) as typeof expected;
    expect(result.length).toBe(cases.length);
    for (const [i, { name, K }] of cases.entries()) expect(result[i], `${name} at K = ${K}`).toEqual(expected[i]);
  });
});
