import { fromCallback, type ActorSystem, type AnyActorRef, type EventObject } from 'xstate';
import {
  describeRequest,
  redefinedWhileRunningError,
  removedWhileRunningError,
  requestAbandonedError,
  switchedOffWhileRunningError,
  type McpServerError,
} from '../../machines/errors.js';
import { changesSubscriptions, type DirectAnswer, type PendingRequest, type SessionActorEvent, type SessionActorInput, type SessionReport } from '../../machines/server.machine.js';
import { redact, redactToolError, secretsOf } from '../redact.js';
import { unsendableArgumentsError } from './call-arguments.js';
import { CancelSignal } from './cancel-signal.js';
import { taskCutOffError } from './task-time-limit.js';
import { withTimeLimit } from './time-limit-text.js';
import { requiresTask } from './tool-task.js';
import type { SessionActorHandle } from './session-tracker.js';
import { Session } from './session.js';
import type { McpProgressEvent, McpFinalReply, McpRequestOptions, McpSession } from '../../machines/types.js';

interface RunningRequest {
  request: PendingRequest;
  /** Aborted by CANCEL, on either route: the SDK then tells the server. None when nobody can cancel. */
  cancelSignal?: CancelSignal;
  deliver: DirectAnswer;
  /** The server answered this call with a task (2026-07-28 Tasks extension), which a lost connection does not end. */
  becameTask?: boolean;
}

/** Any actor system, as XState hands it to an actor's logic. */
type AnyActorSystem = ActorSystem<any>;

/** What `sendTo` runs inside XState: sends with a sender an inspector sees. Not in XState's public types. */
type Relay = (source: AnyActorRef, target: AnyActorRef, event: EventObject) => void;

function relayOf(system: unknown): Relay | undefined {
  const relay: unknown = system !== null && typeof system === 'object' ? Reflect.get(system, '_relay') : undefined;
  return typeof relay === 'function' ? (source, target, event) => Reflect.apply(relay, system, [source, target, event]) : undefined;
}

/** Where a session actor's event-route answers go: see `eventRouteAnswers`. */
export interface EventRouteAnswers {
  self: AnyActorRef;
  system: unknown;
  sendBack: (report: SessionReport) => void;
  /** False once the chart has left `connected` (the actor is stopping). */
  chartListens: () => boolean;
}

/**
 * How a session actor answers the requests of the event route, made once per actor: an event to
 * the request's `replyTo` sent as the session actor, so an inspector sees who answered, without a
 * macrostep of the server chart per call (XState's own relay, what `sendTo` runs; a plain send
 * without a sender if it is ever gone, which test/agent-statechart.test.ts would report). An
 * answer that changes the server's subscriptions goes through the chart, which records it, while
 * the chart listens.
 */
export function eventRouteAnswers({ self, system, sendBack, chartListens }: EventRouteAnswers): (replyTo: AnyActorRef) => DirectAnswer {
  const relay = relayOf(system);
  return (replyTo) => (event) => {
    if (changesSubscriptions(event) && chartListens()) sendBack({ type: 'DELIVER', replyTo, event });
    else if (relay) relay(self, replyTo, event);
    else replyTo.send(event);
  };
}

/** What the requests in flight get when the chart stops the session, by the reason it gave, if any. */
function stoppedError(server: string, because: 'removed' | 'switched off' | 'redefined' | undefined): McpServerError {
  if (because === 'removed') return removedWhileRunningError(server);
  if (because === 'switched off') return switchedOffWhileRunningError(server);
  if (because === 'redefined') return redefinedWhileRunningError(server);
  return requestAbandonedError(server, 'disconnected');
}

export interface SessionActorDeps {
  /**
   * The live session of a connected server (kept outside the chart, which holds data only);
   * `system`: the actor system it runs in (the testing kit keeps a script per system); `server`:
   * the server actor, which tells apart two registries' servers of one name.
   */
  liveSession(name: string, system: AnyActorSystem, server: AnyActorRef): McpSession | undefined;
  /** Milliseconds on the clock the chart's timers run on. */
  now(system: AnyActorSystem): number;
  /** Makes the running actor reachable by its server actor (a crashed chart, a persisted snapshot, a view of the requests in flight); returns a detach. */
  attach(server: AnyActorRef, handle: SessionActorHandle): () => void;
}

/**
 * The chart's `session` actor, alive while connected. It runs each request, keeps the count of
 * those in flight and the time of the last activity, and answers each caller itself: on the
 * direct route through the façade's callback, on the event route at `replyTo`. The chart asks
 * it (IDLE_QUESTION) only when its idle delay runs out. Loss and list_changed go back to the
 * chart as events. Whatever is still in flight when it stops (the chart left `connected`) is
 * failed at once: no request is replayed silently.
 *
 * A lost connection is reported to the chart before any caller hears of it: the requests in
 * flight are answered only as this actor stops, when the chart has left `connected`. So a caller
 * that reacts to `CONNECTION_LOST` at once (loads again, disconnects, calls again) finds the
 * server no longer connected, and each request is answered once (`inFlight` is emptied before
 * any answer goes out, by every path).
 */
export function createSessionActor(deps: SessionActorDeps) {
  return fromCallback<SessionActorEvent, SessionActorInput, SessionReport>(({ input, self, system, sendBack, receive }) => {
    const { name } = input;
    // What the server may quote back: never passed on in an error of its own or a request handed back.
    const secrets = secretsOf(input.config);
    // Invoked by the server chart: its parent is the server actor.
    const server = self._parent ?? self;
    const session = deps.liveSession(name, system, server);
    const now = () => deps.now(system);
    const inFlight = new Set<RunningRequest>();
    let lastActivity = now();
    /** The server answered a request on this session (a failure is no answer): an expiry after that renews at once. */
    let answeredRequest = false;

    /** Every answer goes out here, once: the request leaves the count. */
    const answer = (running: RunningRequest, reply: McpFinalReply) => {
      lastActivity = now();
      running.deliver(reply);
    };
    const failure = (running: RunningRequest, error: McpServerError): McpFinalReply => ({
      type: 'mcp.failed',
      requestId: running.request.requestId,
      server: name,
      error: error.code === 'CONNECTION_LOST' && followsTask(running) ? taskCutOffError(error) : error,
    });
    /**
     * A call whose task outlives a lost connection: a task-only tool's (2025-11-25 tasks), one the
     * server answered with a task or a resumed one (2026-07-28 Tasks extension).
     */
    const followsTask = ({ request: { spec }, becameTask }: RunningRequest) =>
      spec.kind === 'tool' && (becameTask === true || spec.taskId !== undefined || requiresTask(session?.manifest.tools.find((tool) => tool.name === spec.tool)));

    /**
     * A successful answer or a progress message that repeats an OAuth server's access token is
     * cleared of it too (session.ts); made once here, not per call, as it runs on every answer.
     */
    const withoutToken = <T>(answer: T): T => (session instanceof Session ? session.withoutAccessTokens(answer) : answer);

    let stopped = false;
    /** What the requests in flight get once the connection is lost: they are answered as this actor stops. */
    let lostWith: McpServerError | undefined;
    /**
     * Why the chart stops this actor, when it said: the server left the config (no load reaches it
     * again), its entry was switched off (until it is enabled) or its definition changed (it
     * reconnects by itself).
     */
    let stoppedBecause: 'removed' | 'switched off' | 'redefined' | undefined;
    const answerAt = eventRouteAnswers({ self, system, sendBack, chartListens: () => !stopped });
    const run = (request: PendingRequest, direct?: DirectAnswer, cancellable = true) => {
      const deliver = direct ?? answerAt(request.replyTo);
      const running: RunningRequest = { request, cancelSignal: cancellable ? new CancelSignal() : undefined, deliver };
      const { spec } = request;
      // Every call passes here, on either route, before the SDK serializes it (recursively).
      const unsendable = spec.kind === 'tool' ? unsendableArgumentsError(name, spec.tool, spec.arguments) : undefined;
      if (unsendable) {
        answer(running, failure(running, unsendable));
        return;
      }
      if (!session) {
        answer(running, failure(running, requestAbandonedError(name, 'disconnected')));
        return;
      }
      if (lostWith) {
        // The chart has yet to take in the loss (it was busy): answered with the others as it does.
        inFlight.add(running);
        return;
      }
      lastActivity = now();
      inFlight.add(running);
      const { options, requestId } = request;
      const timeoutMs = options?.timeoutMs ?? input.requestTimeoutMs;
      const requestOptions: McpRequestOptions = {
        signal: running.cancelSignal,
        timeoutMs,
        resetTimeoutOnProgress: options?.resetTimeoutOnProgress,
        maxTotalTimeoutMs: options?.maxTotalTimeoutMs,
        onTask: () => (running.becameTask = true),
        onProgress: options?.progress
          ? (progress) => deliver({ type: 'mcp.progress', requestId, server: name, ...withoutToken(progress) } satisfies McpProgressEvent)
          : undefined,
      };
      // Already answered when it was cancelled, the connection was lost or the chart moved on.
      const settle = (reply: McpFinalReply) => {
        if (!inFlight.delete(running)) return;
        if (reply.type !== 'mcp.failed') answeredRequest = true;
        answer(running, reply);
      };
      const fail = (error: unknown) =>
        settle(failure(running, withTimeLimit(session.failure(describeRequest(spec), error, requestOptions.signal), error, timeoutMs, options, input.requestTimeoutSource)));
      // One promise per request, answered in its own handlers: this is every call's path.
      if (spec.kind === 'tool') {
        session
          .callTool(spec.tool, spec.arguments, spec.taskId === undefined ? requestOptions : { ...requestOptions, taskId: spec.taskId })
          .then((result) => settle({ type: 'mcp.toolResult', requestId, server: name, result: withoutToken(redactToolError(result, secrets)) }), fail);
      } else if (spec.kind === 'resource') {
        session.readResource(spec.uri, requestOptions).then((result) => settle({ type: 'mcp.resource', requestId, server: name, contents: withoutToken(result.contents) }), fail);
      } else if (spec.kind === 'prompt') {
        session.getPrompt(spec.name, spec.arguments, requestOptions).then((prompt) => settle({ type: 'mcp.prompt', requestId, server: name, prompt: withoutToken(prompt) }), fail);
      } else if (spec.kind === 'complete') {
        session.complete(spec, requestOptions).then((result) => settle({ type: 'mcp.completion', requestId, server: name, result: withoutToken(result) }), fail);
      } else if (spec.kind === 'subscribe') {
        session.subscribeResource(spec.uri, requestOptions).then(() => settle({ type: 'mcp.resourceSubscribed', requestId, server: name, uri: spec.uri }), fail);
      } else {
        session.unsubscribeResource(spec.uri, requestOptions).then(() => settle({ type: 'mcp.resourceUnsubscribed', requestId, server: name, uri: spec.uri }), fail);
      }
    };

    /**
     * The caller gave up: answer at once; the abort makes the SDK send notifications/cancelled.
     * An abort listener that throws (a host handler's, given the signal) neither keeps the answer
     * back nor stops this actor: CancelSignal runs every listener and reports such a throw itself.
     */
    const cancel = (requestId: string, reason?: string) => {
      // Without a session nothing ever ran.
      if (!session) return;
      for (const running of inFlight) {
        if (running.request.requestId !== requestId) continue;
        inFlight.delete(running);
        running.cancelSignal?.abort(reason);
        // The session words it: the request may hold a value of the entry, which it redacts.
        const cancelled = running.cancelSignal ?? AbortSignal.abort(reason);
        answer(running, failure(running, session.failure(describeRequest(running.request.spec), reason, cancelled)));
      }
    };

    receive((event) => {
      if (event.type === 'RUN') run(event.request, event.answer, event.cancellable);
      else if (event.type === 'CANCEL') cancel(event.requestId, event.reason);
      else if (event.type === 'REMOVED') stoppedBecause = 'removed';
      else if (event.type === 'SWITCHED_OFF') stoppedBecause = 'switched off';
      else if (event.type === 'REDEFINED') stoppedBecause = 'redefined';
      else sendBack({ type: 'IDLE_ANSWER', inFlight: inFlight.size, idleForMs: inFlight.size > 0 ? 0 : now() - lastActivity });
    });
    for (const request of input.rereads) run(request);
    // The chart's subscriptions, on this new session (a first connect has none).
    if (input.subscriptions.length > 0) session?.resubscribe(input.subscriptions);

    const unwatch = session?.watch({
      onLost: (error, sessionExpired) => {
        const stderrTail = session?.stderrTail();
        lostWith = requestAbandonedError(name, sessionExpired ? 'expired' : 'lost', error, stderrTail);
        // Reads are safe to send again on a renewed session; a tool call may have had effects.
        const unfinishedReads: PendingRequest[] = [];
        if (sessionExpired) {
          for (const running of inFlight) {
            if (running.request.spec.kind !== 'resource') continue;
            inFlight.delete(running);
            unfinishedReads.push({ ...running.request, description: redact(describeRequest(running.request.spec), secrets) });
          }
        }
        // The chart leaves `connected` on this report and stops this actor, which answers the rest.
        sendBack({ type: 'CONNECTION_LOST', error, sessionExpired, answeredRequest, unfinishedReads, stderrTail });
      },
      onManifest: (manifest, changes) => sendBack({ type: 'MANIFEST_CHANGED', manifest, changes }),
      onNotification: (event) => sendBack({ type: 'NOTIFICATION', event }),
    });
    if (!session) {
      sendBack({ type: 'CONNECTION_LOST', error: new Error('the session is gone (a restored snapshot, or closed meanwhile)') });
    }

    /** Fails what is in flight (lost with the connection, or disconnected), straight to each caller, and ends the session. */
    const stop = () => {
      stopped = true;
      unwatch?.();
      const error = lostWith ?? stoppedError(name, stoppedBecause);
      // Emptied first: a caller that reacts to its answer by cancelling or calling again finds nothing left to answer twice.
      const unanswered = [...inFlight];
      inFlight.clear();
      for (const running of unanswered) {
        if (!lostWith) running.cancelSignal?.abort();
        answer(running, failure(running, error));
      }
      void session?.close();
    };
    const detach = deps.attach(server, {
      abandon: stop,
      countInFlight: () => inFlight.size,
      requestsInFlight: () => [...inFlight].map((running) => running.request),
    });
    // Leaving `connected` by any path, including the actor being stopped, ends the session.
    return () => {
      detach();
      stop();
    };
  });
}
