/**
 * The errors a library user is given (McpServerError) carry what a server sent — its JSON-RPC
 * error message, the last lines of its stderr — with control and bidi characters escaped, as the
 * CLI and the view print them: printed or logged as it is, such an error clears no screen and
 * reverses no text.
 */
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, McpServerError, silentLogger } from '../src/index.js';
import { rejectionOf } from './support/fixtures.js';

const HOSTILE_SERVER = fileURLToPath(new URL('./fixtures/hostile-text-server.mjs', import.meta.url));
/** Every character the escaping shows as `\xHH` / `\u{HHHH}`; line feed and tab stay. */
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const managers: McpConnectionManager[] = [];
afterEach(async () => {
  for (const manager of managers.splice(0)) await manager.dispose();
});

function manager(): McpConnectionManager {
  const created = new McpConnectionManager({ logger: silentLogger });
  managers.push(created);
  return created;
}

describe("a library error built from a server's text", () => {
  it('a server that exits at start: the message and the stderr tail show its escapes escaped', async () => {
    const error = await rejectionOf(manager().connect('dies', { command: process.execPath, args: [HOSTILE_SERVER, '--exit-at-start'] }));
    expect(error).toBeInstanceOf(McpServerError);
    const { message, stderrTail } = error as McpServerError;
    expect(`${message}\n${stderrTail}`).toContain('starting \\x1b[2J');
    expect(`${message}\n${stderrTail}`).toContain('\\u{202e}right to left');
    expect(message).not.toMatch(RAW_CONTROL);
    expect(stderrTail ?? '').not.toMatch(RAW_CONTROL);
  });

  it("a server's JSON-RPC error message shows its escapes escaped", async () => {
    const mcp = manager();
    await mcp.connect('hostile', { command: process.execPath, args: [HOSTILE_SERVER, '--json-rpc-errors'] });
    const error = await rejectionOf(mcp.callTool('hostile', 'echo'));
    expect(error).toBeInstanceOf(McpServerError);
    const { message } = error as McpServerError;
    expect(message).toContain('refused \\x1b[2J');
    expect(message).toContain('\\u{202e}right to left');
    expect(message).not.toMatch(RAW_CONTROL);
  });

  it("a server's JSON-RPC error printed as console.error prints it, its cause included, shows the escapes escaped; the cause keeps its class and code", async () => {
    const mcp = manager();
    await mcp.connect('hostile', { command: process.execPath, args: [HOSTILE_SERVER, '--json-rpc-errors'] });
    const error = (await rejectionOf(mcp.callTool('hostile', 'echo'))) as McpServerError;
    const printed = inspect(error);
    expect(printed).toContain('[cause]');
    expect(printed).toContain('refused \\x1b[2J');
    expect(printed).not.toMatch(RAW_CONTROL);
    expect(error.cause).toBeInstanceOf(ProtocolError);
    expect(error.cause).toMatchObject({ code: ProtocolErrorCode.InternalError });
  });
});
