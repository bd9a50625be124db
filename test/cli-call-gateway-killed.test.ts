/**
 * `mcp-statechart call` through an http entry whose gateway (`serve --http`) is killed mid-call:
 * the person reads one clear account of what happened — the call's error — not the transport's
 * warnings before it (a bare "fetch failed", the SSE stream's disconnect, a failed reconnect).
 * Real processes: serve --http with the stdio fixture's `slow` tool, and the CLI.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';

let home: string | undefined;
let serve: HttpServe | undefined;

afterEach(async () => {
  await serve?.stop('SIGKILL');
  if (home) rmSync(home, { recursive: true, force: true });
  home = serve = undefined;
});

/** Waits, bounded, until serve has the CLI's call in flight beside the stream on which the CLI follows the gateway's list changes. */
async function untilInFlight(origin: string): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const health = (await (await fetch(`${origin}/healthz`, { signal: AbortSignal.timeout(5_000) })).json()) as { inFlight: number };
    if (health.inFlight >= 2) return;
    if (Date.now() > until) throw new Error('serve never had a call in flight');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('prints the call error alone, no transport warnings, when the gateway dies mid-call', async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-cli-gateway-killed-'));
  writeFileSync(join(home, 'gateway.json'), JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
  serve = await startHttpServe(home, ['--config', join(home, 'gateway.json')]);
  // The replica's servers are its own: a host loads the fixture there, the CLI's call then runs on it.
  const host = new Client({ name: 'loading-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await host.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
  expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'fixture' } })).isError).toBeFalsy();
  await host.close();
  writeFileSync(join(home, 'mcp.json'), JSON.stringify({ mcpServers: { gateway: { type: 'http', url: serve.url } } }));

  const call = runCli(
    ['--config', join(home, 'mcp.json'), 'call', 'gateway', 'call_mcp_tool', JSON.stringify({ server: 'fixture', tool: 'slow', arguments: { ms: 30_000 } })],
    { cwd: home, env: { HOME: home }, timeoutMs: 60_000 },
  );
  await untilInFlight(serve.origin);
  serve.child.kill('SIGKILL');
  const run = await call;

  expect(run.code, run.stderr).not.toBe(0);
  expect(run.code, run.stderr).not.toBeNull();
  expect(run.stderr).toMatch(/^Error: Request to MCP server "gateway" failed: the connection was lost/);
  expect(run.stderr, run.stderr).not.toMatch(/\[warn\]/);
}, 90_000);
