/**
 * A client that stops reading leaves its answer (a tool's whole result, megabytes) in the
 * connection's send buffer, in the replica's memory, for as long as it stays connected. Node
 * hands the whole answer to the socket and counts the request done, so the bound is on the socket.
 */
import type { Socket } from 'node:net';

const watched = new WeakSet<Socket>();

/** Closes `socket` once its send buffer has not shrunk for `ms` (checked every `ms`); nothing to do when it is empty. */
export function closeWhenUnread(socket: Socket, ms: number): void {
  if (watched.has(socket) || socket.writableLength === 0) return;
  watched.add(socket);
  let waiting = socket.writableLength;
  const check = setInterval(() => {
    const now = socket.writableLength;
    if (now >= waiting && now > 0 && !socket.destroyed) socket.destroy();
    else if (now > 0 && !socket.destroyed) {
      waiting = now;
      return;
    }
    clearInterval(check);
    watched.delete(socket);
  }, ms);
  check.unref();
}
