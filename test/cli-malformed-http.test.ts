/**
 * A server that is listening but answers with something that is not valid HTTP (here a header
 * with a control character, as a hostile or broken server or proxy may send): the CLI says its
 * answer is not valid HTTP, and not "nothing is listening … is the server running?", which would
 * send the user to start a server that runs. Real sockets on 127.0.0.1.
 */
import { createServer, type Server } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';

let home: string;
let config: string;
let server: Server;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-malformed-http-'));
  config = join(home, 'mcp.json');
  server = createServer((socket) => {
    socket.once('data', () => socket.end('HTTP/1.1 401 Unauthorized\r\nwww-authenticate: Bearer scope="read\x01\x1b[2J"\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  writeFileSync(config, JSON.stringify({ mcpServers: { garbled: { type: 'http', url: `http://127.0.0.1:${address.port}/mcp` } } }));
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(home, { recursive: true, force: true });
});

describe('a server whose answer is not valid HTTP', () => {
  it('is said to answer with something that is not HTTP, not to be missing', async () => {
    const run = await runCli(['--config', config, 'load', 'garbled'], { cwd: home, env: { HOME: home }, timeoutMs: 30_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).not.toContain('nothing is listening');
    expect(run.stderr).toContain('Hint: something answers at http://127.0.0.1:');
    expect(run.stderr).toContain('but not with valid HTTP (Response does not match the HTTP/1.1 protocol (Invalid header value char))');
    // The server's bytes are not echoed to the terminal.
    expect(run.stderr).not.toContain('\x1b[2J');
  }, 40_000);
});
