/**
 * The bench's throughput reference: this machine's single-thread dgemm rate, measured in the same run
 * as the points. numpy's `dot` of two n×n float64 matrices (n = 1024; numpy calls the BLAS it was
 * built with, OpenBLAS in the PyPI wheels) with every BLAS threading knob set to one thread in the
 * child's environment, timed after one untimed product, best of `repeats`; GFLOP/s = 2n³ / time.
 * A policy's throughput is then read as a fraction of what an optimised single-thread BLAS does here.
 */
import { NO_NUMPY_EXIT, parseJsonLine, PYTHON_BLAS_NAME, runPython, SINGLE_THREAD_ENV, type PythonCommand } from './python.js';

export { SINGLE_THREAD_ENV };

/** The matrices' order n. */
export const DGEMM_ORDER = 1024;
/** Timed products; the best one counts. */
export const DGEMM_REPEATS = 5;

/**
 * The Python program: argv n, repeats; prints one JSON line {n, repeats, seconds (best), numpy,
 * blas (its name and version as numpy was built)}. Exit code 3 without numpy.
 */
export const DGEMM_SCRIPT = `
import json, sys, time
try:
    import numpy as np
except ImportError:
    sys.stderr.write("numpy is not installed\\n")
    sys.exit(${NO_NUMPY_EXIT})
${PYTHON_BLAS_NAME}
n, repeats = int(sys.argv[1]), int(sys.argv[2])
rng = np.random.default_rng(1)
a = rng.standard_normal((n, n))
b = rng.standard_normal((n, n))
c = np.empty((n, n))
np.dot(a, b, out=c)
best = float("inf")
for _ in range(repeats):
    start = time.perf_counter()
    np.dot(a, b, out=c)
    best = min(best, time.perf_counter() - start)
print(json.dumps({"n": n, "repeats": repeats, "seconds": best, "numpy": np.__version__, "blas": blas_name()}))
`;

/** The reference measurement, or why there is none. */
export type DgemmReference =
  | { ok: true; /** GFLOP/s */ gflopPerS: number; order: number; repeats: number; seconds: number; numpy: string; blas: string }
  | { ok: false; /** One line: why the dgemm columns are empty. */ reason: string };

/** The command that runs DGEMM_SCRIPT (replaced in tests). `argv` is appended: n, repeats. */
export type DgemmCommand = PythonCommand;

export const PYTHON_DGEMM: DgemmCommand = { file: 'python3', args: ['-c', DGEMM_SCRIPT] };

/** GFLOP/s of an n×n by n×n product (2n³ flops: n³ multiply-adds) taking `seconds`. */
export function dgemmGflopPerS(order: number, seconds: number): number {
  return (2 * order ** 3) / seconds / 1e9;
}

/** Reads the script's JSON line (the last non-empty line of stdout); throws on anything else. */
export function parseDgemmOutput(stdout: string): Extract<DgemmReference, { ok: true }> {
  const { n, repeats, seconds, numpy, blas } = parseJsonLine(stdout);
  if (!Number.isSafeInteger(n) || (n as number) < 1) throw new Error(`expected n, an integer ≥ 1, got ${JSON.stringify(n)}`);
  if (!Number.isSafeInteger(repeats) || (repeats as number) < 1) throw new Error(`expected repeats, an integer ≥ 1, got ${JSON.stringify(repeats)}`);
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) throw new Error(`expected seconds > 0, got ${JSON.stringify(seconds)}`);
  return {
    ok: true,
    gflopPerS: dgemmGflopPerS(n as number, seconds),
    order: n as number,
    repeats: repeats as number,
    seconds,
    numpy: typeof numpy === 'string' ? numpy : 'unknown',
    blas: typeof blas === 'string' ? blas : 'unknown',
  };
}

/**
 * Measures the reference with `command` (python3 by default; one BLAS thread, python.ts). Never
 * throws: a missing python3 or numpy, or output it cannot read, is a reference with `ok: false` and
 * the reason.
 */
export async function measureDgemm(command: DgemmCommand = PYTHON_DGEMM, order = DGEMM_ORDER, repeats = DGEMM_REPEATS): Promise<DgemmReference> {
  const output = await runPython(command, [String(order), String(repeats)]);
  if (!output.ok) return output;
  try {
    return parseDgemmOutput(output.stdout);
  } catch (err) {
    return { ok: false, reason: `cannot read ${command.file}'s output: ${(err as Error).message}` };
  }
}

/** The one stderr line about the reference. */
export function describeDgemm(reference: DgemmReference): string {
  if (!reference.ok) return `dgemm reference: none (${reference.reason}); the dgemm columns are empty`;
  const { gflopPerS, order, repeats, numpy, blas } = reference;
  return `dgemm reference: ${gflopPerS.toFixed(1)} GFLOP/s single-thread (numpy ${numpy} dot, ${blas}, ${order}×${order} float64, best of ${repeats})`;
}
