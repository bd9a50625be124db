/**
 * The manager's constructor as plain JavaScript, or code moved from LangChain's MultiServerMCPClient,
 * calls it: a key it does not read is refused with a TypeError saying where that setting goes.
 * Before, it was ignored: `new McpConnectionManager({ mcpServers })` made a manager with no servers,
 * and the first `connect('notes')` said the server was unknown.
 */
import { describe, expect, it } from 'vitest';
import { McpConnectionManager, silentLogger } from '../src/index.js';

/** The constructor without its types, as JavaScript calls it. */
const construct = (options: unknown) => new McpConnectionManager(options as ConstructorParameters<typeof McpConnectionManager>[0]);
const notes = { command: 'node', args: ['notes.mjs'] };

describe('new McpConnectionManager(options)', () => {
  it.each([
    ['the mcpServers of LangChain\'s MultiServerMCPClient', { mcpServers: { notes } }, /^new McpConnectionManager: the servers are not a constructor option \("mcpServers" would be ignored\): create the manager, then pass them by name to manager\.configure\(servers\)/],
    ['servers beside a real option', { logger: silentLogger, servers: { notes } }, /^new McpConnectionManager: the servers are not a constructor option \("servers" would be ignored\)/],
    ['a connect option at the top', { idleTimeoutMs: 60_000 }, /^new McpConnectionManager: "idleTimeoutMs" is a connect option: put it inside defaults \(\{ defaults: \{ idleTimeoutMs: … \} \}\)/],
    ['a key it has no option for', { reconnect: { enabled: true } }, /^new McpConnectionManager: "reconnect" is not an option \(it would be ignored\)\. The options are: clientFactory, clientInfo, clock, defaults, handlers, /],
  ])('refuses %s, saying where it goes', (_, options, message) => {
    expect(() => construct(options)).toThrow(TypeError);
    expect(() => construct(options)).toThrow(message);
  });

  it('takes its documented options, given or left undefined', async () => {
    const manager = construct({ logger: silentLogger, defaults: { autoReconnect: false }, route: undefined, taskJournal: false, oauth: false });
    expect(manager.serverNames).toEqual([]);
    await manager.dispose();
  });
});
