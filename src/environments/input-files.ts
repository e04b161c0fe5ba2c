/**
 * The identity of an environment's input file (a trace, a data set): its size and SHA-256, read in
 * chunks (base/hash.ts: a large file is never held whole). The manifest records one per file the
 * environment declares (EnvironmentDescriptor.inputFiles), and `--resume` refuses a changed one.
 */
import { fileDigest } from '../base/hash.js';

/** One input file as the manifest records it. */
export interface InputFileIdentity {
  /** Absolute path. */
  file: string;
  /** Size in bytes. */
  bytes: number;
  /** SHA-256 of the bytes, lowercase hex. */
  sha256: string;
}

/** Size and SHA-256 of `file`; throws the file-system error when it cannot be read. */
export function fileIdentity(file: string): InputFileIdentity {
  return { file, ...fileDigest(file) };
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
