/** The unit files' writer: what clearUnit removes. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unitFiles } from '../../src/results/layout.js';
import { clearUnit } from '../../src/results/write.js';
import { tempDir } from '../experiment/fixtures.js';

const root = tempDir('eofd-write-');
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('clearUnit', () => {
  it("removes a unit's partial CSV, summary, CSV and the temporary files of a writer stopped mid-write, nothing else", () => {
    const files = unitFiles(root, 'EOFD-MLogB', 0);
    fs.mkdirSync(files.folder, { recursive: true });
    const written = [files.partial, files.summary, files.csv, `${files.summary}.tmp-${process.pid}`, `${files.csv}.tmp-${process.pid}`];
    const other = path.join(files.folder, 'trial-1.csv');
    for (const file of [...written, other]) fs.writeFileSync(file, 'x');
    clearUnit(files);
    expect(written.filter((file) => fs.existsSync(file))).toEqual([]);
    expect(fs.existsSync(other)).toBe(true);
  });
});
