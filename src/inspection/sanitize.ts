/**
 * Inspection without leaking secrets. XState hands inspectors whole snapshots and events:
 * server configs with their `env` and `headers`, `mcp.configure` events, the inputs of the
 * `connect` actors, and the live session (whose transport holds the env again). Everything an
 * inspector receives goes through `sanitizeInspectionEvent` first.
 *
 * Redacted: every `env` and `headers` value, an OAuth `clientSecret`, the user and password of a
 * URL and every query value, and — in every string of every event, snapshot and actor output, keys
 * included — the secret values of every server config met so far (`secretsOf` in src/redact.ts:
 * env and header values, what a `${VAR}` expanded to, a client secret, literal credentials): a
 * server may quote its own key in a tool's description or a result, which then sits in the
 * manifest of every later snapshot. The secrets are found once per config (`learnSecrets`), when a
 * walk first meets it; with none known (the usual case), strings are not searched at all.
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
import { longestFirst, REDACTED, redact, redactError, redactUrl, secretsOf } from '../redact.js';

export { REDACTED, redactUrl };

/**
 * Config fields whose values are secrets; their keys (variable and header names) stay visible.
 * Comparisons rather than a set: every key of every event an inspector sees is checked, and a
 * property name compared with a literal is one pointer comparison, not a hash lookup.
 */
const isSecretField = (key: string): boolean => key === 'env' || key === 'headers';
/** Fields that are secrets themselves (an OAuth entry's `clientSecret`). */
const isSecretValue = (key: string): boolean => key === 'clientSecret';
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

/** Inspection events a copy of an event is kept for (see `recentEvents`). */
const RECENT_EVENTS = 4;

/**
 * What one actor system's inspection has learned: the secrets of the configs its walks met, and
 * the copies made with them. One per system (a manager's registry and every actor under it), so
 * a manager's inspector is redacted of its own servers' secrets only: were the list shared by
 * the process, another user's value typed into this user's call would come back `[redacted]`
 * (an oracle for guessing it), and every string would be searched for every user's secrets.
 */
class Sanitizer {
  /** `attached`: the sanitizer of an actor system, whose copies `unattached` takes as they are. */
  constructor(private readonly attached: boolean) {}

  /** Copies made here: met again (the adapter's own sanitize hooks), they are returned as they are. */
  private sanitizedCopies = new WeakSet<object>();
  /** Original → its sanitized copy. Snapshots are immutable, so a copy stays right for its original while the secrets known stay the same. */
  private copies = new WeakMap<object, unknown>();
  /** Configs whose secrets are known already: each config's are found once. */
  private readonly configsLearned = new WeakSet<object>();
  /**
   * Secret value → the configs holding it. A value is forgotten once every config holding it is
   * garbage (a removed server), so what is searched for stays what is configured, however often.
   */
  private readonly secretHolders = new Map<string, Array<WeakRef<object>>>();
  /** The values every string is redacted of, longest first (a token inside a longer header value). */
  private knownSecrets: readonly string[] = [];
  /** Counts the times a secret became known: a walk that saw it change is done again. */
  private secretsLearned = 0;
  /**
   * XState reports one event in up to three inspection events in a row (event, microstep,
   * snapshot): its copy is kept for the next few, held strongly and briefly (a weak table or a
   * longer memory keeps more alive across garbage collections and costs more than it saves).
   */
  private readonly recentEvents = new RecentCopies(RECENT_EVENTS);

  /**
   * Adds the config's secrets to those every string is redacted of. A value new to the list makes
   * every cached copy stale (it was made without it), so the caches start again.
   */
  private learnSecrets(config: McpServerConfig): void {
    if (this.configsLearned.has(config)) return;
    this.configsLearned.add(config);
    const secrets = secretsOf(config);
    if (secrets.length === 0) return;
    let added = false;
    const holder = new WeakRef<object>(config);
    for (const secret of secrets) {
      const holders = this.secretHolders.get(secret);
      if (holders) holders.push(holder);
      else {
        this.secretHolders.set(secret, [holder]);
        added = true;
      }
    }
    for (const [secret, holders] of this.secretHolders) {
      const alive = holders.filter((held) => held.deref() !== undefined);
      if (alive.length === 0) this.secretHolders.delete(secret);
      else this.secretHolders.set(secret, alive);
    }
    this.knownSecrets = longestFirst([...this.secretHolders.keys()]);
    if (!added) return;
    this.secretsLearned++;
    this.copies = new WeakMap();
    this.sanitizedCopies = new WeakSet();
    this.recentEvents.clear();
  }

  private quotesSecret(text: string): boolean {
    for (const secret of this.knownSecrets) if (text.includes(secret)) return true;
    return false;
  }

  private redactText(text: string): string {
    return this.knownSecrets.length === 0 ? text : redact(text, this.knownSecrets);
  }

  private remember(original: object, copy: object): void {
    this.copies.set(original, copy);
    this.sanitizedCopies.add(copy);
    if (this.attached) systemCopies.add(copy);
  }

  /** `remember`: cache the copy by its original (snapshot data, which later snapshots share). */
  private sanitize(value: unknown, depth: number, remember: boolean): unknown {
    if (typeof value === 'string') return this.redactText(value);
    if (value === null || typeof value !== 'object') return value;
    if (this.sanitizedCopies.has(value) || (!this.attached && systemCopies.has(value))) return value;
    // An actor's error may quote what the server said (its key among it).
    if (value instanceof Error) return this.knownSecrets.length === 0 ? value : redactError(value, this.knownSecrets);
    // Other class instances (actor refs, state nodes) are kept as they are: they are either
    // live handles an inspector serializes by their own toJSON, or carry no config.
    if (!Array.isArray(value) && !isPlainObject(value)) return value;
    const cached = this.copies.get(value);
    if (cached !== undefined) return cached;
    if (depth >= MAX_DEPTH) return TOO_DEEP;

    if (Array.isArray(value)) {
      const copy: unknown[] = [];
      if (remember) this.remember(value, copy);
      for (const item of value) copy.push(isLiveSession(item) ? undefined : this.sanitize(item, depth + 1, remember));
      return copy;
    }
    // Before its fields are copied: they are redacted of its own secrets too (command, args, url).
    const record: Record<string, unknown> = value;
    const serverConfig = isServerConfig(value);
    if (serverConfig) this.learnSecrets(value);
    const copy: Record<string, unknown> = {};
    if (remember) this.remember(value, copy);
    for (const key of Object.keys(record)) {
      const item = record[key];
      if (isLiveSession(item)) continue;
      copy[this.redactText(key)] =
        item === undefined
          ? item
          : isSecretField(key)
            ? redactValues(item)
            : isSecretValue(key)
              ? REDACTED
              : this.sanitize(item, depth + 1, remember);
    }
    if (serverConfig && typeof copy.url === 'string') copy.url = redactUrl(copy.url);
    return copy;
  }

  /**
   * `sanitize`, done again when it met a config with a secret not known before: the parts walked
   * before that config were copied without it. The second walk learns nothing new (the same configs).
   */
  private sanitizeWithSecrets(value: unknown, remember: boolean): unknown {
    const learned = this.secretsLearned;
    const copy = this.sanitize(value, 0, remember);
    return learned === this.secretsLearned ? copy : this.sanitize(value, 0, remember);
  }

  /** See `redactSecrets`. */
  redactSecrets<T>(value: T): T {
    if (isLiveSession(value)) return undefined as T;
    return this.sanitizeWithSecrets(value, true) as T;
  }

  /**
   * True when `sanitize` would change nothing: no secret field, live session, server config,
   * over-deep nesting or string quoting a known secret anywhere in it. Cheaper than a copy (no
   * allocation), and the usual case for events and action parameters (a call's arguments and result).
   */
  private isClean(value: unknown, depth: number): boolean {
    if (typeof value === 'string') return this.knownSecrets.length === 0 || !this.quotesSecret(value);
    if (value === null || typeof value !== 'object') return true;
    if (Array.isArray(value)) {
      if (depth >= MAX_DEPTH) return false;
      for (const item of value) if (isLiveSession(item) || !this.isClean(item, depth + 1)) return false;
      return true;
    }
    if (!isPlainObject(value)) {
      return !(value instanceof Error) || this.knownSecrets.length === 0 || redactError(value, this.knownSecrets) === value;
    }
    if (depth >= MAX_DEPTH || isServerConfig(value)) return false;
    const searched = this.knownSecrets.length !== 0;
    // for-in over a plain object (no inherited keys): no key array per object on every call's path.
    for (const key in value) {
      if (isSecretField(key) || isSecretValue(key)) return false;
      const item = value[key];
      if (searched && (this.quotesSecret(key) || (typeof item === 'string' && this.quotesSecret(item)))) return false;
      if (item !== null && typeof item === 'object' && (isLiveSession(item) || !this.isClean(item, depth + 1))) return false;
    }
    return true;
  }

  /** `redactSecrets` for what is seen once (an action's parameters): the copy is not cached, and not made when nothing needs redacting. */
  redactOnce<T>(value: T): T {
    if (isLiveSession(value)) return undefined as T;
    return this.isClean(value, 0) ? value : (this.sanitizeWithSecrets(value, false) as T);
  }

  redactEvent<T>(event: T): T {
    const recent = this.recentEvents.copyOf(event);
    if (recent !== NOT_RECENT) return recent as T;
    const copy = this.redactOnce(event);
    this.recentEvents.add(event, copy);
    return copy;
  }
}

const NOT_RECENT = Symbol('not recent');

/**
 * The copies of the last few originals, the oldest replaced first: two fixed arrays, so that
 * remembering an event (several times a call) allocates nothing.
 */
class RecentCopies {
  private readonly originals: unknown[];
  private readonly copies: unknown[];
  private next = 0;

  constructor(size: number) {
    this.originals = new Array<unknown>(size).fill(NOT_RECENT);
    this.copies = new Array<unknown>(size).fill(undefined);
  }

  copyOf(original: unknown): unknown {
    const index = this.originals.indexOf(original);
    return index < 0 ? NOT_RECENT : this.copies[index];
  }

  add(original: unknown, copy: unknown): void {
    this.originals[this.next] = original;
    this.copies[this.next] = copy;
    this.next = (this.next + 1) % this.originals.length;
  }

  clear(): void {
    this.originals.fill(NOT_RECENT);
    this.copies.fill(undefined);
  }
}


/**
 * Every copy a system's sanitizer made. The relay's adapter scrubs what it is handed once more
 * (`redactSecrets`, for a program feeding it directly): such a copy is taken as it is, not walked
 * again at every event.
 */
const systemCopies = new WeakSet<object>();
/** For values outside any actor system (a direct `redactSecrets`, a hand-made event). */
const unattached = new Sanitizer(false);
/** Actor system → its sanitizer: a manager's inspectors (its own, the relay's second scrub) share one. */
const bySystem = new WeakMap<object, Sanitizer>();

function systemOf(actorRef: object | undefined): unknown {
  return actorRef && 'system' in actorRef ? actorRef.system : undefined;
}

/**
 * The sanitizer of the system that reports the event: the sender's, for an event one system's
 * actor sends to another's (the manager's registry answering its inbox); a hand-made event (tests,
 * an application feeding an inspector itself) may carry no actor at all.
 */
function sanitizerOf(event: InspectionEvent): Sanitizer {
  const sender: object | undefined = event.type === '@xstate.event' ? event.sourceRef : undefined;
  const system = systemOf(sender) ?? systemOf(event.actorRef);
  if (system === null || typeof system !== 'object') return unattached;
  let sanitizer = bySystem.get(system);
  if (!sanitizer) bySystem.set(system, (sanitizer = new Sanitizer(true)));
  return sanitizer;
}

/**
 * A copy of `value` with every secret redacted (see the top of this file) and every live session
 * left out. Plain objects and arrays are copied (functions on them, such as a snapshot's
 * `matches` and `toJSON`, keep working on the copy); anything else is shared. Secrets quoted in
 * strings are those of the configs met by earlier calls outside any actor system and this one.
 */
export function redactSecrets<T>(value: T): T {
  return unattached.redactSecrets(value);
}

/**
 * A stand-in for a newly created actor: inspectors read its first state through `getSnapshot()`
 * (an `@xstate.actor` event carries no snapshot), so that read is scrubbed too.
 */
function redactedActorView<T extends ActorRefLike>(actorRef: T, sanitizer: Sanitizer): T {
  return Object.create(actorRef, {
    getSnapshot: { value: () => sanitizer.redactSecrets(actorRef.getSnapshot()), enumerable: false },
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
  const sanitizer = sanitizerOf(event);
  switch (event.type) {
    case '@xstate.snapshot':
    case '@xstate.transition':
    case '@xstate.microstep':
      return { ...event, snapshot: sanitizer.redactSecrets(event.snapshot), event: sanitizer.redactEvent(event.event) };
    case '@xstate.event': {
      const sanitized = sanitizer.redactEvent(event.event);
      return sanitized === event.event ? event : { ...event, event: sanitized };
    }
    case '@xstate.action': {
      const sanitized = sanitizer.redactOnce(event.action);
      return sanitized === event.action ? event : { ...event, action: sanitized };
    }
    case '@xstate.actor':
      return { ...event, actorRef: redactedActorView(event.actorRef, sanitizer) };
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
