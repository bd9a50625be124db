/**
 * The scripted registry of mcp-statechart/testing: the real registry and server charts with
 * scripted effects. The example agent chart runs against it with no server process, provided
 * without a cast, and the script decides delays, failures, crashes and manifest changes.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, SimulatedClock, type AnyActorRef, type EventObject } from 'xstate';
import { createScriptedRegistry, type RegistryScript } from 'mcp-statechart/testing';
import { agentMachine } from '../examples/agent-statechart.js';
import { input, text, withTools } from './support/agent-script.js';
import { ask, repliesById, startReactingCaller, type Reaction } from './support/reacting-caller.js';


function runAgent(script: RegistryScript, clock = new SimulatedClock()) {
  const registry = createScriptedRegistry(script);
  // The agent declares the registry as `mcp` (pureRegistryLogic, a RegistryLogic): the scripted one is of that type too.
  const logic = agentMachine.provide({ actors: { mcp: registry.logic } });
  const agent = createActor(logic, { input, clock }).start();
  return { agent, registry, clock };
}

/** A registry run directly, with an inbox that records every event it is sent. */
function runRegistry(script: RegistryScript) {
  const clock = new SimulatedClock();
  const registry = createActor(createScriptedRegistry(script).logic, { clock, input: {} }).start();
  const inbox: EventObject[] = [];
  const replyTo = createActor(fromCallback<EventObject>(({ receive }) => receive((event) => inbox.push(event)))).start() as AnyActorRef;
  return { registry, replyTo, inbox, clock };
}

const settle = () => new Promise((done) => setImmediate(done));
const described = (events: EventObject[]) =>
  events.map((event) => [event.type, (event as { requestId?: string }).requestId, (event as { error?: { code?: string } }).error?.code]);

describe('the scripted registry', () => {
  it('lets the example agent load and call a tool from the script, and records what the agent sent', async () => {
    const { agent, registry } = runAgent({ servers: { demo: { manifest: withTools('echo'), tools: { echo: [{ answer: text('hi') }] } } } });
    await settle();
    expect(agent.getSnapshot().value).toBe('done');
    expect(agent.getSnapshot().context.result).toEqual(text('hi'));
    expect(registry.received.map((event) => event.type)).toEqual(['mcp.subscribe', 'mcp.load', 'mcp.callTool']);
  });

  it('answers after the scripted delay on the actor system clock', async () => {
    const { agent, clock } = runAgent({
      servers: { demo: { manifest: withTools('echo'), loads: [{ answer: undefined, delayMs: 2_000 }], tools: { echo: [{ answer: text('hi'), delayMs: 500 }] } } },
    });
    await settle();
    expect(agent.getSnapshot().value).toBe('loadingTools');
    clock.increment(1_999);
    expect(agent.getSnapshot().value).toBe('loadingTools');
    clock.increment(1);
    await settle();
    expect(agent.getSnapshot().value).toBe('calling');
    clock.increment(500);
    // Answered as a real session answers: once the request's promise settles.
    await settle();
    expect(agent.getSnapshot().value).toBe('done');
  });

  it('fails a call with the scripted error code, and a load of a server missing the planned tool', async () => {
    const failing = runAgent({ servers: { demo: { manifest: withTools('echo'), tools: { echo: [{ fail: 'REQUEST_FAILED', message: 'boom' }] } } } });
    await settle();
    expect(failing.agent.getSnapshot().value).toBe('failed');
    expect(failing.agent.getSnapshot().context.error).toMatchObject({ code: 'REQUEST_FAILED', message: 'boom' });
    const missing = runAgent({ servers: { demo: { manifest: withTools('other') } } });
    await settle();
    expect(missing.agent.getSnapshot().context.error?.message).toMatch(/offers no tool "echo"/);
  });

  it('a crash fails the request with CONNECTION_LOST, reports error, and the next load connects again', async () => {
    const { registry, replyTo, inbox } = runRegistry({
      servers: { demo: { manifest: withTools('echo'), tools: { echo: [{ crash: 'killed' }, { answer: text('back') }] } } },
    });
    const states: string[] = [];
    registry.on('mcp.stateChanged', (event) => states.push(`${event.substate}${event.closed ? ' (closed)' : ''}`));
    registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'l1' });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'echo', replyTo, requestId: 'c1' });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'echo', replyTo, requestId: 'c2' });
    registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'l2' });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'echo', replyTo, requestId: 'c3' });
    await settle();
    expect(described(inbox)).toEqual([
      ['mcp.loaded', 'l1', undefined],
      ['mcp.failed', 'c1', 'CONNECTION_LOST'],
      ['mcp.failed', 'c2', 'NOT_CONNECTED'],
      ['mcp.loaded', 'l2', undefined],
      ['mcp.toolResult', 'c3', undefined],
    ]);
    // The real server chart's reports: spawned disconnected, the lost session closed, and no retry after the crash.
    expect(states).toEqual([
      'disconnected.idle',
      'connecting.negotiating',
      'connected.ready',
      'error.releasing',
      'error.failed (closed)',
      'connecting.negotiating',
      'connected.ready',
    ]);
  });

  it('runs requests on the real session actor: a crashed call fails as any call on a lost connection does', async () => {
    const { registry, replyTo, inbox } = runRegistry({ servers: { demo: { manifest: withTools('echo'), tools: { echo: [{ crash: 'killed' }] } } } });
    registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'l1' });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'echo', replyTo, requestId: 'c1' });
    await settle();
    const failed = inbox.find((event) => event.type === 'mcp.failed') as { error: Error } | undefined;
    // The wording the real session actor gives every request in flight on a lost connection (requestAbandonedError).
    expect(failed?.error).toMatchObject({ code: 'CONNECTION_LOST', server: 'demo' });
    expect(failed?.error.message).toBe('Request to MCP server "demo" failed: the connection was lost while it was in flight. It was not retried. (killed)');
  });

  it('refuses as the real registry does: a call before the load finished, an unknown server, a tool not in the script', async () => {
    const { registry, replyTo, inbox, clock } = runRegistry({ servers: { demo: { manifest: withTools('echo'), loads: [{ answer: undefined, delayMs: 1_000 }] } } });
    registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'load' });
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'echo', replyTo, requestId: 'early' });
    registry.send({ type: 'mcp.load', server: 'nope', replyTo, requestId: 'unknown' });
    await settle();
    expect(described(inbox)).toEqual([
      ['mcp.failed', 'early', 'NOT_CONNECTED'],
      ['mcp.failed', 'unknown', 'UNKNOWN_SERVER'],
    ]);
    clock.increment(1_000);
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'unscripted', replyTo, requestId: 'unscripted' });
    await settle();
    expect(described(inbox.slice(2))).toEqual([
      ['mcp.loaded', 'load', undefined],
      ['mcp.failed', 'unscripted', 'REQUEST_FAILED'],
    ]);
  });

  it('redacts the values the chart configured for a server (env, headers) in the errors it words, as a real server’s are', async () => {
    const secret = 'scripted-secret-42';
    const registry = createActor(
      createScriptedRegistry({ servers: { demo: { manifest: withTools('echo'), tools: { echo: [{ fail: 'REQUEST_FAILED', message: `bad key ${secret}` }] } } } }).logic,
      { clock: new SimulatedClock(), input: { servers: { demo: { command: 'never-started', env: { DEMO_KEY: secret } } } } },
    ).start();
    const inbox: EventObject[] = [];
    const replyTo = createActor(fromCallback<EventObject>(({ receive }) => receive((event) => inbox.push(event)))).start() as AnyActorRef;
    registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'load' });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'echo', replyTo, requestId: 'failing' });
    registry.send({ type: 'mcp.readResource', server: 'demo', uri: `notes://${secret}`, replyTo, requestId: 'unscripted' });
    await settle();
    const messages = inbox.flatMap((event) => ('error' in event ? [(event.error as Error).message] : []));
    expect(messages).toEqual(['MCP server "demo": no scripted answer for reading resource "notes://[redacted]".', 'bad key [redacted]']);
  });

  it('sends state and manifest changes to subscribers as events, until they unsubscribe', async () => {
    const { registry, replyTo, inbox } = runRegistry({
      servers: { demo: { manifest: withTools('enable'), tools: { enable: [{ answer: text('ok'), thenManifest: withTools('enable', 'archive') }] } } },
    });
    registry.send({ type: 'mcp.subscribe', replyTo });
    registry.send({ type: 'mcp.load', server: 'demo', replyTo, requestId: 'l1' });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'demo', tool: 'enable', replyTo, requestId: 'c1' });
    await settle();
    registry.send({ type: 'mcp.unsubscribe', replyTo });
    registry.send({ type: 'mcp.disconnect', server: 'demo' });
    await settle();
    expect(inbox.map((event) => (event.type === 'mcp.stateChanged' ? `state ${(event as { state?: string }).state}` : event.type))).toEqual([
      'state disconnected',
      'state connecting',
      'state connected',
      'mcp.loaded',
      'mcp.toolResult',
      'mcp.manifestChanged',
    ]);
    expect(inbox[5]).toMatchObject({ changes: { added: ['tool:archive'], removed: [], changed: [] } });
    expect(registry.getSnapshot().context.actors.demo?.getSnapshot().value).toEqual({ disconnected: 'idle' });
  });
});

describe('a partial manifest in the script', () => {
  it('is enough: the lists it leaves out are empty, in the first manifest, a load answer and a thenManifest', async () => {
    const echo = { name: 'echo', inputSchema: { type: 'object' as const } };
    const prompt = { name: 'greet' };
    const { registry, replyTo, inbox } = runRegistry({
      servers: {
        first: { manifest: { tools: [echo] }, tools: { echo: [{ answer: text('ok'), thenManifest: { prompts: [prompt] } }] } },
        loaded: { loads: [{ answer: { tools: [echo] } }] },
      },
    });
    registry.send({ type: 'mcp.load', server: 'first', replyTo, requestId: 'first' });
    registry.send({ type: 'mcp.load', server: 'loaded', replyTo, requestId: 'loaded' });
    await settle();
    registry.send({ type: 'mcp.callTool', server: 'first', tool: 'echo', replyTo, requestId: 'call' });
    await settle();
    registry.send({ type: 'mcp.load', server: 'first', replyTo, requestId: 'changed' });
    await settle();
    const manifestOf = (requestId: string) => (inbox.find((event) => event.type === 'mcp.loaded' && (event as { requestId?: string }).requestId === requestId) as { manifest?: unknown } | undefined)?.manifest;
    expect(manifestOf('first')).toEqual({ tools: [echo], resources: [], resourceTemplates: [], prompts: [] });
    expect(manifestOf('loaded')).toEqual({ tools: [echo], resources: [], resourceTemplates: [], prompts: [] });
    expect(manifestOf('changed')).toEqual({ tools: [], resources: [], resourceTemplates: [], prompts: [prompt] });
  });
});

describe('a scripted crash, heard by a caller that reacts in the same step (as a real crash is)', () => {
  const again = { server: 'demo', tool: 'echo', arguments: { text: 'again' } };
  /** Loads answer a first manifest, then a second: a load answered by the dead session would carry the first. */
  const crashingServer = (delayMs: number) => ({
    servers: {
      demo: {
        loads: [{ answer: withTools('echo', 'first') }, { answer: withTools('echo', 'second') }],
        tools: { echo: [{ answer: text('started') }, { crash: 'killed', delayMs }, { answer: text('again') }] },
      },
    },
  });

  async function runCaller(reaction: Reaction, delayMs: number) {
    const clock = new SimulatedClock();
    const caller = startReactingCaller(createScriptedRegistry(crashingServer(delayMs)).logic, { servers: {}, reaction, again }, { clock });
    ask(caller, { type: 'mcp.load', server: 'demo', replyTo: caller, requestId: 'load' });
    await settle();
    ask(caller, { type: 'mcp.callTool', ...again, replyTo: caller, requestId: 'first' });
    ask(caller, { type: 'mcp.callTool', ...again, replyTo: caller, requestId: 'dies' });
    return { caller, clock };
  }

  const settleClock = async (clock: SimulatedClock) => {
    await settle();
    clock.increment(1_000);
    await settle();
  };

  it.each([0, 500])('a reloader (crash after %i ms) hears it once the chart left connected, loads a new session and calls again', async (delayMs) => {
    const { caller, clock } = await runCaller('reload', delayMs);
    await settleClock(clock);
    expect(caller.getSnapshot().context.serverStateWhenLost).toEqual([{ error: 'releasing' }]);
    expect(described(caller.getSnapshot().context.replies)).toEqual([
      ['mcp.loaded', 'load', undefined],
      ['mcp.toolResult', 'first', undefined],
      ['mcp.failed', 'dies', 'CONNECTION_LOST'],
      ['mcp.loaded', 'reload-1', undefined],
      ['mcp.toolResult', 'again-reload-1', undefined],
    ]);
    expect(repliesById(caller).get('reload-1')).toMatchObject([{ manifest: withTools('echo', 'second') }]);
    caller.stop();
  });

  it.each([0, 500])('a disconnector (crash after %i ms) gets one reply for the call that died', async (delayMs) => {
    const { caller, clock } = await runCaller('disconnect', delayMs);
    await settleClock(clock);
    expect(described(caller.getSnapshot().context.replies)).toEqual([
      ['mcp.loaded', 'load', undefined],
      ['mcp.toolResult', 'first', undefined],
      ['mcp.failed', 'dies', 'CONNECTION_LOST'],
    ]);
    expect(caller.system.get('mcp.server.demo')?.getSnapshot().value).toEqual({ disconnected: 'idle' });
    caller.stop();
  });
});

describe('a manifest that refers to itself', () => {
  it('is refused as the scripted registry is created, saying where, since no snapshot could hold it', () => {
    const schema: Record<string, unknown> = { type: 'object' };
    schema.self = schema;
    const tools = [{ name: 'echo', inputSchema: schema }];
    expect(() => createScriptedRegistry({ servers: { notes: { manifest: { tools: tools as never } } } })).toThrow(
      new TypeError('createScriptedRegistry: the script of server "notes" has a manifest that refers to itself at manifest.tools[0].inputSchema.self; a manifest must be plain data (a persisted snapshot holds it). Nothing was created.'),
    );
    expect(() => createScriptedRegistry({ servers: { notes: { tools: { echo: [{ answer: text('ok'), thenManifest: { tools: tools as never } }] } } } })).toThrow(
      /at tools\["echo"\]\[0\]\.thenManifest\.tools\[0\]\.inputSchema\.self;/,
    );
  });

  it('is not one that uses the same object twice side by side', () => {
    const schema = { type: 'object' as const };
    expect(() => createScriptedRegistry({ servers: { notes: { loads: [{ answer: { tools: [{ name: 'a', inputSchema: schema }, { name: 'b', inputSchema: schema }] } }] } } })).not.toThrow();
  });
});

describe('a scripted registry restored from a persisted snapshot, as the real one is', () => {
  const slowServer = { servers: { demo: { manifest: withTools('echo'), loads: [{ answer: undefined, delayMs: 60_000 }], tools: { slow: [{ answer: text('late'), delayMs: 60_000 }] } } } };
  const callerInput = { servers: {}, reaction: 'none' as const, again: { server: 'demo', tool: 'slow' } };

  /** The caller persisted through JSON, stopped, and started again from the snapshot with the same system id. */
  function persistAndRestore(caller: ReturnType<typeof startReactingCaller>, logic: ReturnType<typeof createScriptedRegistry>['logic']) {
    const snapshot: unknown = JSON.parse(JSON.stringify(caller.getPersistedSnapshot()));
    caller.stop();
    return startReactingCaller(logic, callerInput, { snapshot: snapshot as never, systemId: 'agent', clock: new SimulatedClock() });
  }

  it('answers a load that waited when persisted with mcp.failed RESTORED at a caller with a system id', async () => {
    const { logic } = createScriptedRegistry(slowServer);
    const caller = startReactingCaller(logic, callerInput, { systemId: 'agent', clock: new SimulatedClock() });
    ask(caller, { type: 'mcp.load', server: 'demo', replyTo: caller, requestId: 'load' });
    await settle();

    const restored = persistAndRestore(caller, logic);
    await settle();
    // As from the real registry: the old run's answer comes first, then the registry says it was restored.
    expect(described(restored.getSnapshot().context.replies)).toEqual([['mcp.failed', 'load', 'RESTORED'], ['mcp.restored', undefined, undefined]]);
    restored.stop();
  });

  it('answers a call that was in flight when persisted with mcp.failed RESTORED at a caller with a system id', async () => {
    const { logic } = createScriptedRegistry({ servers: { demo: { ...slowServer.servers.demo, loads: undefined } } });
    const caller = startReactingCaller(logic, callerInput, { systemId: 'agent', clock: new SimulatedClock() });
    ask(caller, { type: 'mcp.load', server: 'demo', replyTo: caller, requestId: 'load' });
    await settle();
    ask(caller, { type: 'mcp.callTool', server: 'demo', tool: 'slow', arguments: {}, replyTo: caller, requestId: 'slow' });
    await settle();

    const restored = persistAndRestore(caller, logic);
    await settle();
    expect(described(restored.getSnapshot().context.replies)).toEqual([
      ['mcp.loaded', 'load', undefined],
      ['mcp.failed', 'slow', 'RESTORED'],
      ['mcp.restored', undefined, undefined],
    ]);
    expect(restored.getSnapshot().context.replies.at(1)).toMatchObject({ error: { message: expect.stringMatching(/while calling tool "slow" was in flight/) } });
    restored.stop();
  });
});
