/**
 * Inspection without leaking secrets. XState hands inspectors whole snapshots and events:
 * server configs with their `env` and `headers`, `mcp.configure` events, the inputs of the
 * `connect` actors, and the live session (whose transport holds the env again). Everything an
 * inspector receives goes through `sanitizeInspectionEvent` first.
 *
 * Redacted: every `env` and `headers` value, an OAuth `clientSecret`, the user and password of a
 * URL and every query value, and — anywhere in a server config, `args` included — every value a
 * `${VAR}` expanded to (see `secretsOf` in src/redact.ts).
 *
 * Cheap enough to leave on: snapshots share most of their data with the one before (an `assign`
 * replaces only what changed), so sanitized copies of snapshots are cached by the identity of the
 * object they copy; an unchanged config or manifest is copied once, not at every event. Events and
 * action parameters are new at every step: one with nothing to redact (a call's arguments, its
 * result) is passed as it is after a walk that allocates nothing (`isClean`); any other is copied
 * without entering that cache (an entry per call would only feed the garbage collector's weak
 * tables), its copy reused while XState still reports the same event (`redactEvent`). Walks are bounded: data nested deeper than
 * `MAX_DEPTH` (a hostile tool schema) is cut, never a stack overflow.
 */
import type { ActorRefLike, InspectionEvent, Observer } from 'xstate';
import type { McpServerConfig } from '../../machines/types.js';
import { REDACTED, redact, redactUrl, secretsOf } from '../redact.js';

export { REDACTED, redactUrl };

/** Config fields whose values are secrets; their keys (variable and header names) stay visible. */
const SECRET_FIELDS = new Set(['env', 'headers']);
/** Fields that are secrets themselves (an OAuth entry's `clientSecret`). */
const SECRET_VALUES = new Set(['clientSecret']);
/** Deeper than this, a value is replaced by a note: an inspector needs no 5,000-level schema. */
export const MAX_DEPTH = 64;
export const TOO_DEEP = `[nested deeper than ${MAX_DEPTH} levels]`;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** The session a connected server holds: a live client and transport, not data (McpSession). */
function isLiveSession(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate.watch === 'function' &&
    typeof candidate.close === 'function' &&
    typeof candidate.callTool === 'function' &&
    'manifest' in candidate
  );
}

/** A server entry: the only place `${VAR}` values and URLs with credentials live. */
function isServerConfig(value: Record<string, unknown>): value is McpServerConfig {
  return typeof value.command === 'string' || typeof value.url === 'string';
}

function redactValues(secrets: unknown): unknown {
  if (!isPlainObject(secrets)) return REDACTED;
  return Object.fromEntries(Object.keys(secrets).map((key) => [key, REDACTED]));
}

/** Copies made here: met again (the adapter's own sanitize hooks), they are returned as they are. */
const sanitizedCopies = new WeakSet<object>();
/** Original → its sanitized copy. Snapshots are immutable, so a copy stays right for its original. */
const copies = new WeakMap<object, unknown>();

/** Replaces the config's secrets inside every string of its copy (command, args, url, cwd, nested oauth). */
function scrubStrings(value: unknown, secrets: readonly string[], depth: number): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (depth > 3 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => scrubStrings(item, secrets, depth + 1));
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) record[key] = scrubStrings(record[key], secrets, depth + 1);
  return record;
}

/** `remember`: cache the copy by its original (snapshot data, which later snapshots share). */
function sanitize(value: unknown, depth: number, remember: boolean): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (sanitizedCopies.has(value)) return value;
  // Class instances (actor refs, errors, state nodes) are kept as they are: they are either
  // live handles an inspector serializes by their own toJSON, or carry no config.
  if (!Array.isArray(value) && !isPlainObject(value)) return value;
  const cached = copies.get(value);
  if (cached !== undefined) return cached;
  if (depth >= MAX_DEPTH) return TOO_DEEP;

  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    if (remember) {
      copies.set(value, copy);
      sanitizedCopies.add(copy);
    }
    for (const item of value) copy.push(isLiveSession(item) ? undefined : sanitize(item, depth + 1, remember));
    return copy;
  }
  const copy: Record<string, unknown> = {};
  if (remember) {
    copies.set(value, copy);
    sanitizedCopies.add(copy);
  }
  for (const key of Object.keys(value)) {
    const item = value[key];
    if (isLiveSession(item)) continue;
    copy[key] =
      item === undefined
        ? item
        : SECRET_FIELDS.has(key)
          ? redactValues(item)
          : SECRET_VALUES.has(key)
            ? REDACTED
            : sanitize(item, depth + 1, remember);
  }
  if (isServerConfig(value)) {
    const secrets = secretsOf(value);
    if (secrets.length > 0) {
      for (const key of Object.keys(copy)) if (!SECRET_FIELDS.has(key)) copy[key] = scrubStrings(copy[key], secrets, 0);
    }
    if (typeof copy.url === 'string') copy.url = redactUrl(copy.url);
  }
  return copy;
}

/**
 * A copy of `value` with every secret redacted (see the top of this file) and every live session
 * left out. Plain objects and arrays are copied (functions on them, such as a snapshot's
 * `matches` and `toJSON`, keep working on the copy); anything else is shared.
 */
export function redactSecrets<T>(value: T): T {
  if (isLiveSession(value)) return undefined as T;
  return sanitize(value, 0, true) as T;
}

/**
 * True when `sanitize` would change nothing: no secret field, live session, server config or
 * over-deep nesting anywhere in it. Cheaper than a copy (no allocation), and the usual case for
 * events and action parameters (a call's arguments and result).
 */
function isClean(value: unknown, depth: number): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (Array.isArray(value)) {
    if (depth >= MAX_DEPTH) return false;
    for (const item of value) if (isLiveSession(item) || !isClean(item, depth + 1)) return false;
    return true;
  }
  if (!isPlainObject(value)) return true;
  if (depth >= MAX_DEPTH || isServerConfig(value)) return false;
  // for-in over a plain object (no inherited keys): no key array per object on every call's path.
  for (const key in value) {
    if (SECRET_FIELDS.has(key) || SECRET_VALUES.has(key)) return false;
    const item = value[key];
    if (item !== null && typeof item === 'object' && (isLiveSession(item) || !isClean(item, depth + 1))) return false;
  }
  return true;
}

/** `redactSecrets` for what is seen once (an action's parameters): the copy is not cached, and not made when nothing needs redacting. */
function redactOnce<T>(value: T): T {
  if (isLiveSession(value)) return undefined as T;
  return isClean(value, 0) ? value : (sanitize(value, 0, false) as T);
}

/**
 * XState reports one event in up to three inspection events in a row (event, microstep,
 * snapshot): its copy is kept for the next few, held strongly and briefly (a weak table or a
 * longer memory keeps more alive across garbage collections and costs more than it saves).
 */
const RECENT_EVENTS = 4;
const recentEvents: Array<{ original: unknown; copy: unknown }> = [];

function redactEvent<T>(event: T): T {
  for (const recent of recentEvents) if (recent.original === event) return recent.copy as T;
  const copy = redactOnce(event);
  if (recentEvents.unshift({ original: event, copy }) > RECENT_EVENTS) recentEvents.pop();
  return copy;
}

/**
 * A stand-in for a newly created actor: inspectors read its first state through `getSnapshot()`
 * (an `@xstate.actor` event carries no snapshot), so that read is scrubbed too.
 */
function redactedActorView<T extends ActorRefLike>(actorRef: T): T {
  return Object.create(actorRef, {
    getSnapshot: { value: () => redactSecrets(actorRef.getSnapshot()), enumerable: false },
  }) as T;
}

/**
 * The inspection event with its snapshot, event and action parameters scrubbed by `redactSecrets`.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { pureRegistryLogic } from 'mcp-statechart';
 * import { sanitizeInspectionEvent } from 'mcp-statechart/inspect';
 *
 * createActor(pureRegistryLogic, { input: {}, inspect: (event) => console.log(sanitizeInspectionEvent(event).type) }).start();
 * ```
 */
export function sanitizeInspectionEvent(event: InspectionEvent): InspectionEvent {
  switch (event.type) {
    case '@xstate.snapshot':
    case '@xstate.transition':
    case '@xstate.microstep':
      return { ...event, snapshot: redactSecrets(event.snapshot), event: redactEvent(event.event) };
    case '@xstate.event': {
      const sanitized = redactEvent(event.event);
      return sanitized === event.event ? event : { ...event, event: sanitized };
    }
    case '@xstate.action': {
      const sanitized = redactOnce(event.action);
      return sanitized === event.action ? event : { ...event, action: sanitized };
    }
    case '@xstate.actor':
      return { ...event, actorRef: redactedActorView(event.actorRef) };
    default:
      return event;
  }
}

export type InspectionObserver = Observer<InspectionEvent> | ((event: InspectionEvent) => void);

/**
 * Wraps an inspection observer so it only ever sees sanitized events. A throw inside it never reaches the actors.
 *
 * @example
 * ```ts
 * import { createActor } from 'xstate';
 * import { pureRegistryLogic } from 'mcp-statechart';
 * import { sanitizedObserver } from 'mcp-statechart/inspect';
 *
 * // Env and header values, OAuth secrets and URL credentials never reach the observer.
 * createActor(pureRegistryLogic, { input: {}, inspect: sanitizedObserver((event) => console.log(event.type)) }).start();
 * ```
 */
export function sanitizedObserver(observer: InspectionObserver): Observer<InspectionEvent> {
  const next = typeof observer === 'function' ? observer : observer.next?.bind(observer);
  return {
    next: (event) => {
      try {
        next?.(sanitizeInspectionEvent(event));
      } catch {
        // An inspector is a window on the actors; its failure must not become theirs.
      }
    },
  };
}
