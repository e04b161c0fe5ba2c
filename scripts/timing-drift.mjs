#!/usr/bin/env node
// Does a load that starts in the middle of a timed run move the paired time ratios? (issue 35, item 1)
//
//   node scripts/timing-drift.mjs [--d 400] [--horizon 2000] [--trials 8] [--hogs <cores>] [--out <new folder>] [--bin bin/eofd.js]
//
// Runs `eofd run --timing` twice on the synthetic binary setting (EOFD-MLogB and OFUL-MLogB, the
// paper's params): once undisturbed, then again with `--hogs` CPU-bound processes started when half of
// the undisturbed run's wall time has passed (stopped when the run ends). Prints, for each run,
// EOFD-MLogB's per-round time ratio to OFUL-MLogB (geometric mean of the per-trial ratios, 95%
// Student-t interval on the log scale) and the loaded ratio over the quiet one; exits 1 when that moves
// by more than a fifth, 3 when the load did not lengthen the run (nothing tested). Run it on a machine with nothing else running (`uptime` is printed). `--bin`
// times another build's CLI (e.g. an older commit's) with this one's reader. Needs a build (dist/).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { paired, readExperiment } = await import('./lib/paired-sweep.mjs');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? fallback : args[i + 1];
};
const d = Number(option('d', 400));
const horizon = Number(option('horizon', 2000));
const trials = Number(option('trials', 8));
const hogs = Number(option('hogs', os.availableParallelism()));
const out = path.resolve(option('out', '') || fs.mkdtempSync(path.join(os.tmpdir(), 'timing-drift-')));
const bin = path.resolve(option('bin', path.join(root, 'bin', 'eofd.js')));
const NAME = 'drift';

if (fs.existsSync(out) && fs.readdirSync(out).length > 0) {
  console.error(`timing-drift: ${out} is not empty; name a new folder with --out (nothing is deleted)`);
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });
const config = path.join(out, 'drift.yaml');
fs.writeFileSync(
  config,
  [
    `name: ${NAME}`,
    `environment: {type: synthetic, d: ${d}, K: 1, reward: [0, 1], actions: [10, 30]}`,
    `horizon: ${horizon}`,
    `trials: ${trials}`,
    'seed: 0',
    'policies: [EOFD-MLogB, OFUL-MLogB]',
    'params: {S: 5, l: 0.75, e: 0.75, m: auto, beta: order, beta_scale: 1, delta: auto}',
    '',
  ].join('\n'),
);

const uptime = () => spawnSync('uptime', { encoding: 'utf8' }).stdout.trim();

/** `eofd run --timing` into `<out>/<run>`; `during(ms)` is called when it has run `ms`. */
function timedRun(run, at, during) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [bin, 'run', config, '--timing', '--quiet', '--out', path.join(out, run)], { stdio: 'inherit' });
    const timer = at === null ? null : setTimeout(during, at);
    child.on('exit', (code) => {
      if (timer !== null) clearTimeout(timer);
      if (code === 0) resolve((Date.now() - started) / 1000);
      else reject(new Error(`eofd run (${run}) exited ${code}`));
    });
  });
}

/** EOFD-MLogB / OFUL-MLogB per-round time ratio of a run folder. */
function ratio(run) {
  const rows = readExperiment(path.join(out, run, NAME)).summary;
  const of = (label) => rows.filter((r) => r.policy === label).sort((a, b) => a.trial - b.trial);
  return paired(of('EOFD-MLogB'), of('OFUL-MLogB'), run).time;
}

const show = (r) => `${r.estimate.toFixed(3)} [${r.low.toFixed(3)}, ${r.high.toFixed(3)}]`;

console.log(`before: ${uptime()}`);
const quietSeconds = await timedRun('quiet', null);
console.log(`quiet run: ${quietSeconds.toFixed(1)} s; ${uptime()}`);
const hogProcesses = [];
let loadedSeconds;
try {
  loadedSeconds = await timedRun('loaded', (quietSeconds / 2) * 1000, () => {
    for (let i = 0; i < hogs; i++) hogProcesses.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    console.log(`${hogs} CPU-bound process(es) started; ${uptime()}`);
  });
} finally {
  for (const hog of hogProcesses) hog.kill();
}
console.log(`loaded run: ${loadedSeconds.toFixed(1)} s; ${uptime()}`);
// A load that did not slow the run tested nothing: say so rather than pass.
if (loadedSeconds < 1.05 * quietSeconds) {
  console.log(`the load did not lengthen the run (${loadedSeconds.toFixed(1)} s against ${quietSeconds.toFixed(1)}): nothing was tested; use --hogs ${os.availableParallelism()} or more`);
  process.exit(3);
}

const quiet = ratio('quiet');
const loaded = ratio('loaded');
const change = loaded.estimate / quiet.estimate;
console.log(`EOFD-MLogB / OFUL-MLogB time per round, d = ${d}, T = ${horizon}, ${trials} trials:`);
console.log(`  quiet  ${show(quiet)}`);
console.log(`  loaded ${show(loaded)}  (${(100 * (change - 1)).toFixed(1)}% of the quiet ratio)`);
const ok = Math.abs(change - 1) <= 0.2;
console.log(ok ? 'within a fifth' : 'moved by more than a fifth');
process.exitCode = ok ? 0 : 1;
