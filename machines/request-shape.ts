/**
 * What a request must look like before anything is sent: a server name, a tool or prompt name or
 * URI that are strings, arguments that are an object. Plain JavaScript may put any value anywhere,
 * through the manager's methods (src/request-arguments.ts words these as TypeErrors) or as events
 * sent straight to the registry (which answers `mcp.failed`): a name that is not a string matches
 * no server's answer, so its request would wait forever, and wording a URI that is not one crashed.
 * A `replyTo` that is not an actor cannot be answered at all: sending to it threw inside the
 * registry, which stopped with every server under it.
 */
import { quoted } from './control-characters.js';
import { isTimerLimit, TIMER_LIMIT_ALLOWED } from './options.js';
import { REQUEST_EVENTS } from './request-kinds.js';
import { errorMessage } from './to-error.js';
import type { McpRequestFields, RequestSpec } from './types.js';

/** A value as a message may show it: strings quoted, other objects by kind only (they may hold secrets). */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  return `a${Array.isArray(value) ? 'n array' : 'n object'}`;
}

export function isPlainObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Why `server` cannot name a server, or undefined. */
export function serverNameProblem(server: unknown): string | undefined {
  return typeof server === 'string' && server !== '' ? undefined : `the server name must be a non-empty string, not ${describeValue(server)}`;
}

/** Why `spec` cannot be sent (its name or URI not a string, its arguments not an object), or undefined. */
export function requestSpecProblem(spec: RequestSpec): string | undefined {
  if (spec.kind === 'complete') return completionProblem(spec);
  const [what, name] = spec.kind === 'tool' ? ['tool name', spec.tool] : spec.kind === 'prompt' ? ['prompt name', spec.name] : ['resource URI', spec.uri];
  if (typeof name !== 'string') return `the ${what} must be a string, not ${describeValue(name)}`;
  if ((spec.kind === 'tool' || spec.kind === 'prompt') && spec.arguments !== undefined && !isPlainObject(spec.arguments)) {
    return `the arguments must be an object of named values ({ name: value }), not ${describeValue(spec.arguments)}`;
  }
  return undefined;
}

/** Why a time limit (`name`: how the refusal calls it) cannot be honoured, or undefined: left out is the default. */
export function timeLimitProblem(name: string, value: unknown): string | undefined {
  return value === undefined || isTimerLimit(value) ? undefined : `the ${name} must be ${TIMER_LIMIT_ALLOWED}, not ${describeValue(value)}`;
}

/** Why a request's `timeoutMs` or `maxTotalTimeoutMs` cannot be honoured (NaN, -1 or 1e20 timed out at once), or undefined. */
export function requestLimitsProblem({ timeoutMs, maxTotalTimeoutMs }: McpRequestFields): string | undefined {
  return timeLimitProblem('timeoutMs', timeoutMs) ?? timeLimitProblem('maxTotalTimeoutMs', maxTotalTimeoutMs);
}

/** Why a request whose checks threw cannot be sent: a field throws when read (a revoked Proxy). */
export function unreadableRequestProblem(error: unknown): string {
  return `a field of the request could not be read (reading it threw ${quoted(errorMessage(error))})`;
}

/**
 * The fields the registry's actions read of each event that is not a request (requests are read by
 * malformedRequestProblem). Plain JavaScript may send a getter that throws, or a revoked Proxy: read
 * in an action, the throw stopped the registry for good.
 */
const FIELDS_READ: Readonly<Record<string, readonly string[]>> = {
  'mcp.cancel': ['server', 'requestId', 'reason'],
  'mcp.subscribe': ['replyTo', 'include'],
  'mcp.unsubscribe': ['replyTo'],
  'mcp.touch': ['server'],
  'mcp.disconnect': ['server'],
  'mcp.configure': ['servers', 'options', 'mode'],
};

/** The events that name a request by its `requestId`: its answers carry it, a cancel finds it by it. */
const NAMING_A_REQUEST: ReadonlySet<string> = new Set(['mcp.load', 'mcp.cancel', ...REQUEST_EVENTS]);

/**
 * Why the registry cannot take `event`, or undefined: a field its actions read throws when read
 * (checked here for the events that are not requests; a request's other fields are read by
 * malformedRequestProblem), a `requestId` that is not a non-empty string (plain JavaScript's
 * 42, {}, '' or none), by which no answer or cancel could name the request, or a cancel's
 * `reason` that is not a string.
 */
export function unusableEventProblem(event: { type: string }): string | undefined {
  let requestId: unknown;
  let reason: unknown;
  try {
    for (const field of FIELDS_READ[event.type] ?? []) void Reflect.get(event, field);
    if (!NAMING_A_REQUEST.has(event.type)) return undefined;
    requestId = Reflect.get(event, 'requestId');
    if (event.type === 'mcp.cancel') reason = Reflect.get(event, 'reason');
  } catch (error) {
    return `${event.type}: a field of the event could not be read (reading it threw ${quoted(errorMessage(error))}); the event was dropped.`;
  }
  if (typeof requestId !== 'string' || requestId === '') {
    return `${event.type}: the requestId must be a non-empty string (the answer names the request by it), not ${describeValue(requestId)}; the event was dropped.`;
  }
  // The SDK words the reason with String() as it cancels: an object without a string form (Object.create(null)) threw
  // inside the session actor, which ended with the request unanswered and the server disconnected.
  if (reason !== undefined && typeof reason !== 'string') return `mcp.cancel: the reason must be a string, not ${describeValue(reason)}; the event was dropped.`;
  return undefined;
}

/** Why a completion cannot be sent (its ref or argument not of the protocol's shape), or undefined. */
function completionProblem({ ref, argument, context }: Extract<RequestSpec, { kind: 'complete' }>): string | undefined {
  const named = isPlainObject(ref) && (ref.type === 'ref/prompt' ? typeof ref.name === 'string' : ref.type === 'ref/resource' && typeof ref.uri === 'string');
  if (!named) return `the ref must be { type: 'ref/prompt', name } or { type: 'ref/resource', uri }, not ${describeValue(ref)}`;
  if (!isPlainObject(argument) || typeof argument.name !== 'string' || typeof argument.value !== 'string') {
    return `the argument must be { name, value } with two strings, not ${describeValue(argument)}`;
  }
  if (context !== undefined && !isPlainObject(context)) return `the context must be an object ({ arguments: { name: value } }), not ${describeValue(context)}`;
  return undefined;
}

/**
 * Whether `replyTo` can be sent an answer: an actor ref, to which XState delivers through its
 * `_send`. A name, a plain object or an object with only a `send` method cannot.
 */
export function isAnswerable(replyTo: unknown): boolean {
  try {
    return typeof replyTo === 'object' && replyTo !== null && typeof Reflect.get(replyTo, '_send') === 'function';
  } catch {
    // A revoked Proxy throws on every read: nothing can be sent to it either.
    return false;
  }
}
