/**
 * Exactly one final reply per `requestId`, as the protocol's types promise: any interleaving of
 * loads, calls, disconnects and server deaths, from an agent chart that reacts in the same step
 * as it hears `CONNECTION_LOST` (loads again and calls again, disconnects, calls again at once, or
 * does nothing), answers every request it sent once, and only once.
 *
 * The property runs the real registry, server chart and session actor over in-memory fixture
 * servers (a death closes the server's side of the transport, as a killed process does); backoff
 * runs on a SimulatedClock. The same reactions against a real server-everything killed with
 * SIGKILL are in test/loss-window.test.ts.
 */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import { SimulatedClock, type InspectionEvent } from 'xstate';
import { describe, expect, it, vi } from 'vitest';
import { createRegistryLogic, SessionTracker, silentLogger } from '../src/index.js';
import { createFixtureServer } from './fixtures/fixture-server.mjs';
import { settle } from './support/fixtures.js';
import { ask, repliesById, startReactingCaller, type Reaction } from './support/reacting-caller.js';

type Command =
  | { kind: 'load' }
  | { kind: 'call'; slowMs: number }
  | { kind: 'disconnect' }
  | { kind: 'kill' }
  | { kind: 'tick'; ms: number };

/** Each command, and whether the next one waits for what it set off (`settle`) or starts in the same turn. */
const step = fc.record({
  command: fc.oneof(
    { weight: 2, arbitrary: fc.constant<Command>({ kind: 'load' }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('call' as const), slowMs: fc.constantFrom(0, 5, 30) }) },
    { weight: 1, arbitrary: fc.constant<Command>({ kind: 'disconnect' }) },
    { weight: 2, arbitrary: fc.constant<Command>({ kind: 'kill' }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.constantFrom(500, 1_000, 4_000) }) },
  ),
  settle: fc.boolean(),
});

const REACTIONS: Reaction[] = ['reload', 'disconnect', 'retry', 'none'];
const RUNS = Number(process.env.REPLY_PROPS_RUNS ?? 60);

function isRequestSent(event: InspectionEvent): event is InspectionEvent & { type: '@xstate.event'; event: { type: string; requestId: string } } {
  if (event.type !== '@xstate.event') return false;
  const sent = event.event as { type: string; requestId?: unknown };
  return (sent.type === 'mcp.load' || sent.type === 'mcp.callTool') && typeof sent.requestId === 'string';
}

async function run(reaction: Reaction, steps: Array<{ command: Command; settle: boolean }>): Promise<void> {
  const clock = new SimulatedClock();
  const sessions = new SessionTracker();
  const servers: Array<ReturnType<typeof createFixtureServer>> = [];
  const registry = createRegistryLogic({
    logger: silentLogger,
    sessions,
    transportFactory: () => {
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const server = createFixtureServer({ name: 'fixture' });
      servers.push(server);
      void server.connect(serverSide);
      return clientSide;
    },
  });
  const sent = new Set<string>();
  const caller = startReactingCaller(
    registry,
    { servers: { fixture: { command: 'in-memory' } }, reaction, again: { server: 'fixture', tool: 'echo', arguments: { text: 'again' } } },
    { clock, inspect: (event) => void (isRequestSent(event) && sent.add(event.event.requestId)) },
  );
  try {
    for (const [index, { command, settle: wait }] of steps.entries()) {
      const requestId = `step-${index}`;
      if (command.kind === 'load') ask(caller, { type: 'mcp.load', server: 'fixture', replyTo: caller, requestId });
      if (command.kind === 'call') {
        const call = command.slowMs > 0 ? { tool: 'slow', arguments: { ms: command.slowMs } } : { tool: 'echo', arguments: { text: requestId } };
        ask(caller, { type: 'mcp.callTool', server: 'fixture', ...call, replyTo: caller, requestId });
      }
      if (command.kind === 'disconnect') ask(caller, { type: 'mcp.disconnect', server: 'fixture' });
      if (command.kind === 'kill') void servers.at(-1)?.close();
      if (command.kind === 'tick') clock.increment(command.ms);
      if (wait) await settle();
    }
    // Every request is answered in the end: backoffs run out on the clock, slow calls end in real time.
    await vi.waitFor(
      async () => {
        clock.increment(5_000);
        await settle();
        const byId = repliesById(caller);
        expect([...sent].filter((requestId) => !byId.has(requestId))).toEqual([]);
      },
      { timeout: 5_000, interval: 10 },
    );
    const byId = repliesById(caller);
    const answeredMoreThanOnce = [...byId].filter(([, replies]) => replies.length > 1).map(([id, replies]) => [id, replies.map((reply) => reply.type)]);
    expect(answeredMoreThanOnce).toEqual([]);
    // No reply for a request nobody sent.
    expect([...byId.keys()].filter((requestId) => !sent.has(requestId))).toEqual([]);
  } finally {
    caller.stop();
    await sessions.closeAll();
  }
}

describe('one final reply per request', () => {
  it('holds for any interleaving of load, call, disconnect and server death, whatever the caller does at once on a loss', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...REACTIONS), fc.array(step, { minLength: 1, maxLength: 14 }), (reaction, steps) => run(reaction, steps)),
      { numRuns: RUNS },
    );
  }, 120_000);
});
