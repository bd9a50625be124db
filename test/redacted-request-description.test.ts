/**
 * A failed request's error quotes the request (the resource's URI, the tool's name) through the
 * same redaction as the server's words: a value of the server's entry in it is `[redacted]`, in
 * the manager's error, the loader tools' text and the CLI's output alike. (A tool's own isError
 * answer is redacted too: test/tool-error-secrets.test.ts.) A real stdio server
 * (the examples' notes server) given the value in its `env`.
 */
import { writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createActor, fromCallback } from 'xstate';
import type { McpReply } from '../machines/types.js';
import { createLoaderTools, McpConnectionManager, silentLogger, type LoaderTool, type LoaderToolName } from '../src/index.js';
import { stdioFixture } from './support/fixtures.js';
import { runCli } from './support/cli.js';
import { startHttpFixture } from './fixtures/http-server.js';

const NOTES_SERVER = fileURLToPath(new URL('../examples/servers/notes-server.mjs', import.meta.url));
const SECRET = 'private-note-key-42';
const notes = { command: process.execPath, args: [NOTES_SERVER], env: { NOTE_KEY: SECRET } };

describe('the request quoted in a failed request’s error', () => {
  let manager: McpConnectionManager;
  let tool: (name: LoaderToolName) => LoaderTool;
  beforeEach(() => {
    manager = new McpConnectionManager({ logger: silentLogger });
    const tools = createLoaderTools({ manager, servers: { notes }, manifestIndex: false });
    tool = (name) => tools.find((each) => each.name === name)!;
  });
  afterEach(() => manager.dispose());

  it('has the secret in a resource URI redacted in the error message', async () => {
    await manager.connect('notes', notes);
    const failed = await manager.readResource('notes', `notes://${SECRET}`).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failed?.message).toContain('failed reading resource "notes://[redacted]"');
    expect(failed?.message).not.toContain(SECRET);
  });

  it('has the secret in a resource URI redacted when the caller cancels the read', async () => {
    await manager.connect('notes', notes);
    const failed = await manager.readResource('notes', `notes://${SECRET}`, { signal: AbortSignal.abort() }).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(failed?.name).toBe('AbortError');
    expect(failed?.message).toContain('reading resource "notes://[redacted]" was cancelled');
    expect(failed?.message).not.toContain(SECRET);
  });

  it('has a value of the entry redacted when a request sent through the registry protocol is cancelled (mcp.cancel)', async () => {
    // The entry's value is the tool's name here: whatever of the request equals one is redacted.
    await manager.connect('fixture', { ...stdioFixture('--progress-tools'), env: { LABEL: 'progress' } });
    const received: McpReply[] = [];
    const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((event) => received.push(event)))).start();
    manager.actor.send({ type: 'mcp.callTool', server: 'fixture', tool: 'progress', arguments: { steps: 100, intervalMs: 30 }, replyTo: inbox, requestId: 'long' });
    await vi.waitFor(() => expect(manager.requestsInFlight('fixture')).toBe(1));
    manager.actor.send({ type: 'mcp.cancel', server: 'fixture', requestId: 'long', reason: 'stop' });
    await vi.waitFor(() => expect(received.some((event) => event.type === 'mcp.failed')).toBe(true));
    const failed = received.find((event): event is Extract<McpReply, { type: 'mcp.failed' }> => event.type === 'mcp.failed');
    inbox.stop();
    expect(failed?.error.name).toBe('AbortError');
    expect(failed?.error.message).toBe('MCP server "fixture": calling tool "[redacted]" was cancelled (stop).');
  });

  it('has the secret in a resource URI redacted when a read waiting for its renewed session is cancelled (mcp.cancel)', async () => {
    // The session expires on the read (its 404 after the 6 POSTs of the connect) and the new one
    // never finishes connecting: the read waits in the server's chart, which answers the cancel.
    const fixture = await startHttpFixture({ expireSessionsAfter: 6, expiringSessions: 1, hangAfterSessions: 1 });
    const received: McpReply[] = [];
    const inbox = createActor(fromCallback<McpReply>(({ receive }) => receive((event) => received.push(event)))).start();
    try {
      await manager.connect('remote', { url: fixture.url, headers: { 'X-Api-Key': SECRET } });
      manager.actor.send({ type: 'mcp.readResource', server: 'remote', uri: `fixture://items/${SECRET}`, replyTo: inbox, requestId: 'read' });
      await vi.waitFor(() => expect(fixture.requests.filter((request) => request.rpcMethod === 'initialize')).toHaveLength(2));
      expect(manager.getState('remote')).toBe('connecting');
      manager.actor.send({ type: 'mcp.cancel', server: 'remote', requestId: 'read', reason: 'stop' });
      await vi.waitFor(() => expect(received.some((event) => event.type === 'mcp.failed')).toBe(true));
      const failed = received.find((event): event is Extract<McpReply, { type: 'mcp.failed' }> => event.type === 'mcp.failed');
      expect(failed?.error.name).toBe('AbortError');
      expect(failed?.error.message).toBe('MCP server "remote": reading resource "fixture://items/[redacted]" was cancelled (stop).');
    } finally {
      inbox.stop();
      await manager.dispose();
      await fixture.close();
    }
  });

  it('has the secret in a URI or a tool name redacted in read_mcp_resource and call_mcp_tool text', async () => {
    await tool('load_mcp').execute({ server: 'notes' });
    const read = await tool('read_mcp_resource').execute({ server: 'notes', uri: `notes://${SECRET}` });
    expect(read.isError).toBe(true);
    expect(read.text).toContain('notes://[redacted]');
    expect(read.text).not.toContain(SECRET);
    const call = await tool('call_mcp_tool').execute({ server: 'notes', tool: `tool-${SECRET}`, arguments: {} });
    expect(call.isError).toBe(true);
    expect(call.text).toContain('has no tool "tool-[redacted]"');
    expect(call.text).not.toContain(SECRET);
  });
});

describe('the request quoted in the CLI’s failure output', () => {
  let config: string;
  beforeEach(() => {
    config = join(homedir(), 'mcp.json');
    writeFileSync(config, JSON.stringify({ mcpServers: { notes } }));
  });
  const cli = (args: string[]) => runCli(['--config', config, ...args], { cwd: homedir(), env: { HOME: homedir() }, timeoutMs: 30_000 });

  it('read of a missing resource names its URI with the secret redacted', async () => {
    const run = await cli(['read', 'notes', `notes://${SECRET}`]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('has no resource "notes://[redacted]"');
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });

  it('call of a tool whose name holds the secret does not show it', async () => {
    const run = await cli(['call', 'notes', `tool-${SECRET}`]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('has no tool "tool-[redacted]"');
    expect(run.stdout + run.stderr).not.toContain(SECRET);
  });
});
