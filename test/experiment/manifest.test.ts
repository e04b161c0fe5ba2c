import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { gitCommit } from '../../src/experiment/manifest.js';
import { REPO } from './fixtures.js';

describe('gitCommit', () => {
  it("is the package folder's checked-out commit (null outside a git checkout)", () => {
    let head: string | null = null;
    try {
      head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      // Not a git checkout (an unpacked tarball): the manifest records null.
    }
    expect(gitCommit()).toBe(head);
  });
});
