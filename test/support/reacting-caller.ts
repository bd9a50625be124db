import { assertEvent, assign, createActor, enqueueActions, sendTo, setup, type Actor } from 'xstate';
import type { McpRegistryInput, McpReply, McpServerConfig } from '../../machines/types.js';
import type { RegistryLogic } from '../../src/registry-logic.js';
import { serverSystemId } from '../../machines/registry.machine.js';
import type { Ask } from './embedder.js';

/**
 * What the caller does, in the same step as it hears that its call lost the connection
 * (`mcp.failed` with code `CONNECTION_LOST`): load the server again and, once loaded, call again;
 * disconnect the server; call again at once; or nothing.
 */
export type Reaction = 'reload' | 'disconnect' | 'retry' | 'none';

/** A tool call the caller makes again after a loss. */
export interface CallAgain {
  server: string;
  tool: string;
  arguments?: Record<string, unknown>;
}

export interface ReactingCallerInput {
  servers: Record<string, McpServerConfig>;
  reaction: Reaction;
  again: CallAgain;
}

interface ReactingCallerContext {
  input: ReactingCallerInput;
  /** Every reply, in the order it came. */
  replies: McpReply[];
  /** The server chart's state value at the moment each loss was heard. */
  serverStateWhenLost: unknown[];
  losses: number;
}

function isConnectionLost(reply: McpReply): boolean {
  return reply.type === 'mcp.failed' && 'code' in reply.error && reply.error.code === 'CONNECTION_LOST';
}

/**
 * An agent chart that invokes `registry` as `mcp` and reacts to a lost connection synchronously
 * (`Reaction`), the way a chart written with XState reacts: in the transition that receives the
 * reply. It keeps every reply, and the server's state when each loss was heard.
 */
export function reactingCaller(registry: RegistryLogic) {
  return setup({
    types: {
      events: {} as Ask | McpReply,
      context: {} as ReactingCallerContext,
      input: {} as ReactingCallerInput,
      children: {} as { mcp: 'mcp' },
    },
    actors: { mcp: registry },
    guards: {
      // Only the first loss: a caller that reloads after every loss would loop for as long as loads are answered from a dead session.
      'first loss': ({ context, event }) => event.type !== 'ask' && isConnectionLost(event) && context.losses === 0,
      'lost the connection': ({ event }) => event.type !== 'ask' && isConnectionLost(event),
      'loaded again after a loss': ({ event }) => event.type === 'mcp.loaded' && event.requestId.startsWith('reload-'),
    },
    actions: {
      'keep reply': assign({
        replies: ({ context, event }) => (event.type === 'ask' ? context.replies : [...context.replies, event]),
      }),
      'note the server state': assign(({ context, system }) => ({
        losses: context.losses + 1,
        serverStateWhenLost: [...context.serverStateWhenLost, system.get(serverSystemId(context.input.again.server))?.getSnapshot().value],
      })),
      react: enqueueActions(({ context, enqueue, self }) => {
        const { reaction, again } = context.input;
        if (reaction === 'reload') enqueue.sendTo('mcp', { type: 'mcp.load', server: again.server, replyTo: self, requestId: 'reload-1' });
        if (reaction === 'disconnect') enqueue.sendTo('mcp', { type: 'mcp.disconnect', server: again.server });
        if (reaction === 'retry') enqueue.sendTo('mcp', { type: 'mcp.callTool', ...again, replyTo: self, requestId: 'retry-1' });
      }),
      'call again': sendTo('mcp', ({ context, event, self }) => {
        assertEvent(event, 'mcp.loaded');
        return { type: 'mcp.callTool' as const, ...context.input.again, replyTo: self, requestId: `again-${event.requestId}` };
      }),
    },
  }).createMachine({
    context: ({ input }) => ({ input, replies: [], serverStateWhenLost: [], losses: 0 }),
    invoke: { id: 'mcp', src: 'mcp', input: ({ context }) => ({ servers: context.input.servers }) },
    on: {
      ask: {
        actions: sendTo('mcp', ({ event }) => {
          assertEvent(event, 'ask');
          return event.request;
        }),
      },
      '*': [
        { guard: 'first loss', actions: ['keep reply', 'note the server state', 'react'] },
        { guard: 'lost the connection', actions: ['keep reply', 'note the server state'] },
        { guard: 'loaded again after a loss', actions: ['keep reply', 'call again'] },
        { actions: 'keep reply' },
      ],
    },
  });
}

export type ReactingCaller = Actor<ReturnType<typeof reactingCaller>>;

export function startReactingCaller(registry: RegistryLogic, input: ReactingCallerInput, options: Parameters<typeof createActor>[1] = {}): ReactingCaller {
  return createActor(reactingCaller(registry), { ...options, input }).start();
}

/** Sends the registry a request through the caller, with the caller as `replyTo`. */
export function ask(caller: ReactingCaller, request: McpRegistryInput): void {
  caller.send({ type: 'ask', request });
}

/** The final replies (progress left out) each request id got, in order. */
export function repliesById(caller: ReactingCaller): Map<string, McpReply[]> {
  const byId = new Map<string, McpReply[]>();
  for (const reply of caller.getSnapshot().context.replies) {
    if ((reply as { type: string }).type === 'mcp.progress') continue;
    byId.set(reply.requestId, [...(byId.get(reply.requestId) ?? []), reply]);
  }
  return byId;
}

/** Request ids that got more than one final reply. */
export function answeredTwice(caller: ReactingCaller): string[] {
  return [...repliesById(caller)].filter(([, replies]) => replies.length > 1).map(([id]) => id);
}
