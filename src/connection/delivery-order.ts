import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';

type MessageHandler = NonNullable<Transport['onmessage']>;

/**
 * `deliver`, with a server's answer handed on only after the notifications read before it have
 * reached their handlers. The SDK runs a notification's handler a microtask after it is delivered
 * but settles a request at once when its answer is delivered: progress a server sent just before
 * its result, read in the same chunk, found its request gone and was dropped (a fast tool's
 * onProgress got none of its updates). An answer waits one microtask, after those handlers; what
 * comes after it waits its turn, one message a microtask, so the order stays the server's.
 */
export function notificationsFirst(deliver: MessageHandler): MessageHandler {
  const waiting: Array<Parameters<MessageHandler>> = [];
  let scheduled = false;
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(next);
  };
  const next = (): void => {
    scheduled = false;
    const [message, extra] = waiting.shift()!;
    try {
      deliver(message, extra);
    } finally {
      if (waiting.length > 0) schedule();
    }
  };
  return (message, extra) => {
    if (waiting.length === 0 && !isAnswer(message)) return deliver(message, extra);
    waiting.push([message, extra]);
    schedule();
  };
}

function isAnswer(message: JSONRPCMessage): boolean {
  return !('method' in message) && 'id' in message;
}
