/**
 * notificationsFirst (src/connection/delivery-order.ts): an answer read right after a notification
 * waits until the SDK has run that notification's handler (a microtask later); an answer with no
 * such notification before it is handed on at once, without a microtask of its own.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { notificationsFirst } from '../src/connection/delivery-order.js';

const progress = (n: number): JSONRPCMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: n } });
const answer = (id: number): JSONRPCMessage => ({ jsonrpc: '2.0', id, result: {} });
const label = (message: JSONRPCMessage): string => ('method' in message ? `progress ${String(message.params?.progress)}` : `answer ${String((message as { id: number }).id)}`);

/** A receiver that, like the SDK, runs a notification's handler a microtask after it gets it and settles an answer at once. */
function sdkLike(): { seen: string[]; deliver: (message: JSONRPCMessage) => void } {
  const seen: string[] = [];
  return {
    seen,
    deliver: (message) => {
      if ('method' in message) void Promise.resolve().then(() => seen.push(`handled ${label(message)}`));
      else seen.push(`settled ${label(message)}`);
    },
  };
}

describe('notificationsFirst', () => {
  it('settles an answer read after notifications only once their handlers have run, in the order read', async () => {
    const receiver = sdkLike();
    const deliver = notificationsFirst(receiver.deliver);
    for (const message of [progress(1), progress(2), answer(1), progress(3), answer(2)]) deliver(message);
    for (let hop = 0; hop < 20; hop++) await Promise.resolve();
    expect(receiver.seen).toEqual(['handled progress 1', 'handled progress 2', 'settled answer 1', 'handled progress 3', 'settled answer 2']);
  });

  it('hands on answers with no notification before them at once, and again once earlier handlers have run', async () => {
    const receiver = sdkLike();
    const deliver = notificationsFirst(receiver.deliver);
    deliver(answer(1));
    deliver(answer(2));
    expect(receiver.seen).toEqual(['settled answer 1', 'settled answer 2']);
    deliver(progress(1));
    deliver(answer(3));
    expect(receiver.seen).toEqual(['settled answer 1', 'settled answer 2']);
    for (let hop = 0; hop < 20; hop++) await Promise.resolve();
    expect(receiver.seen).toEqual(['settled answer 1', 'settled answer 2', 'handled progress 1', 'settled answer 3']);
    deliver(answer(4));
    expect(receiver.seen.at(-1)).toBe('settled answer 4');
  });
});
