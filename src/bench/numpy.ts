/**
 * numpy's and scipy's side of `eofd bench --linalg`: the dense operations eofd's linalg/ performs,
 * timed by numpy single-thread (python.ts) on the very matrix eofd is timed on (written to a file as
 * little-endian float64, row-major; symmetric, so its row- and column-major readings agree). Each
 * operation is timed by the same rule as eofd's (WARMUP_SECONDS, TIMED_SECONDS).
 */
import { NO_NUMPY_EXIT, parseJsonLine, PYTHON_BLAS_NAME, runPython, type PythonCommand } from './python.js';

/**
 * Calls of one operation, eofd's and numpy's alike: untimed ones until WARMUP_SECONDS have passed (at
 * least one; V8 optimises the TypeScript kernels meanwhile), then at least `repeats` timed ones and
 * more until their total reaches TIMED_SECONDS (so fast operations are timed over many calls); the
 * best counts.
 */
export const WARMUP_SECONDS = 0.1;
export const TIMED_SECONDS = 0.1;

/** The numpy and scipy calls the bench times (numpy.linalg.eigh and eigvalsh call LAPACK's dsyevd, with and without vectors). */
export const NUMPY_OPERATIONS = {
  potrf: 'scipy.linalg.lapack.dpotrf',
  'potrf+potri': 'scipy.linalg.lapack.dpotrf + dpotri',
  sytrd: 'scipy.linalg.lapack.dsytrd',
  eigvalsh: 'numpy.linalg.eigvalsh',
  eigh: 'numpy.linalg.eigh',
  dot: 'numpy.dot (a @ b)',
} as const;

export type NumpyOperation = keyof typeof NUMPY_OPERATIONS;

export const NUMPY_OPERATION_NAMES = Object.keys(NUMPY_OPERATIONS) as NumpyOperation[];

/** The operations that need scipy (timed as null without it). */
const SCIPY_OPERATIONS: readonly NumpyOperation[] = ['potrf', 'potrf+potri', 'sytrd'];

/**
 * The Python program: argv file, n, repeats, operations (comma-separated); prints one JSON line
 * {n, repeats, numpy, scipy (version or null), blas, seconds: {operation: best s, or null without
 * scipy}, eigenvalues (descending, numpy.linalg.eigvalsh)}. Exit code 3 without numpy; 4 when a
 * factorisation reports the matrix not positive definite.
 */
export const LINALG_SCRIPT = `
import json, sys, time
try:
    import numpy as np
except ImportError:
    sys.stderr.write("numpy is not installed\\n")
    sys.exit(${NO_NUMPY_EXIT})
try:
    import scipy
    from scipy.linalg import lapack
except ImportError:
    scipy = None
${PYTHON_BLAS_NAME}
path, n, repeats, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4].split(",")
a = np.asfortranarray(np.fromfile(path, dtype="<f8").reshape(n, n))
c = np.empty((n, n))

def checked(result):
    if result[-1] != 0:
        sys.stderr.write("LAPACK info %d: the matrix is not positive definite\\n" % result[-1])
        sys.exit(4)
    return result[0]

operations = {
    "eigvalsh": lambda: np.linalg.eigvalsh(a),
    "eigh": lambda: np.linalg.eigh(a),
    "dot": lambda: np.dot(a, a, out=c),
}
if scipy is not None:
    operations["potrf"] = lambda: checked(lapack.dpotrf(a, lower=1))
    operations["potrf+potri"] = lambda: checked(lapack.dpotri(checked(lapack.dpotrf(a, lower=1)), lower=1))
    # The optimal workspace: with scipy's default lwork = n, dsytrd falls back to its unblocked code.
    sytrd_lwork = int(checked(lapack.dsytrd_lwork(a.shape[0], lower=1)))
    operations["sytrd"] = lambda: checked(lapack.dsytrd(a, lower=1, lwork=sytrd_lwork))

def best(f):
    start = time.perf_counter()
    f()
    while time.perf_counter() - start < ${WARMUP_SECONDS}:
        f()
    time_best, total, calls = float("inf"), 0.0, 0
    while calls < repeats or total < ${TIMED_SECONDS}:
        start = time.perf_counter()
        f()
        elapsed = time.perf_counter() - start
        time_best, total, calls = min(time_best, elapsed), total + elapsed, calls + 1
    return time_best

seconds = {name: best(operations[name]) if name in operations else None for name in names}
print(json.dumps({
    "n": n, "repeats": repeats, "numpy": np.__version__, "scipy": None if scipy is None else scipy.__version__,
    "blas": blas_name(), "seconds": seconds, "eigenvalues": np.linalg.eigvalsh(a)[::-1].tolist(),
}))
`;

export const PYTHON_LINALG: PythonCommand = { file: 'python3', args: ['-c', LINALG_SCRIPT] };

/** numpy's times at one n, or why there are none. */
export type NumpyLinalg =
  | {
      ok: true;
      n: number;
      repeats: number;
      numpy: string;
      /** scipy's version; null without scipy (its operations' times are then null). */
      scipy: string | null;
      blas: string;
      /** Best time, ms, of each operation asked for; null when it needs scipy and there is none. */
      ms: Partial<Record<NumpyOperation, number | null>>;
      /** The matrix's eigenvalues by numpy.linalg.eigvalsh, descending. */
      eigenvalues: Float64Array;
    }
  | { ok: false; /** One line: why the numpy columns are empty. */ reason: string };

/** Reads the script's JSON line for order `n` and `operations`; throws on anything else. */
export function parseLinalgOutput(stdout: string, n: number, operations: readonly NumpyOperation[]): Extract<NumpyLinalg, { ok: true }> {
  const parsed = parseJsonLine(stdout);
  if (parsed.n !== n) throw new Error(`expected n = ${n}, got ${JSON.stringify(parsed.n)}`);
  const { repeats, seconds, eigenvalues, numpy, scipy, blas } = parsed;
  if (!Number.isSafeInteger(repeats) || (repeats as number) < 1) throw new Error(`expected repeats, an integer ≥ 1, got ${JSON.stringify(repeats)}`);
  if (typeof seconds !== 'object' || seconds === null) throw new Error(`expected seconds, an object, got ${JSON.stringify(seconds)}`);
  const ms: Partial<Record<NumpyOperation, number | null>> = {};
  for (const operation of operations) {
    const s = (seconds as Record<string, unknown>)[operation];
    const needsScipy = SCIPY_OPERATIONS.includes(operation);
    if (s === null && needsScipy && scipy === null) ms[operation] = null;
    else if (typeof s === 'number' && Number.isFinite(s) && s > 0) ms[operation] = s * 1e3;
    else throw new Error(`expected seconds.${operation} > 0${needsScipy ? ' (or null without scipy)' : ''}, got ${JSON.stringify(s)}`);
  }
  if (!Array.isArray(eigenvalues) || eigenvalues.length !== n || !eigenvalues.every((v) => typeof v === 'number')) {
    throw new Error(`expected eigenvalues, ${n} numbers`);
  }
  return {
    ok: true,
    n,
    repeats: repeats as number,
    numpy: typeof numpy === 'string' ? numpy : 'unknown',
    scipy: typeof scipy === 'string' ? scipy : null,
    blas: typeof blas === 'string' ? blas : 'unknown',
    ms,
    eigenvalues: Float64Array.from(eigenvalues as number[]),
  };
}

/**
 * Times `operations` on the n×n matrix in `file` with `command` (python3 by default; one BLAS
 * thread). Never throws: no python3, no numpy, or output it cannot read is `ok: false` with the reason.
 */
export async function measureNumpyLinalg(
  file: string,
  n: number,
  repeats: number,
  operations: readonly NumpyOperation[] = NUMPY_OPERATION_NAMES,
  command: PythonCommand = PYTHON_LINALG,
): Promise<NumpyLinalg> {
  const output = await runPython(command, [file, String(n), String(repeats), operations.join(',')]);
  if (!output.ok) return output;
  try {
    return parseLinalgOutput(output.stdout, n, operations);
  } catch (err) {
    return { ok: false, reason: `cannot read ${command.file}'s output: ${(err as Error).message}` };
  }
}

/** Why an operation's numpy time is absent: the measurement's reason, or no scipy; '' when present. */
export function numpyAbsence(reference: NumpyLinalg | undefined, operation: NumpyOperation): string {
  if (reference === undefined) return 'numpy not measured';
  if (!reference.ok) return `no numpy time: ${reference.reason}`;
  const ms = reference.ms[operation];
  if (ms === undefined) return `numpy did not time ${operation}`;
  return ms === null ? 'no numpy time: no scipy' : '';
}

/** The sum of the operations' numpy times, ms; null if any is absent. */
export function numpyTotalMs(reference: NumpyLinalg | undefined, operations: readonly NumpyOperation[]): number | null {
  if (reference === undefined || !reference.ok) return null;
  let total = 0;
  for (const operation of operations) {
    const ms = reference.ms[operation];
    if (ms === undefined || ms === null) return null;
    total += ms;
  }
  return total;
}
