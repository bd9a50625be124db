/**
 * `serve --http`: a host that abandons a call cancels it on the server behind the gateway, which
 * then serves the next call. server-everything runs behind a relay that records what it receives,
 * and its long-running operation is what is abandoned.
 * - A 2026-07-28 host (v2 client, pinned) cancels by closing the call's request stream; a 2025 host
 *   (v1 client) POSTs `notifications/cancelled`, which reaches the replica in a request of its own
 *   and must find the call in flight there (not a fresh server instance that never heard of it).
 * - Through HAProxy as docs/deploy/haproxy.cfg configures it (one replica behind every address), a
 *   2026-07-28 host's closed stream reaches the replica at once even while the call sends nothing
 *   (no progress): without `option abortonclose` HAProxy keeps the replica's side open until the
 *   next write, and a silent call runs to its end.
 * Real processes: serve --http on 127.0.0.1, server-everything, Debian's haproxy.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingConfigHome, receivedByServer, textOf } from './support/everything.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';
import { freePort } from '../bench/lib/free-port.js';

const HAPROXY_CONFIG = fileURLToPath(new URL('../docs/deploy/haproxy.cfg', import.meta.url));
const HAPROXY = spawnSync('sh', ['-c', 'command -v haproxy'], { encoding: 'utf8' }).stdout.trim();
if (!HAPROXY) console.warn('serve-http-cancel: the HAProxy case is skipped, the haproxy binary is not installed (apt-get install haproxy; .ci/run does)');

let setup: ReturnType<typeof everythingConfigHome>;
let gateway: HttpServe;
let haproxy: ChildProcess | undefined;
let balancedUrl: string;

beforeAll(async () => {
  setup = everythingConfigHome('mcp-serve-http-cancel-');
  const [front, calls, health] = await Promise.all([freePort(), freePort(), freePort()]);
  gateway = await startHttpServe(setup.home, ['--config', setup.config], ['--health', `127.0.0.1:${health}`], { listen: `127.0.0.1:${calls}` });
  if (!HAPROXY) return;
  const replica = { address: `127.0.0.1:${calls}`, health: String(health) };
  haproxy = spawn(HAPROXY, ['-db', '-f', HAPROXY_CONFIG], {
    env: {
      PATH: process.env.PATH ?? '',
      MCP_GATEWAY_BIND: `127.0.0.1:${front}`,
      ...Object.fromEntries([1, 2, 3].flatMap((n) => [[`MCP_REPLICA_${n}`, replica.address], [`MCP_REPLICA_${n}_HEALTH_PORT`, replica.health]])),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  haproxy.stderr?.resume();
  balancedUrl = `http://127.0.0.1:${front}/mcp`;
  const until = Date.now() + 30_000;
  while ((await fetch(`http://127.0.0.1:${front}/readyz`).catch(() => undefined))?.status !== 200) {
    if (Date.now() > until) throw new Error('HAProxy did not take the replica in within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}, 90_000);

afterAll(async () => {
  haproxy?.kill('SIGTERM');
  await gateway?.stop();
  setup?.remove();
}, 60_000);

interface CallParams {
  name: string;
  arguments: Record<string, unknown>;
}

const received = (method: string) => receivedByServer(setup.received).filter((line) => line.startsWith(method)).length;
const load: CallParams = { name: 'load_mcp', arguments: { server: 'everything' } };
const longOperation = (args: { duration: number; steps: number }): CallParams => ({
  name: 'call_mcp_tool',
  arguments: { server: 'everything', tool: 'trigger-long-running-operation', arguments: args },
});
const echo: CallParams = { name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'echo', arguments: { message: 'after cancel' } } };

interface Host {
  call(params: CallParams, options?: { signal?: AbortSignal; onprogress?: () => void }): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

async function modernHost(url: string): Promise<Host> {
  const client = new ModernClient({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { call: (params, options) => client.callTool(params, { ...options, timeout: 60_000 }) as Promise<Record<string, unknown>>, close: () => client.close() };
}

async function legacyHost(url: string): Promise<Host> {
  const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' });
  await client.connect(new LegacyHttpTransport(new URL(url)));
  return { call: (params, options) => client.callTool(params, undefined, { ...options, timeout: 60_000 }) as Promise<Record<string, unknown>>, close: () => client.close() };
}

/** Starts the long operation through `host`, abandons it once `started` resolves, and expects server-everything to hear the cancel within 5 s. */
async function abandon(host: Host, operation: CallParams, started: (progressed: Promise<void>) => Promise<void>): Promise<void> {
  expect(textOf(await host.call(load))).toContain('everything');
  const cancelsBefore = received('notifications/cancelled');
  const controller = new AbortController();
  let progressed: () => void = () => {};
  const firstProgress = new Promise<void>((resolve) => (progressed = resolve));
  const call = host.call(operation, { signal: controller.signal, onprogress: () => progressed() });
  await started(firstProgress);
  controller.abort();
  await expect(call).rejects.toThrow();
  await expect.poll(() => received('notifications/cancelled'), { timeout: 5_000 }).toBe(cancelsBefore + 1);
  expect(textOf(await host.call(echo))).toContain('after cancel');
}

describe.each([
  { era: 'a 2026-07-28 host', start: modernHost },
  { era: 'a 2025 host', start: legacyHost },
])('serve --http, $era abandoning a call', ({ start }) => {
  it('cancels the call on the server behind the gateway, which then serves the next call', async () => {
    const host = await start(gateway.url);
    try {
      await abandon(host, longOperation({ duration: 20, steps: 40 }), (progressed) => progressed);
    } finally {
      await host.close();
    }
  }, 60_000);
});

describe.skipIf(!HAPROXY)('serve --http behind HAProxy (docs/deploy/haproxy.cfg), a 2026-07-28 host abandoning a silent call', () => {
  it('reaches the server at once, not when the call next writes', async () => {
    const host = await modernHost(balancedUrl);
    try {
      // One step in 30 s: no progress until it ends, so nothing is written that would find the host gone.
      const callsBefore = received('tools/call');
      await abandon(host, longOperation({ duration: 30, steps: 1 }), () =>
        expect.poll(() => received('tools/call'), { timeout: 10_000 }).toBe(callsBefore + 1).then(() => undefined),
      );
    } finally {
      await host.close();
    }
  }, 60_000);
});
