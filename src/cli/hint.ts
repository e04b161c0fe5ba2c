/**
 * The commands the CLI prints for the user to paste (next steps, resume, merge): each starts with what
 * runs this installation from the user's shell and has every word quoted for it, so a folder named
 * `$(rm -rf ~)` is passed as a name, never run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../base/package-root.js';

/** This installation's entry point. */
const BIN = path.join(PACKAGE_ROOT, 'bin', 'eofd.js');

/** Text the shell must see as it is (a glob, a `<dir>` placeholder); every other word is quoted. */
export interface ShellText {
  raw: string;
}

/** A word quoted for POSIX shells: as it is when it holds only safe characters, else in single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./=:@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`;
}

/**
 * The words that run this installation from `cwd`:
 * - `eofd` when the first `eofd` on PATH is this one (installed globally or linked; PATH entries
 *   inside node_modules/.bin are skipped: npx and npm scripts add them only while they run);
 * - `npx eofd` when npx run from `cwd` finds it: `cwd` is inside this package (a clone) or inside a
 *   project that has it in node_modules/.bin;
 * - otherwise `node <package root>/bin/eofd.js` (`node` spelled as a path when the first `node` on PATH
 *   is not this one). Not `npx --prefix <root> eofd`: npx may install into that folder, which runs the
 *   package's prepare script there.
 */
export function invocationWords(env: NodeJS.ProcessEnv, cwd: string = process.cwd()): string[] {
  const self = realPath(BIN);
  if (self !== null && realPath(firstOnPath(env, 'eofd')) === self) return ['eofd'];
  const project = npmProject(cwd);
  if (project !== null && (realPath(project) === realPath(PACKAGE_ROOT) || realPath(path.join(project, 'node_modules', '.bin', 'eofd')) === self)) {
    return ['npx', 'eofd'];
  }
  const node = realPath(firstOnPath(env, 'node')) === realPath(process.execPath) ? 'node' : process.execPath;
  return [node, BIN];
}

/** The command line `<this installation> ...words`, every word quoted except ShellText. */
export function commandHint(env: NodeJS.ProcessEnv, words: readonly (string | ShellText)[], cwd?: string): string {
  return [...invocationWords(env, cwd), ...words].map((w) => (typeof w === 'string' ? shellWord(w) : w.raw)).join(' ');
}

/** A hint printer bound to one environment: `hint('run', file)`. */
export type Hint = (...words: (string | ShellText)[]) => string;

export function hinter(env: NodeJS.ProcessEnv, cwd?: string): Hint {
  return (...words) => commandHint(env, words, cwd);
}

/** npm's project folder for `cwd` (its local prefix): the nearest folder holding package.json or node_modules. */
function npmProject(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json')) || fs.existsSync(path.join(dir, 'node_modules'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** The file the shell runs for `name`: the first executable on PATH (outside node_modules/.bin). */
function firstOnPath(env: NodeJS.ProcessEnv, name: string): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '' || dir.split(path.sep).slice(-2).join('/') === 'node_modules/.bin') continue;
    const file = path.join(dir, name);
    if (isExecutable(file)) return file;
  }
  return null;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function realPath(file: string | null): string | null {
  if (file === null) return null;
  try {
    return fs.realpathSync(file);
  } catch {
    return null;
  }
}
