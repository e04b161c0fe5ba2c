/** Content hashes of files (results that resume and report trust, inputs a run read). */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** Bytes read per chunk: a file is never held whole. */
const CHUNK_BYTES = 1 << 20;

/** SHA-256 of a file's bytes, hex. */
export function fileSha256(file: string): string {
  const hash = createHash('sha256');
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  const fd = fs.openSync(file, 'r');
  try {
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
    }
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex');
}
