import os from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Three projects, run together by `npm test` (alone: `vitest run --project e2e`, `--project 'unit*'`):
 *
 * - e2e: files that start processes or threads of their own: the CLI as a child process (`node
 *   bin/eofd.js`), the worker pool on dist/experiment/worker.js, scripts, shells, python3, Chromium,
 *   the fake Slurm.
 * - unit: everything else, in process (the CLI through main(), experiments with --jobs 1). An
 *   in-process run may still call `git rev-parse` for its manifest and start the lock's heartbeat
 *   thread: those are the code under test, not the test's own processes.
 * - unit-isolated: the files that need a fresh module graph (vi.mock), one process each.
 *
 * unit and e2e are not isolated: a worker process runs file after file with the modules it has already
 * loaded (a fresh process and module graph per file was most of the suite's CPU time). So a file must
 * leave module state, process.env, the working folder, signal handlers and timers as it found them;
 * one that cannot goes in ISOLATED. A new test file is a unit file unless it is listed below.
 *
 * Every project uses every core. The e2e files run first (the default order: by project name, then the
 * slowest or largest file first), so the slow process-bound files start early and the unit files fill
 * in behind them.
 */
const E2E = [
  // child processes
  'test/base/files.test.ts', // mkfifo, a read-only tmpfs (mount, when root)
  'test/bench/dgemm.test.ts', // python3 (numpy)
  'test/cli/bench.test.ts', // the CLI
  'test/cli/checkpoint.test.ts', // the CLI, killed, terminated and resumed
  'test/cli/completion.test.ts', // bash, zsh
  'test/cli/io.test.ts', // the CLI, with its stdout a full device or a closed pipe
  'test/cli/hint.test.ts', // bash (quoting), npx (the printed invocation runs)
  'test/cli/install.test.ts', // npm pack, npm install of the tarball, the installed CLI
  'test/cli/main.test.ts', // the CLI under EOFD_BACKEND
  'test/cli/malformed.test.ts', // the CLI, once per malformed input
  'test/cli/progress.test.ts', // the CLI in a pseudo-terminal (script)
  'test/cli/reproduce.test.ts', // the CLI, killed and resumed
  'test/cli/terminal-width.test.ts', // eofd report and eofd list in an 80-column pseudo-terminal (script)
  'test/cli/run.test.ts', // the CLI, killed and resumed; the worker pool
  'test/cli/signals.test.ts', // the CLI, signalled; the worker pool
  'test/cli/status-live.test.ts', // the CLI running (a timed run, a reproduction) while status reads its folder
  'test/environments/labelled-data.test.ts', // scripts/make-data.mjs
  'test/environments/module-cli.test.ts', // the CLI on a module environment (worker threads), then its report
  'test/experiment/lock.test.ts', // a live process holding a lock
  'test/index.test.ts', // node importing the package (dist/)
  'test/linalg/simd.test.ts', // scripts/gen-simd.mjs --check
  'test/policies/snapshot-process.test.ts', // node restoring snapshots (dist/)
  'test/policies/external/process.test.ts', // process policies: eofd serve-policy, python3 (numpy), misbehaving node scripts
  'test/policies/external/mixed.test.ts', // python3 (numpy); the worker pool (dist/experiment/worker.js)
  'test/linalg/workspace-memory.test.ts', // the CLI under ulimit -v (bash)
  'test/regression/baselines.test.ts', // the CLI on the baseline configs
  'test/report/browser.test.ts', // headless Chromium (skipped without it)
  'test/scripts/crosscheck.test.ts', // python3 (scripts/crosscheck/_trace.py)
  'test/scripts/slurm-grid.test.ts', // scripts/slurm-grid.sh with a fake sbatch
  // the worker pool (dist/experiment/worker.js) in this process
  'test/experiment/folders.test.ts',
  'test/experiment/grid.test.ts',
  'test/experiment/merge.test.ts',
  'test/experiment/pool.test.ts',
  'test/experiment/runner.test.ts',
  'test/results/read.test.ts',
];

/** In-process files that need a fresh module graph. */
const ISOLATED = [
  'test/bench/measure.test.ts', // vi.mock of the policy registry, which src/bench/measure.ts imports
];

const cores = os.availableParallelism();
// A young generation of 64 MB a semi-space (V8's default: 16): fewer scavenges in the test workers,
// which allocate far more than one run does (unit project: 47.5 → 44.0 s, side by side).
const shared = { testTimeout: 60_000, hookTimeout: 60_000, maxWorkers: cores, pool: 'forks' as const, execArgv: ['--max-semi-space-size=64'] };

export default defineConfig({
  test: {
    // Brings dist/ up to date with src/ (incrementally), once, before any project runs (see the file).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      { test: { ...shared, name: 'e2e', include: E2E, isolate: false } },
      { test: { ...shared, name: 'unit', include: ['test/**/*.test.ts'], exclude: [...E2E, ...ISOLATED], isolate: false } },
      { test: { ...shared, name: 'unit-isolated', include: ISOLATED } },
    ],
  },
});
