/**
 * `eofd init [dir] [--force]`: writes <dir>/eofd.yaml, a commented starter config (the synthetic
 * multinomial setting of Section 4 made small), and prints on stderr how to run and report on it.
 * Exit codes: 0 written; 1 the file cannot be written; 2 bad usage, or the file exists (without --force).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { PACKAGE_ROOT } from '../../base/package-root.js';
import { SHIPPED_CONFIG_DIR } from '../../config/shipped.js';
import { errnoCode } from '../../base/errors.js';
import { writeFileAtomic } from '../../results/write.js';
import { hinter } from '../hint.js';
import { EXIT, failureExitCode, processIo, type CliIo } from '../io.js';
import { defaultReportFolder } from './report.js';

/** The file `eofd init` writes in its folder. */
export const STARTER_FILE = 'eofd.yaml';

/** The JSON Schema the package ships (`eofd schema` output). */
const SCHEMA_FILE = path.join(SHIPPED_CONFIG_DIR, 'eofd.schema.json');

/** The package's guides the next steps name (shipped with it: package.json `files`). */
export const GUIDE_FILE = path.join(PACKAGE_ROOT, 'docs', 'guide.md');
export const CONFIG_REFERENCE_FILE = path.join(PACKAGE_ROOT, 'docs', 'config-reference.md');

/** The starter's name: its output folder under `eofd run`'s default --out. */
export const STARTER_NAME = 'starter';
/** `eofd run`'s default --out (run.ts), where the next steps find the results. */
const RESULTS = 'results';

/**
 * The starter config; `schema` and `reference` are the paths it links the JSON Schema (first line)
 * and docs/config-reference.md by (relative to the config's folder, so editors find them from the
 * file: packageLink). Same params as configs/synthetic-k4.yaml.
 */
export function starterConfig(schema: string, reference: string): string {
  return `# yaml-language-server: $schema=${schema}
# A starter experiment written by \`eofd init\`: the synthetic multinomial setting of Section 4 made
# small (d = 20 instead of 100, T = 300, 3 trials: seconds on one core). Edit freely; every key is in
# ${reference}
# (or \`eofd schema --markdown\`), every policy and environment in \`eofd list\`.
name: ${STARTER_NAME}                       # the output folder (<out>/${STARTER_NAME}) and part of every trial seed
environment:
  type: synthetic                   # or mnist, classification (your own CSV), trace
  d: 20                             # dimension of the actions
  K: 4                              # outcomes 1..K besides outcome 0
  reward: [0, 0.25, 0.5, 0.75, 1]   # r_0..r_K (r_0 = 0)
  actions: [10, 30]                 # |A_t| uniform in [10, 30], actions uniform on the unit sphere
horizon: 300                        # T: rounds per trial
trials: 3                           # independent instances, the same for every policy
seed: 0                             # another seed, other instances
policies: [EOFD-MLogB, OFUL-MLogB, Random]
params:                             # the paper's Section 4 choices
  S: 5                              # the bound on ‖W*‖_F the policies assume
  l: 0.75                           # λ = (√K d)^l λ0
  e: 0.75                           # η = (√K d)^e η0
  m: auto                           # EOFD-MLogB's sketch size; auto = ⌊Kd/10⌋
  beta: order                       # β: eq. (27) with its constants 1
  delta: auto                       # δ = 1/T
`;
}

/** The path a config in `dir` links a file of the package by (relative; absolute when none exists). */
export function packageLink(dir: string, file: string): string {
  const relative = path.relative(path.resolve(dir), file);
  if (path.isAbsolute(relative)) return file; // another drive (Windows)
  const link = relative.split(path.sep).join('/');
  return link.startsWith('.') ? link : `./${link}`;
}

/** The path a config in `dir` links the shipped schema by. */
export function schemaLink(dir: string): string {
  return packageLink(dir, SCHEMA_FILE);
}

/** The starter config as written into `dir`: its links resolve from there. */
function starterIn(dir: string): string {
  return starterConfig(schemaLink(dir), packageLink(dir, CONFIG_REFERENCE_FILE));
}

/** `file` as the user's shell finds it from the working folder: relative inside it, else absolute. */
function fromCwd(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

function lstatOrNull(file: string): fs.Stats | null {
  try {
    return fs.lstatSync(file);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
}

export function initCommand(dir: string, options: { force?: boolean }, io: CliIo): number {
  const file = path.join(dir, STARTER_FILE);
  const hint = hinter(io.env);
  const refuse = (why: string): number => {
    io.stderr.write(`eofd init: ${why}\n`);
    return EXIT.usage;
  };
  try {
    const folder = lstatOrNull(dir);
    if (folder !== null && !folder.isDirectory() && !(folder.isSymbolicLink() && fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true)) {
      return refuse(`${dir} is a file, not a folder; give a folder to write ${STARTER_FILE} into`);
    }
    fs.mkdirSync(dir, { recursive: true });
    const existing = lstatOrNull(file);
    if (existing !== null) {
      // --force replaces only a regular file, by a rename: never through a symbolic link, never a folder.
      if (existing.isSymbolicLink()) return refuse(`${file} is a symbolic link; not followed, not replaced (--force neither): remove it first`);
      if (!existing.isFile()) return refuse(`${file} exists and is not a file; not replaced (--force neither): remove it first`);
      if (options.force !== true) return refuse(`${file} exists; not overwritten (--force replaces it)`);
      writeFileAtomic(file, starterIn(dir));
    } else {
      fs.writeFileSync(file, starterIn(dir), { flag: 'wx' });
    }
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return refuse(`${file} exists; not overwritten (--force replaces it)`);
    return failureExitCode(error, io, 'init');
  }
  // Every path named here exists once the steps above it have run (from the same folder).
  const steps: [command: string, what: string][] = [
    [hint('run', file), `the experiment, into ${path.join(RESULTS, STARTER_NAME)} (progress on stderr)`],
    [hint('report', RESULTS), `tables, the paper's claims, figures, ${path.join(defaultReportFolder(RESULTS), 'report.html')}`],
    [hint('list'), 'the policies, environments and shipped configs a config can name'],
  ];
  const width = Math.max(...steps.map(([command]) => command.length));
  io.stderr.write(
    `eofd init: wrote ${file}\nNext:\n` +
      steps.map(([command, what]) => `  ${command.padEnd(width)}  # ${what}\n`).join('') +
      `More: ${fromCwd(GUIDE_FILE)} and ${fromCwd(CONFIG_REFERENCE_FILE)}; ${hint({ raw: '<command>' }, '--help')}.\n`,
  );
  return EXIT.ok;
}

export function registerInit(program: Command, io: CliIo = processIo()): void {
  program
    .command('init')
    .summary('write a commented starter config (eofd.yaml) to run and edit')
    .description(
      'Write <dir>/eofd.yaml (dir: default the current folder, created if missing): a small, commented experiment ' +
        '(synthetic K = 4, d = 20; EOFD-MLogB, OFUL-MLogB, Random) whose first line links the JSON Schema, so editors ' +
        'check and complete it; then print how to run and report on it. An existing file is never replaced without --force. ' +
        'Exit codes: 0 written; 1 the file cannot be written; 2 bad usage, or the file exists.',
    )
    .argument('[dir]', 'the folder to write eofd.yaml into', '.')
    .option('--force', 'replace an existing eofd.yaml')
    .addHelpText('after', '\nExamples:\n  $ eofd init && eofd run eofd.yaml\n  $ eofd init my-study --force')
    .action((dir: string, options: { force?: boolean }) => {
      process.exitCode = initCommand(dir, options, io);
    });
}
