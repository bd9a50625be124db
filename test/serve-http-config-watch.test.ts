/**
 * `serve --http` follows the MCP config while it runs, as stdio serve does: a server removed from
 * the file leaves load_mcp's list for the next requests; a server added is held until a person
 * approves it (`mcp-statechart approve`), then it is listed and loads. A call in flight when the
 * file changes finishes as it started. Real processes: serve --http, server-everything, the stdio
 * fixture.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { discoverMcpServers } from '../src/config/index.js';
import { approveServers } from '../src/config/project-trust.js';
import { everythingStdio } from './support/everything.js';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';

let home: string;
let config: string;
let serve: HttpServe;

const writeConfig = (servers: Record<string, unknown>) => writeFileSync(config, JSON.stringify({ mcpServers: servers }));

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-http-config-'));
  config = join(home, 'mcp.json');
  writeConfig({ everything: everythingStdio(), gone: stdioFixture('--name', 'gone') });
  serve = await startHttpServe(home, ['--config', config]);
}, 90_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(home, { recursive: true, force: true });
}, 60_000);

async function modernHost() {
  const client = new ModernClient({ name: 'modern-host', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(serve.url)));
  return client;
}

/** load_mcp's server enum as a new request sees it. */
async function loadEnum(client: ModernClient): Promise<string[]> {
  const { tools } = await client.listTools();
  const load = tools.find((tool) => tool.name === 'load_mcp')!;
  return ((load.inputSchema.properties as Record<string, { enum?: string[] }>).server?.enum ?? []).slice().sort();
}

/** What a person running `mcp-statechart approve <name>` on a terminal records, for serve's home. */
async function approveAsPerson(name: string) {
  const { servers } = await discoverMcpServers({ configPaths: [config], env: {} });
  await approveServers(
    { approvalsPath: join(home, '.ai-zen', 'mcp-approvals.json'), approvalKeyPath: join(home, '.local', 'state', 'mcp-statechart', 'approval-key') },
    [servers[name]!],
  );
}

const slow = { timeout: 30_000, interval: 200 };

describe('serve --http follows its MCP config', () => {
  it('a removed server leaves the list, an added one is listed once approved, and a call in flight is unaffected', async () => {
    const host = await modernHost();
    try {
      expect(await loadEnum(host)).toEqual(['everything', 'gone']);
      expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'everything' } })).isError).toBeFalsy();
      let settled = false;
      const inFlight = host
        .callTool({ name: 'call_mcp_tool', arguments: { server: 'everything', tool: 'trigger-long-running-operation', arguments: { duration: 8, steps: 4 } } }, { timeout: 60_000 })
        .finally(() => (settled = true));

      writeConfig({ everything: everythingStdio(), added: { ...stdioFixture('--name', 'added'), description: 'added while serving' } });
      await vi.waitFor(() => expect(serve.stderr()).toMatch(/server "added" is off: its entry appeared/), slow);
      expect(await loadEnum(host)).toEqual(['everything']);
      expect(settled).toBe(false);

      await approveAsPerson('added');
      await vi.waitFor(async () => expect(await loadEnum(host)).toEqual(['added', 'everything']), slow);
      expect((await host.callTool({ name: 'load_mcp', arguments: { server: 'added' } })).isError).toBeFalsy();

      const result = await inFlight;
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toMatch(/Long running operation completed/);
    } finally {
      await host.close();
    }
  }, 90_000);
});
