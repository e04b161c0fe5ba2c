#!/usr/bin/env node
// Cross-checks one eofd policy against its authors' public code, decision by decision:
//
//   node scripts/crosscheck/run.mjs <adapter> --repo DIR [--instances 5] [--rounds 2000] [--d 6] [--K 1]
//        [--arms 20] [--norm 3] [--seed 0] [--set params.KEY=VALUE]... [--keep DIR]
//
// <adapter> names scripts/crosscheck/<adapter>.py, our own driver of the authors' code; its header says
// which policy it checks, which repository and commit it was written against, and each quirk of that
// code it switches off or matches. DIR is a checkout of that repository that the user fetched
// (`git clone <repo> DIR && git -C DIR checkout <commit>`); nothing of it is copied into this project.
// For each instance the script writes a trace (src/environments/trace.ts: seeded W* with ‖W*‖_F = norm,
// `arms` unit-norm actions a round, the outcome uniforms), runs eofd on it (`eofd run`, environment
// `trace`), hands the adapter the trace and the hyperparameters eofd ran with (manifest.json), and
// counts the rounds in which both chose the same action. Exit 0 when every round agrees, 1 otherwise.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    repo: { type: 'string' },
    instances: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '2000' },
    d: { type: 'string', default: '6' },
    K: { type: 'string', default: '1' },
    arms: { type: 'string', default: '20' },
    norm: { type: 'string', default: '3' },
    seed: { type: 'string', default: '0' },
    set: { type: 'string', multiple: true, default: [] },
    keep: { type: 'string' },
    python: { type: 'string', default: 'python3' },
    help: { type: 'boolean', short: 'h' },
  },
});
const usage = 'usage: node scripts/crosscheck/run.mjs <adapter> --repo DIR [--instances 5] [--rounds 2000] [--d 6] [--K 1] [--arms 20] [--norm 3] [--seed 0] [--set params.KEY=VALUE]... [--keep DIR]';
if (values.help) {
  console.log(`${usage}\n\nadapters: ${adapters().join(', ')}`);
  process.exit(0);
}
function fail(message) {
  console.error(`crosscheck: ${message}`);
  process.exit(2);
}
function adapters() {
  return fs.readdirSync(path.join(root, 'scripts', 'crosscheck')).filter((f) => f.endsWith('.py') && !f.startsWith('_')).map((f) => f.slice(0, -3)).sort();
}
function integer(name, min) {
  const v = Number(values[name]);
  if (!Number.isInteger(v) || v < min) fail(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(values[name])}`);
  return v;
}

if (positionals.length !== 1) fail(`${usage}\nadapters: ${adapters().join(', ')}`);
const adapter = path.join(root, 'scripts', 'crosscheck', `${positionals[0]}.py`);
if (!fs.existsSync(adapter)) fail(`no adapter ${path.relative(root, adapter)}; adapters: ${adapters().join(', ')}`);
const header = Object.fromEntries(
  fs.readFileSync(adapter, 'utf8').split('\n').map((line) => /^# (policy|repo|commit): (.+)$/.exec(line)).filter(Boolean).map((m) => [m[1], m[2].trim()]),
);
for (const key of ['policy', 'repo', 'commit']) if (!header[key]) fail(`${path.relative(root, adapter)}: its header has no "# ${key}: …" line`);
if (!values.repo) fail(`--repo DIR is required: a checkout of ${header.repo} at ${header.commit}`);
const repo = path.resolve(values.repo);
if (!fs.existsSync(repo)) fail(`--repo ${repo} does not exist; fetch it with: git clone ${header.repo} ${repo} && git -C ${repo} checkout ${header.commit}`);
const head = spawnSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).stdout?.trim();
if (head && head !== header.commit) console.error(`crosscheck: note: ${repo} is at ${head}; the adapter was written against ${header.commit}`);

const instances = integer('instances', 1);
const rounds = integer('rounds', 1);
const d = integer('d', 1);
const K = integer('K', 1);
const arms = integer('arms', 1);
const seed = integer('seed', 0);
const norm = Number(values.norm);
if (!(norm > 0)) fail(`--norm must be a positive number, got ${JSON.stringify(values.norm)}`);

const { mulberry32 } = await import(path.join(root, 'dist', 'random', 'stream.js')).catch(() => fail('dist/ is missing: run npm run build first'));

/** Standard normals from the package's seeded generator (Box–Muller). */
function normals(uniform) {
  return () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
}
function scaled(v, target) {
  const s = Math.hypot(...v);
  return v.map((x) => (x / s) * target);
}
function makeTrace(instance) {
  const uniform = mulberry32(0x5eed + 7919 * seed + instance);
  const normal = normals(uniform);
  const flat = scaled(Array.from({ length: K * d }, normal), norm);
  const W_star = Array.from({ length: K }, (_, k) => flat.slice(k * d, (k + 1) * d));
  const reward = [0, ...Array.from({ length: K }, (_, k) => (K === 1 ? 1 : (k + 1) / K))];
  const trace = { K, d, reward, W_star, rounds: [] };
  for (let t = 0; t < rounds; t++) {
    trace.rounds.push({ actions: Array.from({ length: arms }, () => scaled(Array.from({ length: d }, normal), 1)), u: uniform() });
  }
  return trace;
}

const work = values.keep ? path.resolve(values.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-crosscheck-'));
fs.mkdirSync(work, { recursive: true });
const rows = [];
for (let i = 0; i < instances; i++) {
  const dir = path.join(work, `instance-${i}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const traceFile = path.join(dir, 'trace.json');
  fs.writeFileSync(traceFile, JSON.stringify(makeTrace(i)));
  const name = 'crosscheck';
  fs.writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ name, environment: { type: 'trace', file: 'trace.json' }, horizon: rounds, trials: 1, seed: 0, policies: [header.policy] }),
  );
  const run = spawnSync(
    process.execPath,
    [path.join(root, 'bin', 'eofd.js'), 'run', path.join(dir, 'config.json'), '--out', dir, '--jobs', '1', '--quiet', ...values.set.flatMap((s) => ['--set', s])],
    { encoding: 'utf8' },
  );
  if (run.status !== 0) fail(`eofd run failed on instance ${i} (exit ${run.status}):\n${run.stderr}`);
  const out = path.join(dir, name);
  const manifest = JSON.parse(fs.readFileSync(path.join(out, 'manifest.json'), 'utf8'));
  const csvFile = fs.readdirSync(path.join(out, header.policy)).find((f) => /^trial-0+\.csv$/.test(f));
  const lines = fs.readFileSync(path.join(out, header.policy, csvFile), 'utf8').trim().split('\n');
  const column = lines[0].split(',').indexOf('action');
  const ours = lines.slice(1).map((line) => Number(line.split(',')[column]));
  const paramsFile = path.join(dir, 'params.json');
  fs.writeFileSync(
    paramsFile,
    JSON.stringify({ policy: header.policy, d, K, T: rounds, reward: makeTrace(i).reward, params: manifest.derived.policies[header.policy], derived: manifest.derived }, null, 1),
  );
  const theirs = spawnSync(values.python, [adapter, '--repo', repo, '--trace', traceFile, '--params', paramsFile], { encoding: 'utf8', maxBuffer: 1 << 28 });
  if (theirs.status !== 0) fail(`${path.basename(adapter)} failed on instance ${i} (exit ${theirs.status}):\n${theirs.stderr}`);
  const actions = JSON.parse(theirs.stdout).actions;
  if (!Array.isArray(actions) || actions.length !== rounds) fail(`${path.basename(adapter)} returned ${Array.isArray(actions) ? actions.length : 'no'} actions for ${rounds} rounds on instance ${i}`);
  let agree = 0;
  let first = null;
  for (let t = 0; t < rounds; t++) {
    if (actions[t] === ours[t]) agree++;
    else first ??= t + 1;
  }
  rows.push({ instance: i, rounds, agree, first });
  console.error(`instance ${i}: ${agree}/${rounds} rounds agree${first === null ? '' : `, first divergence at t = ${first} (eofd ${ours[first - 1]}, theirs ${actions[first - 1]})`}`);
}
const total = rows.reduce((s, r) => s + r.agree, 0);
console.log(`${header.policy} vs ${header.repo}@${header.commit.slice(0, 7)} (${path.basename(adapter)}): d = ${d}, K = ${K}, ${arms} actions a round, ‖W*‖_F = ${norm}`);
console.log('instance  rounds  agreeing  first divergence');
for (const r of rows) console.log(`${String(r.instance).padStart(8)}  ${String(r.rounds).padStart(6)}  ${String(r.agree).padStart(8)}  ${r.first ?? '—'}`);
console.log(`all: ${total}/${instances * rounds} rounds agree (${instances} instances)`);
if (!values.keep) fs.rmSync(work, { recursive: true, force: true });
process.exit(total === instances * rounds ? 0 : 1);
