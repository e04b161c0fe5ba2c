/** The unit files' writer: what clearUnit removes. */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { unitFiles } from '../../src/results/layout.js';
import { isWithin } from '../../src/base/files.js';
import { clearUnit, writeFileAtomic } from '../../src/results/write.js';
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

describe('writeFileAtomic', () => {
  it('reliability: writes refuse special files and folders being read (only a regular file is replaced; a link, a folder are named and left as they are)', () => {
    const dir = tempDir('eofd-write-');
    try {
      const target = path.join(dir, 'target.csv');
      fs.writeFileSync(target, 'mine\n');
      const link = path.join(dir, 'link.csv');
      fs.symlinkSync(target, link);
      expect(() => writeFileAtomic(link, 'new\n')).toThrow(`${link}: is a symbolic link; not replaced (give the name of a regular file or a new one)`);
      expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
      expect(fs.readFileSync(target, 'utf8')).toBe('mine\n');
      const folder = path.join(dir, 'folder');
      fs.mkdirSync(folder);
      expect(() => writeFileAtomic(folder, 'new\n')).toThrow(`${folder}: is a folder; not replaced`);
      expect(fs.statSync(folder).isDirectory()).toBe(true);
      // A regular file, or none, is written; no temporary file is left.
      writeFileAtomic(target, 'new\n');
      writeFileAtomic(path.join(dir, 'fresh.csv'), 'fresh\n');
      expect(fs.readFileSync(target, 'utf8')).toBe('new\n');
      expect(fs.readdirSync(dir).sort()).toEqual(['folder', 'fresh.csv', 'link.csv', 'target.csv']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('isWithin: a path inside a folder, the folder itself, through a symbolic link; not a sibling with the same prefix', () => {
    const dir = tempDir('eofd-within-');
    try {
      fs.mkdirSync(path.join(dir, 'a'));
      fs.symlinkSync(path.join(dir, 'a'), path.join(dir, 'via'));
      expect(isWithin(path.join(dir, 'a', 'x', 'new.csv'), path.join(dir, 'a'))).toBe(true);
      expect(isWithin(path.join(dir, 'a'), path.join(dir, 'a'))).toBe(true);
      expect(isWithin(path.join(dir, 'via', 'new.csv'), path.join(dir, 'a'))).toBe(true);
      expect(isWithin(path.join(dir, 'ab', 'new.csv'), path.join(dir, 'a'))).toBe(false);
      expect(isWithin(path.join(dir, 'new.csv'), path.join(dir, 'a'))).toBe(false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
