/**
 * `serve --http`: the loader over Streamable HTTP at /mcp for both protocol eras, with nothing
 * shared between replicas. A host on the v2 client pinned to 2026-07-28 and a host on the v1
 * client (2025 `initialize`) load server-everything and call its tools; a legacy host's
 * Mcp-Session-Id is its sealed session, which a second replica with the same key file resumes
 * and one with another key refuses (404: start a new session). Loopback by default, another
 * address only with inbound auth; Host and Origin checked; bodies bounded. Real processes.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { everythingStdio, textOf } from './support/everything.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';

let home: string;
let config: string;
let keyFile: string;
let replicaA: HttpServe;
let replicaB: HttpServe;

const key = () => randomBytes(32).toString('base64');

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-http-'));
  config = join(home, 'mcp.json');
  keyFile = join(home, 'session-keys.txt');
  writeFileSync(config, JSON.stringify({ mcpServers: { everything: everythingStdio() } }));
  writeFileSync(keyFile, `${key()}\n`);
  [replicaA, replicaB] = await Promise.all([
    startHttpServe(home, ['--config', config], ['--session-key-file', keyFile]),
    startHttpServe(home, ['--config', config], ['--session-key-file', keyFile]),
  ]);
}, 90_000);

afterAll(async () => {
  await Promise.all([replicaA?.stop(), replicaB?.stop()]);
  rmSync(home, { recursive: true, force: true });
}, 60_000);

const echoCall = (message: string) => ({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'echo', arguments: { message } } });

async function modernHost(url: string) {
  const client = new ModernClient({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

async function legacyHost(url: string, sessionId?: string) {
  const transport = new LegacyHttpTransport(new URL(url), sessionId === undefined ? {} : { sessionId });
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' });
  if (sessionId === undefined) await client.connect(transport);
  return { client, transport };
}

/** A raw POST of `body` with these headers; resolves with the status and the body text. */
function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    // A server may answer before it has read the whole body, and close: the answer counts, not the failed write after it.
    let answered = false;
    req.on('response', () => (answered = true));
    req.on('error', (error) => (answered ? undefined : reject(error)));
    req.end(body);
  });
}

describe('serve --http speaks both protocol eras at /mcp', () => {
  it('gives a 2026-07-28 host the loader tools, and its calls reach server-everything', async () => {
    const host = await modernHost(replicaA.url);
    try {
      expect(host.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await host.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['load_mcp', 'call_mcp_tool', 'read_mcp_resource']));
      const loaded = await host.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
      expect(textOf(loaded)).toContain('echo');
      expect(textOf(await host.callTool(echoCall('modern hello')))).toBe('Echo: modern hello');
    } finally {
      await host.close();
    }
  }, 60_000);

  it('gives a 2025-era host a sealed Mcp-Session-Id and the same tools', async () => {
    const { client, transport } = await legacyHost(replicaA.url);
    try {
      expect(transport.sessionId).toMatch(/^v1\./);
      await client.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
      expect(textOf(await client.callTool(echoCall('legacy hello')))).toBe('Echo: legacy hello');
      const resources = await client.listResources();
      expect(resources.resources.some((resource) => resource.uri.startsWith('mcp-statechart://everything/'))).toBe(true);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('lets another replica with the same key file resume a 2025-era session, with no store between them', async () => {
    const first = await legacyHost(replicaA.url);
    const sessionId = first.transport.sessionId as string;
    const onB = await legacyHost(replicaB.url, sessionId);
    try {
      await onB.client.connect(onB.transport);
      expect(onB.transport.sessionId).toBe(sessionId);
      expect(textOf(await onB.client.callTool(echoCall('resumed')))).toContain('Echo: resumed');
    } finally {
      await Promise.all([first.client.close(), onB.client.close()]);
    }
  }, 60_000);

  it('answers 404 (start a new session) to a session id sealed with a key this replica does not have', async () => {
    const otherKeys = join(home, 'other-keys.txt');
    writeFileSync(otherKeys, `${key()}\n`);
    const stranger = await startHttpServe(home, ['--config', config], ['--session-key-file', otherKeys]);
    try {
      const { transport } = await legacyHost(replicaA.url);
      const answer = await post(stranger.url, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }), {
        'mcp-session-id': transport.sessionId as string,
        'mcp-protocol-version': '2025-11-25',
      });
      expect(answer.status).toBe(404);
      expect(answer.text).toContain('Session not found');
      await transport.close();
    } finally {
      await stranger.stop();
    }
  }, 90_000);
});

describe('serve --http is closed to what it should not serve', () => {
  it('refuses to listen on another address than loopback without a gateway file', async () => {
    const run = await runCli(['--config', config, 'serve', '--http', '0.0.0.0:0'], { env: { HOME: home }, timeoutMs: 60_000 });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('without inbound auth');
  }, 70_000);

  it('refuses a Host that is not loopback (DNS rebinding) and a web page of another site (Origin)', async () => {
    const list = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    const rebound = await post(replicaA.url, list, { host: 'attacker.example' });
    expect(rebound.status).toBe(403);
    const page = await post(replicaA.url, list, { origin: 'https://attacker.example' });
    expect(page.status).toBe(403);
    const local = await post(replicaA.url, list, { origin: replicaA.origin });
    expect(local.status).toBe(200);
  }, 30_000);

  it('refuses a body over the message limit with 413 before reading it all', async () => {
    const huge = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(11 * 1024 * 1024)}"}}`;
    const answer = await post(replicaA.url, huge);
    expect(answer.status).toBe(413);
  }, 30_000);

  it('answers 404 outside /mcp and the health paths', async () => {
    const answer = await fetch(`${replicaA.origin}/elsewhere`);
    expect(answer.status).toBe(404);
  });
});

describe('serve --http in operation: health, readiness, draining on SIGTERM', () => {
  it('answers /healthz with the servers by state and the requests in flight, and nothing of their definitions', async () => {
    const secretHome = mkdtempSync(join(tmpdir(), 'mcp-serve-http-health-'));
    const secretConfig = join(secretHome, 'mcp.json');
    writeFileSync(secretConfig, JSON.stringify({ mcpServers: { everything: { ...everythingStdio(), env: { API_TOKEN: 'health-canary-61d0' } } } }));
    const replica = await startHttpServe(secretHome, ['--config', secretConfig]);
    try {
      const host = await modernHost(replica.url);
      await host.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
      await host.close();
      const answer = await fetch(`${replica.origin}/healthz`);
      const text = await answer.text();
      expect(answer.status).toBe(200);
      expect(JSON.parse(text)).toEqual(expect.objectContaining({ status: 'ok', servers: { connected: ['everything'] }, inFlight: 0, draining: false }));
      expect(text).not.toContain('health-canary-61d0');
    } finally {
      await replica.stop();
      rmSync(secretHome, { recursive: true, force: true });
    }
  }, 90_000);

  it('on SIGTERM fails /readyz, lets the call in flight finish, and exits 0', async () => {
    const replica = await startHttpServe(home, ['--config', config]);
    const host = await modernHost(replica.url);
    await host.callTool({ name: 'load_mcp', arguments: { server: 'everything' } });
    expect((await fetch(`${replica.origin}/readyz`)).status).toBe(200);
    const slow = host.callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 4, steps: 2 } } });
    // Signalled only once the call is being served.
    for (let wait = 0; wait < 100; wait++) {
      const { inFlight } = (await (await fetch(`${replica.origin}/healthz`)).json()) as { inFlight: number };
      if (inFlight >= 1) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    replica.child.kill('SIGTERM');
    let readiness = 200;
    for (let wait = 0; wait < 40 && readiness === 200; wait++) {
      readiness = (await fetch(`${replica.origin}/readyz`)).status;
      if (readiness === 200) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(readiness).toBe(503);
    const finished = await slow;
    expect(finished.isError).toBeFalsy();
    expect(textOf(finished)).toContain('Long running operation completed');
    expect(await replica.exited).toBe(0);
    await host.close().catch(() => {});
  }, 90_000);
});
