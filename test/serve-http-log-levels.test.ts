/**
 * The log levels a `serve --http` replica keeps for 2025-era sessions (HttpHostRelay): each
 * session's own, bounded. A unit test of the logic: the calls' streams are in-memory transports.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import { HttpHostRelay, MAX_SESSION_LOG_LEVELS } from '../src/serve/http-host-relay.js';

/** A call's SSE stream: what it was sent. */
function stream(): Transport & { sent: JSONRPCMessage[] } {
  const sent: JSONRPCMessage[] = [];
  return { sent, start: async () => {}, close: async () => {}, send: async (message) => void sent.push(message) };
}

/** The levels of the log messages a 2025-era call of `sessionId` to server `x` is sent when `x` logs at debug and at error. */
async function levelsSent(relay: HttpHostRelay, sessionId: string): Promise<unknown[]> {
  const transport = stream();
  await relay.runLegacy({ owner: 'alice', server: 'x', capabilities: undefined, transport, requestId: 1, sessionId, signal: new AbortController().signal }, async () => {
    for (const level of ['debug', 'error'] as const) relay.log('x', { level, data: `a ${level} message` });
  });
  return transport.sent.map((message) => ('params' in message ? message.params?.level : undefined));
}

describe("a replica's log levels of 2025-era sessions", () => {
  it("filters each session's calls by its own level, and every level for a session that set none here", async () => {
    const relay = new HttpHostRelay();
    await relay.setLogLevel('session-a', 'error');
    expect(await levelsSent(relay, 'session-a')).toEqual(['error']);
    expect(await levelsSent(relay, 'session-b')).toEqual(['debug', 'error']);
  });

  it(`keeps ${MAX_SESSION_LOG_LEVELS} sessions, forgetting the one set longest ago`, async () => {
    const relay = new HttpHostRelay();
    await relay.setLogLevel('first', 'error');
    await relay.setLogLevel('second', 'error');
    for (let i = 0; i < MAX_SESSION_LOG_LEVELS - 2; i++) await relay.setLogLevel(`session-${i}`, 'error');
    // Set again: now the latest, so it outlives "second".
    await relay.setLogLevel('first', 'error');
    await relay.setLogLevel('one-more', 'error');
    expect(await levelsSent(relay, 'first')).toEqual(['error']);
    expect(await levelsSent(relay, 'second')).toEqual(['debug', 'error']);
    expect(await levelsSent(relay, 'one-more')).toEqual(['error']);
  });
});
