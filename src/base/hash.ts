/** Content hashes of files (results that resume and report trust, inputs a run read). */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** Bytes read per chunk: a file is never held whole. */
const CHUNK_BYTES = 1 << 20;

/** Size and SHA-256 (hex) of a file's bytes, read in chunks; throws the file system's error. */
export function fileDigest(file: string): { bytes: number; sha256: string } {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const fd = fs.openSync(file, 'r');
  let bytes = 0;
  try {
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
      bytes += n;
    }
  } finally {
    fs.closeSync(fd);
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** SHA-256 (hex) of bytes in memory. */
export function bytesSha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** SHA-256 of a file's bytes, hex. */
export function fileSha256(file: string): string {
  return fileDigest(file).sha256;
}
