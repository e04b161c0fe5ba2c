/**
 * Before any test: bring dist/ and its bundles (scripts/bundle.mjs) up to date with src/, so that the
 * tests which need JavaScript (worker threads, the CLI as a child process) run the code under test,
 * never an earlier build; and give the run a temporary folder of its own (TMPDIR, which the test
 * workers and every process they start inherit), removed after the last test, so that no test's
 * temporary files outlive the run.
 *
 * `tsc -b tsconfig.build.json` is incremental: it recompiles only when a file in src/ changed since the
 * last build (its record: node_modules/.cache/eofd/build.tsbuildinfo). Under `npm test` the typecheck
 * has just built dist/, so this is a check that costs well under a second. The record cannot tell that
 * dist/ was deleted or thinned by hand: then it goes, and the build is a full one.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export default function setup(): () => void {
  const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const src = path.join(repo, 'src');
  const dist = path.join(repo, 'dist');
  const record = path.join(repo, 'node_modules', '.cache', 'eofd', 'build.tsbuildinfo');
  const missing = fs
    .readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .some((file) => !fs.existsSync(path.join(dist, file.replace(/\.ts$/, '.js'))) || !fs.existsSync(path.join(dist, file.replace(/\.ts$/, '.d.ts'))));
  if (missing) fs.rmSync(record, { force: true });
  // The package's `tsc` script (its bin entry; TypeScript 7 exports no subpath for it).
  const typescript = path.dirname(createRequire(import.meta.url).resolve('typescript/package.json'));
  const tsc = path.join(typescript, 'bin', 'tsc');
  execFileSync(process.execPath, [tsc, '-b', path.join(repo, 'tsconfig.build.json')], { cwd: repo, stdio: 'inherit' });
  execFileSync(process.execPath, [path.join(repo, 'scripts', 'bundle.mjs'), '--if-stale'], { cwd: repo, stdio: 'inherit' });

  const given = process.env.TMPDIR;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-tests-'));
  process.env.TMPDIR = scratch;
  return () => {
    if (given === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = given;
    fs.rmSync(scratch, { recursive: true, force: true });
  };
}
