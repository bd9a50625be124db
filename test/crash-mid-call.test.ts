/**
 * A stdio server whose process exits while a call is in flight: the call's CONNECTION_LOST says
 * how it exited (its code) and carries the server's stderr tail, redacted, and `call` prints that
 * tail as it does for a failed connect. Real processes: the stdio fixture, whose `crash` tool
 * writes to stderr and exits with the code given.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { runCli } from './support/cli.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';

const SECRET = 'crash-canary-token-5e1f0a';

/** A server that prints its token to stderr at start, and whose `crash` exits with code 3. */
function crashingServer() {
  return { ...stdioFixture('--crash-code', '3', '--print-env', 'API_TOKEN'), env: { API_TOKEN: SECRET } };
}

describe('a stdio server that exits with a code mid-call', () => {
  it("fails the call as CONNECTION_LOST naming the exit code, with the server's stderr tail, redacted", async () => {
    const manager = new McpConnectionManager({ logger: silentLogger, defaults: { autoReconnect: false } });
    try {
      await manager.connect('crashy', crashingServer());
      const error = (await rejectionOf(manager.callTool('crashy', 'crash', {}))) as Error & { code?: string; stderrTail?: string };
      expect(error.code).toBe('CONNECTION_LOST');
      expect(error.message).toMatch(/the connection was lost while it was in flight\. It was not retried\. \(its process exited with code 3\)$/);
      expect(error.stderrTail).toContain('crashing on purpose');
      expect(error.stderrTail).toContain('API_TOKEN=[redacted]');
      expect(error.stderrTail).not.toContain(SECRET);
      expect(manager.getError('crashy')?.message).toBe('The connection to MCP server "crashy" was lost: its process exited with code 3');
    } finally {
      await manager.dispose();
    }
  }, 30_000);

  it('`call` prints the exit code and the stderr tail, with no secret', async () => {
    const home = process.env.HOME!;
    const config = join(home, 'crash.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { crashy: crashingServer() } }));
    const run = await runCli(['--config', config, 'call', 'crashy', 'crash'], { cwd: home, env: { HOME: home }, timeoutMs: 45_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^Error: Request to MCP server "crashy" failed: the connection was lost while it was in flight\. It was not retried\. \(its process exited with code 3\)\n/);
    expect(run.stderr).toMatch(/\nLast lines the server wrote to stderr:\n(  .*\n)*  API_TOKEN=\[redacted\]\n(  .*\n)*  crashing on purpose\n/);
    expect(run.stderr).toContain('Hint: the request may or may not have taken effect; run the command again (it reconnects)');
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  }, 60_000);
});
