/**
 * The identity of an environment's input file (a trace, a data set): its size and SHA-256, read in
 * fixed-size chunks (a large file is never held whole). The manifest records one per file the
 * environment declares (EnvironmentDescriptor.inputFiles), and `--resume` refuses a changed one.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';

/** One input file as the manifest records it. */
export interface InputFileIdentity {
  /** Absolute path. */
  file: string;
  /** Size in bytes. */
  bytes: number;
  /** SHA-256 of the bytes, lowercase hex. */
  sha256: string;
}

/** Bytes read per call while hashing. */
const CHUNK_BYTES = 1 << 20;

/** Size and SHA-256 of `file`; throws the file-system error when it cannot be read. */
export function fileIdentity(file: string): InputFileIdentity {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const fd = openSync(file, 'r');
  let bytes = 0;
  try {
    for (;;) {
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null);
      if (read === 0) break;
      hash.update(chunk.subarray(0, read));
      bytes += read;
    }
  } finally {
    closeSync(fd);
  }
  return { file, bytes, sha256: hash.digest('hex') };
}

/**
 * The first input file of `previous` whose identity `current` does not share (a changed, added or
 * removed file), as one line; null when they are the same.
 */
export function changedInput(previous: readonly InputFileIdentity[], current: readonly InputFileIdentity[]): string | null {
  for (const now of current) {
    const was = previous.find((p) => p.file === now.file);
    if (was === undefined) return `${now.file} was not an input of that run`;
    if (was.sha256 !== now.sha256 || was.bytes !== now.bytes) {
      return `${now.file} changed since that run (${was.bytes} bytes, SHA-256 ${was.sha256.slice(0, 12)}… then; ${now.bytes} bytes, SHA-256 ${now.sha256.slice(0, 12)}… now)`;
    }
  }
  const gone = previous.find((p) => !current.some((c) => c.file === p.file));
  return gone === undefined ? null : `${gone.file} was an input of that run and is not one now`;
}
