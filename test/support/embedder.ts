import { afterEach, expect, vi } from 'vitest';
import { assertEvent, assign, sendTo, setup } from 'xstate';
import type { McpRegistryInput, McpReply, McpStateChangedEmitted } from '../../machines/types.js';
import type { SessionTracker } from '../../src/connection/session-tracker.js';
import type { RegistryLogic } from '../../src/registry-logic.js';
import { descendantsOfThisProcess, stdioFixture } from './fixtures.js';

/**
 * After each test of the file: runs the stops it pushed (stopping its actors), closes every
 * session of `sessions`, and waits until no server process is left. Returns the list to push to.
 */
export function cleanUpAfterEach(sessions: SessionTracker): Array<() => void> {
  const stops: Array<() => void> = [];
  afterEach(async () => {
    for (const stop of stops.splice(0)) stop();
    await sessions.closeAll();
    await vi.waitFor(() => expect(descendantsOfThisProcess()).toEqual([]), { timeout: 10_000 });
  });
  return stops;
}

/** What a test tells an embedder chart to send its registry. */
export type Ask = { type: 'ask'; request: McpRegistryInput };

/**
 * An agent chart that invokes `registry` as `mcp`, subscribes to it and keeps its replies. Its one
 * server, `fixture`, never answers initialize: a load waits in `connecting` as long as the test likes.
 */
export function waitingLoadAgent(registry: RegistryLogic) {
  return setup({
    types: {
      events: {} as Ask | McpReply | McpStateChangedEmitted,
      context: {} as { replies: McpReply[] },
      children: {} as { mcp: 'mcp' },
    },
    actors: { mcp: registry },
  }).createMachine({
    context: { replies: [] },
    invoke: { id: 'mcp', src: 'mcp', input: { servers: { fixture: stdioFixture('--mode', 'never-initialize') } } },
    entry: sendTo('mcp', ({ self }) => ({ type: 'mcp.subscribe' as const, replyTo: self })),
    on: {
      ask: {
        actions: sendTo('mcp', ({ event }) => {
          assertEvent(event, 'ask');
          return event.request;
        }),
      },
      'mcp.failed': { actions: assign({ replies: ({ context, event }) => [...context.replies, event] }) },
      'mcp.loaded': { actions: assign({ replies: ({ context, event }) => [...context.replies, event] }) },
    },
  });
}
