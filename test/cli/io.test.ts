import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invocation } from '../../src/cli/io.js';
import { BIN, tempDir } from '../experiment/fixtures.js';

let root: string;
beforeAll(() => {
  root = tempDir('eofd-io-');
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

function binFolder(relative: string, target: string): string {
  const dir = path.join(root, relative);
  fs.mkdirSync(dir, { recursive: true });
  fs.symlinkSync(target, path.join(dir, 'eofd'));
  return dir;
}

describe('invocation: bad arguments', () => {
  it('no PATH, an empty PATH or a PATH of missing folders: npx eofd', () => {
    expect(invocation({})).toBe('npx eofd');
    expect(invocation({ PATH: '' })).toBe('npx eofd');
    expect(invocation({ PATH: [path.join(root, 'missing'), ''].join(path.delimiter) })).toBe('npx eofd');
  });
});

describe('invocation', () => {
  it('eofd when an eofd on PATH is this program, npx eofd for another eofd or one only npx puts on PATH', () => {
    const other = binFolder('other', path.join(root, 'elsewhere.js'));
    const global = binFolder('global/bin', BIN);
    const npx = binFolder('project/node_modules/.bin', BIN);
    expect(invocation({ PATH: [other, global].join(path.delimiter) })).toBe('eofd');
    expect(invocation({ PATH: other })).toBe('npx eofd');
    expect(invocation({ PATH: npx })).toBe('npx eofd');
  });
});
