import { afterEach, describe, expect, it, vi } from 'vitest';
import { createActor, SimulatedClock, waitFor, type InspectionEvent } from 'xstate';
import { SessionTracker } from '../src/connection/session-tracker.js';
import { silentLogger } from '../src/logger.js';
import { agentMachine, createAgent, disconnectAll, main, MCP_CHILD, type AgentInput } from '../examples/agent-statechart.js';
import { descendantsOfThisProcess, settle, stdioFixture } from './support/fixtures.js';

const PROTOCOL_IN = ['mcp.configure', 'mcp.subscribe', 'mcp.load', 'mcp.callTool', 'mcp.readResource', 'mcp.touch', 'mcp.disconnect', 'mcp.disconnectAll'];
const PROTOCOL_REPLIES = ['mcp.loaded', 'mcp.toolResult', 'mcp.resource', 'mcp.failed'];
const PROTOCOL_REPORTS = ['mcp.stateChanged', 'mcp.manifestChanged'];

const echoTask = (server = 'fixture'): AgentInput['task'] => ({ server, tool: 'echo', arguments: { text: 'hello agent' } });

function startAgent(input: AgentInput, inspect?: (event: InspectionEvent) => void) {
  const tracker = new SessionTracker();
  const logic = createAgent({ logger: silentLogger, sessions: tracker, clientInfo: { name: 'agent-test', version: '0' } });
  const agent = createActor(logic, { input, inspect }).start();
  return { agent, tracker };
}

type Started = ReturnType<typeof startAgent>;
let started: Started | undefined;

afterEach(async () => {
  if (started) {
    await disconnectAll(started.agent, started.tracker);
    started.agent.stop();
    started = undefined;
  }
});

describe('an agent statechart that embeds the registry', () => {
  it('thinks, loads the tools, calls one on a real stdio server and ends in done with its result', async () => {
    started = startAgent({ servers: { fixture: stdioFixture() }, task: echoTask() });
    const visited: unknown[] = [];
    started.agent.subscribe((snapshot) => visited.push(snapshot.value));
    const finished = await waitFor(started.agent, (snapshot) => snapshot.hasTag('finished'), { timeout: 15_000 });
    expect(finished.value).toBe('done');
    expect(finished.context.result?.content).toEqual([{ type: 'text', text: 'hello agent' }]);
    expect(finished.context.manifest?.tools.map((tool) => tool.name)).toContain('echo');
    expect([...new Set(visited)]).toEqual(['loadingTools', 'calling', 'done']);
  });

  it('leaves no server process behind once its registry gets mcp.disconnectAll', async () => {
    const before = descendantsOfThisProcess();
    started = startAgent({ servers: { fixture: stdioFixture() }, task: echoTask() });
    await waitFor(started.agent, (snapshot) => snapshot.matches('done'), { timeout: 15_000 });
    expect(descendantsOfThisProcess().length).toBeGreaterThan(before.length);

    await disconnectAll(started.agent, started.tracker);

    await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual(before), { timeout: 5_000, interval: 20 });
    expect(started.agent.getSnapshot().value).toBe('done');
  });

  it('talks to the registry only with the events of the registry protocol, and gets its answers through replyTo', async () => {
    const messages: Array<Extract<InspectionEvent, { type: '@xstate.event' }>> = [];
    started = startAgent({ servers: { fixture: stdioFixture() }, task: echoTask() }, (event) => {
      if (event.type === '@xstate.event') messages.push(event);
    });
    const { agent } = started;
    await waitFor(agent, (snapshot) => snapshot.hasTag('finished'), { timeout: 15_000 });
    const registry = agent.system.get(MCP_CHILD);
    await disconnectAll(agent, started.tracker);

    // `xstate.*` events are XState's own (starting the child, actor results), not messages.
    const sent = messages.filter(
      (message) => message.sourceRef === agent && message.actorRef === registry && !message.event.type.startsWith('xstate.'),
    );
    // Replies come from the server's actors, addressed to the replyTo the agent gave: the load's
    // from the server actor, the call's from its session actor, which ran it.
    const received = messages.filter((message) => message.actorRef === agent && message.sourceRef && message.sourceRef !== agent);
    const protocolEvents = received.map((message) => message.event.type).filter((type) => !type.startsWith('xstate.'));
    const protocolReplies = protocolEvents.filter((type) => !PROTOCOL_REPORTS.includes(type));
    const callAnswerer = received.find((message) => message.event.type === 'mcp.toolResult')?.sourceRef;
    expect(callAnswerer && 'id' in callAnswerer ? callAnswerer.id : undefined).toBe('session');
    expect(sent.map((message) => message.event.type)).toEqual(['mcp.subscribe', 'mcp.load', 'mcp.callTool']);
    expect(sent.every((message) => PROTOCOL_IN.includes(message.event.type))).toBe(true);
    expect(protocolReplies).toEqual(['mcp.loaded', 'mcp.toolResult']);
    expect(protocolReplies.every((type) => PROTOCOL_REPLIES.includes(type))).toBe(true);
    // The reports it subscribed to: its server's substates, the last one the end of the close.
    expect(protocolEvents).toContain('mcp.stateChanged');
    expect(agent.getSnapshot().context.serverSubstate).toBe('disconnected.idle');
  });

  it('ends in failed, naming the server, when the server is not configured', async () => {
    started = startAgent({ servers: {}, task: echoTask('nowhere') });
    const finished = await waitFor(started.agent, (snapshot) => snapshot.hasTag('finished'));
    expect(finished.value).toBe('failed');
    expect(finished.context.error?.message).toMatch(/Unknown MCP server "nowhere"/);
  });

  it('ends in failed when the server does not offer the planned tool', async () => {
    started = startAgent({ servers: { fixture: stdioFixture() }, task: { server: 'fixture', tool: 'teleport' } });
    const finished = await waitFor(started.agent, (snapshot) => snapshot.hasTag('finished'), { timeout: 15_000 });
    expect(finished.value).toBe('failed');
    expect(finished.context.error?.message).toBe('MCP server "fixture" offers no tool "teleport".');
  });

  it('is pure data until effects are provided: its registry cannot connect on its own', async () => {
    const clock = new SimulatedClock();
    const agent = createActor(agentMachine, { clock, input: { servers: { fixture: stdioFixture() }, task: echoTask() } }).start();
    // The placeholder connect fails; let the retries and their backoff (1, 2, 4 s) run out, well
    // within the agent's own reply timeout.
    for (let round = 0; round < 10 && !agent.getSnapshot().hasTag('finished'); round++) {
      await settle();
      clock.increment(5_000);
    }
    const finished = agent.getSnapshot();
    expect(finished.value).toBe('failed');
    expect(finished.context.error?.message).toMatch(/"connect" actor was not provided/);
    agent.stop();
  });

  it('runs from the command line against the notes server shipped in examples/servers and prints the tool result', async () => {
    const before = descendantsOfThisProcess();
    const lines: string[] = [];
    const exitCode = await main([], (line) => lines.push(line));
    expect(exitCode).toBe(0);
    expect(lines).toEqual(['done: Saved note #3 "agent".']);
    await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual(before), { timeout: 5_000, interval: 20 });
  });
});
