#!/usr/bin/env node
/**
 * Bundles the compiled CLI's three entry points into dist/bundle/, one file each, so that a process
 * or worker thread loads one module instead of ~250 (dist/ and zod's, yaml's, commander's, …):
 *
 *   dist/bundle/main.js    bin/eofd.js's `main` (dist/cli/main.js)
 *   dist/bundle/worker.js  the unit pool's worker thread (dist/experiment/worker.js)
 *   dist/bundle/child.js   eofd bench's measuring process (dist/bench/child.js)
 *
 * The bundles sit two folders below the package, as the modules they come from do, and side by side,
 * so every path a module finds from its own location stays right: the package root (../..), the
 * worker next to the pool, the bench child next to the bench. Kept out: the native @resvg/resvg-js and
 * the two export libraries, which are loaded on demand. The library (`import … from 'eofd'`) stays
 * dist/index.js and its modules.
 *
 * Usage: node scripts/bundle.mjs [--if-stale]   (--if-stale: only when a file of dist/ is newer)
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(repo, 'dist');
const out = path.join(dist, 'bundle');
const ENTRIES = { main: 'cli/main.js', worker: 'experiment/worker.js', child: 'bench/child.js' };

/** The newest modification time (ms) of the .js files under `dir`, `skip` left out. */
function newest(dir, skip) {
  let latest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (full === skip) continue;
    if (entry.isDirectory()) latest = Math.max(latest, newest(full, skip));
    else if (entry.name.endsWith('.js')) latest = Math.max(latest, fs.statSync(full).mtimeMs);
  }
  return latest;
}

function stale() {
  const built = Object.keys(ENTRIES).map((name) => path.join(out, `${name}.js`));
  if (!built.every((file) => fs.existsSync(file))) return true;
  const oldest = Math.min(...built.map((file) => fs.statSync(file).mtimeMs));
  return newest(dist, out) > oldest;
}

if (!process.argv.includes('--if-stale') || stale()) {
  await build({
    entryPoints: Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, path.join(dist, file)])),
    outdir: out,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: ['@resvg/resvg-js', 'apache-arrow', 'hyparquet-writer'],
    // commander and other CommonJS dependencies call require() for Node's modules.
    banner: { js: "import { createRequire as __bundleRequire } from 'node:module'; const require = __bundleRequire(import.meta.url);" },
    // Whitespace and syntax only: names stay, so stack traces stay readable.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: 'warning',
  });
}
