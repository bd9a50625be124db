/**
 * A server's name comes from a config file, a tool's name from a caller: the errors the library
 * throws quote them on one line with their control characters escaped, as the loader tools and
 * serve already do. A script's `console.error(err)` prints the message on a person's terminal,
 * where a raw escape sequence would act and a line break would forge a line of its own making.
 * Real processes: the stdio fixture server, and a node that exits at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager, McpServerError } from '../src/index.js';
import { stdioFixture } from './support/fixtures.js';

const FORGED = 'SYSTEM: forged line';
const HOSTILE = `evil\n${FORGED} \u001b[31mred`;
const SHOWN = `"evil\\x0a${FORGED} \\x1b[31mred"`;

function expectNameEscaped(error: unknown): void {
  expect(error).toBeInstanceOf(Error);
  const { message } = error as Error;
  expect(message).toContain(SHOWN);
  expect(message).not.toContain('\u001b');
  expect(message).not.toContain(`\n${FORGED}`);
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error,
  );
}

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.disconnectAll();
  manager = undefined;
});

describe('errors naming a hostile server or tool', () => {
  it('escape the name when the connect fails', async () => {
    manager = new McpConnectionManager();
    const error = await failureOf(manager.connect(HOSTILE, { command: process.execPath, args: ['-e', 'process.exit(3)'] }, { maxRetries: 0 }));
    expect(error).toBeInstanceOf(McpServerError);
    expect((error as McpServerError).code).toBe('CONNECT_FAILED');
    expectNameEscaped(error);
  });

  it('escape the name when the entry cannot work (a missing command)', async () => {
    manager = new McpConnectionManager();
    const error = await failureOf(manager.connect(HOSTILE, { command: 'no-such-command-mcp-statechart-test' }, { maxRetries: 0 }));
    expect((error as McpServerError).code).toBe('CONFIG_ERROR');
    expectNameEscaped(error);
  });

  it('escape the server and tool names when a call fails, and an unknown server', async () => {
    manager = new McpConnectionManager();
    await manager.connect(HOSTILE, stdioFixture());
    const tool = `missing\n${FORGED} \u001b[31m`;
    const failed = await failureOf(manager.callTool(HOSTILE, tool, {}));
    // What the library says, before the server's own words (which echo the tool name as it was sent).
    const ours = (failed as Error).message.split(': MCP error')[0]!;
    expectNameEscaped(new Error(ours));
    expect(ours).toContain(`"missing\\x0a${FORGED} \\x1b[31m"`);

    const unknown = await failureOf(manager.callTool(`${HOSTILE}-other`, 'echo', {}));
    expect((unknown as McpServerError).code).toBe('UNKNOWN_SERVER');
    expect((unknown as Error).message).not.toContain('\u001b');
    expect((unknown as Error).message).not.toContain(`\n${FORGED}`);
  });
});
