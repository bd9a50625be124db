/**
 * A `serve --http` killed (SIGKILL) while a call runs: the host's call fails at once, with the
 * transport's error, for a host of either era, instead of waiting for its request timeout. The
 * SDK's 2025-era leg opens its SSE answer before the tool has run; had serve sent that 200 at
 * once, the kill would cut a stream the SDK clients do not fail their request on (the flake of
 * test/gateway-haproxy.test.ts: "Request timed out" after 60 s). Real processes: serve --http,
 * the stdio fixture's `slow` tool, a 2026-07-28 host and a 2025-era host.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as LegacyHttpTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';

/** Far longer than the wait below: a call still pending when it ends was not failed by the kill. */
const REQUEST_TIMEOUT_MS = 60_000;
const slowCall = { name: 'call_mcp_tool', arguments: { server: 'fixture', tool: 'slow', arguments: { ms: 30_000 } } };

let home: string | undefined;
let serve: HttpServe | undefined;
const opened: Array<{ close(): Promise<void> }> = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.close().catch(() => undefined)));
  await serve?.stop('SIGKILL');
  if (home) rmSync(home, { recursive: true, force: true });
  home = serve = undefined;
});

async function startServe(): Promise<HttpServe> {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-killed-'));
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
  serve = await startHttpServe(home, ['--config', join(home, 'mcp.json')]);
  return serve;
}

/** Waits, bounded, until serve has `count` calls in flight. */
async function untilInFlight(origin: string, count: number): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const health = (await (await fetch(`${origin}/healthz`)).json()) as { inFlight: number };
    if (health.inFlight >= count) return;
    if (Date.now() > until) throw new Error(`serve never had ${count} calls in flight`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What became of `call` within `ms`: its error's message, 'answered', or 'still waiting'. */
async function settledWithin(call: Promise<unknown>, ms: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const waiting = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('still waiting'), ms);
  });
  const outcome = call.then(
    () => 'answered',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
  try {
    return await Promise.race([outcome, waiting]);
  } finally {
    clearTimeout(timer);
  }
}

describe('serve --http killed with SIGKILL while a call runs', () => {
  it("fails the 2025-era host's call at once with the transport's error, not after its request timeout", async () => {
    const { url, origin } = await startServe();
    const transport = new LegacyHttpTransport(new URL(url));
    const client = new LegacyClient({ name: 'legacy-host', version: '1.0.0' });
    opened.push(client);
    await client.connect(transport);
    expect((await client.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } })).isError).toBeFalsy();

    const call = client.callTool(slowCall, undefined, { timeout: REQUEST_TIMEOUT_MS });
    await untilInFlight(origin, 1);
    serve?.child.kill('SIGKILL');
    const outcome = await settledWithin(call, 15_000);
    expect(outcome).not.toBe('still waiting');
    expect(outcome).toMatch(/fetch failed|terminated|socket|ECONNRESET|other side closed/i);
  }, 90_000);

  it("fails the 2026-07-28 host's call at once with the transport's error, not after its request timeout", async () => {
    const { url, origin } = await startServe();
    const client = new ModernClient({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    opened.push(client);
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect((await client.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } })).isError).toBeFalsy();

    const call = client.callTool(slowCall, { timeout: REQUEST_TIMEOUT_MS });
    await untilInFlight(origin, 1);
    serve?.child.kill('SIGKILL');
    const outcome = await settledWithin(call, 15_000);
    expect(outcome).not.toBe('still waiting');
    expect(outcome).toMatch(/fetch failed|terminated|socket|ECONNRESET|other side closed/i);
  }, 90_000);
});
