/**
 * Both protocol eras behind the same API: a server that speaks only 2026-07-28 (built with the v2
 * SDK, `legacy: 'reject'`), a legacy server, and a legacy server that exits on any request before
 * `initialize` are all reached by `connect` and `callTool`; the era learnt at the first connect is
 * reused when the server comes back, without a second probe.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { rejectionOf, stdioFixture } from './support/fixtures.js';

const MODERN_SERVER = fileURLToPath(new URL('./fixtures/modern-server.mjs', import.meta.url));

let folder: string;
let manager: McpConnectionManager;
const children: ChildProcess[] = [];
beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'mcp-eras-'));
  manager = new McpConnectionManager({ logger: silentLogger });
});
afterEach(async () => {
  await manager.dispose();
  for (const child of children.splice(0)) child.kill('SIGKILL');
  rmSync(folder, { recursive: true, force: true });
});

function textOf(result: { content?: unknown }): string {
  return (result.content as Array<{ type: string; text?: string }>).map((part) => part.text ?? '').join('');
}

function probesIn(log: string): number {
  return readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
}

/** The modern server over Streamable HTTP on 127.0.0.1, on a port of its choosing. */
async function modernHttp(): Promise<string> {
  const child = spawn(process.execPath, [MODERN_SERVER, '--http'], { stdio: ['pipe', 'pipe', 'ignore'] });
  children.push(child);
  const port = await new Promise<number>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /listening (\d+)/.exec(seen);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the modern server exited with ${code}`)));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

describe('a server that speaks only 2026-07-28', () => {
  it('is reached over stdio: connect, list and call, on the modern era', async () => {
    const manifest = await manager.connect('modern', { command: process.execPath, args: [MODERN_SERVER] });
    expect(manifest.tools.map((tool) => tool.name)).toEqual(['echo', 'ask-name', 'list-roots', 'pid']);
    expect(textOf(await manager.callTool('modern', 'echo', { text: 'hello' }))).toBe('hello');
    expect(manager.getClient('modern')?.getProtocolEra()).toBe('modern');
    expect(manager.getClient('modern')?.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  });

  it('is reached over Streamable HTTP: connect, list and call, on the modern era', async () => {
    const manifest = await manager.connect('modern', { url: await modernHttp() });
    expect(manifest.tools.map((tool) => tool.name)).toEqual(['echo', 'ask-name', 'list-roots', 'pid']);
    expect(textOf(await manager.callTool('modern', 'echo', { text: 'over http' }))).toBe('over http');
    expect(manager.getClient('modern')?.getNegotiatedProtocolVersion()).toBe('2026-07-28');
  });

  it('after a kill -9, reconnects on the era it learnt: no second probe', async () => {
    const probeLog = join(folder, 'probes.log');
    writeFileSync(probeLog, '');
    const config = { command: process.execPath, args: [MODERN_SERVER, '--probe-log', probeLog] };
    await manager.connect('modern', config, { maxRetries: 0 });
    expect(probesIn(probeLog)).toBe(1);
    const pid = Number(textOf(await manager.callTool('modern', 'pid', {})));
    process.kill(pid, 'SIGKILL');
    await expect.poll(() => manager.getState('modern'), { timeout: 10_000 }).not.toBe('connected');
    await manager.disconnect('modern');

    await manager.connect('modern', config);
    expect(textOf(await manager.callTool('modern', 'echo', { text: 'back' }))).toBe('back');
    expect(Number(textOf(await manager.callTool('modern', 'pid', {})))).not.toBe(pid);
    expect(probesIn(probeLog)).toBe(1);
  });

  it("pinned to legacy by the entry's protocol field, it is refused as a config error", async () => {
    const error = await rejectionOf(manager.connect('modern', { command: process.execPath, args: [MODERN_SERVER], protocol: 'legacy' }));
    expect(error).toMatchObject({ code: 'CONFIG_ERROR', server: 'modern' });
    expect(error.message).toMatch(/-32022/);
  });
});

describe('legacy servers', () => {
  it('a legacy server is reached on the initialize era', async () => {
    await manager.connect('legacy', stdioFixture());
    expect(textOf(await manager.callTool('legacy', 'echo', { text: 'old' }))).toBe('old');
    expect(manager.getClient('legacy')?.getProtocolEra()).toBe('legacy');
  });

  it('a server that exits on any request before initialize survives the probe: it ran on a sibling process', async () => {
    await manager.connect('strict', stdioFixture('--mode', 'exit-before-initialize'), { maxRetries: 0 });
    expect(textOf(await manager.callTool('strict', 'echo', { text: 'still here' }))).toBe('still here');
    expect(manager.getClient('strict')?.getProtocolEra()).toBe('legacy');
  });
});
