import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

type MessageHandler = NonNullable<Transport['onmessage']>;

/**
 * `deliver`, with a server's answer handed on only after the notifications read before it have
 * reached their handlers. The SDK runs a notification's handler a microtask after it is delivered
 * but settles a request at once when its answer is delivered: progress a server sent just before
 * its result, read in the same chunk, found its request gone and was dropped (a fast tool's
 * onProgress got none of its updates). An answer that follows a notification whose handler has
 * yet to run waits one microtask, after that handler; what comes after it waits its turn, one
 * message a microtask, so the order stays the server's. An answer with no such notification
 * before it goes on at once: with many calls in flight, their answers read in one chunk would
 * otherwise each cost a microtask and a queue entry.
 */
export function notificationsFirst(deliver: MessageHandler): MessageHandler {
  const waiting: Array<Parameters<MessageHandler>> = [];
  let scheduled = false;
  /** Notifications handed on whose handlers the SDK has yet to run (each runs a microtask later). */
  let handlersDue = 0;
  const handlerRan = (): void => {
    handlersDue--;
  };
  const handOn = (message: JSONRPCMessage, extra: Parameters<MessageHandler>[1]): void => {
    deliver(message, extra);
    if (isAnswer(message)) return;
    handlersDue++;
    // Queued after the SDK's own microtask for the handler (queued as it was delivered): counts down once that has run.
    queueMicrotask(handlerRan);
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(next);
  };
  const next = (): void => {
    scheduled = false;
    const [message, extra] = waiting.shift()!;
    try {
      handOn(message, extra);
    } finally {
      if (waiting.length > 0) schedule();
    }
  };
  return (message, extra) => {
    if (waiting.length === 0 && (handlersDue === 0 || !isAnswer(message))) return handOn(message, extra);
    waiting.push([message, extra]);
    schedule();
  };
}

function isAnswer(message: JSONRPCMessage): boolean {
  return !('method' in message) && 'id' in message;
}
