/** The checkpoint file and the --checkpoint interval (src/experiment/checkpoint.ts); the runs that use them: test/cli/checkpoint.test.ts. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RunError } from '../../src/base/errors.js';
import { checkpointBytes, parseCheckpointEvery, readCheckpoint } from '../../src/experiment/checkpoint.js';
import { tempDir } from './fixtures.js';

const root = tempDir('eofd-checkpoint-file-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('parseCheckpointEvery', () => {
  it('reads off, rounds and times', () => {
    expect(parseCheckpointEvery('off')).toBeNull();
    expect(parseCheckpointEvery('5000')).toEqual({ rounds: 5000 });
    expect(parseCheckpointEvery('90s')).toEqual({ ms: 90_000 });
    expect(parseCheckpointEvery('10m')).toEqual({ ms: 600_000 });
    expect(parseCheckpointEvery('1.5h')).toEqual({ ms: 5_400_000 });
  });

  it.each(['0', '-3', '0.5s', '10x', '', 'm', '1e3'])('refuses %j with exit 2, naming the option', (text) => {
    expect(() => parseCheckpointEvery(text)).toThrow(RunError);
    expect(() => parseCheckpointEvery(text)).toThrow(/^--checkpoint .*: expected off, a number of rounds/);
  });
});

describe('readCheckpoint', () => {
  const header = { policy: 'EOFD-MLogB', trial: 2, rounds: 40, csv: { bytes: 1234, rows: 40, sha256: 'ab'.repeat(32) } };
  const snapshot = Uint8Array.from([1, 2, 3, 4, 5]);
  const write = (name: string, bytes: Uint8Array): string => {
    const file = path.join(root, name);
    fs.writeFileSync(file, bytes);
    return file;
  };

  it('gives back the header and the snapshot it was written with', () => {
    const file = write('good.checkpoint', checkpointBytes(header, snapshot));
    const read = readCheckpoint(file, 'EOFD-MLogB', 2);
    expect(read.header).toEqual({ format: 1, ...header });
    expect(Array.from(read.snapshot)).toEqual([1, 2, 3, 4, 5]);
  });

  it("refuses another unit's checkpoint, a cut one, another format and one whose rounds and rows disagree", () => {
    const file = write('unit.checkpoint', checkpointBytes(header, snapshot));
    expect(() => readCheckpoint(file, 'EOFD-MLogB', 3)).toThrow(/is the checkpoint of EOFD-MLogB, trial 2, not of EOFD-MLogB, trial 3/);
    expect(() => readCheckpoint(file, 'OFUL-MLogB', 2)).toThrow(/not of OFUL-MLogB, trial 2/);
    const bytes = checkpointBytes(header, snapshot);
    expect(() => readCheckpoint(write('cut.checkpoint', bytes.subarray(0, 30)), 'EOFD-MLogB', 2)).toThrow(/cut short/);
    expect(() => readCheckpoint(write('text.checkpoint', new TextEncoder().encode('hello, world')), 'EOFD-MLogB', 2)).toThrow(/is not a checkpoint/);
    const other = Buffer.from(checkpointBytes(header, snapshot)).toString('latin1').replace('"format":1', '"format":7');
    expect(() => readCheckpoint(write('format.checkpoint', Buffer.from(other, 'latin1')), 'EOFD-MLogB', 2)).toThrow(/checkpoint format 7/);
    const disagree = checkpointBytes({ ...header, csv: { ...header.csv, rows: 39 } }, snapshot);
    expect(() => readCheckpoint(write('rows.checkpoint', disagree), 'EOFD-MLogB', 2)).toThrow(/does not describe a checkpoint/);
  });
});
