/** The real process streams and how the CLI names itself (a child process where the streams must be real). */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invocation } from '../../src/cli/io.js';
import { BIN, REPO, tempDir } from '../experiment/fixtures.js';

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

describe('standard output that cannot be written', () => {
  it.skipIf(!fs.existsSync('/dev/full'))('a full disk fails the command: exit 1 and one line on stderr', () => {
    const fd = fs.openSync('/dev/full', 'w');
    try {
      const child = spawnSync(process.execPath, [BIN, 'list', '--json'], { cwd: REPO, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8' });
      expect(child.status).toBe(1);
      expect(child.stderr).toBe('eofd: cannot write the output: no space left on the device (ENOSPC)\n');
    } finally {
      fs.closeSync(fd);
    }
  });

  it('a reader that stops early (EPIPE) ends the output quietly with exit 0', () => {
    // bash: PIPESTATUS[0] is eofd's own exit status, not head's.
    const child = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" run --help | head -c 1 >/dev/null; exit \${PIPESTATUS[0]}`], { cwd: REPO, encoding: 'utf8' });
    expect(child.stderr).toBe('');
    expect(child.status).toBe(0);
  });
});
