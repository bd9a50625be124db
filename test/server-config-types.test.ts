/**
 * A server definition written in code is checked by the compiler: a misspelt or unknown field, a
 * value of the wrong type, or an entry with neither `command` nor `url` does not compile, at every
 * entry point that takes one. What a config file holds is checked at run time instead, and keeps
 * the fields other tools add. Each `@ts-expect-error` below fails `npm run typecheck` (tsconfig.json
 * includes test/) if the line it marks ever compiles.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createLoaderTools,
  discoverMcpServers,
  enabledServers,
  McpConnectionManager,
  silentLogger,
  type LoaderServers,
  type McpRegistryInput,
  type McpServerConfig,
  type RegistryInput,
} from 'mcp-statechart';
import type { McpHttpServerConfig, McpServerEntry, McpStdioServerConfig } from 'mcp-statechart/machines';

/** What `connect`, `configure`, the registry's input and events and the loader tools take, as written in a call. */
const connecting = (config: NonNullable<Parameters<McpConnectionManager['connect']>[1]>) => config;
const configuring = (servers: Parameters<McpConnectionManager['configure']>[0]) => servers;
const registryInput = (input: RegistryInput) => input;
const registryEvent = (event: McpRegistryInput) => event;
const loaderServers = (servers: LoaderServers) => servers;

describe('a server definition written in code', () => {
  it('is a stdio entry or an http entry, each with the fields every entry shares', () => {
    expectTypeOf<McpServerConfig>().toEqualTypeOf<McpStdioServerConfig | McpHttpServerConfig>();
    connecting({ command: 'npx', args: ['-y', 'server'], env: { LEVEL: 'info' }, cwd: '/srv', type: 'stdio', description: 'd', disabled: false });
    connecting({ url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${TOKEN}' }, type: 'sse', oauth: { clientId: 'id', scopes: ['read'] } });
    connecting({ url: 'https://example.com/mcp', transport: 'streamable-http', timeoutMs: 5_000, sampling: false, elicitation: false, protocol: 'modern' });
    configuring({ notes: { command: 'notes-server' }, weather: { url: 'https://example.com/mcp', oauth: false } });
    registryInput({ servers: { notes: { command: 'notes-server' } } });
    registryEvent({ type: 'mcp.configure', servers: { weather: { url: 'https://example.com/mcp' } }, mode: 'merge' });
  });

  it('refuses a misspelt field at every entry point', () => {
    // @ts-expect-error `comand` is not a field: `command`
    connecting({ comand: 'npx', args: ['x'] });
    // @ts-expect-error `arg` is not a field: `args`
    connecting({ command: 'npx', arg: ['x'] });
    // @ts-expect-error `header` is not a field: `headers`
    configuring({ weather: { url: 'https://example.com/mcp', header: { Authorization: 'Bearer x' } } });
    // @ts-expect-error `timeout` is not a field: `timeoutMs`
    registryInput({ servers: { notes: { command: 'notes-server', timeout: 5_000 } } });
    // @ts-expect-error `disable` is not a field: `disabled`
    registryEvent({ type: 'mcp.configure', servers: { notes: { command: 'notes-server', disable: true } } });
    // @ts-expect-error `descripton` is not a field: `description`
    loaderServers({ notes: { command: 'notes-server', descripton: 'Notes' } });
    // @ts-expect-error `clientID` is not an OAuth field: `clientId`
    connecting({ url: 'https://example.com/mcp', oauth: { clientID: 'id' } });
  });

  it('refuses a value of the wrong type', () => {
    // @ts-expect-error `args` is a list of strings
    connecting({ command: 'npx', args: '-y server' });
    // @ts-expect-error `timeoutMs` is a number of milliseconds
    configuring({ notes: { command: 'notes-server', timeoutMs: '5s' } });
    // @ts-expect-error `type` is a transport this entry can use
    connecting({ url: 'https://example.com/mcp', type: 'websocket' });
    // @ts-expect-error `protocol` is auto, modern or legacy
    connecting({ command: 'notes-server', protocol: '2025-06-18' });
  });

  it('refuses an entry with no transport, or with the fields of both', () => {
    // @ts-expect-error neither `command` nor `url`
    connecting({ args: ['x'] });
    // @ts-expect-error a stdio entry sends no headers
    connecting({ command: 'notes-server', headers: { Authorization: 'Bearer x' } });
    // @ts-expect-error an http entry runs no command
    connecting({ url: 'https://example.com/mcp', command: 'notes-server' });
  });
});

describe('a server entry read from a file', () => {
  it('may carry fields other tools add, and goes to every entry point as it is', async () => {
    const entry: McpServerEntry = { command: 'notes-server', alwaysAllow: ['read_note'], oauth: { clientId: 'id' } };
    expectTypeOf(entry.alwaysAllow).toEqualTypeOf<unknown>();
    connecting(entry);

    const file = path.join(process.env.HOME!, 'mcp.json');
    writeFileSync(file, JSON.stringify({ mcpServers: { notes: { command: 'notes-server', alwaysAllow: ['read_note'] } } }));
    const { servers, problems } = await discoverMcpServers({ configPaths: [file] });
    expect(problems).toEqual([]);
    expect(servers.notes!.config.alwaysAllow).toEqual(['read_note']);

    const manager = new McpConnectionManager({ logger: silentLogger });
    try {
      manager.configure(enabledServers(servers));
      createLoaderTools({ manager, servers });
      expect(manager.serverNames).toEqual(['notes']);
    } finally {
      await manager.dispose();
    }
  });
});
