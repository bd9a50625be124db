/**
 * `serve` ends when its host connection ends, however it ends: the host closing stdin, or the
 * SDK's stdio transport closing itself after a message over 10 MiB (it then stops reading
 * stdin, so serve must notice the close). It logs why on stderr, disconnects every server it
 * started and exits, non-zero when the connection broke. Real processes: the CLI and the
 * fixture server.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { descendantsAfter } from './support/chaos-helpers.js';
import { CLI_COMMAND } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';

let home: string;
let config: string;
beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-end-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

/** `serve` as a host runs it, spoken to line by line; `answer(id)` waits for the response with that id. */
function startServe() {
  const child: ChildProcessWithoutNullStreams = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, '--config', config, 'serve'], {
    env: { HOME: home, PATH: process.env.PATH ?? '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // serve may exit before it has read a large write: the broken pipe is expected.
  child.stdin.on('error', () => {});
  const exited = new Promise<{ code: number | null; at: number }>((done) => child.on('exit', (code) => done({ code, at: Date.now() })));
  const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  const answer = async (id: number) => {
    for (let wait = 0; wait < 600; wait++) {
      const line = stdout.split('\n').find((candidate) => candidate.includes(`"id":${id}`));
      if (line) return JSON.parse(line);
      await new Promise((done) => setTimeout(done, 50));
    }
    throw new Error(`no answer to request ${id}; stderr: ${stderr}`);
  };
  return { child, exited, send, answer, stderr: () => stderr };
}

/** Initializes and loads the fixture, so serve has a child process to end. */
async function withLoadedServer(serve: ReturnType<typeof startServe>) {
  serve.send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'host', version: '1' } } });
  await serve.answer(1);
  serve.send({ method: 'notifications/initialized' });
  serve.send({ id: 2, method: 'tools/call', params: { name: 'load_mcp', arguments: { server: 'fixture' } } });
  expect((await serve.answer(2)).result.isError).toBeFalsy();
}

describe('mcp-statechart serve', () => {
  it('fed an 11 MB request, exits non-zero within 5 s with the reason on stderr and no child left', async () => {
    const serve = startServe();
    await withLoadedServer(serve);
    const sent = Date.now();
    serve.child.stdin.write(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"${'x'.repeat(11 * 1024 * 1024)}"}}\n`);
    const { code, at } = await serve.exited;

    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(at - sent).toBeLessThan(5_000);
    expect(serve.stderr()).toMatch(/serve stops: the host sent a message over 10 MiB, so the stdio transport closed/);
    expect(await descendantsAfter()).toEqual([]);
  }, 30_000);

  it('ends within 5 s when the host closes stdin, with a server connected, exit code 0 and no child left', async () => {
    const serve = startServe();
    await withLoadedServer(serve);
    const closed = Date.now();
    serve.child.stdin.end();
    const { code, at } = await serve.exited;

    expect(code).toBe(0);
    expect(at - closed).toBeLessThan(5_000);
    expect(serve.stderr()).not.toMatch(/serve stops/);
    expect(await descendantsAfter()).toEqual([]);
  }, 30_000);
});
