/**
 * Reading an input file a user named (a config, a trace): only a regular file, at most a given size,
 * never a device or FIFO (reading one could block forever or grow without bound), and the file system's
 * error as one line. Writing one: only over a regular file (replaceableFile), never over a link, a
 * stream or a folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeFsError, EofdError, errnoCode } from './errors.js';

/** Largest input files read whole. */
export const INPUT_LIMITS = {
  /** A config file. */
  configBytes: 4 * 2 ** 20,
  /** A trace file (JSON, parsed whole). */
  traceBytes: 512 * 2 ** 20,
  /** A JSON file a run wrote (a manifest with its seeds per trial, best.json, a unit summary). */
  resultsJsonBytes: 256 * 2 ** 20,
} as const;

/** Why an input file cannot be read, as one line without the file's name (callers add it). */
export class InputFileError extends Error {
  constructor(
    message: string,
    /** The file system's error code (ENOENT, EACCES, …), when it was one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** "4 MiB" */
export function formatLimit(bytes: number): string {
  return bytes >= 2 ** 20 ? `${bytes / 2 ** 20} MiB` : `${bytes} bytes`;
}

/** The bytes of `file`, a regular file of at most `maxBytes`; throws InputFileError otherwise. */
export function readInputFile(file: string, maxBytes: number): Buffer {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new InputFileError(describeFsError(error), errnoCode(error));
  }
  if (stat.isDirectory()) throw new InputFileError('is a folder, not a file');
  if (!stat.isFile()) throw new InputFileError('is not a regular file (a device, FIFO or socket); give a file');
  if (stat.size > maxBytes) throw new InputFileError(`is ${stat.size} bytes, more than the ${formatLimit(maxBytes)} allowed`);
  let fd: number;
  try {
    // O_NONBLOCK: should a FIFO have been swapped in since the stat, opening it does not wait for a writer.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw new InputFileError(describeFsError(error));
  }
  try {
    if (!fs.fstatSync(fd).isFile()) throw new InputFileError('is not a regular file (a device, FIFO or socket); give a file');
    // One byte more than the stat's size tells a file that grew since the stat.
    const buffer = Buffer.allocUnsafe(stat.size + 1);
    let length = 0;
    for (;;) {
      const n = fs.readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
      if (length === buffer.length) throw new InputFileError('changed while being read; read it again when it is complete');
    }
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError(describeFsError(error));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * `mkdir -p folder`, failing with the real cause: Node's recursive mkdir reports ENOENT when a missing
 * parent cannot be created (a read-only file system, no permission), so the first missing folder is
 * created on its own to surface EROFS or EACCES.
 */
export function makeFolders(folder: string): void {
  try {
    fs.mkdirSync(folder, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    let missing = path.resolve(folder);
    while (!fs.existsSync(path.dirname(missing)) && path.dirname(missing) !== missing) missing = path.dirname(missing);
    fs.mkdirSync(missing);
    throw error;
  }
}

/**
 * Refuses to replace `file` unless it is missing or a regular file: a rename over a symbolic link, a
 * FIFO, a device or a folder would drop what the user put there (and a link is not followed: it is
 * the link that would go). Exit code 2: the path names something that is not a file to write.
 */
export function checkReplaceable(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return;
    throw new EofdError(`${file}: cannot write: ${describeFsError(error)}`, 1);
  }
  if (stat.isFile()) return;
  const what = stat.isSymbolicLink() ? 'a symbolic link' : stat.isDirectory() ? 'a folder' : 'not a regular file (a device, FIFO or socket)';
  throw new EofdError(`${file}: is ${what}; not replaced (give the name of a regular file or a new one)`, 2);
}

/** Whether `inner` is `outer` or lies inside it, symbolic links resolved (a missing tail is taken as written). */
export function isWithin(inner: string, outer: string): boolean {
  const relative = path.relative(resolveReal(outer), resolveReal(inner));
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** `p` with its longest existing prefix's links resolved. */
function resolveReal(p: string): string {
  const absolute = path.resolve(p);
  try {
    return fs.realpathSync(absolute);
  } catch {
    const parent = path.dirname(absolute);
    return parent === absolute ? absolute : path.join(resolveReal(parent), path.basename(absolute));
  }
}
