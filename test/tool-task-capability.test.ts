import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectionManager } from '../src/manager.js';
import { silentLogger } from '../src/logger.js';
import { rejectionOf } from './support/fixtures.js';

let manager: McpConnectionManager | undefined;
afterEach(async () => {
  await manager?.dispose();
  manager = undefined;
});

/** A server that lists a task-only tool but declares no tasks capability, and counts tools/call. */
function inconsistentServer() {
  const calls = { count: 0 };
  const transportFactory = () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const server = new Server({ name: 'inconsistent', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({
      tools: [{ name: 'research', inputSchema: { type: 'object' as const }, execution: { taskSupport: 'required' as const } }],
    }));
    server.setRequestHandler(CallToolRequestSchema, async () => {
      calls.count += 1;
      return new Promise(() => {});
    });
    void server.connect(serverSide);
    return clientSide;
  };
  return { transportFactory, calls };
}

describe('a task-only tool on a server without the tasks capability', () => {
  it('is refused at once with an error that names the server, the tool and the missing capability; nothing is sent', async () => {
    const { transportFactory, calls } = inconsistentServer();
    manager = new McpConnectionManager({ logger: silentLogger, transportFactory });
    await manager.connect('odd', { command: 'unused' });
    const error = await rejectionOf(manager.callTool('odd', 'research', {}));
    expect(error.message).toMatch(/"odd"/);
    expect(error.message).toMatch(/"research"/);
    expect(error.message).toMatch(/does not declare the tasks capability/);
    expect(calls.count).toBe(0);
    expect(manager.getState('odd')).toBe('connected');
  });
});
