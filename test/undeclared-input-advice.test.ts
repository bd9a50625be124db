/**
 * A 2026-07-28 server that asks for input the request never declared (test/fixtures/asks-undeclared.mjs:
 * the v2 server SDK refuses that itself with -32021, a server written another way may not): the
 * call fails as a -32021 refusal does, naming the option to give (README, "a 2026-07-28 server that
 * needs input no handler here answers"), and the command line gives its hint. The SDK's own words
 * ("…register a handler, or handle input_required results manually") speak to the SDK's user and
 * do not reach ours.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import type { McpServerConfig } from '../machines/types.js';
import { runCli } from './support/cli.js';
import { rejectionOf } from './support/fixtures.js';

const ASKS_UNDECLARED = fileURLToPath(new URL('./fixtures/asks-undeclared.mjs', import.meta.url));
const asker = (kind: string): McpServerConfig => ({ command: process.execPath, args: [ASKS_UNDECLARED, '--kind', kind] });

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

describe('a call whose server asks for input the client never declared', () => {
  it.each([
    ['elicitation', 'elicitation/create', 'handlers.elicitation'],
    ['sampling', 'sampling/createMessage', 'handlers.sampling'],
    ['roots', 'roots/list', 'handlers.roots (or call setRoots() before connecting)'],
  ])('asking for %s, fails naming the input asked and the option to give', async (kind, method, option) => {
    manager = new McpConnectionManager({ logger: silentLogger });
    await manager.connect('asker', asker(kind));
    const error = await rejectionOf(manager.callTool('asker', 'ask', {}));
    expect(error).toMatchObject({ code: 'REQUEST_FAILED', server: 'asker' });
    expect(error.message).toContain(`the server asked for input (${method}) that this client did not declare`);
    expect(error.message).toContain(`give ${option} in the options of McpConnectionManager (or createRegistryLogic)`);
    expect(error.message).not.toContain('register a handler');
  });

  it("on the command line, says what the person can do, as for a server's -32021", async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-undeclared-'));
    try {
      const config = join(home, 'mcp.json');
      writeFileSync(config, JSON.stringify({ mcpServers: { asker: asker('elicitation') } }));
      const run = await runCli(['--config', config, 'call', 'asker', 'ask', '{}'], { env: { HOME: home }, timeoutMs: 30_000 });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('the server asked for input (elicitation/create) that this client did not declare');
      expect(run.stderr).toContain('Hint: the command line answers no forms, sampling or roots requests: call the tool from an MCP host through `mcp-statechart serve`');
      expect(run.stderr).not.toMatch(/register a handler|Fulfilling input required/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
