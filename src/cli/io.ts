/**
 * What every command is given instead of touching `process` directly (so tests run commands
 * in-process with captured output), the exit codes, and the one failure handler.
 */
import { describeFsError, EofdError, errnoCode } from '../base/errors.js';

export interface CliIo {
  /** columns: the terminal's width when stdout is one (report and list fit it). */
  stdout: { write(text: string): unknown; isTTY?: boolean; columns?: number };
  /** columns and rows: the terminal's size when stderr is one (progress fits it). */
  stderr: { write(text: string): unknown; isTTY?: boolean; columns?: number; rows?: number };
  env: NodeJS.ProcessEnv;
}

let stdoutGuarded = false;
/** Why standard output could not be written, once it could not. */
let stdoutFailure: string | null = null;

/**
 * Output that could not be written is a failure, never a silent exit 0: a full disk or an I/O error
 * prints one line on stderr and sets exit code 1. A reader that stops reading (EPIPE: `eofd run
 * --help | head -3`) ends output quietly. (A standard output closed with `>&-` cannot be told apart:
 * Node reopens closed stdio on /dev/null at startup.)
 */
function stdoutFailed(cause: string): void {
  if (stdoutFailure !== null) return;
  stdoutFailure = cause;
  process.exitCode = EXIT.failure;
  process.stderr.write(`eofd: cannot write the output: ${cause}\n`);
}

/** Whether writing to the real standard output failed (main() then exits 1). */
export function outputFailed(): boolean {
  return stdoutFailure !== null;
}

function guardStdout(): void {
  if (stdoutGuarded) return;
  stdoutGuarded = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') stdoutFailed(describeFsError(error));
  });
  // Progress and messages are not the output: once stderr cannot be written (`eofd … 2>&1 | tee log`,
  // then Ctrl-C, which stops tee too) the command goes on without them, and finishes its files.
  process.stderr.on('error', () => {});
}

/** process.stderr, its writes never throwing (see guardStdout). */
const stderr = {
  get isTTY(): boolean {
    return process.stderr.isTTY;
  },
  get columns(): number | undefined {
    return process.stderr.columns;
  },
  get rows(): number | undefined {
    return process.stderr.rows;
  },
  write(text: string): boolean {
    try {
      return process.stderr.destroyed ? false : process.stderr.write(text);
    } catch {
      return false;
    }
  },
};

/** The real streams (see guardStdout for what a failed write does). */
export function processIo(): CliIo {
  guardStdout();
  const stdout = {
    isTTY: process.stdout.isTTY,
    get columns(): number | undefined {
      return process.stdout.columns;
    },
    write(text: string): boolean {
      try {
        return process.stdout.write(text);
      } catch (error) {
        // A file as stdout writes synchronously: ENOSPC, EIO arrive here.
        if (errnoCode(error) !== 'EPIPE') stdoutFailed(describeFsError(error));
        return false;
      }
    },
  };
  return { stdout, stderr, env: process.env };
}

/** Exit codes of every command. */
export const EXIT = { ok: 0, failure: 1, usage: 2, regression: 3, interrupted: 130, terminated: 143 } as const;

/** The first line of a message. */
export function firstLine(text: string): string {
  return text.split('\n')[0] as string;
}

/**
 * Prints an error that reached a command as one line (`eofd <command>: …`) and returns its exit
 * code: an EofdError carries its own (2 for usage and input, 1 at run time); anything else is 1, with
 * its stack when EOFD_DEBUG=1.
 */
export function failureExitCode(caught: unknown, io: CliIo, command: string): number {
  const err = caught instanceof Error ? caught : new Error(String(caught));
  io.stderr.write(`eofd ${command}: ${firstLine(err.message)}\n`);
  if (caught instanceof EofdError) return caught.exitCode;
  if (io.env.EOFD_DEBUG === '1' && err.stack) io.stderr.write(err.stack + '\n');
  return EXIT.failure;
}
