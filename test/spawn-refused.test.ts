/**
 * A stdio server whose process cannot be started at all, because this process has run out of
 * file descriptors (a container's `ulimit -n`, many servers at once): the failure names that,
 * not an exit code the server never had. Real processes; the limit is lowered on this test
 * process itself with util-linux `prlimit`, and raised back before anything is asserted.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { descendantsOfThisProcess, rejectionOf, stdioFixture } from './support/fixtures.js';

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.dispose()));
  expect(descendantsOfThisProcess()).toEqual([]);
});

function openFileLimit(): string {
  return execFileSync('prlimit', ['--pid', String(process.pid), '--nofile', '--output=SOFT,HARD', '--noheadings', '--raw'], { encoding: 'utf8' }).trim();
}

function setSoftOpenFileLimit(soft: string): void {
  execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${soft}:`], { stdio: 'ignore' });
}

describe('a stdio server started when no file descriptor is left', () => {
  it('fails its connect with EMFILE (too many open files), not "its process exited at start with code -24"', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    const [soft] = openFileLimit().split(/\s+/);
    // Held while the limit is down, then closed: room for prlimit's own spawn to raise it again.
    const spare = Array.from({ length: 8 }, () => openSync('/dev/null', 'r'));
    setSoftOpenFileLimit(String(readdirSync('/proc/self/fd').length));
    let error: Error & { code?: string };
    try {
      error = await rejectionOf(manager.connect('crowded', stdioFixture(), { autoReconnect: false }));
    } finally {
      for (const fd of spare) closeSync(fd);
      setSoftOpenFileLimit(soft ?? 'unlimited');
    }
    expect(openFileLimit().split(/\s+/)[0]).toBe(soft);
    expect(error).toMatchObject({ code: 'CONNECT_FAILED', server: 'crowded' });
    expect(error.message).toMatch(/^Could not connect to MCP server "crowded": spawn .* EMFILE\. This process has too many open files: raise its limit \(ulimit -n\) or use fewer servers at once\.$/);
    expect(error.message).not.toMatch(/exited at start/);
  });
});
