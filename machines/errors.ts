import { quoted, terminalLine, terminalText } from './control-characters.js';
import type { RequestSpec } from './types.js';
import { errorMessage } from './to-error.js';
/** The errors the charts answer with. Each names the server and says what the caller can do. */

export type McpErrorCode =
  | 'UNKNOWN_SERVER'
  | 'SERVER_DISABLED'
  | 'NOT_CONNECTED'
  | 'CONNECTION_LOST'
  | 'DISCONNECTED'
  | 'RESTORED'
  | 'CONFIG_ERROR'
  | 'CONNECT_FAILED'
  | 'REQUEST_FAILED'
  | 'TIMEOUT'
  | 'ABORTED'
  | 'SERVER_CRASHED'
  | 'INVALID_ARGUMENTS';

/**
 * @example
 * ```ts
 * import { McpServerError, type McpReply } from 'mcp-statechart';
 *
 * declare const reply: McpReply;
 * if (reply.type === 'mcp.failed' && reply.error instanceof McpServerError && reply.error.code === 'CONFIG_ERROR') {
 *   console.error(`${reply.error.server}: ${reply.error.message}`);
 * }
 * ```
 */
export class McpServerError extends Error {
  override name = 'McpServerError';
  readonly code: McpErrorCode;
  readonly server: string;
  /** The last lines of the server's stderr, when it had any (stdio). */
  readonly stderrTail?: string;
  /** A connect that ran out of its `connectTimeoutMs` (code `CONNECT_FAILED`): the server did not answer in time. */
  readonly timedOut?: true;

  constructor(
    code: McpErrorCode,
    server: string,
    message: string,
    options: { cause?: unknown; stderrTail?: string; timedOut?: boolean } = {},
  ) {
    // Built from what a server sent (its error message, its stderr): escaped as the CLI and the
    // view show text, so a library user who prints or logs the error shows no escape sequence.
    // Escaping is idempotent: a message that quotes names already escaped is unchanged.
    super(terminalText(message), options.cause === undefined ? undefined : { cause: printableCause(options.cause) });
    this.code = code;
    this.server = server;
    if (options.stderrTail) this.stderrTail = terminalText(options.stderrTail);
    if (options.timedOut) this.timedOut = true;
  }

  /** JSON-safe (persisted snapshots, logs): what happened, never the cause object. */
  toJSON(): { name: string; code: McpErrorCode; server: string; message: string } {
    return { name: this.name, code: this.code, server: this.server, message: this.message };
  }
}

/** How deep a chain of causes is made printable: a cause that holds itself would have no end. */
const CAUSE_DEPTH = 8;

/**
 * The cause as Node prints it with the error (`console.error`, `util.inspect`: `[cause]: …` with
 * the cause's stack, which starts with its message), escaped as the message is: the SDK's error
 * holds what the server sent as it is. A copy of the same class with the same fields (a code, the
 * server's data), so code that reads the cause still can; the cause itself when nothing needs escaping.
 */
function printableCause(cause: unknown, depth = 0): unknown {
  if (!(cause instanceof Error) || depth >= CAUSE_DEPTH) return cause;
  const message = terminalText(cause.message);
  const stack = cause.stack === undefined ? undefined : terminalText(cause.stack);
  const inner = printableCause(cause.cause, depth + 1);
  if (message === cause.message && stack === cause.stack && inner === cause.cause) return cause;
  const copy: Error = Object.create(Object.getPrototypeOf(cause));
  Object.defineProperties(copy, Object.getOwnPropertyDescriptors(cause));
  const hidden = { writable: true, configurable: true, enumerable: false };
  Object.defineProperty(copy, 'message', { ...hidden, value: message });
  Object.defineProperty(copy, 'stack', { ...hidden, value: stack });
  if ('cause' in cause) Object.defineProperty(copy, 'cause', { ...hidden, value: inner });
  return copy;
}

export function unknownServerError(server: string, known: string[]): McpServerError {
  const list = known.length > 0 ? `Configured servers: ${terminalLine(known.slice(0, 50).join(', '))}.` : 'No servers are configured.';
  return new McpServerError('UNKNOWN_SERVER', server, `Unknown MCP server ${quoted(server)}. ${list}`);
}

export function disabledServerError(server: string): McpServerError {
  return new McpServerError(
    'SERVER_DISABLED',
    server,
    `MCP server ${quoted(server)} is disabled in its config ("disabled": true); enable it to use it.`,
  );
}

/**
 * Read by the program that sent the request (the manager's caller, a chart embedding the
 * registry): the loader tools tell the model about load_mcp in words of their own (failure-text.ts).
 */
export function notConnectedError(server: string, state: string): McpServerError {
  return new McpServerError(
    'NOT_CONNECTED',
    server,
    `MCP server ${quoted(server)} is not connected (state: ${state}). Connect it first (${howToConnect(server)}), then send the request again.`,
  );
}

/** How the program that sent a request connects the server: the manager's method, or the registry's event. */
function howToConnect(server: string): string {
  return `the manager's connect(${quoted(server)}), or mcp.load to the registry`;
}

export function requestAbandonedError(
  server: string,
  reason: 'lost' | 'expired' | 'disconnected',
  cause?: Error,
  /** What a stdio server last wrote to stderr, when its loss is why (already redacted). */
  stderrTail?: string,
) {
  const why = {
    lost: 'the connection was lost',
    expired: 'the server ended its session (a new one is being opened; a tool call is not repeated, as it may have had effects)',
    disconnected: 'the server was disconnected',
  }[reason];
  return new McpServerError(
    reason === 'lost' || reason === 'expired' ? 'CONNECTION_LOST' : 'DISCONNECTED',
    server,
    abandonedText(server, why) + (cause ? ` (${cause.message})` : ''),
    { cause, stderrTail },
  );
}

function abandonedText(server: string, why: string): string {
  return `Request to MCP server ${quoted(server)} failed: ${why} while it was in flight. It was not retried.`;
}

/** The cause that marks a request cut off by its server's removal; known by name, which a redacted copy keeps. */
class ServerRemovedError extends Error {
  override name = 'ServerRemovedError';
}

/** A request in flight when its server was removed from the config: no load reaches that server again. */
export function removedWhileRunningError(server: string): McpServerError {
  return new McpServerError('DISCONNECTED', server, abandonedText(server, 'it was removed from the config'), {
    cause: new ServerRemovedError(`MCP server ${quoted(server)} was removed from the config.`),
  });
}

/** The cause that marks a request to a manager after its dispose(); known by name, as ServerRemovedError. */
class ManagerDisposedError extends Error {
  override name = 'ManagerDisposedError';
}

/** A request to a disposed manager: nothing can be loaded through it again. */
export function managerDisposedError(server: string): McpServerError {
  return new McpServerError('DISCONNECTED', server, 'This McpConnectionManager was disposed; create a new one.', {
    cause: new ManagerDisposedError('disposed'),
  });
}

export function isManagerDisposed(cause: unknown): boolean {
  return cause instanceof Error && cause.name === 'ManagerDisposedError';
}

/** Whether `cause` (of the manager's McpServerError) says the server was removed from the config. */
export function isRemovedFromConfig(cause: unknown): boolean {
  return cause instanceof Error && cause.name === 'ServerRemovedError';
}

/** The cause that marks a request cut off because its server's entry was switched off; known by name, as ServerRemovedError. */
class ServerSwitchedOffError extends Error {
  override name = 'ServerSwitchedOffError';
}

/**
 * A request in flight when its server's entry was switched off (`disabled: true`; under `serve`, a
 * changed entry waiting for `mcp-statechart approve`): no load reaches it until it is enabled again.
 */
export function switchedOffWhileRunningError(server: string): McpServerError {
  return new McpServerError('DISCONNECTED', server, abandonedText(server, 'it was switched off in the config'), {
    cause: new ServerSwitchedOffError(`MCP server ${quoted(server)} was switched off in the config.`),
  });
}

/** Whether `cause` (of the manager's McpServerError) says the server's entry was switched off. */
export function isSwitchedOffInConfig(cause: unknown): boolean {
  return cause instanceof Error && cause.name === 'ServerSwitchedOffError';
}

/** The cause that marks a request cut off because its server's definition changed; known by name, as ServerRemovedError. */
class ServerRedefinedError extends Error {
  override name = 'ServerRedefinedError';
}

/** A request in flight when its server's definition changed: the server reconnects with the new one by itself. */
export function redefinedWhileRunningError(server: string): McpServerError {
  return new McpServerError('DISCONNECTED', server, `${abandonedText(server, 'its definition changed in the config')} It is restarting with the new definition.`, {
    cause: new ServerRedefinedError(`MCP server ${quoted(server)} is restarting with its new definition.`),
  });
}

/** Whether `cause` (of the manager's McpServerError) says the server is restarting with a changed definition. */
export function isRedefinedInConfig(cause: unknown): boolean {
  return cause instanceof Error && cause.name === 'ServerRedefinedError';
}

/**
 * The last error of a connect given up after `attempts` tries, saying how many: one attempt's words
 * alone (a 30 s timeout) leave a caller who waited four times that long guessing why.
 */
export function gaveUpAfterAttemptsError(error: McpServerError, attempts: number): McpServerError {
  if (attempts < 2) return error;
  return new McpServerError(error.code, error.server, gaveUpText(error, attempts), { cause: error.cause, stderrTail: error.stderrTail, timedOut: error.timedOut });
}

/**
 * A connect that timed out, told to the loads that waited for it while the server is tried again
 * in the background: a server that starts and never answers is seldom helped by the retries, and
 * a caller waiting through all of them (4 × 30 s and the backoff) would wait minutes for this.
 */
export function timedOutRetryingError(error: McpServerError, coming: ComingRetry): McpServerError {
  const [firstLine = '', ...rest] = error.message.split('\n');
  const retrying = `It is tried again in the background (${retryText(coming)}); connecting again waits for that attempt.`;
  return new McpServerError(error.code, error.server, [`${firstLine} ${retrying}`, ...rest].join('\n'), {
    cause: error.cause,
    stderrTail: error.stderrTail,
    timedOut: true,
  });
}

/** "retry 1 of 3, starting within ~1 s" */
function retryText({ retry, maxRetries, withinMs }: ComingRetry): string {
  const of = Number.isFinite(maxRetries) ? ` of ${maxRetries}` : '';
  return `retry ${retry}${of}, starting within ~${Math.max(1, Math.round(withinMs / 1000))} s`;
}

/** The last error's message with how many attempts it ended (on its first line, before a stderr tail it may carry). */
function gaveUpText(error: McpServerError, attempts: number): string {
  if (attempts < 2) return error.message;
  const [firstLine = '', ...rest] = error.message.split('\n');
  return [`${firstLine} Gave up after ${attempts} attempts.`, ...rest].join('\n');
}

/**
 * A request to a server that gave up connecting (`error.failed`): "connect it first" alone hides
 * that connects were tried and failed, and why; the last error says it as a load was told.
 */
export function notConnectedAfterGivingUpError(lastError: McpServerError, attempts: number): McpServerError {
  const server = lastError.server;
  return new McpServerError(
    'NOT_CONNECTED',
    server,
    `MCP server ${quoted(server)} is not connected (state: error): it stopped trying to connect. Check that the server is up (or fix its config entry), ` +
      `then connect it again (${howToConnect(server)}) and send the request again. ` +
      `The last error: ${gaveUpText(lastError, attempts)}`,
    { cause: lastError, stderrTail: lastError.stderrTail },
  );
}

/** The reconnect a server in `error` has coming: which retry, and the longest wait before it starts. */
export interface ComingRetry {
  retry: number;
  maxRetries: number;
  withinMs: number;
}

/**
 * A request while the manager reconnects by itself (`error.releasing`, `error.retrying`): "connect
 * it first" would send the caller to do what is already under way; a connect waits for it.
 */
export function notConnectedWhileReconnectingError(server: string, coming: ComingRetry, lastError?: McpServerError): McpServerError {
  return new McpServerError(
    'NOT_CONNECTED',
    server,
    `MCP server ${quoted(server)} is not connected (state: error): it is reconnecting by itself (${retryText(coming)}). ` +
      `Send the request again once it is connected, or connect it (${howToConnect(server)}), which waits for the reconnect, and then send it.` +
      (lastError ? ` The last error: ${lastError.message}` : ''),
    { cause: lastError, stderrTail: lastError?.stderrTail },
  );
}

/**
 * A request while a lost connection closes (`error.releasing`) with no retries left but a load
 * waiting: "it stopped trying" would be untrue, as that load's connect starts once the close ends.
 */
export function notConnectedWhileConnectWaitsError(server: string, lastError?: McpServerError): McpServerError {
  return new McpServerError(
    'NOT_CONNECTED',
    server,
    `MCP server ${quoted(server)} is not connected (state: error): a connect starts once the lost connection has closed. ` +
      `Send the request again once it is connected, or connect it (${howToConnect(server)}), which waits for that connect, and then send it.` +
      (lastError ? ` The last error: ${lastError.message}` : ''),
    { cause: lastError, stderrTail: lastError?.stderrTail },
  );
}

export function disconnectedWhileConnectingError(server: string): McpServerError {
  return new McpServerError('DISCONNECTED', server, `MCP server ${quoted(server)} was disconnected before it finished connecting.`);
}

/**
 * A load that was waiting when its server was persisted, answered once the snapshot is restored.
 * Its own code (RESTORED, not DISCONNECTED): the chart that invoked the registry also gets
 * `mcp.restored`, in either order, and asks again on that; this answer is no failure of what it asks next.
 */
export function restoredWhileLoadingError(server: string): McpServerError {
  return new McpServerError(
    'RESTORED',
    server,
    `MCP server ${quoted(server)} was restored from a persisted snapshot while this load waited; nothing is replayed after a restore: load it again.`,
  );
}

/** A request in flight when its server was persisted, answered once the snapshot is restored (RESTORED, as restoredWhileLoadingError). */
export function restoredWhileRunningError(server: string, request: string): McpServerError {
  return new McpServerError(
    'RESTORED',
    server,
    `MCP server ${quoted(server)} was restored from a persisted snapshot while ${request} was in flight; nothing is replayed after a restore: load it again and ask again.`,
  );
}

/**
 * A request sent straight to the registry with a value of the wrong type (`problem`, from
 * request-shape.ts): refused before anything is sent, as the manager's methods refuse it.
 */
export function malformedRequestError(server: unknown, eventType: string, problem: string): McpServerError {
  return new McpServerError('INVALID_ARGUMENTS', typeof server === 'string' ? server : '', `${eventType}: ${problem}; nothing was sent.`);
}

/**
 * How deep a tool call's arguments may nest, the arguments object being the first level. The SDK
 * writes each request with JSON.stringify, which recurses: on Node's default stack it overflows
 * somewhere between 3,000 and 5,000 levels, with "Maximum call stack size exceeded" and no word
 * of which call or why. Real tool arguments are rarely deeper than 20 levels; 256 leaves room for
 * recursive data (trees, nested documents), stays far from the overflow whatever stack the call
 * starts on, and is below Python's default recursion limit (1,000), which bounds how deep many
 * servers can parse.
 */
export const MAX_ARGUMENT_DEPTH = 256;

/** A tool call refused before it was sent: its arguments nest deeper than `MAX_ARGUMENT_DEPTH`. */
export function argumentsTooDeepError(server: string, tool: string): McpServerError {
  return new McpServerError(
    'INVALID_ARGUMENTS',
    server,
    `MCP server ${quoted(server)}: the arguments for tool ${quoted(tool)} are nested deeper than ${MAX_ARGUMENT_DEPTH} levels, the most this client sends, so the call was not sent. Flatten them, or pass the deep part as a JSON string.`,
  );
}

/**
 * A tool call refused before it was sent: its arguments are no JSON (`problem`: "contain a cycle
 * ("parent" contains itself)", "contain a BigInt"), which the SDK's JSON.stringify would have
 * failed on as a REQUEST_FAILED, or (a cycle) measured as nested past MAX_ARGUMENT_DEPTH.
 */
export function argumentsNotJsonError(server: string, tool: string, problem: string, advice: string): McpServerError {
  return new McpServerError(
    'INVALID_ARGUMENTS',
    server,
    `MCP server ${quoted(server)}: the arguments for tool ${quoted(tool)} ${problem}, which JSON cannot write, so the call was not sent. ${advice}`,
  );
}

/** A tool call refused before it was sent: reading its arguments threw (a getter, a revoked Proxy), as the SDK's JSON.stringify would have. */
export function argumentsUnreadableError(server: string, tool: string, cause: unknown): McpServerError {
  return new McpServerError(
    'INVALID_ARGUMENTS',
    server,
    `MCP server ${quoted(server)}: the arguments for tool ${quoted(tool)} could not be read (reading them threw ${quoted(errorMessage(cause))}), so the call was not sent. Pass plain data.`,
  );
}

/**
 * A tool call refused before it was sent: its arguments, as JSON, take `bytes` bytes, over the
 * `limit` one message may hold. The SDK's stdio transports close themselves on a longer line, so
 * sending it would cut the connection and every call in flight on it.
 */
export function argumentsTooLargeError(server: string, tool: string, bytes: number, limit: number): McpServerError {
  return new McpServerError(
    'INVALID_ARGUMENTS',
    server,
    `MCP server ${quoted(server)}: the arguments for tool ${quoted(tool)} take ${bytes} bytes as JSON, over the ${limit} this client sends in one message ` +
      '(a stdio server closes its connection on a longer one), so the call was not sent. Send less at a time, or pass large content as a path or URI the server can read.',
  );
}

/**
 * The longest task id `resumeTask` sends. A server's task ids are opaque handles, a UUID or a
 * random token of some dozens of characters; 2,048 leaves room for a signed token while the
 * `Mcp-Name` header that carries the id over HTTP (base64 of its UTF-8 when it is not ASCII, so up
 * to ~8 KiB) stays under the 16 KiB a Node server accepts for all its headers, and 100 ASCII ids
 * keep the task journal under the 256 KiB it reads.
 */
export const MAX_TASK_ID_LENGTH = 2_048;

/**
 * Why a task to resume cannot be (no task id, an empty one, one too long or with a control
 * character), refused before anything is sent: a request without one would call the tool anew, or
 * ask the server about no task, and one too long or with a control character fails over HTTP with
 * the server's or the SDK's words. Undefined for a task id that can be sent. The id itself is never
 * shown: a server may use it as the bearer of the task's state (SEP-2663).
 */
export function invalidTaskIdError(server: string, tool: string, taskId: unknown): McpServerError | undefined {
  const why = taskIdProblem(taskId);
  if (why === undefined) return undefined;
  return new McpServerError(
    'INVALID_ARGUMENTS',
    server,
    `MCP server ${quoted(server)}: the task for tool ${quoted(tool)} cannot be resumed: ${why}; nothing was sent.`,
  );
}

function taskIdProblem(taskId: unknown): string | undefined {
  if (typeof taskId !== 'string' || taskId === '') return 'its taskId must be a non-empty string, as unfinishedTasks() gives it';
  return taskIdFormProblem(taskId);
}

/**
 * Why a task id cannot be sent or recorded (over MAX_TASK_ID_LENGTH, or with a control character),
 * in words that never show it; undefined for one that can. Checked on the ids given to resumeTask
 * and on those a server's first reply gives.
 */
export function taskIdFormProblem(taskId: string): string | undefined {
  if (taskId.length > MAX_TASK_ID_LENGTH) return `its taskId is ${taskId.length} characters long, over the ${MAX_TASK_ID_LENGTH} a task id may have`;
  const chars = [...taskId];
  const control = chars.findIndex((char) => terminalLine(char) !== char);
  if (control === -1) return undefined;
  return `its taskId has a control character (${terminalLine(chars[control]!)}, character ${control + 1}), which no task id has (the id is not shown: a server may use it as the bearer of the task's state)`;
}

/** A request in words, for error messages: `calling tool "x"`. */
export function describeRequest(spec: RequestSpec): string {
  if (spec.kind === 'tool') return `calling tool ${quoted(spec.tool)}`;
  if (spec.kind === 'resource') return `reading resource ${quoted(spec.uri)}`;
  if (spec.kind === 'subscribe') return `subscribing to resource ${quoted(spec.uri)}`;
  if (spec.kind === 'unsubscribe') return `unsubscribing from resource ${quoted(spec.uri)}`;
  if (spec.kind === 'complete') return `completing ${quoted(spec.argument.name)} of ${spec.ref.type === 'ref/prompt' ? `prompt ${quoted(spec.ref.name)}` : `resource template ${quoted(spec.ref.uri)}`}`;
  return `getting prompt ${quoted(spec.name)}`;
}

/** A request its caller cancelled. Named `AbortError`, like the DOM's, so `error.name === 'AbortError'` checks work. */
export function abortError(server: string, what: string, reason?: unknown): McpServerError {
  const why = reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : undefined;
  const error = new McpServerError(
    'ABORTED',
    server,
    `MCP server ${quoted(server)}: ${what} was cancelled${why && why !== 'This operation was aborted' ? ` (${why})` : ''}.`,
  );
  error.name = 'AbortError';
  return error;
}

/** What happened to a server whose actor threw, without advice: the loader tools add their own (failure-text.ts). */
export function serverCrashedWhat(server: string, cause: unknown): string {
  return `MCP server ${quoted(server)} stopped unexpectedly inside this client (${errorMessage(cause)}); its connection was closed.`;
}

/**
 * The server's actor threw (a bug, or server data it could not handle): what it held is answered
 * with this. Read by the program that sent the request, as notConnectedError is.
 */
export function serverCrashedError(server: string, cause: unknown): McpServerError {
  return new McpServerError(
    'SERVER_CRASHED',
    server,
    `${serverCrashedWhat(server, cause)} Connect it again (the manager's connect(${quoted(server)}), or mcp.load to the registry) to start it anew.`,
    { cause },
  );
}
