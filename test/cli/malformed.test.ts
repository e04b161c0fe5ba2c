/**
 * Malformed inputs through the CLI (`eofd run <file> --out <tmp> --quiet`): each must exit 2 with
 * exactly one stderr line that names the file, the field (or, for a file that does not parse, the
 * line:column) and the problem, with no stack trace, and write no file. Every case runs through main()
 * in this process; one in SPAWN_EVERY also runs as `node bin/eofd.js` in a child process, and the two
 * outcomes must agree (the entry point adds nothing, loses nothing).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, REPO, runCli, tempDir } from '../experiment/fixtures.js';

interface Case {
  /** Short description (also the test name). */
  name: string;
  /** Config text (YAML or JSON), or raw bytes. */
  config: string | Buffer;
  /** Config file extension (default yaml). */
  ext?: 'yaml' | 'json';
  /** A trace file the config refers to as `trace.json` (written next to the config). */
  trace?: string | Buffer;
  /** The file the message must name: the config (default) or the trace. */
  names?: 'config' | 'trace';
  /**
   * The field, as the message spells it, matched as `: <field>: ` where the message may name an element
   * below it (`environment.actions.0`, `W_star[0]`); a RegExp where there is no field (a file that does
   * not parse: then the line:column stands in for it).
   */
  field: string | RegExp;
  /** The problem. */
  problem: RegExp;
}

/** A valid tiny synthetic experiment with one line replaced or added. */
function synthetic(replace: Record<string, string | null> = {}, extra = ''): string {
  const lines: Record<string, string> = {
    name: 'name: bad',
    environment: 'environment: {type: synthetic, d: 6, K: 2, reward: [0, 0.5, 1], actions: [3, 6]}',
    horizon: 'horizon: 20',
    trials: 'trials: 1',
    seed: 'seed: 0',
    policies: 'policies: [EOFD-MLogB, OFUL-MLogB, Random]',
    params: 'params: {S: 2, m: 3, beta: order}',
  };
  const out: string[] = [];
  for (const [key, line] of Object.entries(lines)) {
    const r = replace[key];
    if (r === null) continue;
    out.push(r ?? line);
  }
  return out.join('\n') + '\n' + extra;
}

const env = (fields: string): string => `environment: {type: synthetic, ${fields}}`;
const params = (fields: string): string => `params: {${fields}}`;

/** A valid trace: d = 3, K = 2, 5 rounds; `edit` changes the parsed object before it is written. */
function trace(edit: (t: Record<string, any>) => void = () => {}): string {
  const t: Record<string, any> = {
    K: 2,
    d: 3,
    reward: [0, 0.5, 1],
    W_star: [
      [0.5, -0.2, 0.1],
      [-0.3, 0.4, 0.2],
    ],
    rounds: Array.from({ length: 5 }, (_, i) => ({
      actions: [
        [1, 0, 0],
        [0, 1, 0],
        [0, 0.6, 0.8],
      ],
      u: i / 5,
    })),
  };
  edit(t);
  return JSON.stringify(t);
}
const traceConfig = (horizon = 5): string =>
  synthetic({ environment: 'environment: {type: trace, file: trace.json}', horizon: `horizon: ${horizon}` });
const traceCase = (name: string, edit: (t: Record<string, any>) => void, field: string, problem: RegExp): Case => ({
  name,
  config: traceConfig(),
  trace: trace(edit),
  names: 'trace',
  field,
  problem,
});

const CASES: Case[] = [
  // --- wrong types and ranges in the config
  { name: 'horizon is a string', config: synthetic({ horizon: 'horizon: ten' }), field: 'horizon', problem: /expected an integer in \[1, 100000000\], got "ten"/ },
  { name: 'horizon is 0', config: synthetic({ horizon: 'horizon: 0' }), field: 'horizon', problem: /expected an integer in \[1, 100000000\], got 0/ },
  { name: 'horizon is negative', config: synthetic({ horizon: 'horizon: -5' }), field: 'horizon', problem: /expected an integer in \[1, 100000000\], got -5/ },
  { name: 'horizon is fractional', config: synthetic({ horizon: 'horizon: 2.5' }), field: 'horizon', problem: /expected an integer in \[1, 100000000\], got 2\.5/ },
  { name: 'trials is 0', config: synthetic({ trials: 'trials: 0' }), field: 'trials', problem: /expected an integer in \[1, 10000\], got 0/ },
  { name: 'seed is negative', config: synthetic({ seed: 'seed: -1' }), field: 'seed', problem: /expected an integer ≥ 0/ },
  { name: 'K = 0', config: synthetic({ environment: env('d: 6, K: 0, reward: [0], actions: [3, 6]') }), field: 'environment.K', problem: /expected an integer in \[1, 64\], got 0/ },
  { name: 'absurdly large K', config: synthetic({ environment: env('d: 6, K: 1000000, reward: [0, 1], actions: [3, 6]') }), field: 'environment.K', problem: /expected an integer in \[1, 64\]/ },
  { name: 'd = 0', config: synthetic({ environment: env('d: 0, K: 2, reward: [0, 0.5, 1], actions: [3, 6]') }), field: 'environment.d', problem: /expected an integer in \[1, 1000000\], got 0/ },
  { name: 'absurdly large d', config: synthetic({ environment: env('d: 1e12, K: 2, reward: [0, 0.5, 1], actions: [3, 6]') }), field: 'environment.d', problem: /expected an integer in \[1, 1000000\]/ },
  { name: 'd is a string', config: synthetic({ environment: env('d: six, K: 2, reward: [0, 0.5, 1], actions: [3, 6]') }), field: 'environment.d', problem: /expected an integer .*got "six"/ },
  { name: 'actions [0, 5] (an empty action set allowed)', config: synthetic({ environment: env('d: 6, K: 2, reward: [0, 0.5, 1], actions: [0, 5]') }), field: 'environment.actions', problem: /expected an integer in \[1, 10000\], got 0/ },
  { name: 'actions min > max', config: synthetic({ environment: env('d: 6, K: 2, reward: [0, 0.5, 1], actions: [7, 3]') }), field: 'environment.actions', problem: /min ≤ max.*got \[7, 3\]/ },
  { name: 'actions with one entry', config: synthetic({ environment: env('d: 6, K: 2, reward: [0, 0.5, 1], actions: [3]') }), field: 'environment.actions', problem: /expected \[min, max\]/ },
  { name: 'absurdly many actions', config: synthetic({ environment: env('d: 6, K: 2, reward: [0, 0.5, 1], actions: [3, 100000000]') }), field: 'environment.actions', problem: /expected an integer in \[1, 10000\], got 100000000/ },
  { name: 'reward vector of the wrong length', config: synthetic({ environment: env('d: 6, K: 2, reward: [0, 1], actions: [3, 6]') }), field: 'environment.reward', problem: /expected K \+ 1 = 3 entries r_0\.\.r_2, got 2/ },
  { name: 'r_0 ≠ 0', config: synthetic({ environment: env('d: 6, K: 2, reward: [0.5, 0.5, 1], actions: [3, 6]') }), field: 'environment.reward', problem: /r_0 .*must be 0, got 0\.5/ },
  { name: 'reward entry is a string', config: synthetic({ environment: env('d: 6, K: 2, reward: [0, high, 1], actions: [3, 6]') }), field: 'environment.reward', problem: /expected a finite number ≥ 0, got "high"/ },
  { name: 'unknown environment type', config: synthetic({ environment: 'environment: {type: quantum, d: 6}' }), field: 'environment.type', problem: /expected 'synthetic', 'mnist', 'classification', 'trace' or 'module', got "quantum"/ },
  { name: 'mnist target out of range', config: synthetic({ environment: 'environment: {type: mnist, target: 10}' }), field: 'environment.target', problem: /expected an integer in \[0, 9\], got 10/ },
  { name: 'unknown policy name', config: synthetic({ policies: 'policies: [EOFD-MLogB, UCB]' }), field: 'policies.1', problem: /expected a policy name \('EOFD-MLogB', 'OFUL-MLogB', .*'Random'.*\), a mapping \{policy, label, params\}, \{command, label, params, timeout\} .* or \{module, label, params\} .*, got "UCB"/ },
  {
    name: 'a binary-only policy (OL2M) on a K = 4 problem',
    config: synthetic({ environment: env('d: 6, K: 4, reward: [0, 0.25, 0.5, 0.75, 1], actions: [3, 6]'), policies: 'policies: [EOFD-MLogB, OL2M]' }),
    field: 'policies',
    problem: /OL2M does not play K = 4 problems/,
  },
  {
    name: 'a binary-only policy (ada-OFU-ECOLog) on a K = 2 problem',
    config: synthetic({ environment: env('d: 6, K: 2, reward: [0, 0.5, 1], actions: [3, 6]'), policies: 'policies: [Random, ada-OFU-ECOLog]', params: 'params: {S: 2}' }),
    field: 'policies',
    problem: /ada-OFU-ECOLog does not play K = 2 problems/,
  },
  { name: 'empty policy list', config: synthetic({ policies: 'policies: []' }), field: 'policies', problem: /expected a non-empty list of policies/ },
  {
    name: 'a key its policy does not read',
    config: synthetic({ policies: 'policies: [EOFD-MLogB, {policy: OFUL-MLogB, label: O, params: {m: 4}}]' }),
    field: 'policies.1.params.m',
    problem: /O \(OFUL-MLogB\) does not read m; it reads S, l, e, lambda, eta, beta, beta_scale, delta, oful_solver/,
  },
  { name: 'policy listed twice', config: synthetic({ policies: 'policies: [Random, Random]' }), field: 'policies.1', problem: /the label "Random" is used twice/ },
  { name: 'unknown top-level key', config: synthetic({}, 'horizn: 30\n'), field: 'horizn', problem: /unknown key "horizn" \(allowed: name, /i },
  { name: 'unknown params key', config: synthetic({ params: params('S: 2, m: 3, gamma: 1') }), field: 'params.gamma', problem: /unknown key "gamma" \(allowed: S, /i },
  { name: 'bad beta (word)', config: synthetic({ params: params('S: 2, beta: fast') }), field: 'params.beta', problem: /'theory'.*or a number ≥ 0 \(0: greedy\)/ },
  { name: 'bad beta (negative)', config: synthetic({ params: params('S: 2, beta: -1') }), field: 'params.beta', problem: /or a number ≥ 0 \(0: greedy\)/ },
  { name: 'bad sketch', config: synthetic({ params: params('S: 2, sketch: xfd') }), field: 'params.sketch', problem: /expected 'fd' or 'rfd', got "xfd"/ },
  { name: 'bad delta (0)', config: synthetic({ params: params('S: 2, delta: 0') }), field: 'params.delta', problem: /\(0, 1\)/ },
  { name: 'bad delta (1.5)', config: synthetic({ params: params('S: 2, delta: 1.5') }), field: 'params.delta', problem: /\(0, 1\)/ },
  { name: 'S = 0', config: synthetic({ params: params('S: 0') }), field: 'params.S', problem: /expected a positive number, got 0/ },
  { name: 'sketch size m = 0', config: synthetic({ params: params('S: 2, m: 0') }), field: 'params.m', problem: /expected 'auto' .* or an integer ≥ 1, got 0/ },
  { name: 'missing name', config: synthetic({ name: null }), field: 'name', problem: /missing; expected a name/ },
  { name: 'name with a slash', config: synthetic({ name: 'name: a/b' }), field: 'name', problem: /folder name/ },
  { name: 'missing horizon', config: synthetic({ horizon: null }), field: 'horizon', problem: /missing; expected an integer in \[1, 100000000\]/ },
  // --- broken files
  { name: 'YAML with a duplicate key', config: synthetic({}, 'horizon: 30\n'), field: 'horizon', problem: /duplicate key/ },
  { name: 'non-UTF-8 bytes in the config', config: Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\n' + synthetic())]), field: /:1:6: /, problem: /not valid UTF-8 \(byte 0xe9/ },
  { name: 'truncated JSON config', config: '{"name": "bad", "environment": {"type": "synthetic", "d": 6', ext: 'json', field: /:1:60: /, problem: /\S/ },
  { name: 'JSON config with a wrong type', config: JSON.stringify({ name: 5, environment: { type: 'synthetic', d: 6, K: 2, reward: [0, 0.5, 1], actions: [3, 6] }, horizon: 20, trials: 1, policies: ['Random'] }), ext: 'json', field: 'name', problem: /expected a name/ },
  { name: 'config that is a list, not a mapping', config: '- 1\n- 2\n', field: /:1:1: /, problem: /expected a mapping with keys name, .*got \[1,2\]/ },
  { name: 'empty config file', config: '', field: /:1:1: /, problem: /expected a mapping with keys name, .*got null/ },
  // --- traces
  { name: 'trace file missing', config: traceConfig(), field: 'environment.file', problem: /no such file/ },
  { name: 'trace shorter than the horizon', config: traceConfig(50), trace: trace(), field: 'environment', problem: /5 rounds, fewer than the horizon 50/ },
  traceCase('trace d does not match its actions', (t) => (t.d = 4), 'W_star[0]', /expected 4 numbers, got 3/),
  traceCase('trace action of the wrong length', (t) => t.rounds[2].actions[1].pop(), 'rounds[2].actions[1]', /expected 3 numbers, got 2/),
  traceCase('trace holds "NaN"', (t) => (t.rounds[1].actions[0][2] = 'NaN'), 'rounds[1].actions[0][2]', /finite number, got "NaN"/),
  traceCase('trace holds null (Infinity written by JSON.stringify)', (t) => (t.W_star[1][0] = null), 'W_star[1][0]', /finite number, got null/),
  traceCase('trace holds "Infinity"', (t) => (t.reward[2] = 'Infinity'), 'reward[2]', /finite number, got "Infinity"/),
  traceCase('trace with an empty action set', (t) => (t.rounds[3].actions = []), 'rounds[3].actions', /non-empty array of actions/),
  traceCase('trace with no rounds', (t) => (t.rounds = []), 'rounds', /non-empty array of rounds/),
  traceCase('trace K = 0', (t) => (t.K = 0), 'K', /integer in 1\.\.64, got 0/),
  traceCase('trace absurdly large K', (t) => (t.K = 1e9), 'K', /integer in 1\.\.64/),
  traceCase('trace absurdly large d', (t) => (t.d = 1e12), 'd', /integer in 1\.\.1000000/),
  traceCase('trace reward of the wrong length', (t) => t.reward.pop(), 'reward', /expected 3 numbers, got 2/),
  traceCase('trace r_0 ≠ 0', (t) => (t.reward[0] = 0.1), 'reward[0]', /r_0 must be 0/),
  traceCase('trace u outside [0, 1)', (t) => (t.rounds[4].u = 1.5), 'rounds[4].u', /\[0, 1\), got 1\.5/),
  traceCase('trace with an unknown key', (t) => (t.comment = 'x'), 'comment', /unknown field/),
  traceCase('trace K is a string', (t) => (t.K = '2'), 'K', /got "2"/),
  { name: 'truncated trace JSON', config: traceConfig(), trace: trace().slice(0, 60), names: 'trace', field: /: /, problem: /invalid JSON at line 1, column 61/ },
  { name: 'non-UTF-8 bytes in the trace', config: traceConfig(), trace: Buffer.concat([Buffer.from(trace().slice(0, 10)), Buffer.from([0xff, 0xfe]), Buffer.from(trace().slice(10))]), names: 'trace', field: /: /, problem: /not valid UTF-8/ },
];

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  file: string;
  out: string;
}

/** One case in every this many also runs as a child process. */
const SPAWN_EVERY = 12;

/** The case's files under `dir`; returns the config file and the --out folder. */
function writeCase(dir: string, c: Case): { file: string; out: string } {
  fs.mkdirSync(dir);
  const file = path.join(dir, `config.${c.ext ?? 'yaml'}`);
  fs.writeFileSync(file, c.config);
  if (c.trace !== undefined) fs.writeFileSync(path.join(dir, 'trace.json'), c.trace);
  return { file, out: path.join(dir, 'out') };
}

async function runInProcess(dir: string, c: Case): Promise<Outcome> {
  const { file, out } = writeCase(dir, c);
  const { code, stdout, stderr } = await runCli(['run', file, '--out', out, '--quiet', '--jobs', '1']);
  return { code, stdout, stderr, file, out };
}

function runSpawned(dir: string, c: Case): Promise<Outcome> {
  const { file, out } = writeCase(dir, c);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'run', file, '--out', out, '--quiet', '--jobs', '1'], {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr, file, out }));
  });
}

/** Every case in process, one after another; and every SPAWN_EVERY-th case again as a child process. */
async function runAll(root: string, cases: readonly Case[]): Promise<{ inProcess: Outcome[]; spawned: Map<number, Outcome> }> {
  const spawning = new Map<number, Promise<Outcome>>();
  for (let i = 0; i < cases.length; i += SPAWN_EVERY) spawning.set(i, runSpawned(path.join(root, `spawned-${i}`), cases[i] as Case));
  const inProcess: Outcome[] = [];
  for (let i = 0; i < cases.length; i++) inProcess.push(await runInProcess(path.join(root, `case-${String(i).padStart(2, '0')}`), cases[i] as Case));
  const spawned = new Map<number, Outcome>();
  for (const [i, outcome] of spawning) spawned.set(i, await outcome);
  return { inProcess, spawned };
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let root: string;
let outcomes: Outcome[];
let spawned: Map<number, Outcome>;
beforeAll(async () => {
  root = tempDir('eofd-malformed-');
  ({ inProcess: outcomes, spawned } = await runAll(root, CASES));
}, 120_000);
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('eofd run: malformed inputs exit 2 with one line naming file, field and problem', () => {
  it(`has at least 30 cases (${CASES.length})`, () => {
    expect(CASES.length).toBeGreaterThanOrEqual(30);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
  });

  it.each(CASES.map((c, i) => [c.name, i] as const))('%s', (_name, i) => {
    const c = CASES[i] as Case;
    const o = outcomes[i] as Outcome;
    const named = c.names === 'trace' ? path.join(path.dirname(o.file), 'trace.json') : o.file;
    const report = `stderr: ${JSON.stringify(o.stderr)}`;
    if (process.env.EOFD_SHOW_MALFORMED === '1') console.log(`${c.name} → ${o.code} ${o.stderr.trim()}`);
    expect(o.stderr, report).not.toMatch(/ {4}at /);
    const lines = o.stderr.split('\n').filter((l) => l.trim() !== '');
    expect(lines, report).toHaveLength(1);
    expect(o.stderr.endsWith('\n') && !o.stderr.slice(0, -1).includes('\n'), report).toBe(true);
    const line = lines[0] as string;
    expect(line, report).toMatch(/^eofd run: /);
    expect(line, report).toContain(named);
    const after = line.slice(line.indexOf(named) + named.length);
    if (typeof c.field === 'string') expect(after, report).toMatch(new RegExp(`: ${escape(c.field)}(\\.\\d+|\\[\\d+\\])*: `));
    else expect(after, report).toMatch(c.field);
    expect(after, report).toMatch(c.problem);
    expect(o.stdout, report).toBe('');
    expect(o.code, report).toBe(2);
    // Nothing written. (A trace is validated after the output folder is created, so an empty --out
    // folder may be left behind; it holds no file.)
    expect(fs.existsSync(o.out) ? fs.readdirSync(o.out, { recursive: true }) : [], `files under ${o.out}`).toEqual([]);
    // As a child process (node bin/eofd.js): the same exit code and output, the paths aside.
    const child = spawned.get(i);
    if (child !== undefined) {
      const same = (text: string, from: Outcome) => text.split(path.dirname(from.file)).join('<case>');
      expect({ code: child.code, stdout: child.stdout, stderr: same(child.stderr, child) }).toEqual({ code: o.code, stdout: o.stdout, stderr: same(o.stderr, o) });
    }
  });

  it(`runs every ${SPAWN_EVERY}th case as a child process too (${Math.ceil(CASES.length / SPAWN_EVERY)} of ${CASES.length})`, () => {
    expect(spawned.size).toBe(Math.ceil(CASES.length / SPAWN_EVERY));
  });
});
