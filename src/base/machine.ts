/**
 * What the machine can give a run: the smallest of available memory, a container's limit and
 * `ulimit -v`. Read before anything large is allocated: by sizing.ts for a run's units, and by
 * setup.ts for the one environment copy a config's resolution builds.
 */
import fs from 'node:fs';
import os from 'node:os';

/** What a unit needs beyond its arrays: Node, its heap and the worker thread (measured ~60–100 MB). */
export const UNIT_OVERHEAD_BYTES = 128 * 2 ** 20;

/** What the machine can give a run, in bytes, and where the limit comes from. */
export interface MachineMemory {
  bytes: number;
  source: string;
}

const GB = 1e9;
/** Bytes as people read them (two decimals below 10 GB). */
export const gb = (bytes: number): string => `${(bytes / GB).toFixed(bytes < 10 * GB ? 2 : 1)} GB`;

/** The smallest of available memory (os.freemem), a cgroup limit and `ulimit -v` (Linux /proc). */
export function machineMemory(): MachineMemory {
  let limit: MachineMemory = { bytes: os.freemem(), source: 'available memory' };
  const constrained = typeof process.constrainedMemory === 'function' ? process.constrainedMemory() : 0;
  if (constrained > 0 && constrained < limit.bytes) limit = { bytes: constrained, source: "the container's memory limit" };
  try {
    const line = fs.readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max address space'));
    const value = line === undefined ? NaN : Number(line.split(/\s{2,}/)[1]);
    if (Number.isFinite(value) && value < limit.bytes) limit = { bytes: value, source: 'the address-space limit (ulimit -v)' };
  } catch {
    // No /proc (not Linux): the other limits stand.
  }
  return limit;
}
