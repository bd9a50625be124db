/**
 * The requests a server runs on its session, in one table: each kind of the server chart's
 * request spec and the registry protocol event that asks for it. The registry reads an event into
 * a spec (`requestSpecOf`), the manager's event route writes a spec back into an event
 * (`requestEventOf`), and the registry's request guards take the events (`REQUEST_EVENTS`).
 */
import type { AnyActorRef } from 'xstate';
import type { McpRequestEvent, McpRequestFields, RequestSpec } from './types.js';

export const REQUEST_EVENT_OF = {
  tool: 'mcp.callTool',
  resource: 'mcp.readResource',
  prompt: 'mcp.getPrompt',
  subscribe: 'mcp.subscribeResource',
  unsubscribe: 'mcp.unsubscribeResource',
  complete: 'mcp.complete',
} as const satisfies Record<RequestSpec['kind'], McpRequestEvent['type']>;

/** The protocol's requests that run on a connected server's session. */
export const REQUEST_EVENTS = Object.values(REQUEST_EVENT_OF);

/** What a request event of the protocol asks the server to do. */
export function requestSpecOf(event: McpRequestEvent): RequestSpec {
  switch (event.type) {
    case REQUEST_EVENT_OF.tool:
      return { kind: 'tool', tool: event.tool, arguments: event.arguments, taskId: event.taskId };
    case REQUEST_EVENT_OF.resource:
      return { kind: 'resource', uri: event.uri };
    case REQUEST_EVENT_OF.prompt:
      return { kind: 'prompt', name: event.name, arguments: event.arguments };
    case REQUEST_EVENT_OF.subscribe:
      return { kind: 'subscribe', uri: event.uri };
    case REQUEST_EVENT_OF.unsubscribe:
      return { kind: 'unsubscribe', uri: event.uri };
    case REQUEST_EVENT_OF.complete:
      return { kind: 'complete', ref: event.ref, argument: event.argument, context: event.context };
  }
}

/** The protocol event that asks `server` for `spec`, answered at `replyTo`: `requestSpecOf` the other way. */
export function requestEventOf(
  server: string,
  { replyTo, requestId, spec, options }: { replyTo: AnyActorRef; requestId: string; spec: RequestSpec; options?: McpRequestFields },
): McpRequestEvent {
  const common = { server, replyTo, requestId, ...options };
  switch (spec.kind) {
    case 'tool':
      return { type: REQUEST_EVENT_OF.tool, tool: spec.tool, arguments: spec.arguments, taskId: spec.taskId, ...common };
    case 'resource':
      return { type: REQUEST_EVENT_OF.resource, uri: spec.uri, ...common };
    case 'prompt':
      return { type: REQUEST_EVENT_OF.prompt, name: spec.name, arguments: spec.arguments, ...common };
    case 'subscribe':
      return { type: REQUEST_EVENT_OF.subscribe, uri: spec.uri, ...common };
    case 'unsubscribe':
      return { type: REQUEST_EVENT_OF.unsubscribe, uri: spec.uri, ...common };
    case 'complete':
      return { type: REQUEST_EVENT_OF.complete, ref: spec.ref, argument: spec.argument, context: spec.context, ...common };
  }
}
