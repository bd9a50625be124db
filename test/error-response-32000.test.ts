/**
 * A JSON-RPC error response with code -32000 (a common "server error" code) is a failed
 * request, not a lost connection: only the SDK's own "Connection closed", raised when the
 * transport closes, means the connection is gone. Real processes: the hostile fixture answers
 * the tool `fail` with code -32000.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/index.js';
import { silentLogger } from '../src/logger.js';
import { descendantsAfter, textOf } from './support/chaos-helpers.js';
import { descendantsOfThisProcess, rejectionOf } from './support/fixtures.js';
import { hostileServer } from './support/hostile.js';

const managers: McpConnectionManager[] = [];

afterEach(async () => {
  await Promise.all(managers.splice(0).map((each) => each.dispose()));
  expect(await descendantsAfter()).toEqual([]);
});

describe('a -32000 error response', () => {
  it('fails that call only: the server stays connected, the same process, other calls unaffected', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    await manager.connect('busy', hostileServer());
    const [process] = descendantsOfThisProcess();
    const events: string[] = [];
    manager.on('mcp.stateChanged', (event) => events.push(event.state));

    const calls = await Promise.allSettled([
      manager.callTool('busy', 'fail', {}),
      ...Array.from({ length: 5 }, (_, n) => manager.callTool('busy', 'echo', { text: `call ${n}` })),
      manager.callTool('busy', 'fail', {}),
      manager.callTool('busy', 'fail', {}),
      manager.callTool('busy', 'fail', {}),
    ]);

    const failures = calls.filter((outcome) => outcome.status === 'rejected').map((outcome) => outcome.reason as Error);
    expect(failures).toHaveLength(4);
    for (const failure of failures) {
      expect(failure).toMatchObject({ code: 'REQUEST_FAILED', server: 'busy' });
      expect(failure.message).toMatch(/MCP server "busy" failed calling tool "fail": MCP error -32000: the database is busy/);
    }
    const answers = calls.filter((outcome) => outcome.status === 'fulfilled').map((outcome) => textOf(outcome.value));
    expect(answers).toEqual(['call 0', 'call 1', 'call 2', 'call 3', 'call 4']);
    expect(manager.getState('busy')).toBe('connected');
    expect(events).toEqual([]);
    expect(descendantsOfThisProcess()).toEqual([process]);
  });

  it('while a closed transport still counts as a lost connection', async () => {
    const manager = new McpConnectionManager({ logger: silentLogger });
    managers.push(manager);
    await manager.connect('huge', hostileServer('--huge', '11'), { autoReconnect: false });
    const error = await rejectionOf(manager.callTool('huge', 'huge', {}));
    expect(error).toMatchObject({ code: 'CONNECTION_LOST', server: 'huge' });
  });
});
