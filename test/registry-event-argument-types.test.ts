/**
 * An embedder's chart that sends request events straight to the registry from plain JavaScript
 * (or through a cast) with a value of the wrong type gets `mcp.failed` with INVALID_ARGUMENTS
 * naming it, as the manager's methods reject it with a TypeError: not a wait with no end (a server
 * name that is not a string matched no server), not a crash (a URI that is not a string), and
 * nothing reaches the server. The registry goes on answering. Real server-everything over stdio.
 */
import { describe, expect, it } from 'vitest';
import { assertEvent, assign, createActor, sendTo, setup, waitFor } from 'xstate';
import { createRegistryLogic, McpServerError, SessionTracker, silentLogger, type Logger, type McpRegistryInput, type McpReply } from '../src/index.js';
import { cleanUpAfterEach, type Ask } from './support/embedder.js';
import { everythingStdio, textOf } from './support/everything.js';

const sessions = new SessionTracker();
const stops = cleanUpAfterEach(sessions);

/** An agent chart that invokes the registry as the README shows and keeps every reply. */
function startAgent(logger: Logger = silentLogger) {
  const chart = setup({
    types: { events: {} as Ask | McpReply, context: {} as { replies: McpReply[] } },
    actors: { mcp: createRegistryLogic({ logger, sessions }) },
  }).createMachine({
    context: { replies: [] },
    invoke: { id: 'mcp', src: 'mcp', input: { servers: { everything: everythingStdio() } } },
    on: {
      ask: {
        actions: sendTo('mcp', ({ event }) => {
          assertEvent(event, 'ask');
          return event.request;
        }),
      },
      '*': { actions: assign({ replies: ({ context, event }) => (event.type === 'ask' ? context.replies : [...context.replies, event]) }) },
    },
  });
  const agent = createActor(chart).start();
  stops.push(() => agent.stop());
  const ask = async (request: object): Promise<McpReply> => {
    // What plain JavaScript may send: the protocol's types would not let these compile.
    const event = { ...request, replyTo: agent } as unknown as McpRegistryInput & { requestId: string };
    agent.send({ type: 'ask', request: event });
    const done = await waitFor(agent, (snapshot) => snapshot.context.replies.some((reply) => reply.requestId === event.requestId), { timeout: 20_000 });
    return done.context.replies.find((reply) => reply.requestId === event.requestId)!;
  };
  return { agent, ask };
}

describe('request events of the wrong type sent straight to the registry', () => {
  it.each([
    ['mcp.load', { type: 'mcp.load', server: 42 }, '', 'mcp.load: the server name must be a non-empty string, not 42; nothing was sent.'],
    ['mcp.callTool', { type: 'mcp.callTool', server: 42, tool: 'echo', arguments: {} }, '', 'mcp.callTool: the server name must be a non-empty string, not 42; nothing was sent.'],
    ['mcp.readResource', { type: 'mcp.readResource', server: null, uri: 'demo://x' }, '', 'mcp.readResource: the server name must be a non-empty string, not null; nothing was sent.'],
  ])('%s with a server name that is not a string is answered with INVALID_ARGUMENTS', async (_name, request, server, message) => {
    const { ask } = startAgent();
    const reply = await ask({ ...request, requestId: 'bad' });
    expect(reply).toMatchObject({ type: 'mcp.failed', requestId: 'bad', server });
    assertEvent(reply, 'mcp.failed');
    expect(reply.error).toBeInstanceOf(McpServerError);
    expect(reply.error).toMatchObject({ code: 'INVALID_ARGUMENTS', message });
  });

  it('a connected server: a tool name, URI, prompt name or arguments of the wrong type are refused, nothing is sent, and a good call still runs', async () => {
    const { ask, agent } = startAgent();
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
    const bad: Array<[object, string]> = [
      [{ type: 'mcp.callTool', tool: 42 }, 'mcp.callTool: the tool name must be a string, not 42; nothing was sent.'],
      [{ type: 'mcp.callTool', tool: 'echo', arguments: 'message' }, 'mcp.callTool: the arguments must be an object of named values ({ name: value }), not "message"; nothing was sent.'],
      [{ type: 'mcp.callTool', tool: 'echo', arguments: null }, 'mcp.callTool: the arguments must be an object of named values ({ name: value }), not null; nothing was sent.'],
      [{ type: 'mcp.readResource', uri: 42 }, 'mcp.readResource: the resource URI must be a string, not 42; nothing was sent.'],
      [{ type: 'mcp.getPrompt', name: { text: 'x' } }, 'mcp.getPrompt: the prompt name must be a string, not an object; nothing was sent.'],
      [{ type: 'mcp.subscribeResource', uri: undefined }, 'mcp.subscribeResource: the resource URI must be a string, not undefined; nothing was sent.'],
    ];
    for (const [index, [request, message]] of bad.entries()) {
      const reply = await ask({ ...request, server: 'everything', requestId: `bad-${index}` });
      assertEvent(reply, 'mcp.failed');
      expect(reply.server).toBe('everything');
      expect(reply.error).toMatchObject({ code: 'INVALID_ARGUMENTS', message });
    }
    const good = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'still here' }, requestId: 'good' });
    assertEvent(good, 'mcp.toolResult');
    expect(textOf(good.result)).toContain('still here');
    expect(agent.getSnapshot().status).toBe('active');
    expect(agent.getSnapshot().children.mcp?.getSnapshot().status).toBe('active');
  });
});

describe('request events whose time limit no timer can keep', () => {
  it('a connected server: a timeoutMs or maxTotalTimeoutMs of NaN, 0, -1, 1e20 or a string is refused as the manager refuses it, not timed out at once or ignored', async () => {
    const { ask } = startAgent();
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
    const allowed = 'a number of milliseconds above 0 and at most 2147483647';
    const bad: Array<[object, string]> = [
      [{ timeoutMs: Number.NaN }, `mcp.callTool: the timeoutMs must be ${allowed}, not NaN; nothing was sent.`],
      [{ timeoutMs: 0 }, `mcp.callTool: the timeoutMs must be ${allowed}, not 0; nothing was sent.`],
      [{ timeoutMs: -1 }, `mcp.callTool: the timeoutMs must be ${allowed}, not -1; nothing was sent.`],
      [{ timeoutMs: 1e20 }, `mcp.callTool: the timeoutMs must be ${allowed}, not 100000000000000000000; nothing was sent.`],
      [{ timeoutMs: '100' }, `mcp.callTool: the timeoutMs must be ${allowed}, not "100"; nothing was sent.`],
      [{ maxTotalTimeoutMs: -5, resetTimeoutOnProgress: true }, `mcp.callTool: the maxTotalTimeoutMs must be ${allowed}, not -5; nothing was sent.`],
    ];
    for (const [index, [limits, message]] of bad.entries()) {
      const reply = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'x' }, ...limits, requestId: `bad-${index}` });
      assertEvent(reply, 'mcp.failed');
      expect(reply.error).toMatchObject({ code: 'INVALID_ARGUMENTS', message });
    }
    const read = await ask({ type: 'mcp.readResource', server: 'everything', uri: 'demo://resource/static/document/architecture.md', timeoutMs: Number.NaN, requestId: 'bad-read' });
    assertEvent(read, 'mcp.failed');
    expect(read.error).toMatchObject({ code: 'INVALID_ARGUMENTS', message: `mcp.readResource: the timeoutMs must be ${allowed}, not NaN; nothing was sent.` });
    const good = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'still here' }, timeoutMs: 10_000, requestId: 'good' });
    assertEvent(good, 'mcp.toolResult');
    expect(textOf(good.result)).toContain('still here');
  });
});

describe('request events with fields that throw when read', () => {
  it('a revoked Proxy as arguments or replyTo, a getter that throws inside the arguments: refused or dropped, the server stays connected and the registry answers', async () => {
    const { ask, agent } = startAgent();
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
    const registry = agent.getSnapshot().children.mcp!;
    const revoked = () => {
      const { proxy, revoke } = Proxy.revocable({}, {});
      revoke();
      return proxy;
    };
    const proxied = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: revoked(), requestId: 'revoked' });
    assertEvent(proxied, 'mcp.failed');
    expect(proxied.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: `mcp.callTool: a field of the request could not be read (reading it threw "Cannot perform 'IsArray' on a proxy that has been revoked"); nothing was sent.`,
    });
    registry.send({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'x' }, replyTo: revoked(), requestId: 'nobody' } as unknown as McpRegistryInput);
    const getter = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'x', get detail(): string { throw new Error('getter boom'); } }, requestId: 'getter' });
    assertEvent(getter, 'mcp.failed');
    expect(getter.error).toMatchObject({
      code: 'INVALID_ARGUMENTS',
      message: 'MCP server "everything": the arguments for tool "echo" could not be read (reading them threw "getter boom"), so the call was not sent. Pass plain data.',
    });
    expect(registry.getSnapshot().status).toBe('active');
    const good = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'still here' }, requestId: 'good' });
    assertEvent(good, 'mcp.toolResult');
    expect(textOf(good.result)).toContain('still here');
  });
});

describe('request events whose own fields throw when read', () => {
  it.each([
    ['server', 'mcp.callTool: a field of the request could not be read (reading it threw "boom"); nothing was sent.'],
    ['progress', 'mcp.callTool: a field of the request could not be read (reading it threw "boom"); nothing was sent.'],
    ['resetTimeoutOnProgress', 'mcp.callTool: a field of the request could not be read (reading it threw "boom"); nothing was sent.'],
    ['requestId', undefined],
    ['replyTo', undefined],
  ])('a getter that throws for %s: refused (or dropped, with nothing to answer by), and the registry answers the next request', async (field, message) => {
    const { ask, agent } = startAgent();
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
    const registry = agent.getSnapshot().children.mcp!;
    const event: Record<string, unknown> = { type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'x' }, replyTo: agent, requestId: 'bad' };
    Object.defineProperty(event, field, { enumerable: true, get: () => { throw new Error('boom'); } });
    registry.send(event as unknown as McpRegistryInput);
    expect(registry.getSnapshot().status).toBe('active');
    const good = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'still here' }, requestId: 'good' });
    assertEvent(good, 'mcp.toolResult');
    const bad = agent.getSnapshot().context.replies.filter((reply) => reply.requestId === 'bad');
    if (message === undefined) expect(bad).toEqual([]);
    else expect(bad.map((reply) => reply.type === 'mcp.failed' && reply.error.message)).toEqual([message]);
  });
});

describe('request events whose requestId names no request', () => {
  it.each([
    ['a number', 42, '42'],
    ['an object', { a: 1 }, 'an object'],
    ['an empty string', '', '""'],
    ['none', undefined, 'undefined'],
  ])('a requestId that is %s: dropped with an error in the log, and the registry answers the next request', async (_, requestId, shown) => {
    const errors: string[] = [];
    const { ask, agent } = startAgent({ ...silentLogger, error: (message: string) => errors.push(message) });
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
    const registry = agent.getSnapshot().children.mcp!;
    registry.send({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'x' }, replyTo: agent, requestId } as unknown as McpRegistryInput);
    const good = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'still here' }, requestId: 'good' });
    assertEvent(good, 'mcp.toolResult');
    expect(agent.getSnapshot().context.replies.map((reply) => reply.requestId)).toEqual(['load', 'good']);
    expect(errors).toEqual([`mcp.callTool: the requestId must be a non-empty string (the answer names the request by it), not ${shown}; the event was dropped.`]);
  });
});

describe('the other registry events, with a field that throws when read', () => {
  const events: Array<[string, Record<string, unknown>]> = [
    ['server', { type: 'mcp.load', server: 'everything', requestId: 'bad-load' }],
    ['requestId', { type: 'mcp.load', server: 'everything', requestId: 'bad-load' }],
    ['replyTo', { type: 'mcp.load', server: 'everything', requestId: 'bad-load' }],
    ['server', { type: 'mcp.cancel', server: 'everything', requestId: 'x' }],
    ['requestId', { type: 'mcp.cancel', server: 'everything', requestId: 'x' }],
    ['reason', { type: 'mcp.cancel', server: 'everything', requestId: 'x', reason: 'r' }],
    ['replyTo', { type: 'mcp.subscribe' }],
    ['include', { type: 'mcp.subscribe', include: ['mcp.log'] }],
    ['replyTo', { type: 'mcp.unsubscribe' }],
    ['server', { type: 'mcp.touch', server: 'everything' }],
    ['server', { type: 'mcp.disconnect', server: 'everything' }],
    ['servers', { type: 'mcp.configure', servers: {} }],
    ['options', { type: 'mcp.configure', servers: {}, options: {} }],
    ['mode', { type: 'mcp.configure', servers: {}, mode: 'merge' }],
  ];
  it.each(events)('a getter that throws for %s of %o: the registry stays up and answers the next request', async (field, fields) => {
    const { ask, agent } = startAgent();
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
    const registry = agent.getSnapshot().children.mcp!;
    const event: Record<string, unknown> = { ...fields, replyTo: agent };
    Object.defineProperty(event, field, { enumerable: true, get: () => { throw new Error('boom'); } });
    registry.send(event as unknown as McpRegistryInput);
    expect(registry.getSnapshot().status).toBe('active');
    const good = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'still here' }, requestId: 'good' });
    assertEvent(good, 'mcp.toolResult');
  });
});

describe('request events whose replyTo is not an actor', () => {
  it.each([
    ['a plain object', {}],
    ['an object with a send method', { send: () => {} }],
    ['a string', 'agent'],
    ['a number', 42],
    ['null', null],
  ])('with %s: dropped (nobody to answer), the registry goes on and answers the next request', async (_name, replyTo) => {
    const { ask, agent } = startAgent();
    const registry = agent.getSnapshot().children.mcp!;
    const bad = [
      { type: 'mcp.subscribe', replyTo },
      { type: 'mcp.load', server: 'everything', replyTo, requestId: 'bad-load' },
      { type: 'mcp.load', server: 'nowhere', replyTo, requestId: 'bad-unknown' },
      { type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'x' }, replyTo, requestId: 'bad-call' },
      { type: 'mcp.readResource', server: 42, uri: 'demo://x', replyTo, requestId: 'bad-malformed' },
    ];
    for (const event of bad) registry.send(event as unknown as McpRegistryInput);
    expect(registry.getSnapshot().status).toBe('active');
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
    const good = await ask({ type: 'mcp.callTool', server: 'everything', tool: 'echo', arguments: { message: 'still here' }, requestId: 'good' });
    assertEvent(good, 'mcp.toolResult');
    expect(textOf(good.result)).toContain('still here');
    expect(registry.getSnapshot().status).toBe('active');
  });
});

describe('other events of the wrong type sent straight to the registry', () => {
  it.each([
    ['servers that are null', null, 'mcp.configure: the servers must be an object of server definitions by name, not null.'],
    ['a definition that is null', { everything: null }, 'mcp.configure: the definition of server "everything" must be an object ({ command, args } or { url }), not null.'],
    ['a definition written as a command line', { other: 'node server.mjs' }, 'mcp.configure: the definition of server "other" must be an object ({ command, args } or { url }), not "node server.mjs".'],
  ])('an mcp.configure with %s: dropped with an error in the log, the configuration kept, and the registry answers', async (_name, servers, message) => {
    const logged: string[] = [];
    const { ask, agent } = startAgent({ ...silentLogger, error: (line) => logged.push(line) });
    const registry = agent.getSnapshot().children.mcp!;
    registry.send({ type: 'mcp.configure', servers } as unknown as McpRegistryInput);
    expect(logged).toEqual([`${message} The registry's configuration was left as it was.`]);
    expect(registry.getSnapshot().status).toBe('active');
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
  });

  it('an mcp.subscribe whose include is not a list: the subscriber gets state changes only, and the registry answers', async () => {
    const { ask, agent } = startAgent();
    const registry = agent.getSnapshot().children.mcp!;
    registry.send({ type: 'mcp.subscribe', replyTo: agent, include: 5 } as unknown as McpRegistryInput);
    expect(registry.getSnapshot().status).toBe('active');
    expect(await ask({ type: 'mcp.load', server: 'everything', requestId: 'load' })).toMatchObject({ type: 'mcp.loaded' });
    expect(agent.getSnapshot().context.replies).toContainEqual(expect.objectContaining({ type: 'mcp.stateChanged', server: 'everything', state: 'connected' }));
  });
});
