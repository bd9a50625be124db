/**
 * This project's own client reaches this project's own `serve`, over stdio and over HTTP (a team
 * gateway one host adds as a server): it connects, loads a server through the loader tools, and
 * sees that server's resource templates under serve's names, which read through serve. serve
 * declares `resources`, so a client lists templates too; it used to answer that "method not
 * found", and the connect failed. Real processes: serve (stdio and --http) over the stdio fixture.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../src/index.js';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { CLI_COMMAND } from './support/cli.js';
import { stdioFixture } from './support/fixtures.js';
import { startHttpServe, type HttpServe } from './support/http-serve.js';

let home: string | undefined;
let serve: HttpServe | undefined;
let manager: McpConnectionManager | undefined;

afterEach(async () => {
  await manager?.dispose();
  await serve?.stop('SIGKILL');
  if (home) rmSync(home, { recursive: true, force: true });
  home = serve = manager = undefined;
});

function homeWithFixture(): { home: string; config: string } {
  home = mkdtempSync(join(tmpdir(), 'mcp-serve-own-client-'));
  const config = join(home, 'mcp.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { fixture: stdioFixture() } }));
  return { home, config };
}

const gateways: Record<string, () => Promise<McpServerConfig>> = {
  'serve over stdio': async () => {
    const { home, config } = homeWithFixture();
    return { command: CLI_COMMAND.command, args: [...CLI_COMMAND.args, '--config', config, 'serve'], env: { HOME: home } };
  },
  'serve --http': async () => {
    const { home, config } = homeWithFixture();
    serve = await startHttpServe(home, ['--config', config]);
    return { url: `${serve.origin}/mcp` };
  },
};

describe.each(Object.keys(gateways))('our client through %s', (gateway) => {
  it('connects, loads a server, and reads a resource from its template under serve’s name', async () => {
    manager = new McpConnectionManager({ logger: silentLogger, defaults: { autoReconnect: false } });
    const connected = await manager.connect('team', await gateways[gateway]!());
    expect(connected.tools.map(({ name }) => name)).toContain('load_mcp');

    await manager.callTool('team', 'load_mcp', { server: 'fixture' });
    // serve says its lists changed once the fixture has loaded; the client lists them again.
    const template = 'mcp-statechart://fixture/fixture://items/{id}';
    await expect.poll(() => manager!.getManifest('team')?.resourceTemplates.map(({ uriTemplate }) => uriTemplate), { timeout: 15_000 }).toContain(template);

    const read = await manager.readResource('team', 'mcp-statechart://fixture/fixture://items/7');
    expect(read.contents).toEqual([expect.objectContaining({ uri: 'mcp-statechart://fixture/fixture://items/7', text: 'item 7' })]);
  }, 60_000);
});
