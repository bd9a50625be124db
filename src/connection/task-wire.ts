import { randomUUID } from 'node:crypto';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  ProtocolError,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';

/** The Tasks extension's identifier (SEP-2663), declared in every request's client capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The methods of the extension this client sends (`subscriptions/listen` with `taskIds`: its status notifications). */
export type TaskMethod = 'tasks/get' | 'tasks/update' | 'tasks/cancel' | 'subscriptions/listen';

/** Where a `notifications/subscriptions/acknowledged` names the `subscriptions/listen` request it answers. */
const SUBSCRIPTION_ID_META_KEY = 'io.modelcontextprotocol/subscriptionId';

/**
 * The code of the error a task result is handed to its caller in. Any code would do: a task is
 * recognised by this wire's own token in the error's data, which the server cannot know.
 */
const TASK_HANDOFF_CODE = -32099;

/**
 * A request of the extension whose answer (Streamable HTTP) was cut before it was whole: an SSE
 * stream that ended unanswered, or a JSON body whose connection dropped mid-way.
 */
export class AnswerStreamCut extends Error {
  constructor(method: TaskMethod, options?: ErrorOptions) {
    super(`the server's answer stream for a ${method} request ended before the answer`, options);
    this.name = 'AnswerStreamCut';
  }
}

/** How fetch (undici) fails the read of a body whose connection dropped after the head: the SDK's transport rethrows it from `send`. */
function isBodyCut(error: unknown): boolean {
  return error instanceof TypeError && error.message === 'terminated';
}

/** The envelope keys a 2026-07-28 request carries in `_meta`: the tasks requests carry the same. */
const ENVELOPE_KEYS = [PROTOCOL_VERSION_META_KEY, CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY] as const;

interface Pending {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
}

/**
 * The Tasks extension's side of one transport. The v2 SDK refuses `tasks/*` on a 2026-07-28
 * connection and turns a `resultType: "task"` answer into an error without the task, so this sits
 * between the transport and the SDK:
 * - a response whose result is a task (`resultType: "task"`) reaches the SDK as an error that
 *   carries the task and this wire's token, so the caller of that very request gets it
 *   (`takeTask`) and follows it;
 * - `tasks/get`, `tasks/update` and `tasks/cancel` are sent on the transport with ids of their own,
 *   and their answers kept from the SDK. They carry the `_meta` envelope of the client's latest
 *   request (protocol version, client capabilities with this extension, client info); over
 *   Streamable HTTP the SDK's transport sets `Mcp-Name` to the task id for these methods.
 * Install it after `connect`: the SDK sets the transport's `onmessage` while connecting.
 */
export class TaskWire {
  private readonly token = randomUUID();
  private readonly pending = new Map<string, Pending>();
  /** Who hears each task's `notifications/tasks`, by task id. */
  private readonly watchers = new Map<string, (task: Record<string, unknown>) => void>();
  private sent = 0;
  private envelope: Record<string, unknown> = {};

  constructor(private readonly transport: Transport) {
    const deliver = transport.onmessage;
    const send = transport.send.bind(transport);
    transport.onmessage = (message, extra) => {
      const ours = this.answerFor(message) ?? this.notificationFor(message);
      if (ours) return ours();
      deliver?.(this.handOffTask(message), extra);
    };
    transport.send = (message, options) => {
      this.rememberEnvelope(message);
      return send(message, options);
    };
  }

  /** The task a request's rejection carries, when the server answered that request with a task. */
  takeTask(error: unknown): Record<string, unknown> | undefined {
    if (!(error instanceof ProtocolError) || error.code !== TASK_HANDOFF_CODE || !isRecord(error.data)) return undefined;
    const { token, task } = error.data;
    return token === this.token && isRecord(task) ? task : undefined;
  }

  /**
   * Sends one request of the extension; rejects with the server's error, or with `signal`'s reason
   * when it aborts first. An abort also tells the server, so it can release what the request holds
   * (an open `subscriptions/listen` above all), as the 2026-07-28 spec's cancellation pattern asks
   * (docs/specification/2026-07-28/basic/patterns/cancellation.mdx, "Transport-Specific Cancellation"):
   * over Streamable HTTP the request's own stream is closed, over stdio `notifications/cancelled`
   * names it.
   */
  request(method: TaskMethod, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const id = `tasks-${this.token}-${++this.sent}`;
    const stream = this.transport.hasPerRequestStream === true ? new AbortController() : undefined;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.cancel(id, stream);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const settle = <T>(then: (value: T) => void) => (value: T) => {
        signal.removeEventListener('abort', onAbort);
        this.pending.delete(id);
        then(value);
      };
      this.pending.set(id, { resolve: settle(resolve), reject: settle(reject) });
      const message: JSONRPCMessage = { jsonrpc: '2.0', id, method, params: { ...params, _meta: { ...this.envelope } } };
      // A stream of these that ends unanswered (a listen the server drops, a replica gone mid-answer)
      // fails that request alone, at once: it is no lost connection, for a task is a durable handle,
      // polled again (task-follow.ts). The session's watch of answer streams (request-streams.ts)
      // leaves a send with its own `onRequestStreamEnd` alone. Once answered, the end finds nothing pending.
      // An answer sent as JSON is read by the transport's `send` instead: its cut body rejects that.
      const streamEnded = () => this.pending.get(id)?.reject(new AnswerStreamCut(method));
      const failed = (error: Error) => reject(isBodyCut(error) ? new AnswerStreamCut(method, { cause: error }) : error);
      this.transport.send(message, { requestSignal: stream?.signal, onRequestStreamEnd: streamEnded }).catch(settle(failed));
    });
  }

  /** The server is told no reason of ours: the caller's may say more than the server should hear. */
  private cancel(id: string, stream: AbortController | undefined): void {
    if (stream) return stream.abort();
    const params = { requestId: id, reason: 'the client no longer waits for it', _meta: { ...this.envelope } };
    this.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params }).catch(() => {});
  }

  /**
   * Hears the `notifications/tasks` of one task (each carries its whole state, as `tasks/get`
   * answers it) until the returned function is called.
   */
  watchTask(taskId: string, heard: (task: Record<string, unknown>) => void): () => void {
    this.watchers.set(taskId, heard);
    return () => {
      if (this.watchers.get(taskId) === heard) this.watchers.delete(taskId);
    };
  }

  /** A task's status notification, or the acknowledgement of our own `subscriptions/listen`: never the SDK's. */
  private notificationFor(message: JSONRPCMessage): (() => void) | undefined {
    if (!('method' in message) || 'id' in message || !isRecord(message.params)) return undefined;
    const { params } = message;
    if (message.method === 'notifications/tasks') {
      const heard = typeof params.taskId === 'string' ? this.watchers.get(params.taskId) : undefined;
      return () => heard?.(params);
    }
    const listen = isRecord(params._meta) ? params._meta[SUBSCRIPTION_ID_META_KEY] : undefined;
    if (message.method === 'notifications/subscriptions/acknowledged' && typeof listen === 'string' && this.pending.has(listen)) return () => {};
    return undefined;
  }

  /** The answer to one of our requests: settles it, and the SDK never sees it. */
  private answerFor(message: JSONRPCMessage): (() => void) | undefined {
    if (!('id' in message) || 'method' in message || typeof message.id !== 'string') return undefined;
    const pending = this.pending.get(message.id);
    if (!pending) return undefined;
    if ('error' in message) return () => pending.reject(ProtocolError.fromError(message.error.code, message.error.message, message.error.data));
    return () => pending.resolve(message.result);
  }

  private handOffTask(message: JSONRPCMessage): JSONRPCMessage {
    if (!('result' in message) || message.result.resultType !== 'task') return message;
    const data = { token: this.token, task: message.result };
    return { jsonrpc: '2.0', id: message.id, error: { code: TASK_HANDOFF_CODE, message: 'the server answered with a task', data } };
  }

  private rememberEnvelope(message: JSONRPCMessage): void {
    if (!('method' in message) || !('id' in message) || !isRecord(message.params?._meta)) return;
    const meta = message.params._meta;
    if (!(PROTOCOL_VERSION_META_KEY in meta)) return;
    this.envelope = Object.fromEntries(ENVELOPE_KEYS.filter((key) => key in meta).map((key) => [key, meta[key]]));
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
