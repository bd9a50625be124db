/**
 * SIGHUP (the terminal or SSH session `serve` was started from went away) stops `serve` the way
 * SIGTERM and SIGINT do, instead of killing it where it stands: `serve --http` drains, so the call
 * in flight is answered, and both exit 0 after closing their servers. Real processes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI_COMMAND } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe } from './support/http-serve.js';

let home: string;
let config: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-hangup-'));
  config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fx: stdioFixture() } }));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

const textOf = (result: { content?: unknown }) => (result.content as { text?: string }[] | undefined)?.[0]?.text ?? '';

describe('serve on SIGHUP', () => {
  it('serve --http drains: the call in flight is answered, and it exits 0', async () => {
    const replica = await startHttpServe(home, ['--config', config], ['--approve', 'never']);
    try {
      const host = new Client({ name: 'host', version: '1.0.0' });
      await host.connect(new StreamableHTTPClientTransport(new URL(replica.url)));
      await host.callTool({ name: 'load_mcp', arguments: { server: 'fx' } });
      const slow = host.callTool({ name: 'call_mcp_tool', arguments: { server: 'fx', tool: 'slow', arguments: { ms: 2_000 } } });
      for (let wait = 0; wait < 100; wait++) {
        const { inFlight } = (await (await fetch(`${replica.origin}/healthz`)).json()) as { inFlight: number };
        if (inFlight >= 1) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      replica.child.kill('SIGHUP');
      const finished = await slow;
      expect(finished.isError).toBeFalsy();
      expect(textOf(finished)).toBe('done after 2000 ms');
      expect(await replica.exited).toBe(0);
      await host.close().catch(() => {});
    } finally {
      await replica.stop('SIGKILL');
    }
  }, 90_000);

  it('stdio serve stops as on SIGTERM and exits 0', async () => {
    const child = spawn(CLI_COMMAND.command, [...CLI_COMMAND.args, '--config', config, '--verbose', 'serve'], {
      cwd: home,
      env: { HOME: home, PATH: process.env.PATH ?? '' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.once('exit', (code, signal) => done({ code, signal })));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    try {
      child.stdout.resume();
      await new Promise<void>((started) => {
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('over stdio')) started();
        });
      });
      child.kill('SIGHUP');
      expect(await ended).toEqual({ code: 0, signal: null });
    } finally {
      clearTimeout(timer);
      child.kill('SIGKILL');
    }
  }, 90_000);
});
