/**
 * createLoaderTools as plain JavaScript, or code moved from LangChain's MultiServerMCPClient, calls
 * it: a key it does not read is refused with a TypeError saying where that setting goes. Before, it
 * was ignored (a misspelt `permission` left every server allowed) or `{ mcpServers }` ended in
 * "Cannot convert undefined or null to object".
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createLoaderTools, McpConnectionManager, silentLogger } from '../src/index.js';

const manager = new McpConnectionManager({ logger: silentLogger, taskJournal: false });
afterEach(() => manager.disconnectAll());
/** createLoaderTools without its types, as JavaScript calls it. */
const create = (options: object) => createLoaderTools({ manager, ...options } as unknown as Parameters<typeof createLoaderTools>[0]);
const notes = { command: 'node', args: ['notes.mjs'] };

describe('createLoaderTools(options)', () => {
  it.each([
    ['the mcpServers of LangChain\'s MultiServerMCPClient', { mcpServers: { notes } }, 'createLoaderTools: the servers go in "servers" ({ manager, servers: mcpServers }); "mcpServers" would be ignored.'],
    [
      'a misspelt permissions, whose deny list would not apply',
      { servers: { notes }, permission: { mcps: { deny: ['notes'] } } },
      'createLoaderTools: "permission" is not an option (it would be ignored). The options are: approvalPolicy, approveToolCall, exposure, manager, manifestIndex, permissions, resultBudget, search, servers, serversNotice, skippedServers, unaskedReason.',
    ],
    ['no servers', {}, 'createLoaderTools: "servers" must be an object of server definitions by name (discoverMcpServers()\'s servers, or a config file\'s mcpServers object), not undefined.'],
  ])('refuses %s, saying what to write', (_, options, message) => {
    expect(() => create(options)).toThrow(new TypeError(message));
    expect(manager.serverNames).toEqual([]);
  });

  it('takes its documented options, given or left undefined', () => {
    const tools = create({ servers: { notes }, permissions: { mcps: { deny: ['notes'] } }, manifestIndex: false, exposure: undefined });
    expect(tools.map((tool) => tool.name)).toContain('load_mcp');
  });
});
