/** The real process streams (a child process where the streams must be real); how the CLI names itself: hint.test.ts. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BIN, REPO } from '../experiment/fixtures.js';

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
