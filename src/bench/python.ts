/**
 * The one place the bench runs Python: a child process (python3 by default) with every BLAS threading
 * knob set to one thread, so numpy and scipy measure single-thread rates. Its programs are the dgemm
 * reference (dgemm.ts) and the dense linear algebra references (numpy.ts).
 */
import { spawn } from 'node:child_process';

/** Environment variables that make the common BLAS builds single-threaded (they are read at load time). */
export const SINGLE_THREAD_ENV: Readonly<Record<string, string>> = {
  OPENBLAS_NUM_THREADS: '1',
  OMP_NUM_THREADS: '1',
  MKL_NUM_THREADS: '1',
  BLIS_NUM_THREADS: '1',
  VECLIB_MAXIMUM_THREADS: '1',
};

/** The command that runs a program (replaced in tests): `file args… argv…`. */
export interface PythonCommand {
  file: string;
  args: readonly string[];
}

/** A program's exit code meaning "numpy is not installed". */
export const NO_NUMPY_EXIT = 3;

/** The program's stdout, or why there is none (one line). */
export type PythonOutput = { ok: true; stdout: string } | { ok: false; reason: string };

/**
 * Runs `command` with `argv` appended, in this process's environment plus SINGLE_THREAD_ENV. Never
 * throws: a missing command, a missing numpy (exit NO_NUMPY_EXIT) or a failure is `ok: false` and the
 * reason (with the last line of its stderr).
 */
export function runPython(command: PythonCommand, argv: readonly string[]): Promise<PythonOutput> {
  return new Promise((resolve) => {
    const child = spawn(command.file, [...command.args, ...argv], {
      env: { ...process.env, ...SINGLE_THREAD_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let failed = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (err: NodeJS.ErrnoException) => {
      failed = true;
      resolve({ ok: false, reason: err.code === 'ENOENT' ? `${command.file} not found` : `${command.file} did not start (${err.code ?? err.message})` });
    });
    child.once('close', (code, signal) => {
      if (failed) return;
      if (code === NO_NUMPY_EXIT) return resolve({ ok: false, reason: `${command.file} has no numpy` });
      if (code !== 0) {
        const last = stderr.trim().split('\n').pop() ?? '';
        return resolve({ ok: false, reason: `${command.file} exited (${signal ?? `code ${code}`})${last === '' ? '' : `: ${last}`}` });
      }
      resolve({ ok: true, stdout });
    });
  });
}

/** The last non-empty line of a program's stdout as JSON (an object); throws on anything else. */
export function parseJsonLine(stdout: string): Record<string, unknown> {
  const line = stdout.trim().split('\n').pop() ?? '';
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new Error(`expected a JSON line, got "${line.slice(0, 80)}"`);
  }
  return (parsed ?? {}) as Record<string, unknown>;
}

/** Python: `blas_name()`, numpy's BLAS as numpy was built ("scipy-openblas 0.3.31"); needs `np`. */
export const PYTHON_BLAS_NAME = `
def blas_name():
    try:
        info = np.__config__.CONFIG["Build Dependencies"]["blas"]
        return (info["name"] + " " + str(info.get("version", ""))).strip()
    except Exception:
        return "unknown"
`;
