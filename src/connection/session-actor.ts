import { fromCallback } from 'xstate';
import { abortError, describeRequest, requestAbandonedError } from '../../machines/errors.js';
import type { PendingRequest, ServerEvent, SessionActorEvent, SessionActorInput } from '../../machines/server.machine.js';
import type { McpReply, McpRequestOptions } from '../../machines/types.js';
import { toError } from '../to-error.js';

interface RunningRequest extends PendingRequest {
  controller: AbortController;
}

type Reply = McpReply extends infer R ? (R extends { requestId: string } ? Omit<R, 'requestId' | 'server'> : never) : never;

/**
 * The chart's `session` actor, alive while connected. It runs each request the chart hands it
 * and sends the answer back for the chart to deliver, so a request in flight costs the chart
 * a counter, not an actor of its own. Loss and list_changed go back to the chart as events.
 * Whatever is still in flight when it stops (the chart left `connected`) is failed at once,
 * straight to its `replyTo` since the chart no longer listens: no request is replayed silently.
 */
export const sessionActor = fromCallback<SessionActorEvent, SessionActorInput, ServerEvent>(({ input, sendBack, receive }) => {
  const { name, session } = input;
  const inFlight = new Set<RunningRequest>();

  const replyFor = (request: PendingRequest, reply: Reply) => ({ ...reply, requestId: request.requestId, server: name }) as McpReply;
  const settle = (request: PendingRequest, reply: Reply) =>
    sendBack({ type: 'REQUEST_SETTLED', replyTo: request.replyTo, reply: replyFor(request, reply) });

  const run = (request: PendingRequest) => {
    const running: RunningRequest = { ...request, controller: new AbortController() };
    inFlight.add(running);
    const { spec, options = {}, replyTo, requestId } = request;
    const requestOptions: McpRequestOptions = {
      signal: running.controller.signal,
      timeoutMs: options.timeoutMs ?? input.requestTimeoutMs,
      resetTimeoutOnProgress: options.resetTimeoutOnProgress,
      maxTotalTimeoutMs: options.maxTotalTimeoutMs,
      onProgress: options.progress ? (progress) => replyTo.send({ type: 'mcp.progress', requestId, server: name, ...progress }) : undefined,
    };
    const operation: Promise<Reply> =
      spec.kind === 'tool'
        ? session.callTool(spec.tool, spec.arguments, requestOptions).then((result) => ({ type: 'mcp.toolResult', result }))
        : spec.kind === 'resource'
          ? session.readResource(spec.uri, requestOptions).then((result) => ({ type: 'mcp.resource', contents: result.contents }))
          : session.getPrompt(spec.name, spec.arguments, requestOptions).then((prompt) => ({ type: 'mcp.prompt', prompt }));
    operation
      .catch((error: unknown): Reply => ({ type: 'mcp.failed', error: toError(error) }))
      .then((reply) => {
        // Already answered when it was cancelled, the connection was lost or the chart moved on.
        if (inFlight.delete(running)) settle(request, reply);
      });
  };

  /** The caller gave up: answer at once; the abort makes the SDK send notifications/cancelled. */
  const cancel = (requestId: string, reason?: string) => {
    for (const running of inFlight) {
      if (running.requestId !== requestId) continue;
      inFlight.delete(running);
      running.controller.abort(reason);
      settle(running, { type: 'mcp.failed', error: abortError(name, describeRequest(running.spec), reason) });
    }
  };

  receive((event) => (event.type === 'RUN' ? run(event.request) : cancel(event.requestId, event.reason)));
  for (const request of input.carried) run(request);

  const unwatch = session.watch({
    onLost: (error, sessionExpired) => {
      // Reads are safe to send again on a renewed session; a tool call may have had effects.
      const unfinishedReads: PendingRequest[] = [];
      for (const request of inFlight) {
        if (sessionExpired && request.spec.kind === 'resource') unfinishedReads.push(request);
        else settle(request, { type: 'mcp.failed', error: requestAbandonedError(name, sessionExpired ? 'expired' : 'lost', error) });
      }
      inFlight.clear();
      sendBack({ type: 'CONNECTION_LOST', error, sessionExpired, unfinishedReads });
    },
    onManifest: (manifest) => sendBack({ type: 'MANIFEST_CHANGED', manifest }),
  });

  return () => {
    unwatch();
    for (const request of inFlight) {
      request.controller.abort();
      request.replyTo.send(replyFor(request, { type: 'mcp.failed', error: requestAbandonedError(name, 'disconnected') }));
    }
    inFlight.clear();
    // Leaving `connected` by any path, including the actor being stopped, ends the session.
    void session.close();
  };
});
