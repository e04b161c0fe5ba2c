import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EofdError } from '../../src/base/errors.js';
import { checkReplaceable, InputFileError, makeFolders, readInputFile } from '../../src/base/files.js';
import { writeFileAtomic } from '../../src/results/write.js';
import { readTrace } from '../../src/environments/trace.js';
import { runCli } from '../experiment/fixtures.js';
import { writeFixtureResults } from '../report/fixture.js';
import { thrownBy } from '../helpers/errors.js';

let root: string;
let fifo: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'eofd-files-'));
  fifo = path.join(root, 'pipe');
  execFileSync('mkfifo', [fifo]);
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('readInputFile: what it refuses', () => {
  it('a FIFO (without waiting for a writer), a device, a folder, a missing file', () => {
    expect(thrownBy(InputFileError, () => readInputFile(fifo, 100)).message).toBe('is not a regular file (a device, FIFO or socket); give a file');
    expect(thrownBy(InputFileError, () => readInputFile('/dev/zero', 100)).message).toBe('is not a regular file (a device, FIFO or socket); give a file');
    expect(thrownBy(InputFileError, () => readInputFile(root, 100)).message).toBe('is a folder, not a file');
    expect(thrownBy(InputFileError, () => readInputFile(path.join(root, 'none'), 100)).message).toBe('no such file');
  });

  it('a file over the limit, naming both sizes', () => {
    const file = path.join(root, 'big');
    fs.writeFileSync(file, Buffer.alloc(2 * 2 ** 20 + 1));
    expect(thrownBy(InputFileError, () => readInputFile(file, 2 * 2 ** 20)).message).toBe(`is ${2 * 2 ** 20 + 1} bytes, more than the 2 MiB allowed`);
  });
});

describe('readInputFile', () => {
  it('reads a regular file whole, also through a symbolic link, up to the limit exactly', () => {
    const file = path.join(root, 'ok');
    fs.writeFileSync(file, 'abc');
    fs.symlinkSync(file, path.join(root, 'link'));
    expect(readInputFile(file, 3).toString()).toBe('abc');
    expect(readInputFile(path.join(root, 'link'), 3).toString()).toBe('abc');
    fs.writeFileSync(path.join(root, 'empty'), '');
    expect(readInputFile(path.join(root, 'empty'), 3).length).toBe(0);
  });
});

describe('configs and traces read through it', () => {
  it('eofd run on a FIFO config is exit 2 at once', async () => {
    const result = await runCli(['run', fifo, '--out', path.join(root, 'out')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/cannot read the config: is not a regular file/);
  });

  it('a FIFO named as a trace or data file is refused when the config loads (exit 2), never opened', async () => {
    for (const environment of [`{type: trace, file: ${fifo}}`, `{type: classification, file: ${fifo}, format: csv, target: a}`]) {
      const config = path.join(root, 'fifo-input.yaml');
      fs.writeFileSync(config, `name: f\nenvironment: ${environment}\nhorizon: 5\ntrials: 1\npolicies: [Random]\n`);
      const result = await runCli(['run', config, '--out', path.join(root, 'out')]);
      expect(result.code, environment).toBe(2);
      expect(result.stderr, environment).toContain(`not a regular file: ${fifo}`);
    }
  });

  it('a trace that is not JSON is named by line and column, and none of its content is echoed', () => {
    const file = path.join(root, 'notes.txt');
    fs.writeFileSync(file, 'root:x:0:0:secret-token\n');
    let message = '';
    try {
      readTrace(file);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/: invalid JSON$/);
    expect(message).not.toMatch(/root|secret/);
    const later = path.join(root, 'later.json');
    fs.writeFileSync(later, '{\n  "K": 1,\n}');
    expect(() => readTrace(later)).toThrow(/invalid JSON at line 3, column 1$/);
  });
});

describe('makeFolders', () => {
  /** A read-only tmpfs mounted under `root`, or null where mounting is not allowed. */
  function readOnlyMount(): string | null {
    const dir = path.join(root, 'ro');
    fs.mkdirSync(dir, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir], { stdio: 'ignore' });
      return dir;
    } catch {
      return null;
    }
  }

  it('creates nested folders, and is quiet when they exist', () => {
    const dir = path.join(root, 'a', 'b', 'c');
    makeFolders(dir);
    makeFolders(dir);
    expect(fs.statSync(dir).isDirectory()).toBe(true);
  });

  it('names the real cause on a read-only file system (Node alone says ENOENT)', (context) => {
    const dir = readOnlyMount();
    if (dir === null) {
      context.skip('mounting a read-only tmpfs needs root');
      return;
    }
    try {
      expect(() => fs.mkdirSync(path.join(dir, 'x', 'y'), { recursive: true })).toThrow(/ENOENT/);
      expect(() => makeFolders(path.join(dir, 'x', 'y'))).toThrow(/EROFS/);
    } finally {
      execFileSync('umount', [dir]);
    }
  });
});

describe('checkReplaceable', () => {
  it('reliability: writes refuse special files and folders being read (a FIFO, a device, a link to either are not replaced by an atomic write)', () => {
    const link = path.join(root, 'to-null');
    fs.symlinkSync('/dev/null', link);
    const refused = (file: string): string => thrownBy(EofdError, () => writeFileAtomic(file, 'x\n')).message;
    expect(refused(fifo)).toBe(`${fifo}: is not a regular file (a device, FIFO or socket); not replaced (give the name of a regular file or a new one)`);
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
    expect(refused(link)).toBe(`${link}: is a symbolic link; not replaced (give the name of a regular file or a new one)`);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(thrownBy(EofdError, () => checkReplaceable('/dev/null')).exitCode).toBe(2);
    expect(() => checkReplaceable(path.join(root, 'missing.csv'))).not.toThrow();
    expect(fs.readdirSync(root).filter((name) => name.includes('.tmp-'))).toEqual([]);
  });

  it('reliability: writes refuse special files and folders being read (eofd export --force onto a FIFO is exit 2, the FIFO kept)', async () => {
    const results = writeFixtureResults(fs.mkdtempSync(path.join(root, 'results-')));
    const r = await runCli(['export', results, '--out', fifo, '--format', 'csv', '--force']);
    expect([r.code, r.stderr]).toEqual([2, `eofd export: ${fifo}: is not a regular file (a device, FIFO or socket); not replaced (give the name of a regular file or a new one)\n`]);
    expect(fs.statSync(fifo).isFIFO()).toBe(true);
  });
});

describe('results JSON read through it', () => {
  it('reliability: manifests are validated like configs (a FIFO as manifest.json is refused at once by status, report and export, never waited on)', async () => {
    const dir = path.join(root, 'fifo-experiment');
    fs.mkdirSync(dir);
    const manifest = path.join(dir, 'manifest.json');
    execFileSync('mkfifo', [manifest]);
    const message = `${manifest}: cannot read the manifest: is not a regular file (a device, FIFO or socket); give a file`;
    for (const [command, ...args] of [['status'], ['report', '--out', path.join(root, 'fifo-report')], ['export', '--out', path.join(root, 'fifo.csv')]]) {
      const r = await runCli([command as string, dir, ...args]);
      expect([r.code, r.stderr]).toEqual([2, `eofd ${command}: ${message}\n`]);
    }
  });
});
