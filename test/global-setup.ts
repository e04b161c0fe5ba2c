/**
 * Before any test: compile src/ into dist/, so that the tests which need JavaScript (worker threads,
 * the CLI as a child process) run the code under test, never an earlier build.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): void {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(repo, 'tsconfig.build.json')], { cwd: repo, stdio: 'inherit' });
}
