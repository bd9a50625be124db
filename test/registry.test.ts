import { createActor, createMachine, fromCallback, sendTo, type AnyActorRef } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import { registryMachine, serverSystemId } from '../machines/registry.machine.js';
import type { McpReply } from '../machines/types.js';
import { McpConnectionManager, silentLogger } from '../src/index.js';
import { createServerLogic } from '../src/connection/server-logic.js';
import { inMemoryFixture } from './support/fixtures.js';

/** An actor that collects the replies sent to it. */
function inbox() {
  const replies: McpReply[] = [];
  const ref = createActor(fromCallback<McpReply>(({ receive }) => receive((reply) => replies.push(reply)))).start();
  return { ref: ref as AnyActorRef, replies };
}

function memoryManager() {
  const fixture = inMemoryFixture();
  return new McpConnectionManager({ logger: silentLogger, transportFactory: fixture.factory });
}

describe('the registry', () => {
  it('answers every request for an unknown server with mcp.failed naming it', () => {
    const registry = createActor(registryMachine, { input: { servers: { known: { command: 'x' } } } }).start();
    const { ref, replies } = inbox();
    registry.send({ type: 'mcp.load', server: 'ghost', replyTo: ref, requestId: 'a' });
    registry.send({ type: 'mcp.callTool', server: 'ghost', tool: 't', replyTo: ref, requestId: 'b' });
    registry.send({ type: 'mcp.readResource', server: 'ghost', uri: 'u://x', replyTo: ref, requestId: 'c' });
    expect(replies.map((reply) => [reply.type, reply.requestId])).toEqual([
      ['mcp.failed', 'a'],
      ['mcp.failed', 'b'],
      ['mcp.failed', 'c'],
    ]);
    const error = (replies[0] as Extract<McpReply, { type: 'mcp.failed' }>).error;
    expect(error.message).toBe('Unknown MCP server "ghost". Configured servers: known.');
    registry.stop();
  });

  it('refuses a disabled server and tells how to enable it', () => {
    const registry = createActor(registryMachine, { input: { servers: { off: { command: 'x', disabled: true } } } }).start();
    const { ref, replies } = inbox();
    registry.send({ type: 'mcp.load', server: 'off', replyTo: ref, requestId: '1' });
    expect(replies[0]).toMatchObject({ type: 'mcp.failed', error: { code: 'SERVER_DISABLED' } });
    expect(registry.getSnapshot().children).toEqual({});
    registry.stop();
  });

  it('answers a call to a configured server that was never loaded with "connect it first"', () => {
    const registry = createActor(registryMachine, { input: { servers: { idle: { command: 'x' } } } }).start();
    const { ref, replies } = inbox();
    registry.send({ type: 'mcp.callTool', server: 'idle', tool: 'echo', replyTo: ref, requestId: '1' });
    const reply = replies[0] as Extract<McpReply, { type: 'mcp.failed' }>;
    expect(reply.error.message).toMatch(/is not connected .* Connect it first \(the manager's connect\("idle"\), or mcp\.load to the registry\)/);
    registry.stop();
  });

  it('spawns nothing for 10,000 configured servers until one is used, then exactly that one', () => {
    const servers = Object.fromEntries(Array.from({ length: 10_000 }, (_, index) => [`server-${index}`, { command: 'x' }]));
    const registry = createActor(registryMachine, { input: { servers } }).start();
    expect(Object.keys(registry.getSnapshot().children)).toEqual([]);
    registry.send({ type: 'mcp.touch', server: 'server-7' });
    registry.send({ type: 'mcp.disconnect', server: 'server-7' });
    expect(Object.keys(registry.getSnapshot().children)).toEqual([]);
    const { ref } = inbox();
    registry.send({ type: 'mcp.load', server: 'server-7', replyTo: ref, requestId: '1' });
    expect(Object.keys(registry.getSnapshot().children)).toEqual(['server.server-7']);
    expect(registry.system.get(serverSystemId('server-7'))).toBeDefined();
    registry.stop();
  });

  it('treats __proto__ and constructor as plain server names', async () => {
    const manager = memoryManager();
    manager.configure({ ['__proto__']: { command: 'memory' }, constructor: { command: 'memory' } } as never);
    manager.configure(JSON.parse('{"__proto__": {"command": "memory"}, "constructor": {"command": "memory"}}'));
    expect(manager.serverNames.sort()).toEqual(['__proto__', 'constructor']);
    await manager.connect('__proto__');
    expect(manager.getState('__proto__')).toBe('connected');
    expect(({} as Record<string, unknown>).command).toBeUndefined();
    await expect(manager.connect('toString')).rejects.toThrow(/Unknown MCP server "toString"/);
    await manager.dispose();
  });

  it('emits mcp.stateChanged for hosts', async () => {
    const manager = memoryManager();
    const seen: string[] = [];
    manager.on('mcp.stateChanged', (event) => seen.push(`${event.server}:${event.substate}`));
    await manager.connect('memory', { command: 'memory' });
    await manager.disconnect('memory');
    expect(seen).toEqual([
      'memory:disconnected.idle',
      'memory:connecting.negotiating',
      'memory:connecting.listing',
      'memory:connected.ready',
      'memory:disconnected.closing',
      'memory:disconnected.idle',
    ]);
    await manager.dispose();
  });

  it('applies mcp.configure: added servers appear, removed ones disconnect and become unknown, changed ones reconnect', async () => {
    const manager = memoryManager();
    manager.configure({ kept: { command: 'memory' }, dropped: { command: 'memory' }, changed: { command: 'memory' } });
    await Promise.all([manager.connect('kept'), manager.connect('dropped'), manager.connect('changed')]);
    const changedClient = manager.getClient('changed');

    manager.configure({ kept: { command: 'memory' }, changed: { command: 'memory', args: ['--new'] }, added: { command: 'memory' } });

    await vi.waitFor(() => expect(manager.getState('dropped')).toBe('disconnected'));
    await expect(manager.connect('dropped')).rejects.toThrow(/Unknown MCP server "dropped"/);
    await vi.waitFor(() => expect(manager.getState('changed')).toBe('connected'));
    expect(manager.getClient('changed')).not.toBe(changedClient);
    expect(manager.getState('kept')).toBe('connected');
    expect(manager.getState('added')).toBe('disconnected');
    await manager.connect('added');
    await manager.disconnectAll();
    expect(['kept', 'changed', 'added'].map((name) => manager.getState(name))).toEqual(['disconnected', 'disconnected', 'disconnected']);
    await manager.dispose();
  });

  it('survives a server actor that crashes, and respawns it on next use', async () => {
    const fixture = inMemoryFixture();
    let explode = true;
    const serverLogic = createServerLogic({
      transportFactory: fixture.factory,
      logger: silentLogger,
      tracker: new (await import('../src/connection/session-tracker.js')).SessionTracker(),
      clientInfo: { name: 'test', version: '0' },
    }).provide({
      actions: {
        'reset retries': ({ context }) => {
          if (explode && context.name === 'fragile') throw new Error('a bug in an action');
        },
      },
    });
    const registry = createActor(registryMachine.provide({ actors: { server: serverLogic } }), {
      input: { servers: { fragile: { command: 'memory' }, steady: { command: 'memory' } } },
    });
    registry.subscribe({ error: () => {} });
    registry.start();
    const { ref, replies } = inbox();
    registry.send({ type: 'mcp.load', server: 'fragile', replyTo: ref, requestId: '1' });
    expect(registry.getSnapshot().status).toBe('active');
    expect(registry.getSnapshot().context.actors).not.toHaveProperty('fragile');

    registry.send({ type: 'mcp.load', server: 'steady', replyTo: ref, requestId: '2' });
    explode = false;
    // The crashed actor's own waiter is lost with it; the next load gets a fresh actor.
    registry.send({ type: 'mcp.load', server: 'fragile', replyTo: ref, requestId: '3' });
    await vi.waitFor(() => expect(replies.map((reply) => reply.requestId).sort()).toEqual(['2', '3']));
    expect(replies.every((reply) => reply.type === 'mcp.loaded')).toBe(true);
    registry.send({ type: 'mcp.disconnectAll' });
    registry.stop();
  });

  it('can be invoked inside another statechart and driven only by events', async () => {
    const fixture = inMemoryFixture();
    const logic = registryMachine.provide({
      actors: {
        server: createServerLogic({
          transportFactory: fixture.factory,
          logger: silentLogger,
          tracker: new (await import('../src/connection/session-tracker.js')).SessionTracker(),
          clientInfo: { name: 'test', version: '0' },
        }),
      },
    });
    const agent = createMachine({
      types: {} as { events: McpReply },
      invoke: { id: 'mcp', src: logic, input: { servers: { memory: { command: 'memory' } } } },
      initial: 'loading',
      states: {
        loading: {
          entry: sendTo('mcp', ({ self }) => ({ type: 'mcp.load', server: 'memory', replyTo: self, requestId: 'x' })),
          on: { 'mcp.loaded': 'loaded' },
        },
        loaded: { type: 'final' },
      },
    });
    const actor = createActor(agent).start();
    await vi.waitFor(() => expect(actor.getSnapshot().status).toBe('done'));
  });
});

describe('the registry and its server actors', () => {
  it('answers a call to a disabled server with "disabled", not "load it first"', () => {
    const registry = createActor(registryMachine, { input: { servers: { off: { command: 'x', disabled: true } } } }).start();
    const { ref, replies } = inbox();
    registry.send({ type: 'mcp.callTool', server: 'off', tool: 'echo', replyTo: ref, requestId: '1' });
    registry.send({ type: 'mcp.readResource', server: 'off', uri: 'u://x', replyTo: ref, requestId: '2' });
    expect(replies.map((reply) => reply.type === 'mcp.failed' && (reply.error as { code?: string }).code)).toEqual([
      'SERVER_DISABLED',
      'SERVER_DISABLED',
    ]);
    registry.stop();
  });

  it('stops the actors of removed servers, connected or not, so config churn leaks nothing', async () => {
    const manager = memoryManager();
    manager.configure({ used: { command: 'memory' }, idle: { command: 'memory' } });
    await manager.connect('used');
    await manager.connect('idle');
    await manager.disconnect('idle');
    expect(Object.keys(manager.actor.getSnapshot().children).sort()).toEqual(['server.idle', 'server.used']);

    manager.configure({});

    await vi.waitFor(() => expect(manager.actor.getSnapshot().children).toEqual({}));
    expect(manager.actor.getSnapshot().context.actors).toEqual({});
    await manager.dispose();
    expect(manager.openSessionCount()).toBe(0);
  });
});
