import { fromCallback } from 'xstate';
import { requestAbandonedError } from '../../machines/errors.js';
import type { PendingRequest, ServerEvent, SessionActorEvent, SessionActorInput } from '../../machines/server.machine.js';
import type { McpReply } from '../../machines/types.js';

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
  const inFlight = new Set<PendingRequest>();

  const replyFor = (request: PendingRequest, reply: Reply) => ({ ...reply, requestId: request.requestId, server: name }) as McpReply;
  const settle = (request: PendingRequest, reply: Reply) =>
    sendBack({ type: 'REQUEST_SETTLED', replyTo: request.replyTo, reply: replyFor(request, reply) });

  const run = (request: PendingRequest) => {
    inFlight.add(request);
    const { spec } = request;
    const operation =
      spec.kind === 'tool'
        ? session.callTool(spec.tool, spec.arguments, { timeoutMs: spec.timeoutMs }).then(
            (result): Reply => ({ type: 'mcp.toolResult', result }),
          )
        : session.readResource(spec.uri).then((result): Reply => ({ type: 'mcp.resource', contents: result.contents }));
    operation
      .catch((error: unknown): Reply => ({ type: 'mcp.failed', error: error instanceof Error ? error : new Error(String(error)) }))
      .then((reply) => {
        // Already answered when the connection was lost or the chart moved on.
        if (inFlight.delete(request)) settle(request, reply);
      });
  };

  receive((event) => run(event.request));
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
      request.replyTo.send(replyFor(request, { type: 'mcp.failed', error: requestAbandonedError(name, 'disconnected') }));
    }
    inFlight.clear();
    // Leaving `connected` by any path, including the actor being stopped, ends the session.
    void session.close();
  };
});
